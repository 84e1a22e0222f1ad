#include "isoflops/LadderImportDialog.h"
#include "Text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include "SliderSpin.h"

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
    : QDialog(parent), text_(std::move(text)), source_(source.toStdString()) {
  setObjectName(QStringLiteral("ladderImportDialog"));
  setWindowTitle(tr("Load ladder CSV — %1").arg(QFileInfo(source).fileName()));
  preview_ = preview_csv_ladder(text_, source_, 8);
  auto* root = new QVBoxLayout(this);

  // The first rows as they are in the file.
  auto* head = new QLabel(tr("%1: %2 data rows. The first rows:")
                              .arg(QFileInfo(source).fileName())
                              .arg(preview_.data_rows),
                          this);
  root->addWidget(head);
  table_ = new QTableWidget(this);
  table_->setObjectName(QStringLiteral("csvPreview"));
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
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setMinimumHeight(150);
  root->addWidget(table_, 1);

  // Which column is what, in which unit.
  auto* mapping = new QGroupBox(tr("Columns (guessed from the header; change any)"), this);
  auto* form = new QFormLayout(mapping);
  n_ = columnCombo(false);
  n_->setObjectName(QStringLiteral("mapN"));
  n_scale_ = scaleBox();
  auto row = [mapping](QWidget* a, QWidget* b, QWidget* c = nullptr) {
    auto* w = new QWidget(mapping);
    auto* h = new QHBoxLayout(w);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(a, 1);
    if (b) h->addWidget(b);
    if (c) h->addWidget(c);
    return w;
  };
  auto times = [this] { return new QLabel(tr("×"), this); };
  form->addRow(tr("Parameters N"), row(n_, times(), n_scale_));
  tokens_ = columnCombo(false);
  tokens_->setObjectName(QStringLiteral("mapTokens"));
  tokens_kind_ = new QComboBox(this);
  tokens_kind_->setObjectName(QStringLiteral("tokensKind"));
  tokens_kind_->addItem(tr("tokens D"), qs(to_string(TokensKind::tokens)));
  tokens_kind_->addItem(tr("training FLOPs C (D = C/6N)"), qs(to_string(TokensKind::flops)));
  tokens_scale_ = scaleBox();
  form->addRow(tr("Tokens or compute"), row(tokens_, tokens_kind_, tokens_scale_));
  loss_ = columnCombo(false);
  loss_->setObjectName(QStringLiteral("mapLoss"));
  loss_unit_ = new QComboBox(this);
  loss_unit_->setObjectName(QStringLiteral("lossUnit"));
  loss_unit_->addItem(tr("nats/token"), qs(to_string(LossUnit::nats)));
  loss_unit_->addItem(tr("bits/token"), qs(to_string(LossUnit::bits)));
  form->addRow(tr("Final loss"), row(loss_, loss_unit_));
  budget_ = columnCombo(true);
  budget_->setObjectName(QStringLiteral("mapBudget"));
  budget_scale_ = scaleBox();
  form->addRow(tr("IsoFLOPs budget (optional)"), row(budget_, times(), budget_scale_));
  cut_on_ = new QCheckBox(tr("Leave out runs with loss at or above"), this);
  cut_on_->setObjectName(QStringLiteral("cutEnabled"));
  cut_on_->setChecked(cut.enabled);
  cut_value_ = new QDoubleSpinBox(this);
  cut_value_->setObjectName(QStringLiteral("cutValue"));
  cut_value_->setDecimals(4);
  cut_value_->setRange(0.0001, 100);
  cut_value_->setValue(cut.max_loss);
  cut_value_->setSuffix(tr(" nats"));
  form->addRow(tr("Loss cut"), row(cut_on_, cut_value_));
  root->addWidget(mapping);
  for (const std::string& n : preview_.notes) root->addWidget(new QLabel(qs(n), this));

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

  summary_ = new QLabel(this);
  summary_->setObjectName(QStringLiteral("importSummary"));
  summary_->setWordWrap(true);
  root->addWidget(summary_);
  skipped_ = new QPlainTextEdit(this);
  skipped_->setObjectName(QStringLiteral("skippedRows"));
  skipped_->setReadOnly(true);
  skipped_->setMaximumHeight(120);
  skipped_->setAccessibleName(tr("Rows that will be skipped"));
  root->addWidget(skipped_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons_->button(QDialogButtonBox::Ok)->setText(tr("Load ladder"));
  connect(buttons_, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  root->addWidget(buttons_);

  for (QComboBox* c : {n_, tokens_, tokens_kind_, loss_, loss_unit_, budget_})
    connect(c, &QComboBox::currentIndexChanged, this, &LadderImportDialog::reimport);
  for (QDoubleSpinBox* s : {n_scale_, tokens_scale_, budget_scale_, cut_value_})
    connect(s, &QDoubleSpinBox::valueChanged, this, &LadderImportDialog::reimport);
  connect(cut_on_, &QCheckBox::toggled, this, [this](bool on) {
    cut_value_->setEnabled(on);
    reimport();
  });
  cut_value_->setEnabled(cut.enabled);
  resize(720, 640);
  reimport();
}

QComboBox* LadderImportDialog::columnCombo(bool optional) {
  auto* c = new QComboBox(this);
  c->addItem(optional ? tr("(none)") : tr("(choose a column)"), QString());
  for (const std::string& h : preview_.header) c->addItem(qs(h), qs(h));
  return c;
}

QDoubleSpinBox* LadderImportDialog::scaleBox() {
  auto* s = new SciSpinBox(this);
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

void LadderImportDialog::reimport() {
  import_.reset();
  error_.clear();
  const LadderColumns c = columns();
  QStringList missing;
  if (c.n_params.empty()) missing << tr("parameters N");
  if (c.tokens.empty()) missing << tr("tokens D or compute C");
  if (c.loss.empty()) missing << tr("loss");
  if (!missing.isEmpty()) {
    error_ = tr("Choose a column for %1.").arg(missing.join(tr(", ")));
  } else {
    try {
      import_ = import_csv_ladder(text_, source_, c, lossCut());
    } catch (const std::invalid_argument& e) {
      error_ = qs(std::string(e.what()));
    }
  }
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
