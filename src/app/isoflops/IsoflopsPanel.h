// The IsoFLOPs & scaling-laws panel: a ladder of cheap runs (synthetic, from
// a ground-truth law, or loaded from CSV and embedded in the scenario) → one
// parabola per budget → N_opt ∝ C^a, D_opt ∝ C^b → a parametric fit of
// L = E + A/N^α + B/D^β → a bootstrap forecast at the target compute C*,
// which follows the Budget panel's budget by default.
//
// Every control edits the shared scenario's IsoFLOPs settings (one undo step
// each). One view, make_isoflops_view(scenario, slow results): the cheap
// path (the ladder view at C*) on every change; the fit and the bootstrap
// run off the UI thread (FitJob) once the inputs settle, with a progress bar
// and Cancel, and a result for stale inputs is discarded.
#pragma once

#include <functional>
#include <memory>
#include <optional>

#include "ScenarioPanel.h"
#include "isoflops/IsoflopsControls.h"
#include "isoflops/IsoflopsJob.h"
#include "isoflops/IsoflopsReadouts.h"
#include "isoflops/plots/IsoflopsPlot.h"
#include "isoflops_view.h"
#include "scenario.h"

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTimer;

namespace napkin {

class ControlColumn;

class LadderImportDialog;
class ScenarioModel;

class IsoflopsPanel : public ScenarioPanel {
  Q_OBJECT
 public:
  explicit IsoflopsPanel(ScenarioModel* model, QWidget* parent = nullptr);
  ~IsoflopsPanel() override;

  QString panelKey() const override { return QStringLiteral("isoflops"); }
  QString title() const override { return tr("IsoFLOPs & scaling laws"); }
  QString help() const override;
  std::vector<PlotWidget*> plots() const override;
  ReportSection reportSection() const override;
  bool isBusy() const override { return job_->isBusy(); }

  const IsoflopsControls& controls() const { return controls_; }
  const IsoflopsReadouts& readouts() const { return *readouts_; }
  // What the read-outs and plots show now.
  const IsoflopsShown& shown() const { return shown_; }
  double targetFlops() const { return shown_.target(); }
  JobState fitState() const { return job_->result().fit_state; }
  JobState bootstrapState() const { return job_->result().boot_state; }
  // Results that arrived for inputs that had changed since (discarded).
  int discardedResults() const { return job_->discarded(); }
  QProgressBar* progressBar() const { return progress_; }
  QPushButton* cancelButton() const { return cancel_; }
  QPushButton* recomputeButton() const { return recompute_; }
  QString statusText() const;
  // Every read-out text, the status and the job line (tests, torture).
  QStringList readoutTexts() const;

  // Opens the import dialog for `path` (window-modal); accepting it embeds
  // the ladder in the scenario as one undo step. False, with the reason in
  // the status, when the file cannot be read as a CSV table.
  bool loadLadderCsv(const QString& path);
  // The open import dialog (nullptr when none).
  LadderImportDialog* importDialog() const { return dialog_; }
  // Where "Load ladder CSV…" asks for a file (tests replace the file dialog).
  void setCsvPathPrompt(std::function<QString()> prompt) { csv_prompt_ = std::move(prompt); }
  void useSyntheticLadder();
  // Starts the fit and the bootstrap now (after a cancel or a failure).
  void recompute() { job_->recompute(); }
  void cancelJob() { job_->cancel(); }

  // Compares with a baseline scenario: its ladder view is computed here, its
  // fit and bootstrap off the UI thread (once, when pinned); read-outs show
  // the change from it, plots draw its ghosts. nullptr unpins.
  void setBaseline(const Scenario* baseline) override;
  // The baseline's fit is still running.
  bool baselineBusy() const { return baseline_job_->isBusy(); }
  const std::optional<IsoflopsShown>& baseline() const { return baseline_; }

 signals:
  // A fit for the current inputs arrived, failed or was cancelled.
  void fitUpdated();
  // The bootstrap for the current inputs arrived, failed or was cancelled.
  void bootstrapUpdated();

 protected:
  void refresh() override;
  void gestureChanged(bool on) override;

 private:
  void redraw();
  void draw();
  void updateStatus();
  void updateJobUi();
  void updateSource();
  void updateBaseline();
  void acceptImport();

  IsoflopsControls controls_;
  std::unique_ptr<IsoflopsReadouts> readouts_;
  QPlainTextEdit* status_ = nullptr;
  QLabel* job_label_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QPushButton* recompute_ = nullptr;
  QTimer* text_timer_ = nullptr;
  std::vector<IsoflopsPlot*> plots_;

  // The last scenario that gave a ladder: its view is shown (and made again
  // when the fit's results arrive).
  std::optional<Scenario> shown_scenario_;
  QString view_error_;  // why the current settings give no view (the previous one is kept)
  QString load_error_;  // why the last CSV could not be opened
  FitJob* job_ = nullptr;
  IsoflopsShown shown_;

  LadderImportDialog* dialog_ = nullptr;
  std::function<QString()> csv_prompt_;

  FitJob* baseline_job_ = nullptr;
  std::optional<Scenario> baseline_scenario_;
  std::optional<IsoflopsShown> baseline_;
};

}  // namespace napkin
