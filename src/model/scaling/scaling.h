// Phase 01 — scaling laws: Kaplan → Chinchilla → IsoFLOPs (seed Phase 01,
// "Lab 01 — IsoFLOPs Ladder, Law Fitting & the Forecast").
//
// The numerical spine (line, power-law and quadratic fits), the synthetic
// ladder with its schedule-mismatch bias, the IsoFLOPs method, the parametric
// law and a fitter that converges (Huber on log residuals in the log-sum-exp
// parameterization, L-BFGS with analytic gradients from a grid of starts; the
// seed's coordinate descent is kept as the labelled "seed-cd" reference), the
// bootstrap forecast, ladder design, recipe comparison and the conversions
// around them. Every function validates its input and throws
// std::invalid_argument naming the parameter, its unit and the accepted range.
// Everything random goes through the project's seeded generator (rng.h), so
// the same input gives byte-identical output on every platform and thread
// count.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "loss_law.h"
#include "parallel_for.h"

namespace napkin {

// ------------------------------------------------------------ numerical spine

struct LineFit {
  double slope = 0;
  double intercept = 0;
};
// Least squares y = slope·x + intercept (seed Phase 01 ch. 2). Needs ≥ 2
// points and at least two distinct x.
LineFit fit_line(const std::vector<double>& xs, const std::vector<double>& ys);

struct PowerLawFit {
  double coefficient = 0;  // c
  double exponent = 0;     // k
};
// y = c·x^k by regressing log y on log x; every x and y must be > 0.
PowerLawFit fit_power_law(const std::vector<double>& xs, const std::vector<double>& ys);
// c·x^k.
double power_law(double x, double coefficient, double exponent);

struct Quadratic {
  double a = 0;  // y = a·x² + b·x + c
  double b = 0;
  double c = 0;
  double at(double x) const { return (a * x + b) * x + c; }
};
// Least squares parabola through the 3×3 normal equations (seed Phase 01
// ch. 6: Cramer's rule; here on x centred at its mean so that log10 N ≈ 10
// does not cost digits). Throws on fewer than 3 points or a degenerate design
// (fewer than 3 distinct x).
Quadratic fit_quadratic(const std::vector<double>& xs, const std::vector<double>& ys);
// x of the minimum of a·x² + b·x + c; throws when the parabola opens downward
// or is flat (a ≤ 0): the sweep has no interior minimum.
double parabola_vertex(double a, double b);

// ------------------------------------------------------------- the ladder

// One training run of a ladder. `budget_flops` is the IsoFLOPs budget the run
// was planned at: a label carried with the point, never recomputed from 6ND
// (rounding would split one budget into two groups; seed Lab 01 traps).
// 0 means the run belongs to no budget.
struct LadderPoint {
  double n_params = 0;      // N
  double n_tokens = 0;      // D
  double loss = 0;          // observed final loss, nats/token
  double budget_flops = 0;  // label, FLOPs
  bool outlier = false;     // injected by synthetic_ladder (for plots only)
  bool operator==(const LadderPoint&) const = default;
};

// Checks that every point has finite N, D, loss > 0 (names `what`).
void validate_points(const std::vector<LadderPoint>& points, std::string_view what = "points");

// How the schedule-mismatch (LR-decay) bias is injected (seed Phase 01 ch. 5).
// A run read at D tokens of a schedule planned for D_sched tokens is penalized
// bias·(1 − D/D_sched) nats.
enum class BiasMode {
  // Every run shares one schedule, planned for the longest run of the ladder
  // (Kaplan's one-schedule design).
  fixed_schedule,
  // The runs of one budget share a schedule planned for that budget's longest
  // run, so the bias differs within each IsoFLOPs curve but not across budgets'
  // longest runs.
  per_budget,
};
std::string_view to_string(BiasMode mode);
// "fixed_schedule" | "per_budget"; throws otherwise.
BiasMode parse_bias_mode(std::string_view text);

struct SyntheticLadderSpec {
  LossLaw law = chinchilla_approach3_law();  // ground truth
  std::vector<double> budgets_flops = {1e18, 1e19, 1e20, 1e21, 1e22};
  int sizes_per_budget = 6;
  // Sizes are log-spaced over this many decades, centred on the true law's
  // compute-optimal N for each budget.
  double size_span_decades = 1.5;
  double noise = 0.005;  // σ of the multiplicative log-normal noise on L
  std::uint64_t seed = 0;
  double lr_decay_bias_nats = 0;  // schedule-mismatch penalty at D = 0
  BiasMode bias_mode = BiasMode::fixed_schedule;
  double uniform_offset_nats = 0;  // added to every run (the control)
  int outliers = 0;                // runs that "diverged"
  double outlier_nats = 1.5;       // added to each outlier (seed ch. 8)

