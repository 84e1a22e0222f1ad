#include "parallel/CalibrateRunsDialog.h"
#include "Text.h"

#include <QDialogButtonBox>
#include <QEventLoop>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <stdexcept>

#include "atomic_writer.h"
#include "format.h"
#include "parallel/ParallelReadouts.h"
#include "parallel/plots/ResidualPlot.h"
#include "parallel_for.h"

namespace napkin {

namespace {

enum Column { kRun, kChips, kLayout, kMeasured, kPublished, kCalibrated, kLeaveOneOut, kColumns };

QTableWidgetItem* cell(const QString& text) {
  auto* item = new QTableWidgetItem(text);
  item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
  return item;
}

// "TP 2 · PP 4 · DP 1 · mb 2": the axes that split the run, short enough for
// its column; the whole layout (ZeRO, recompute, …) is the cell's tooltip.
QTableWidgetItem* layoutCell(const Layout& l) {
  QTableWidgetItem* item =
      cell(qs(layout_axes_text(l)) + QStringLiteral(" · mb %1").arg(l.micro_batch));
  item->setToolTip(qs(to_string(l)));
  return item;
}

// "14.2 ms (+3.1 %)": a prediction and its error against the measurement.
QString predicted(double seconds, double measured) {
  return qs(format_seconds(seconds)) +
         QStringLiteral(" (%1%2 %)")
             .arg(seconds >= measured ? QStringLiteral("+") : QString())
             .arg(100.0 * (seconds / measured - 1.0), 0, 'f', 1);
}

}  // namespace

CalibrateRunsDialog::CalibrateRunsDialog(std::optional<Network> network, QWidget* parent)
    : QDialog(parent), network_(std::move(network)) {
  setWindowTitle(tr("Calibrate on measured runs"));
  auto* v = new QVBoxLayout(this);
  auto* form = new QFormLayout;
  auto* file_row = new QHBoxLayout;
  path_ = new QLineEdit(this);
  path_->setObjectName(QStringLiteral("calibrateRunsPath"));
  path_->setReadOnly(true);
  auto* browse = new QPushButton(tr("Choose…"), this);
  file_row->addWidget(path_, 1);
  file_row->addWidget(browse);
  form->addRow(tr("Runs file or log"), file_row);
  defaults_ = new QLineEdit(this);
  defaults_->setObjectName(QStringLiteral("calibrateRunsDefaults"));
  defaults_->setPlaceholderText(tr("columns the file lacks: chip=A100-80, vocab=50304"));
  form->addRow(tr("For every row"), defaults_);
  v->addLayout(form);

  table_ = new QTableWidget(0, kColumns, this);
  table_->setObjectName(QStringLiteral("calibrateRunsTable"));
  table_->setHorizontalHeaderLabels({tr("Run"), tr("Chips"), tr("Layout"), tr("Measured step"),
                                     tr("Published"), tr("Calibrated"), tr("Leave-one-out")});
  table_->verticalHeader()->setVisible(false);
  table_->horizontalHeader()->setStretchLastSection(true);
  // Every column as wide as its longest cell, on one line ("481 ms (+0.6 %)"
  // was wrapped and cut at 860 px); the last takes what is left.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->setWordWrap(false);
  table_->setMinimumHeight(160);
  v->addWidget(table_, 2);
  skipped_ = new QPlainTextEdit(this);
  skipped_->setObjectName(QStringLiteral("calibrateRunsSkipped"));
  skipped_->setReadOnly(true);
  skipped_->setMaximumHeight(70);
  skipped_->setPlaceholderText(tr("Rows skipped, with the reason"));
  v->addWidget(skipped_);
  plot_ = new ResidualPlot(this);
  plot_->setMinimumHeight(220);
  v->addWidget(plot_, 3);

  auto* actions = new QHBoxLayout;
  calibrate_ = new QPushButton(tr("Calibrate"), this);
  calibrate_->setEnabled(false);
  cancel_ = new QPushButton(tr("Cancel fit"), this);
  cancel_->setEnabled(false);
  busy_ = new QProgressBar(this);
  busy_->setRange(0, 0);  // indeterminate: the fit's evaluations are not known ahead
  busy_->setMaximumWidth(90);
  busy_->setVisible(false);
  status_ = new QLabel(this);
  status_->setObjectName(QStringLiteral("calibrateRunsStatus"));
  status_->setWordWrap(true);
  save_ = new QPushButton(tr("Save profile and use it…"), this);
  save_->setEnabled(false);
  actions->addWidget(calibrate_);
  actions->addWidget(cancel_);
  actions->addWidget(busy_);
  actions->addWidget(status_, 1);
  actions->addWidget(save_);
  v->addLayout(actions);
  auto* box = new QDialogButtonBox(QDialogButtonBox::Close, this);
  v->addWidget(box);
  // Enter commits a typed value (the columns for every row, a cell) and
  // presses nothing: as default buttons, "Choose…" opened the file chooser,
  // "Calibrate" started the fit of every run read (1,440 for vTrain's file)
  // and "Close" closed the dialog. Buttons take a click or Space.
  for (QPushButton* button : findChildren<QPushButton*>()) {
    button->setAutoDefault(false);
    button->setDefault(false);
  }
  resize(860, 720);

  connect(box, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(browse, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Measured runs"), QString(),
        tr("Runs CSV or training log (*.csv *.log *.txt);;All files (*)"));
    if (path.isEmpty()) return;
    const QString error = openRuns(path);
    if (!error.isEmpty()) status_->setText(error);
  });
  // Columns typed after the file was chosen apply to it at once (Enter or leaving the box).
  connect(defaults_, &QLineEdit::editingFinished, this, [this] {
    if (chosen_.isEmpty() || running_) return;
    const QString error = openRuns(chosen_);
    if (!error.isEmpty()) status_->setText(error);
  });
  connect(calibrate_, &QPushButton::clicked, this, &CalibrateRunsDialog::calibrate);
  connect(cancel_, &QPushButton::clicked, this, &CalibrateRunsDialog::cancel);
  connect(save_, &QPushButton::clicked, this, [this] {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save cluster profile"),
                                                      QStringLiteral("cluster.profile.json"),
                                                      tr("Cluster profiles (*.json)"));
    if (path.isEmpty()) return;
    const QString error = saveProfile(path);
    if (error.isEmpty())
      accept();
    else
      status_->setText(error);
  });
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &CalibrateRunsDialog::finished);
}

