// "Calibrate on measured runs…" (issue 25): a runs CSV or a training log
// chosen and previewed (each run's line, chips, layout and measured step;
// the rows skipped with their reasons), calibrated off the UI thread with a
// Cancel, the residuals shown per run (a table and the measured-against-
// predicted plot, datasheet and calibrated), and the cluster profile saved
// through the atomic writer for the Parallelism panel to use.
#pragma once

#include <QDialog>
#include <QFutureWatcher>
#include <atomic>
#include <memory>
#include <optional>

#include "calibration.h"

class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace napkin {

class ResidualPlot;

class CalibrateRunsDialog : public QDialog {
  Q_OBJECT
 public:
  // Every run is timed on `network` (the scenario's cluster; unset: the chip's node).
  explicit CalibrateRunsDialog(std::optional<Network> network, QWidget* parent = nullptr);
  ~CalibrateRunsDialog() override;

  // Columns a runs file lacks, for every row: "chip=A100-80, vocab=50304".
  void setDefaults(const QString& text);
  // Reads the runs (at most 64 MiB) into the preview; "" or why not (the
  // line or column named). Skipped rows are listed with their reasons.
  QString openRuns(const QString& path);
  // Starts the fit off the UI thread (no-op while one runs or with no runs).
  void calibrate();
  void cancel();
  bool isRunning() const { return running_; }
  // Blocks (running the event loop) until no fit is in flight (tests).
  void waitForFit();
  // The finished fit, if any.
  const std::optional<Calibration>& result() const { return result_; }
  // Writes the cluster profile; "" or the error (the previous file untouched).
  QString saveProfile(const QString& path);
  // The profile last saved ("" none): the panel loads it on Accept.
  QString savedPath() const { return saved_; }

  QTableWidget* table() const { return table_; }
  QPlainTextEdit* skipped() const { return skipped_; }
  ResidualPlot* plot() const { return plot_; }
  QLabel* status() const { return status_; }
  QPushButton* calibrateButton() const { return calibrate_; }
  QPushButton* cancelButton() const { return cancel_; }

 signals:
  void fitFinished();

 private:
  struct Outcome {
    std::optional<Calibration> fit;
    QString error;
  };
  void showRuns();
  void showFit();
  void finished();

  std::optional<Network> network_;
  MeasuredRuns runs_;
  std::optional<Calibration> result_;
  QString saved_;
  QString chosen_;  // the file last chosen, read or not
  bool running_ = false;
  std::shared_ptr<std::atomic<bool>> stop_;
  QFutureWatcher<Outcome> watcher_;
  QLineEdit* defaults_ = nullptr;
  QLineEdit* path_ = nullptr;
  QTableWidget* table_ = nullptr;
  QPlainTextEdit* skipped_ = nullptr;
  ResidualPlot* plot_ = nullptr;
  QLabel* status_ = nullptr;
  QProgressBar* busy_ = nullptr;
  QPushButton* calibrate_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* save_ = nullptr;
};

}  // namespace napkin
