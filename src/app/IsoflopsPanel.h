// The IsoFLOPs & scaling-laws panel (seed Phase 01; issue 4 item 4): a ladder
// of cheap runs (synthetic, from a ground-truth law, or loaded from CSV) →
// one parabola per budget → N_opt ∝ C^a, D_opt ∝ C^b → a parametric fit of
// L = E + A/N^α + B/D^β → a bootstrap forecast at the target compute C*, which
// follows the Budget panel's budget by default.
//
// Two paths. The cheap one (the ladder, the parabolas, the exponents, the
// Kaplan → Chinchilla lesson, everything evaluated at C* from laws already
// fitted) runs on every control change. The parametric fit and the bootstrap
// (tens to hundreds of ms) run off the UI thread once the inputs have settled
// for 150 ms, with a progress bar and Cancel; a result computed for inputs
// that have changed since is discarded (generation counter).
#pragma once

#include <QFuture>
#include <QHash>
#include <QWidget>
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "Panel.h"
#include "SliderSpin.h"
#include "isoflops_view.h"
#include "scaling.h"
#include "ui_IsoflopsPanel.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QTimer;
class QVBoxLayout;
class QCPBars;
class QCPErrorBars;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace napkin {

class PlotWidget;
class ScenarioModel;

class IsoflopsPanel : public Panel {
  Q_OBJECT
 public:
  // Panel (the adapter until this panel migrates onto the kit; see
  // IsoflopsPanelAdapter.cpp).
  QString panelKey() const override;
  QString title() const override;
  QString help() const override { return helpText(); }
  ReportSection reportSection() const override;
  // The panel's own inputs (the shared scenario only supplies C*).
  struct Params {
    int law_preset = 0;  // 0 Chinchilla Approach 3, 1 Besiroglu et al., 2 custom
    LossLaw law = chinchilla_approach3_law();
    int n_budgets = 5;
    double budget_min = 1e18;  // FLOPs
    double budget_max = 1e22;  // FLOPs
    int sizes_per_budget = 6;
    double size_span_decades = 1.5;
    double noise = 0.005;  // σ of log loss
    int seed = 0;          // the ladder's noise and the bootstrap's resampling
    bool outlier = false;
    bool bias_on = false;
    double bias_nats = 0.05;
    BiasMode bias_mode = BiasMode::fixed_schedule;
    bool offset_on = false;
    double offset_nats = 0.05;
    Estimator estimator = Estimator::huber_log;
    double huber_delta = 1e-3;
    int resamples = 500;
    bool follow_budget = true;
    double manual_target = 1e24;  // FLOPs, when not following the Budget panel
    int candidate_preset = 0;     // see candidateLaw()
    // The candidate of plot (5): the seed's trade-off at half strength.
    double candidate_a_mult = 1.23;
    double candidate_b_mult = 0.925;
    double candidate_dalpha = 0.02;
    double candidate_dbeta = -0.01;
    bool csv_filter = true;
    double csv_max_loss = 3.4469;  // nats; Besiroglu et al. keep the 240 rows below it
  };

  // Everything the cheap path computes (one call per control change): the
  // model's IsoFLOPs view of the ladder and, for synthetic ladders, the lesson.
  struct LadderView : IsoflopsView, ScheduleLesson {
    bool synthetic = true;
    std::optional<LossLaw> truth;  // the ground-truth law (synthetic ladders)
  };

  // One stage of the off-thread job: 1 = the parametric fit, 2 = the bootstrap.
  struct JobStage {
    int generation = 0;
    int stage = 0;
    std::optional<FitResult> fit;
    std::vector<LossLaw> laws;  // the bootstrap's successful resample laws
    int n_successful = 0;
    int n_skipped = 0;
    std::vector<BandPoint> band;  // on bandGrid()
    std::string error;
  };

  // The state of the fit and of the bootstrap for the current inputs.
  enum class JobState { current, pending, failed, cancelled };

  explicit IsoflopsPanel(ScenarioModel* model, QWidget* parent = nullptr);
  ~IsoflopsPanel() override;