  void validate() const;
};

// Budgets × sizes with D = C/6N and loss L·exp(σz) + bias + offset (+ outlier).
// The noise draws depend only on the seed and the ladder's shape, so toggling
// the bias or the offset changes nothing else.
std::vector<LadderPoint> synthetic_ladder(const SyntheticLadderSpec& spec);

// Fixed C, each N, D = C/6N, loss from `law` (seed Phase 01 ch. 6, steps 1–2).
std::vector<LadderPoint> isoflop_sweep(double budget_flops, const std::vector<double>& n_params,
                                       const LossLaw& law = chinchilla_approach3_law());

// The seed's schedule toy (ch. 5): a power-law improvement plus a penalty for
// the undecayed LR, decay_penalty·(1 − seen/horizon). Throws past the horizon.
double schedule_mismatch_loss_toy(double tokens_seen, double horizon_tokens, double base_a = 3.0,
                                  double base_b = 0.1, double decay_penalty = 0.15);

// ------------------------------------------------------------------ IsoFLOPs

struct IsoflopOptimum {
  double budget_flops = 0;
  double n_opt = 0;     // 10^vertex of the parabola in log10 N
  double d_opt = 0;     // C / (6 N_opt)
  double loss_opt = 0;  // the parabola at its vertex, nats/token
  Quadratic parabola;   // loss as a function of log10 N
  int n_points = 0;
  bool vertex_inside_sweep = false;  // false: extrapolated beyond the swept sizes
};
// The vertex of one budget's sweep (seed ch. 6 step 3). Every point must carry
// `budget_flops`' label.
IsoflopOptimum isoflop_optimum(const std::vector<LadderPoint>& sweep, double budget_flops);
// One optimum per budget label, ascending in C. Throws when a point has no
// label or a budget has fewer than 3 distinct sizes.
std::vector<IsoflopOptimum> isoflop_optima(const std::vector<LadderPoint>& ladder);

struct ScalingExponents {
  double a = 0;  // N_opt ∝ C^a
  double b = 0;  // D_opt ∝ C^b
  double n_coefficient = 0;
  double d_coefficient = 0;
  double sum = 0;            // a + b
  bool sums_to_one = false;  // |a + b − 1| ≤ tolerance: C = 6ND holds
};
// Steps 5–6 with the a + b = 1 check (seed ch. 6). Needs ≥ 2 budgets.
ScalingExponents fit_scaling_exponents(const std::vector<IsoflopOptimum>& optima,
                                       double tolerance = 1e-6);

// ------------------------------------------------------ the parametric law

struct LossDecomposition {
  double irreducible = 0;  // E
  double capacity = 0;     // A / N^α
  double data = 0;         // B / D^β
  double total = 0;
};
// Seed ch. 7.
LossDecomposition decompose_loss(const LossLaw& law, double n_params, double n_tokens);

struct ComputeOptimum {
  double flops = 0;
  double n_params = 0;
  double n_tokens = 0;
  double loss = 0;  // nats/token at (N, D)
  double tokens_per_param() const { return n_tokens / n_params; }
};
// N_opt = [αA/(βB)·(C/6)^β]^(1/(α+β)), D = C/6N (seed ch. 7).
ComputeOptimum analytic_optimum(const LossLaw& law, double flops);
// β/(α+β): the exponent of N_opt ∝ C^a under the law.
double optimum_exponent(const LossLaw& law);

// ------------------------------------------------------ residuals & losses

enum class ResidualSpace { linear, log };
// L̂ − L (linear) or log L̂ − log L (log), one per point (seed ch. 8).
std::vector<double> residuals(const std::vector<LadderPoint>& points, const LossLaw& law,
                              ResidualSpace space);
double squared_loss(const std::vector<double>& residuals);
// Σ ½r² for |r| ≤ δ, δ(|r| − ½δ) beyond: quadratic near zero, linear in the tails.
double huber_loss(const std::vector<double>& residuals, double delta = 1e-3);

// ------------------------------------------------------------------ fitting

enum class Estimator {
  huber_log,  // Σ Huber_δ(log L̂ − log L) — Hoffmann et al., Besiroglu et al.
  ls_log,     // Σ (log L̂ − log L)²
  ls_linear,  // Σ (L̂ − L)²
  seed_cd,    // the seed's coordinate descent on Huber-log: a toy, for comparison
};
std::string_view to_string(Estimator e);  // "huber-log", "ls-log", "ls-linear", "seed-cd"
Estimator parse_estimator(std::string_view text);

// The progress of one fit: (steps done, steps in all), where a step is one
// start evaluated on the grid or one L-BFGS iteration (a start that converges
// early counts its unused iterations as done), so `done` reaches `total`.
// Called one at a time, from whichever thread is fitting; returning false
// stops the fit, which then throws Cancelled (parallel_for.h).
using FitProgressFn = std::function<bool(std::int64_t done, std::int64_t total)>;

struct FitOptions {
  Estimator estimator = Estimator::huber_log;
  double huber_delta = 1e-3;
  // Starts: the objective is evaluated on Hoffmann's grid (α, β ∈ {0, .5, …, 2},
  // e ∈ {−1, −.5, …, 1}, a, b ∈ {0, 5, …, 25}: 4,500 points) and L-BFGS polishes
  // the best `refine_starts` of them; `refine_all_starts` polishes every one.
  bool use_grid = true;
  int refine_starts = 12;
  bool refine_all_starts = false;
  std::optional<LossLaw> warm_start;  // polished in addition to the grid starts
  int max_iterations = 400;           // L-BFGS iterations per start
  int seed_cd_iterations = 200;       // the seed's default (its bootstrap uses 60)
  int threads = 0;                    // 0: the hardware's; the result does not depend on it
  FitProgressFn progress;             // optional; a bootstrap's resamples do not report

