#include "isoflops/LadderImportDialog.h"
#include "Text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFutureWatcher>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QtConcurrent/QtConcurrentRun>
#include <stdexcept>

#include "SliderSpin.h"
#include "ui_LadderImportDialog.h"

namespace napkin {

namespace {

void select(QComboBox* c, const QVariant& data) {
  const int i = c->findData(data);
  if (i >= 0) c->setCurrentIndex(i);
}

QString rowLine(const CsvSkippedRow& r) {
  return QCoreApplication::translate("napkin::LadderImportDialog", "line %1: %2 — %3")
      .arg(r.line)
      .arg(qs(to_string(r.reason)), qs(r.message));
}

}  // namespace

LadderImportDialog::LadderImportDialog(std::string text, const QString& source, const LossCut& cut,
                                       QWidget* parent)
    : QDialog(parent),
      text_(std::make_shared<const std::string>(std::move(text))),
      source_(source.toStdString()) {
  // The frame is the form ui/LadderImportDialog.ui; what the file holds is filled in here.
  Ui::LadderImportDialog ui;
  ui.setupUi(this);
  file_name_ = QFileInfo(source).fileName();
  setWindowTitle(tr("Load ladder CSV — %1").arg(file_name_));
  // The first rows only: the whole file is the import's, off the UI thread.
  preview_ = preview_csv_ladder(*text_, source_, 8);

  // The first rows as they are in the file; the count once the import has read them all.
  head_ = ui.head;
  if (preview_.data_rows)
    head_->setText(
        tr("%1: %2 data rows. The first rows:").arg(file_name_).arg(*preview_.data_rows));
  else
    head_->setText(tr("%1: the first rows:").arg(file_name_));
  table_ = ui.csvPreview;
  table_->setColumnCount(static_cast<int>(preview_.header.size()));
  table_->setRowCount(static_cast<int>(preview_.rows.size()));
  QStringList header;
  for (const std::string& h : preview_.header) header << qs(h);
  table_->setHorizontalHeaderLabels(header);
  QStringList lines;
  for (std::size_t r = 0; r < preview_.rows.size(); ++r) {
    lines << QString::number(preview_.rows[r].line);
    for (std::size_t c = 0; c < preview_.rows[r].fields.size(); ++c)
      table_->setItem(static_cast<int>(r), static_cast<int>(c),
                      new QTableWidgetItem(qs(preview_.rows[r].fields[c])));
  }
  table_->setVerticalHeaderLabels(lines);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);

  // Which column is what, in which unit.
  n_ = fillColumns(ui.mapN, false);
  tokens_ = fillColumns(ui.mapTokens, false);
  loss_ = fillColumns(ui.mapLoss, false);
  budget_ = fillColumns(ui.mapBudget, true);
  n_scale_ = setUpScale(ui.nScale);
  tokens_scale_ = setUpScale(ui.tokensScale);
  budget_scale_ = setUpScale(ui.budgetScale);
  tokens_kind_ = ui.tokensKind;
  tokens_kind_->addItem(tr("tokens D"), qs(to_string(TokensKind::tokens)));
  tokens_kind_->addItem(tr("training FLOPs C (D = C/6N)"), qs(to_string(TokensKind::flops)));
  loss_unit_ = ui.lossUnit;
  loss_unit_->addItem(tr("nats/token"), qs(to_string(LossUnit::nats)));
  loss_unit_->addItem(tr("bits/token"), qs(to_string(LossUnit::bits)));
  cut_on_ = ui.cutEnabled;
  cut_on_->setChecked(cut.enabled);
  cut_value_ = ui.cutValue;
  cut_value_->setValue(cut.max_loss);
  int at = ui.root->indexOf(ui.mapping);
  for (const std::string& n : preview_.notes) ui.root->insertWidget(++at, new QLabel(qs(n), this));

  // The guess.
  const LadderColumns& g = preview_.guess;
  select(n_, qs(g.n_params));
  select(tokens_, qs(g.tokens));
  select(loss_, qs(g.loss));
  select(budget_, qs(g.budget));
  select(tokens_kind_, qs(to_string(g.tokens_kind)));
  select(loss_unit_, qs(to_string(g.loss_unit)));
  n_scale_->setValue(g.n_params_scale);
  tokens_scale_->setValue(g.tokens_scale);
  budget_scale_->setValue(g.budget_scale);

  summary_ = ui.importSummary;
  skipped_ = ui.skippedRows;
  buttons_ = ui.buttons;
  buttons_->button(QDialogButtonBox::Ok)->setText(tr("Load ladder"));
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(this, &QDialog::finished, this, &LadderImportDialog::stopImport);
  // The parse's progress, four times a second while it runs.
  progress_.setInterval(250);
  connect(&progress_, &QTimer::timeout, this, [this] {
    if (!job_) return;
    const std::int64_t total = job_->total, done = job_->done;
    summary_->setText(total > 0 ? tr("Reading the rows of %1… %2 %")
                                      .arg(file_name_)
                                      .arg(static_cast<int>(100 * done / total))
                                : tr("Reading the rows of %1…").arg(file_name_));
  });

  for (QComboBox* c : {n_, tokens_, tokens_kind_, loss_, loss_unit_, budget_})
    connect(c, &QComboBox::currentIndexChanged, this, &LadderImportDialog::reimport);
  for (QDoubleSpinBox* s : {n_scale_, tokens_scale_, budget_scale_, cut_value_})
    connect(s, &QDoubleSpinBox::valueChanged, this, &LadderImportDialog::reimport);
  connect(cut_on_, &QCheckBox::toggled, this, [this](bool on) {
    cut_value_->setEnabled(on);
    reimport();
  });
  cut_value_->setEnabled(cut.enabled);
  reimport();
}

