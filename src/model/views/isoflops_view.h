// What the IsoFLOPs & scaling-laws panel, its report section and the CLI show
// of a ladder (seed Phase 01, Lab 01): the ladder grouped by budget with one
// parabola and vertex each, the IsoFLOPs power laws at the target compute,
// the Kaplan and Chinchilla reference slopes, the schedule-bias lesson, the
// candidate recipe and its crossover, and alternative ladder designs. One
// definition each, so the panel only draws and the CLI only prints.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "panel_settings.h"
#include "scaling.h"

namespace napkin {

// Kaplan et al. 2020: N_opt ∝ C^0.73. Hoffmann et al. 2022 (Chinchilla):
// N_opt ∝ C^≈0.5. The reference slopes of the exponent plot.
inline constexpr double kKaplanNExponent = 0.73;
inline constexpr double kChinchillaNExponent = 0.5;

// n budgets evenly spaced in log C from lo to hi inclusive: 10^(log lo +
// (log hi − log lo)·i/(n − 1)). Needs n ≥ 2 and 0 < lo ≤ hi.
std::vector<double> log_spaced_flops(double lo_flops, double hi_flops, int n);

// ------------------------------------------------------------ the ladder view

struct IsoflopsView {
  std::vector<LadderPoint> points;
  bool labelled = true;           // every point carries a budget label
  std::vector<double> run_flops;  // per point: its budget label, or 6ND when unlabelled
  // One optimum per budget whose sweep has a vertex, ascending in C.
  std::vector<IsoflopOptimum> optima;
  std::vector<std::string> skipped;  // "1.00e+18: why", budgets without a vertex
  std::optional<ScalingExponents> exponents;
  std::string exponent_error;   // why there are no exponents
  double target_flops = 0;      // C*
  double ladder_min_flops = 0;  // smallest budget (or 6ND) of the ladder
  double ladder_max_flops = 0;
  double extrapolation_decades = 0;  // log10(C* / ladder max); ≤ 0 inside the ladder
  // The ladder's budgets as log10 C (unlabelled: 6ND rounded to 0.1 decade),
  // ascending and distinct: the design compared in ladder_design_options().
  std::vector<double> design_log10_flops;
  std::optional<double> n_opt, d_opt;  // the IsoFLOPs power laws at C*
};

// The IsoFLOPs method on a ladder (seed ch. 6): a parabola in log10 N per
// budget label (a budget whose parabola has no vertex is skipped and said
// why), N_opt ∝ C^a and D_opt ∝ C^b through the vertices, extrapolated to
// C*. Without budget labels the method does not apply: no optima, and the
// exponent_error says so. Throws for an invalid point, no points, or C* ≤ 0.
IsoflopsView make_isoflops_view(std::vector<LadderPoint> points, double target_flops);

// a = β/(α+β), b = 1 − a: the exponents a fitted law implies (what the panel
// shows when the ladder has no budget labels). Coefficients are left at 0.
ScalingExponents exponents_from_law(const LossLaw& law);

// ------------------------------------------------------------ plot (1) groups

struct LadderGroup {
  double budget_flops = 0;                // the label, or the bin's centre (6ND) when unlabelled
  std::vector<double> n_params, loss;     // its runs (outliers excluded)
  std::optional<IsoflopOptimum> optimum;  // labelled budgets with a vertex
  // The parabola over the group's sizes ± 0.08 decade, 41 points: loss vs N.
  std::vector<double> curve_n_params, curve_loss;
};

struct LadderGroups {
  std::vector<LadderGroup> groups;              // ascending in C, none empty
  std::vector<double> outlier_n, outlier_loss;  // the runs marked outlier (labelled ladders)
};

// One group per budget label; without labels, `unlabelled_bins` equal bins of
// log 6ND across the ladder (the empty ones dropped).
LadderGroups ladder_groups(const IsoflopsView& view, int unlabelled_bins = 8);

// ------------------------------------------------------------ plot (2) exponents

struct ExponentCurves {
  bool from_law = false;       // no IsoFLOPs exponents: the fitted law's optimum instead
  ScalingExponents exponents;  // the a and b shown
  std::vector<double> flops, n_opt, d_opt;
  // N ∝ C^0.73 and N ∝ C^0.5 through the curve's N at the ladder's smallest budget.
  std::vector<double> kaplan_n, chinchilla_n;
};

// N_opt(C) and D_opt(C) on `flops`: the IsoFLOPs power laws when the view has
// them, else the fitted law's analytic optimum; nullopt with neither.
std::optional<ExponentCurves> exponent_curves(const IsoflopsView& view,
                                              const std::optional<LossLaw>& fitted,
                                              const std::vector<double>& flops);

// ------------------------------------------------------------ the lesson

// The Kaplan → Chinchilla lesson (seed ch. 5): N_opt at C* from the same
// synthetic ladder clean, with the LR-decay bias only, and with a uniform
// offset only. The bias tilts the vertices; the offset moves nothing.
struct ScheduleLesson {
  std::optional<double> n_clean, n_bias, n_offset;  // parameters at C*
  std::optional<double> bias_shift, offset_shift;   // n_bias / n_clean − 1, …
  std::string lesson_error;                         // the last reason a ladder gave no exponents
};
// `spec` is the ladder with neither (its bias and offset are replaced).
ScheduleLesson schedule_lesson(const SyntheticLadderSpec& spec, double bias_nats,
                               double offset_nats, double target_flops);

// ------------------------------------------------------------ the scenario's ladder

// The panel's cheap path for its settings at C*: the ladder it fits (the
// loaded one after the loss cut, or the synthetic one), its IsoFLOPs view,
// and for a synthetic ladder the ground-truth law and the schedule lesson.
struct IsoflopsLadderView {
  IsoflopsView view;
  ScheduleLesson lesson;  // synthetic ladders only (empty for a loaded one)
  bool synthetic = true;
  std::optional<LossLaw> truth;  // the synthetic ladder's ground-truth law
};
// Throws std::invalid_argument when the settings give no fittable ladder.
IsoflopsLadderView make_isoflops_ladder_view(const IsoflopsSettings& settings, double target_flops);

// ------------------------------------------------------------ the forecast at C*

// What the read-outs show at C* once a law is fitted (seed ch. 6, 10): N_opt
// and D_opt from the IsoFLOPs power laws, or, without budget labels, from the
// fitted law's analytic optimum; the exponents likewise; the fitted law's
// optimal loss at C* with the bootstrap's percentile interval; the law's own
// compute-optimal N with its interval; the loss split at the law's optimum.
struct IsoflopsForecast {
  std::optional<double> n_opt, d_opt;  // parameters, tokens at C*
  bool optimum_from_law = false;       // no IsoFLOPs exponents: the fitted law's optimum
  std::optional<ScalingExponents> exponents;
  bool exponents_from_law = false;
  std::optional<double> loss;                   // nats/token: the fitted law's optimal loss at C*
  std::optional<BandPoint> interval;            // the bootstrap's interval of it
  std::optional<double> n_opt_law;              // the fitted law's compute-optimal N at C*
  std::optional<BandPoint> n_opt_law_interval;  // its bootstrap interval
  std::optional<LossDecomposition> fitted_split, truth_split;  // at each law's optimum
};
// `fitted`: the law shown (nullptr: none yet); `boot_laws`: the bootstrap's
// resample laws (empty: no interval); `truth`: the synthetic ladder's law.
IsoflopsForecast isoflops_forecast(const IsoflopsView& view, const LossLaw* fitted,
                                   const std::vector<LossLaw>& boot_laws,
                                   const std::optional<LossLaw>& truth = std::nullopt);

// ------------------------------------------------------------- the panel's view

// The state of the fit or of the bootstrap for the current inputs.
enum class JobState { current, pending, failed, cancelled };

// What arrives from off the UI thread: the parametric fit and the bootstrap
// of the current ladder (either may be pending, failed or cancelled).
struct IsoflopsSlow {
  JobState fit_state = JobState::pending;
  JobState boot_state = JobState::pending;
  std::optional<FitResult> fit;  // kept (shown faded) while a new one is pending
  std::string fit_error;
  std::vector<LossLaw> laws;    // the bootstrap's successful resample laws
  std::vector<BandPoint> band;  // on forecast_band_flops()
  int n_successful = 0, n_skipped = 0;
  std::string boot_error;
  int serial = 0;  // bumps whenever these results change
  // The fit to show: current, or the previous one while a new one is pending.
  const FitResult* shownFit() const;
  // The resample laws to show (empty when none is valid or pending).
  const std::vector<LossLaw>& shownLaws() const;
  bool stale() const { return fit_state == JobState::pending || boot_state == JobState::pending; }
};

// What the IsoFLOPs panel shows at one moment, in one value: the ladder's
// view at C* (the cheap path), the fit and bootstrap results for it (the
// slow path, possibly pending) and the read-outs at C* derived from both.
// The read-outs and every plot draw from it; a pinned baseline is one more.
struct IsoflopsShown {
  // The settings give no fittable ladder: why (the view is otherwise empty).
  std::string error;
  bool valid() const { return error.empty(); }
  IsoflopsLadderView ladder;
  std::optional<FitResult> fit;  // the fit shown: current, or the previous one while pending
  JobState fit_state = JobState::pending;
  JobState boot_state = JobState::pending;
  std::string fit_error, boot_error;
  std::vector<BandPoint> band;  // the bootstrap band shown (empty: none)
  int n_successful = 0, n_skipped = 0;
  IsoflopsForecast forecast;
  CandidateRecipe candidate;
  bool follows_budget = true;
  int serial = 0;  // bumps whenever the fit or bootstrap results change