  void validate() const;
};

struct FitResult {
  LossLaw law;
  Estimator estimator = Estimator::huber_log;
  double objective = 0;  // the minimized value (see Estimator)
  int n_points = 0;
  int iterations = 0;  // of the winning start
  int starts = 0;      // starts polished
  bool converged = false;
};
// An irreducible loss below this is a law no text obeys (Chinchilla's E is
// 1.69 nats/token; a fit pulled to E ≈ 0 comes from a bad row, not the data).
inline constexpr double kMinIrreducibleNats = 0.01;
// How many decades the law's compute-optimal N at the ladder's largest budget
// may lie outside the models trained at that budget.
inline constexpr double kMaxOptimumDecades = 2;
// Why `law`, fitted to `points`, is not a law a training run can follow, or
// empty: E below kMinIrreducibleNats, or a compute-optimal N at the ladder's
// largest budget (6ND) more than kMaxOptimumDecades from every model trained
// within half a decade of that budget.
std::string law_not_physical(const LossLaw& law, const std::vector<LadderPoint>& points);
// A ladder run whose N or D lies this many decades from the ladder's median
// is named as a likely typo when a fit is refused.
inline constexpr double kOutlierDecades = 3;
struct LadderOutlier {
  std::size_t index = 0;  // into the points
  bool tokens = false;    // its D is far off (else its N)
  double value = 0;       // that N or D
  double decades = 0;     // from the median; negative below it
};
// The runs (at most max_named, in ladder order) whose N or D lies at least
// kOutlierDecades from the ladder's median N or D.
std::vector<LadderOutlier> ladder_outliers(const std::vector<LadderPoint>& points,
                                           std::size_t max_named = 5);
// "N = 1.00e+00, 9.0 decades below the median N".
std::string describe_outlier(const LadderOutlier& outlier);
// What fit_parametric throws for a law that is not physical: why, and the
// runs that may be typos. what() names them by their place in the ladder
// ("run 2 of 13"); a caller that knows their file lines can use reason and
// outliers to name those instead.
struct NotPhysical : std::invalid_argument {
  NotPhysical(const std::string& reason, std::vector<LadderOutlier> outliers, std::size_t n_points);
  std::string reason;
  std::vector<LadderOutlier> outliers;
};

// Fits L = E + A/N^α + B/D^β as log L̂ = LSE(a − α log N, b − β log D, e).
// Needs ≥ 5 points with ≥ 2 distinct N and ≥ 2 distinct D. Throws when the
// best fit is not a usable law (an exponent outside (0, 2]) or not a physical
// one (law_not_physical).
FitResult fit_parametric(const std::vector<LadderPoint>& points, const FitOptions& options = {});
// The estimator's objective at `law` (seed-cd: its Huber-on-log objective).
double fit_objective(const std::vector<LadderPoint>& points, const LossLaw& law,
                     Estimator estimator, double huber_delta = 1e-3);

// ------------------------------------------------------ forecast with a CI

// Cancelled and ProgressFn (parallel_for.h): progress and cancel for the bootstrap.

struct BootstrapOptions {
  int resamples = 1000;
  std::uint64_t seed = 0;
  double confidence = 0.95;  // central percentile interval
  int min_successful = 10;   // fewer successful refits is an error (seed ch. 10)
  // For the full-data fit; resamples warm-start from it, and fit.threads
  // also sets how many resamples run at once.
  FitOptions fit;
  void validate() const;
};

struct BootstrapResult {
  double target_flops = 0;
  double point_forecast = 0;  // the full-data fit's optimal loss at the target
  double median = 0;
  double ci_low = 0;
  double ci_high = 0;
  double width = 0;      // ci_high − ci_low, nats
  double n_opt_low = 0;  // the recommended N's interval, parameters
  double n_opt_high = 0;
  int n_successful = 0;
  int n_skipped = 0;              // degenerate resamples
  FitResult fit;                  // the full-data fit
  std::vector<double> forecasts;  // sorted, one per successful resample
  std::vector<LossLaw> laws;      // each successful resample's law, in resample order
};
// Resamples the ladder with replacement, refits, and forecasts the optimal loss
// at `target_flops` (seed ch. 10): seeded, percentile interval, degenerate
// resamples (< 3 distinct N or D, or an unusable fit) skipped, an error when
// fewer than `min_successful` succeed. Each resample draws from its own
// stream, so the result does not depend on the thread count.
BootstrapResult bootstrap_forecast(const std::vector<LadderPoint>& points, double target_flops,
                                   const BootstrapOptions& options = {},
                                   const ProgressFn& progress = {});

struct BandPoint {
  double flops = 0;
  double low = 0;  // percentile interval of the optimal loss, nats/token
  double median = 0;
  double high = 0;
};
// The bootstrap band of the optimal loss at each budget in `flops`, from the
// resample laws of a BootstrapResult (same percentile convention, so at the
// target it reproduces ci_low and ci_high).
std::vector<BandPoint> forecast_band(const std::vector<LossLaw>& laws,
                                     const std::vector<double>& flops, double confidence = 0.95);
// The same percentile interval for the recommended N: each law's
// compute-optimal N at `flops` (analytic_optimum), parameters. At the
// bootstrap's target it reproduces n_opt_low and n_opt_high.
BandPoint optimal_params_interval(const std::vector<LossLaw>& laws, double flops,
                                  double confidence = 0.95);

// -------------------------------------------------------------- ladder design

// Var(ŷ(x*)) ∝ 1/n + (x* − x̄)² / Σ(x − x̄)², the OLS extrapolation variance
// (seed ch. 9), x = log10 C.
double extrapolation_variance(const std::vector<double>& log10_flops, double target_log10_flops);

struct LadderDesign {
  std::vector<double> budgets_flops;  // geometric, smallest first
  double total_flops = 0;
  double fraction_of_flagship = 0;
  double spread_decades = 0;
};
// Geometric budgets from `min_flops`, the largest taking half of
// `fraction`·flagship (seed ch. 11).
LadderDesign design_ladder(double flagship_flops, double fraction = 0.03, int n_budgets = 5,
                           double min_flops = 1e18);

// ------------------------------------------------------------ the decision

struct RecipeComparison {
  double target_flops = 0;
  double baseline_loss = 0;  // optimal loss at the target, nats/token
  double candidate_loss = 0;
  double delta = 0;  // candidate − baseline
  bool candidate_wins = false;
  // Compute budgets where the two laws' optimal losses cross, refined by
  // bisection; searched over [1e16, 1e28] FLOPs.
  std::vector<double> crossovers_flops;
  std::optional<double> crossover_flops;  // the first
  // Who wins just past the first crossover (at 1.5 × its compute): true when
  // the candidate does. Empty without a crossover.
  std::optional<bool> candidate_wins_above_crossover;
};
// Compares the laws at the target, not runs at one scale (seed ch. 12).
RecipeComparison compare_recipes(const LossLaw& baseline, const LossLaw& candidate,
                                 double target_flops);
// The optimal loss under `law` at `flops` (loss of analytic_optimum).
double optimal_loss(const LossLaw& law, double flops);

// log10(target / ladder max): how many decades a forecast reaches beyond the
// largest run; ≤ 0 inside the ladder (interpolation).
double extrapolation_decades(double ladder_max_flops, double target_flops);

enum class RiskBand { interpolation, low, moderate, high };
struct ExtrapolationRisk {
  double decades = 0;  // log10(target / ladder max)
  double score = 0;    // decades · (1 + 20·CI width)
  RiskBand band = RiskBand::interpolation;
  std::string statement;
};
// The seed's crude, honest risk score (ch. 13).
ExtrapolationRisk extrapolation_risk(double ladder_max_flops, double target_flops,
                                     double ci_width_nats);

// ------------------------------------------------------------- conversions

struct Allocation {
  double n_multiplier = 0;
  double d_multiplier = 0;
};
// Kaplan et al. 2020: N ∝ C^0.73, D ∝ C^0.27 (seed ch. 4).
Allocation kaplan_allocation(double compute_multiplier, double n_exponent = 0.73);

double nats_to_bits(double nats);
double bits_to_nats(double bits);
double nats_to_perplexity(double nats);
double perplexity_to_nats(double perplexity);
// Mean −ln p of the probabilities given to the true tokens (seed ch. 3).
double cross_entropy(const std::vector<double>& true_token_probs);
// Fractional compute increase buying `delta_nats` under L − E ∝ C^−α near
// L (seed ch. 3): delta / (α·(L − E)).
double compute_increase_for_loss_delta(double delta_nats, double alpha = 0.5, double loss = 1.75,
                                       double irreducible = 1.69);

// Data-constrained training, a TOY (seed Claim 16): R epochs over U unique
// tokens are worth U·Σ_{r=1..R} exp(−(r−1)/half_life) fresh tokens.
double effective_tokens_toy(double unique_tokens, int epochs, double half_life_epochs = 5.0);
// L(N, U, R) under the toy: law.loss(N, effective_tokens_toy(U, R)).
double data_constrained_loss_toy(const LossLaw& law, double n_params, double unique_tokens,
                                 int epochs, double half_life_epochs = 5.0);

}  // namespace napkin