QComboBox* LadderImportDialog::fillColumns(QComboBox* c, bool optional) {
  c->addItem(optional ? tr("(none)") : tr("(choose a column)"), QString());
  for (const std::string& h : preview_.header) c->addItem(qs(h), qs(h));
  return c;
}

QDoubleSpinBox* LadderImportDialog::setUpScale(SciSpinBox* s) {
  s->setScientific(true);
  s->setRange(1e-12, 1e30);
  s->setAcceptedRange(1e-12, 1e30);
  s->setValue(1);
  s->setToolTip(
      tr("Multiplies the column's numbers into parameters, tokens or FLOPs (1e6 for a "
         "column in millions)."));
  s->setMinimumWidth(70);
  return s;
}

LadderColumns LadderImportDialog::columns() const {
  LadderColumns c;
  c.n_params = n_->currentData().toString().toStdString();
  c.n_params_scale = n_scale_->value();
  c.tokens = tokens_->currentData().toString().toStdString();
  c.tokens_kind = parse_tokens_kind(tokens_kind_->currentData().toString().toStdString());
  c.tokens_scale = tokens_scale_->value();
  c.loss = loss_->currentData().toString().toStdString();
  c.loss_unit = parse_loss_unit(loss_unit_->currentData().toString().toStdString());
  c.budget = budget_->currentData().toString().toStdString();
  c.budget_scale = budget_scale_->value();
  return c;
}

LossCut LadderImportDialog::lossCut() const { return {cut_on_->isChecked(), cut_value_->value()}; }

LadderImportDialog::~LadderImportDialog() { stopImport(); }

void LadderImportDialog::stopImport() {
  if (job_) job_->stop = true;
  job_.reset();
  ++generation_;  // a result still on its way is dropped
  progress_.stop();
}

namespace {

struct ImportOutcome {
  std::optional<CsvImport> import;
  QString error;
  bool stopped = false;
};

}  // namespace

void LadderImportDialog::reimport() {
  stopImport();
  import_.reset();
  error_.clear();
  const LadderColumns c = columns();
  QStringList missing;
  if (c.n_params.empty()) missing << tr("parameters N");
  if (c.tokens.empty()) missing << tr("tokens D or compute C");
  if (c.loss.empty()) missing << tr("loss");
  if (!missing.isEmpty()) {
    error_ = tr("Choose a column for %1.").arg(missing.join(tr(", ")));
    showImport();
    return;
  }
  // The whole text on a worker; the dialog answers meanwhile, OK waits.
  auto job = std::make_shared<Job>();
  job_ = job;
  const std::uint64_t generation = generation_;
  QFuture<ImportOutcome> future =
      QtConcurrent::run([job, text = text_, source = source_, c, cut = lossCut()] {
        ImportOutcome out;
        try {
          out.import = import_csv_ladder(*text, source, c, cut,
                                         [job](std::int64_t done, std::int64_t total) {
                                           job->done = done;
                                           job->total = total;
                                           return !job->stop.load();
                                         });
        } catch (const csv::Stopped&) {
          out.stopped = true;
        } catch (const std::exception& e) {
          out.error = QString::fromStdString(e.what());
        }
        return out;
      });
  auto* watcher = new QFutureWatcher<ImportOutcome>(this);
  connect(watcher, &QFutureWatcher<ImportOutcome>::finished, this, [this, watcher, generation] {
    watcher->deleteLater();
    if (generation != generation_) return;  // a newer mapping, or closed
    ImportOutcome out = watcher->result();
    job_.reset();
    progress_.stop();
    if (out.stopped) return;
    import_ = std::move(out.import);
    error_ = out.error;
    showImport();
  });
  watcher->setFuture(future);
  summary_->setText(tr("Reading the rows of %1…").arg(file_name_));
  summary_->setStyleSheet(QString());
  skipped_->clear();
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(false);
  progress_.start();
}

void LadderImportDialog::showImport() {
  if (import_)
    head_->setText(
        tr("%1: %2 data rows. The first rows:").arg(file_name_).arg(import_->ladder.data_rows));
  summary_->setText(summary());
  summary_->setStyleSheet(import_ && import_->usable() ? QString()
                                                       : QStringLiteral("color: #c62828;"));
  skipped_->setPlainText(skippedText());
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(import_ && import_->usable());
}

QString LadderImportDialog::summary() const {
  if (!import_) return error_;
  const CsvImport& i = *import_;
  QString s = tr("%1 of %2 rows will be loaded as runs; skipped: %3 unreadable, %4 over the loss "
                 "cut.")
                  .arg(i.kept())
                  .arg(i.ladder.data_rows)
                  .arg(i.skipped.size())
                  .arg(i.over_loss_cut.size());
  if (!i.usable()) s += QLatin1Char(' ') + qs(i.problem()) + QLatin1Char('.');
  return s;
}

QString LadderImportDialog::skippedText() const {
  if (!import_) return {};
  QStringList lines;
  for (const CsvSkippedRow& r : import_->skipped) lines << rowLine(r);
  for (const CsvSkippedRow& r : import_->over_loss_cut) lines << rowLine(r);
  return lines.join(QLatin1Char('\n'));
}

}  // namespace napkin