  std::vector<PlotWidget*> plots() const override { return plots_; }
  // All read-out texts and the status text (for tests and the report).
  QStringList readoutTexts() const;
  static QString helpText();
  static bool isBuilt() { return true; }

  // Widgets by key, for tests.
  QLabel* readout(const QString& key) const;
  SliderSpin* control(const QString& key) const;
  QComboBox* combo(const QString& key) const;
  QCheckBox* checkBox(const QString& key) const;
  QPushButton* button(const QString& key) const;
  QProgressBar* progressBar() const { return ui.progressBar; }
  QString statusText() const;

  const Params& params() const { return params_; }
  const LadderView& ladderView() const { return view_; }
  // The synthetic ladder the controls describe (what the panel fits).
  SyntheticLadderSpec syntheticSpec() const {
    return specFor(params_, params_.bias_on, params_.offset_on);
  }
  // The fit and bootstrap shown (nullopt/empty when none is valid or pending).
  std::optional<FitResult> shownFit() const;
  JobState fitState() const { return fit_state_; }
  JobState bootstrapState() const { return boot_state_; }
  // A job is waiting for the debounce or running.
  bool isBusy() const override;
  // Brings a panel that missed scenario changes while hidden up to date.
  void refreshIfStale() override;
  double targetFlops() const { return view_.target_flops; }
  // The 95 % interval of the optimal loss at C* (nullopt unless current or pending).
  std::optional<BandPoint> forecastInterval() const;
  // Results that arrived for inputs that had changed since (discarded).
  int discardedResults() const { return discarded_; }

  // Loads a ladder from CSV (columns found by name). On error: false, the
  // message in the status line, the previous ladder kept.
  bool loadLadderCsv(const QString& path);
  void useSyntheticLadder();
  // Starts the fit and bootstrap now (after a cancel or a failure).
  void recompute();
  void cancelJob();

  // The candidate recipe of plot (5) for a baseline law.
  LossLaw candidateLaw(const LossLaw& baseline) const;
  // log10 C grid of the bootstrap band: 1e16 … 1e28, 8 points per decade.
  static std::vector<double> bandGrid();

 signals:
  // A fit for the current inputs arrived, failed or was cancelled.
  void fitUpdated();
  // The bootstrap for the current inputs arrived, failed or was cancelled.
  void bootstrapUpdated();

 protected:
  void showEvent(QShowEvent* event) override;

 private:
  bool scenario_stale_ = false;

 private:
  struct FitInputs {
    std::vector<LadderPoint> points;
    Estimator estimator = Estimator::huber_log;
    double huber_delta = 1e-3;
    int resamples = 0;
    std::uint64_t seed = 0;
    bool operator==(const FitInputs& o) const;
  };

  static SyntheticLadderSpec specFor(const Params& p, bool bias, bool offset);
  QVBoxLayout* addGroup(const QString& title);
  SliderSpin* addSlider(QVBoxLayout* group, const QString& key, const SliderSpin::Spec& spec,
                        double initial, std::function<void(Params&, double)> set);
  QComboBox* addCombo(QVBoxLayout* group, const QString& key, const QString& label,
                      const QString& tooltip);
  QCheckBox* addCheck(QVBoxLayout* group, const QString& key, const QString& label,
                      const QString& tooltip, bool initial, std::function<void(Params&, bool)> set);
  void buildControls();
  void buildReadouts();
  void buildPlots();
  void syncLawSliders();
  void updateEnabled();

  double currentTarget() const;
  LadderView makeView() const;
  // The one cheap model call chain, then read-outs and plots; starts the
  // debounce when the fit's inputs changed.
  void refresh() override;
  void startJob();
  void onStage(const JobStage& s);
  void onJobFinished(int generation, bool cancelled);
  void setJobUi();
  static JobStage runFit(const FitInputs& in, int generation);
  static JobStage runBootstrap(const FitInputs& in, double target, int generation,
                               const ProgressFn& progress);

  void redraw();
  void updateReadouts();
  void updateStatus();
  void updatePlots();
  bool inputsChanged(int plot, std::vector<double> inputs);
  void replot(PlotWidget* p);
  void drawLadderPlot();
  void drawExponentPlot();
  void drawForecastPlot();
  void drawDecompositionPlot();
  void drawRecipePlot();
  void drawDesignPlot();
  const FitResult* displayFit() const;
  bool bandShown() const;