  const IsoflopsView& view() const { return ladder.view; }
  double target() const { return ladder.view.target_flops; }
  // The fit shown is for older inputs (a new one is pending).
  bool fitStale() const { return fit && fit_state == JobState::pending; }
  bool bandStale() const { return !band.empty() && boot_state == JobState::pending; }
};

// The slow path at once, as the panel's job runs it off the UI thread (for
// napkin-cli isoflops --scenario): the parametric fit of the scenario's
// ladder, then the bootstrap of its forecast at C* with the settings'
// resamples and the ladder's seed; each current, or failed with the reason
// (no bootstrap without a fit). `progress` (resamples done of total) may stop
// the bootstrap: Cancelled is thrown. A scenario whose settings give no
// ladder leaves both failed with make_isoflops_view's reason.
IsoflopsSlow isoflops_slow_now(const Scenario& s, const ProgressFn& progress = {});

// The panel's view of `s`: its ladder's view at the plan's C* (or the manual
// target) combined with the slow results (nullptr: none yet, pending). When
// the settings give no fittable ladder, `error` says why.
IsoflopsShown make_isoflops_view(const Scenario& s, const IsoflopsSlow* slow = nullptr);

// The budgets of the bootstrap band: 1e16 … 1e28 FLOPs, 8 per decade.
std::vector<double> forecast_band_flops();
// A law's optimal loss (nats/token) at each budget of `flops` (plot 3).
std::vector<double> optimal_loss_curve(const LossLaw& law, const std::vector<double>& flops);

// ------------------------------------------------------------ plot (5) recipes

// The seed's ch. 12 candidate recipe: E 1.69, A 500, α 0.38, B 380, β 0.26.
LossLaw seed_candidate_law();

// CandidateRecipe (which law, A and B scaled, α and β shifted) lives with the
// panel settings it is saved in (panel_settings.h).
LossLaw candidate_law(const LossLaw& baseline, const CandidateRecipe& recipe);

struct RecipeCurves {
  std::vector<double> flops, baseline, candidate, delta;  // optimal loss; delta = cand − base
};
RecipeCurves recipe_curves(const LossLaw& baseline, const LossLaw& candidate,
                           const std::vector<double>& flops);

// ------------------------------------------------------------ plot (6) designs

enum class LadderDesignKind {
  this_ladder,  // the view's own budgets
  clustered,    // four budgets 0.2 decade apart from the smallest
  spread,       // four budgets evenly over the ladder's span
  skewed,       // lo, lo + 0.5, lo + 1, hi + 0.5
  two_point,    // the two ends
  plan,         // design_ladder(): geometric, `plan_fraction` of C*
};

struct LadderDesignOption {
  LadderDesignKind kind = LadderDesignKind::this_ladder;
  std::vector<double> log10_flops;
  double variance = 0;  // extrapolation_variance at C*; 0 when undefined (< 2 distinct budgets)
};

struct LadderDesignOptions {
  double target_log10_flops = 0;
  std::vector<LadderDesignOption> options;  // in LadderDesignKind order
  std::optional<LadderDesign>
      plan;  // nullopt: C* too small for a plan from the ladder's smallest budget
};

// The seed's ch. 9 comparison: how far each design's slope extrapolates to C*
// (spread beats clustering), with ch. 11's plan as the last option.
LadderDesignOptions ladder_design_options(const std::vector<double>& design_log10_flops,
                                          double target_flops, double plan_fraction = 0.03);

}  // namespace napkin