CalibrateRunsDialog::~CalibrateRunsDialog() {
  cancel();
  watcher_.waitForFinished();
}

void CalibrateRunsDialog::setDefaults(const QString& text) { defaults_->setText(text); }

QString CalibrateRunsDialog::openRuns(const QString& path) {
  RunDefaults defaults;
  for (const QString& item : defaults_->text().split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    const qsizetype eq = item.indexOf(QLatin1Char('='));
    if (eq <= 0) return tr("For every row: \"%1\" is not column=value").arg(item.trimmed());
    defaults[item.left(eq).trimmed().toStdString()] = item.mid(eq + 1).trimmed().toStdString();
  }
  // Remembered even when it cannot be read: the columns given for every row
  // may be what it lacks, and editing them reads it again.
  chosen_ = path;
  try {
    runs_ = load_runs_file(path.toStdString(), defaults);
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());  // the preview keeps the runs it had
  }
  path_->setText(path);
  result_.reset();
  showRuns();
  return QString();
}

void CalibrateRunsDialog::showRuns() {
  table_->setRowCount(static_cast<int>(runs_.runs.size()));
  for (int i = 0; i < table_->rowCount(); ++i) {
    const MeasuredRun& r = runs_.runs[static_cast<std::size_t>(i)];
    table_->setItem(i, kRun, cell(qs(r.label)));
    table_->setItem(i, kChips, cell(QString::number(r.job.n_chips)));
    table_->setItem(i, kLayout, layoutCell(r.layout));
    table_->setItem(
        i, kMeasured,
        cell(r.measured.step_seconds ? qs(format_seconds(*r.measured.step_seconds)) : tr("—")));
    for (int c = kPublished; c < kColumns; ++c) table_->setItem(i, c, cell(QString()));
  }
  QStringList skipped;
  for (const SkippedRun& s : runs_.skipped)
    skipped << tr("line %1: %2").arg(s.line).arg(qs(s.reason));
  skipped_->setPlainText(skipped.join(QLatin1Char('\n')));
  plot_->drawRuns({}, {}, {});
  calibrate_->setEnabled(!runs_.runs.empty());
  save_->setEnabled(false);
  status_->setText(tr("%n run(s) read", nullptr, static_cast<int>(runs_.runs.size())) +
                   (runs_.skipped.empty()
                        ? QString()
                        : tr(", %n skipped", nullptr, static_cast<int>(runs_.skipped.size()))));
}