  Ui::IsoflopsPanel ui;
  ScenarioModel* model_;
  Params params_;
  LadderView view_;
  QString csv_path_;
  std::optional<std::vector<LadderPoint>> csv_points_;
  QString csv_summary_;
  QString load_error_;
  QString view_error_;  // the last cheap-path error (the previous view is kept)

  // The off-thread job.
  QTimer* debounce_ = nullptr;
  int generation_ = 0;
  FitInputs requested_;  // the inputs of the current generation
  bool has_requested_ = false;
  std::vector<QFuture<JobStage>> jobs_;
  int running_generation_ = -1;  // the generation whose job runs, -1 when none
  std::optional<FitResult> fit_;
  std::string fit_error_;
  JobState fit_state_ = JobState::pending;
  std::vector<LossLaw> boot_laws_;
  std::vector<BandPoint> band_;
  int boot_successful_ = 0, boot_skipped_ = 0;
  std::string boot_error_;
  JobState boot_state_ = JobState::pending;
  int discarded_ = 0;
  int result_serial_ = 0;  // bumps whenever what the fit-dependent plots show changes

  QHash<QString, SliderSpin*> sliders_;
  QHash<QString, QComboBox*> combos_;
  QHash<QString, QCheckBox*> checks_;
  QHash<QString, QPushButton*> buttons_;
  QHash<QString, QLabel*> readouts_;
  QList<QWidget*> synthetic_only_;
  QLabel* source_label_ = nullptr;
  QDoubleSpinBox* max_loss_ = nullptr;

  std::vector<PlotWidget*> plots_;
  std::array<std::vector<double>, 6> plot_inputs_;
  bool replot_when_shown_ = false;
  PlotWidget* ladder_plot_ = nullptr;
  PlotWidget* exponent_plot_ = nullptr;
  PlotWidget* forecast_plot_ = nullptr;
  PlotWidget* decomposition_plot_ = nullptr;
  PlotWidget* recipe_plot_ = nullptr;
  PlotWidget* design_plot_ = nullptr;
  // (1)
  std::vector<QCPGraph*> ladder_points_, ladder_curves_;
  QCPGraph* ladder_vertices_ = nullptr;
  QCPGraph* ladder_outliers_ = nullptr;
  QCPItemText* ladder_note_ = nullptr;
  // (2)
  QCPGraph *exp_n_pts_ = nullptr, *exp_d_pts_ = nullptr, *exp_n_fit_ = nullptr,
           *exp_d_fit_ = nullptr, *exp_kaplan_ = nullptr, *exp_chinchilla_ = nullptr;
  QCPItemStraightLine* exp_target_ = nullptr;
  QCPItemText* exp_note_ = nullptr;
  // (3)
  QCPGraph *fc_runs_ = nullptr, *fc_vertices_ = nullptr, *fc_low_ = nullptr, *fc_high_ = nullptr,
           *fc_fit_ = nullptr, *fc_truth_ = nullptr, *fc_target_pt_ = nullptr;
  QCPErrorBars* fc_error_ = nullptr;
  QCPItemStraightLine* fc_target_ = nullptr;
  QCPItemStraightLine* fc_ladder_edge_ = nullptr;
  QCPItemText* fc_note_ = nullptr;
  // (4)
  std::array<QCPBars*, 3> dec_bars_{};
  std::array<QCPItemText*, 2> dec_labels_{};
  QCPItemText* dec_note_ = nullptr;
  // (5)
  QCPGraph *rc_base_ = nullptr, *rc_cand_ = nullptr, *rc_delta_ = nullptr, *rc_zero_ = nullptr;
  QCPItemStraightLine *rc_target_ = nullptr, *rc_cross_ = nullptr;
  QCPItemText* rc_note_ = nullptr;
  // (6)
  QCPBars* ds_bars_ = nullptr;
  QCPBars* ds_this_ = nullptr;
  std::vector<QCPItemText*> ds_labels_;
  QCPItemText* ds_note_ = nullptr;
};

}  // namespace napkin
