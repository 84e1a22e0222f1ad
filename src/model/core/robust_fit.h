// Fitting a few named constants of a model to measurements: robust least
// squares in log space with priors, bootstrap intervals and leave-one-out
// errors. Generic: the model is a callback that predicts run i from the
// constants, so the same machinery calibrates any predictor.
//
// Objective, with r_i = ln(predicted_i / measured_i) and σ the assumed
// scatter of one measurement around the model:
//   Σ_i huber(r_i / σ; δ) + Σ_k ½ ((t_k − t_k,prior) / s_k)²
// where t_k = ln c_k for a factor (a log-normal prior, s_k its log-space
// width) and t_k = c_k for an offset (a normal prior of width s_k). The
// Huber loss (Huber 1964) is quadratic within δ·σ and linear beyond, so one
// bad run does not drag the fit; the priors keep a constant the runs do not
// constrain at its datasheet value. Minimized by Nelder–Mead (Nelder & Mead
// 1965) inside each constant's bounds.
//
// Identification: a constant is fitted only where the runs inform it. At the
// first fit, the Laplace approximation of the posterior (Gauss–Newton: the
// Jacobian J of the log predictions in prior-width units, Huber weights W)
// has covariance (JᵀWJ/σ² + I)⁻¹; a constant whose posterior standard
// deviation is more than `identify_sd_ratio` of its prior's is held at its
// prior (the least informed first, the others' ratios recomputed without it,
// backward elimination) and the rest refitted. Without this, constants the
// runs cannot separate (two efficiencies that always act together on the
// runs' shapes) drift along the flat valley of the objective to wherever the
// priors' pull balances, and carry that drift to shapes that do separate them.
//
// Intervals: the fit repeated on bootstrap resamples of the runs (Efron
// 1979), the 5th and 95th percentiles. Leave-one-out: each run predicted by
// the fit to the others. Both hold the same constants as the fit; a held
// constant's interval is its prior's 90 % range (the runs leave it as
// uncertain as the datasheet does).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace napkin {

enum class ConstantKind { factor, offset };

struct FitConstant {
  std::string name;
  std::string unit;  // "×" for a factor, "s" for seconds
  ConstantKind kind = ConstantKind::factor;
  double prior = 1.0;        // the datasheet value
  double prior_width = 0.3;  // factor: log-space σ; offset: σ in the constant's unit
  double lo = 0.0;           // bounds; a factor needs lo > 0
  double hi = 1.0;
  std::string source;  // where the prior comes from
};

// Predicted value of run `run` for `constants` (in FitConstant order); > 0.
using RunPredictor = std::function<double(std::size_t run, std::span<const double> constants)>;

struct ConstantFitOptions {
  double sigma = 0.05;       // scatter of a run around the model, as a log ratio (≈ 5 %)
  double huber_delta = 1.5;  // in σ units
  std::int64_t bootstrap = 200;
  std::uint64_t seed = 1;
  // Hold a constant at its prior when the runs leave its posterior standard
  // deviation above this share of the prior's (0.5: the runs must at least
  // halve its uncertainty, i.e. carry three times the prior's information);
  // 1 fits every constant. In (0, 1].
  double identify_sd_ratio = 0.5;
  // Polled after each of the 1 + runs + bootstrap minimizations (the fit, the
  // leave-one-out fits, the resamples) with how many are done of that total;
  // false stops the fit with Cancelled (parallel_for.h).
  std::function<bool(std::int64_t done, std::int64_t total)> progress = {};
  void validate() const;
};

struct FittedConstant {
  std::string name;
  std::string unit;
  double prior = 0;
  double value = 0;
  double p05 = 0;  // bootstrap 5th percentile
  double p95 = 0;  // bootstrap 95th percentile
  // Posterior ÷ prior standard deviation (the Laplace approximation at the
  // first fit; for a held constant, when it was held): near 0 the runs pin
  // it, near 1 they say nothing about it.
  double sd_ratio = 1;
  bool held = false;  // not identified by the runs: kept at the prior
};

struct RunFit {
  double measured = 0;
  double prior_predicted = 0;  // with every constant at its prior
  double predicted = 0;        // with the fitted constants
  double loo_predicted = 0;    // fitted without this run (= predicted with one run)
};

struct ErrorSummary {
  double mean_abs = 0;     // mean |predicted/measured − 1|
  double mean_signed = 0;  // mean (predicted/measured − 1)
};
ErrorSummary relative_errors(std::span<const double> predicted, std::span<const double> measured);

struct ConstantFit {
  std::vector<FittedConstant> constants;
  std::vector<RunFit> runs;
  ErrorSummary prior_error;  // every constant at its prior
  ErrorSummary fit_error;    // in-sample
  ErrorSummary loo_error;    // leave-one-out
  std::vector<double> values() const;
};

// Throws std::invalid_argument naming the constant for a prior outside its
// bounds or a non-positive factor bound, and for no runs or a measurement
// that is not a finite positive number.
ConstantFit fit_constants(const std::vector<FitConstant>& constants,
                          std::span<const double> measured, const RunPredictor& predict,
                          const ConstantFitOptions& options = {});

}  // namespace napkin