void CalibrateRunsDialog::calibrate() {
  if (running_ || runs_.runs.empty()) return;
  running_ = true;
  stop_ = std::make_shared<std::atomic<bool>>(false);
  calibrate_->setEnabled(false);
  cancel_->setEnabled(true);
  save_->setEnabled(false);
  busy_->setVisible(true);
  status_->setText(tr("Calibrating…"));
  watcher_.setFuture(
      QtConcurrent::run([runs = runs_.runs, network = network_, stop = stop_]() -> Outcome {
        Outcome o;
        try {
          o.fit = calibrate_step_time(runs, ConstantFitOptions{}, {}, network,
                                      [stop] { return !stop->load(); });
        } catch (const Cancelled&) {
          o.error = CalibrateRunsDialog::tr("Cancelled; nothing changed");
        } catch (const std::exception& e) {
          o.error = QString::fromUtf8(e.what());
        }
        return o;
      }));
}

void CalibrateRunsDialog::cancel() {
  if (stop_) stop_->store(true);
}

void CalibrateRunsDialog::waitForFit() {
  if (!running_) return;
  QEventLoop loop;
  connect(this, &CalibrateRunsDialog::fitFinished, &loop, &QEventLoop::quit);
  loop.exec();
}

void CalibrateRunsDialog::finished() {
  Outcome o = watcher_.result();
  running_ = false;
  busy_->setVisible(false);
  cancel_->setEnabled(false);
  calibrate_->setEnabled(!runs_.runs.empty());
  if (o.fit) {
    result_ = std::move(o.fit);
    showFit();
  } else {
    status_->setText(o.error);
  }
  emit fitFinished();
}

void CalibrateRunsDialog::showFit() {
  const Calibration& c = *result_;
  table_->setRowCount(static_cast<int>(c.runs.size()));
  std::vector<double> measured, published, calibrated;
  for (int i = 0; i < table_->rowCount(); ++i) {
    const CalibrationRun& r = c.runs[static_cast<std::size_t>(i)];
    const RunFit& f = c.fit.runs[static_cast<std::size_t>(i)];
    table_->setItem(i, kRun, cell(qs(r.label)));
    table_->setItem(i, kChips, cell(QString::number(r.job.n_chips)));
    table_->setItem(i, kLayout, layoutCell(r.layout));
    table_->setItem(i, kMeasured, cell(qs(format_seconds(f.measured))));
    table_->setItem(i, kPublished, cell(predicted(f.prior_predicted, f.measured)));
    table_->setItem(i, kCalibrated, cell(predicted(f.predicted, f.measured)));
    table_->setItem(i, kLeaveOneOut, cell(predicted(f.loo_predicted, f.measured)));
    measured.push_back(f.measured);
    published.push_back(f.prior_predicted);
    calibrated.push_back(f.predicted);
  }
  for (const std::string& why : c.skipped) skipped_->appendPlainText(qs(why));
  plot_->drawRuns(measured, published, calibrated);
  auto pct = [](double x) { return QString::number(100.0 * x, 'f', 1) + QStringLiteral(" %"); };
  // A signed error carries its sign, as the table's do ("+1.5 %", not "1.5 %").
  auto signedPct = [&pct](double x) { return (x > 0 ? QStringLiteral("+") : QString()) + pct(x); };
  status_->setText(
      tr("Calibrated on %1 runs. Mean absolute / signed error: published constants %2 / %3, "
         "calibrated %4 / %5, leave-one-out %6 / %7")
          .arg(static_cast<qulonglong>(c.runs.size()))
          .arg(pct(c.fit.prior_error.mean_abs), signedPct(c.fit.prior_error.mean_signed),
               pct(c.fit.fit_error.mean_abs), signedPct(c.fit.fit_error.mean_signed),
               pct(c.fit.loo_error.mean_abs), signedPct(c.fit.loo_error.mean_signed)));
  save_->setEnabled(true);
}

QString CalibrateRunsDialog::saveProfile(const QString& path) {
  if (!result_) return tr("Calibrate first");
  QString error;
  if (!write_file_atomically(path, QByteArray::fromStdString(profile_to_json(*result_)), &error))
    return error;
  saved_ = path;
  return QString();
}

}  // namespace napkin
