#include "robust_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include "parallel_for.h"
#include "rng.h"

namespace napkin {

namespace {

// Constants ↔ the unit-scaled coordinates the minimizer moves in (0 = prior).
double to_coord(const FitConstant& c, double v) {
  return c.kind == ConstantKind::factor ? (std::log(v) - std::log(c.prior)) / c.prior_width
                                        : (v - c.prior) / c.prior_width;
}
double from_coord(const FitConstant& c, double t) {
  const double v = c.kind == ConstantKind::factor ? c.prior * std::exp(t * c.prior_width)
                                                  : c.prior + t * c.prior_width;
  return std::clamp(v, c.lo, c.hi);
}

double huber(double x, double delta) {
  const double a = std::abs(x);
  return a <= delta ? 0.5 * x * x : delta * (a - 0.5 * delta);
}

struct Problem {
  const std::vector<FitConstant>& constants;
  std::span<const double> measured;
  const RunPredictor& predict;
  const ConstantFitOptions& options;
};

// The objective over the runs in `use` (indices, repeats allowed).
double objective(const Problem& p, const std::vector<std::size_t>& use,
                 const std::vector<double>& coords, std::vector<double>& values) {
  double f = 0;
  for (std::size_t k = 0; k < coords.size(); ++k) {
    values[k] = from_coord(p.constants[k], coords[k]);
    const double back = to_coord(p.constants[k], values[k]);
    f += 0.5 * back * back + 10.0 * std::abs(coords[k] - back);  // bounds: pulled back inside
  }
  for (std::size_t i : use) {
    const double pred = p.predict(i, values);
    if (!(pred > 0) || !std::isfinite(pred)) return std::numeric_limits<double>::infinity();
    f += huber(std::log(pred / p.measured[i]) / p.options.sigma, p.options.huber_delta);
  }
  return f;
}

// Nelder–Mead with the standard coefficients (reflection 1, expansion 2,
// contraction ½, shrink ½), restarted once from its best point.
std::vector<double> minimize(const Problem& p, const std::vector<std::size_t>& use) {
  const std::size_t n = p.constants.size();
  std::vector<double> values(n);
  auto f = [&](const std::vector<double>& x) { return objective(p, use, x, values); };
  std::vector<double> best(n, 0.0);
  for (int restart = 0; restart < 2; ++restart) {
    std::vector<std::vector<double>> s(n + 1, best);
    for (std::size_t k = 0; k < n; ++k) s[k + 1][k] += 0.5;
    std::vector<double> fs(n + 1);
    for (std::size_t j = 0; j <= n; ++j) fs[j] = f(s[j]);
    for (int it = 0; it < 400 * static_cast<int>(n + 1); ++it) {
      std::vector<std::size_t> order(n + 1);
      std::iota(order.begin(), order.end(), 0);
      std::sort(order.begin(), order.end(),
                [&](std::size_t a, std::size_t b) { return fs[a] < fs[b]; });
      const std::size_t lo = order[0], hi = order[n], second = order[n - 1];
      if (std::abs(fs[hi] - fs[lo]) <= 1e-12 * (1 + std::abs(fs[lo]))) {
        double spread = 0;
        for (std::size_t k = 0; k < n; ++k)
          spread = std::max(spread, std::abs(s[hi][k] - s[lo][k]));
        if (spread < 1e-7) break;
      }
      std::vector<double> centroid(n, 0.0);
      for (std::size_t j = 0; j <= n; ++j)
        if (j != hi)
          for (std::size_t k = 0; k < n; ++k) centroid[k] += s[j][k] / static_cast<double>(n);
      auto along = [&](double t) {
        std::vector<double> x(n);
        for (std::size_t k = 0; k < n; ++k) x[k] = centroid[k] + t * (s[hi][k] - centroid[k]);
        return x;
      };
      const std::vector<double> r = along(-1.0);
      const double fr = f(r);
      if (fr < fs[lo]) {
        const std::vector<double> e = along(-2.0);
        const double fe = f(e);
        if (fe < fr)
          s[hi] = e, fs[hi] = fe;
        else
          s[hi] = r, fs[hi] = fr;
      } else if (fr < fs[second]) {
        s[hi] = r, fs[hi] = fr;
      } else {
        const std::vector<double> c = fr < fs[hi] ? along(-0.5) : along(0.5);
        const double fc = f(c);
        if (fc < std::min(fr, fs[hi])) {
          s[hi] = c, fs[hi] = fc;
        } else {
          for (std::size_t j = 0; j <= n; ++j) {
            if (j == lo) continue;
            for (std::size_t k = 0; k < n; ++k) s[j][k] = s[lo][k] + 0.5 * (s[j][k] - s[lo][k]);
            fs[j] = f(s[j]);
          }
        }
      }
    }
    best = s[std::min_element(fs.begin(), fs.end()) - fs.begin()];
  }
  std::vector<double> out(n);
  for (std::size_t k = 0; k < n; ++k) out[k] = from_coord(p.constants[k], best[k]);
  return out;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const std::size_t i = static_cast<std::size_t>(at);
  const double frac = at - static_cast<double>(i);
  return i + 1 < v.size() ? v[i] * (1 - frac) + v[i + 1] * frac : v[i];
}

}  // namespace

void ConstantFitOptions::validate() const {
  if (!(sigma > 0) || !std::isfinite(sigma))
    throw std::invalid_argument("sigma must be a finite number > 0");
  if (!(huber_delta > 0) || !std::isfinite(huber_delta))
    throw std::invalid_argument("huber_delta must be a finite number > 0");
  if (bootstrap < 0 || bootstrap > 100'000)
    throw std::invalid_argument("bootstrap must be in [0, 100000] resamples");
}

std::vector<double> ConstantFit::values() const {
  std::vector<double> v;
  for (const FittedConstant& c : constants) v.push_back(c.value);
  return v;
}

ErrorSummary relative_errors(std::span<const double> predicted, std::span<const double> measured) {
  ErrorSummary e;
  if (predicted.empty()) return e;
  for (std::size_t i = 0; i < predicted.size(); ++i) {
    const double r = predicted[i] / measured[i] - 1;
    e.mean_abs += std::abs(r);
    e.mean_signed += r;
  }
  e.mean_abs /= static_cast<double>(predicted.size());
  e.mean_signed /= static_cast<double>(predicted.size());
  return e;
}

ConstantFit fit_constants(const std::vector<FitConstant>& constants,
                          std::span<const double> measured, const RunPredictor& predict,
                          const ConstantFitOptions& options) {
  options.validate();
  if (constants.empty()) throw std::invalid_argument("no constants to fit");
  if (measured.empty()) throw std::invalid_argument("no runs to fit to");
  for (const FitConstant& c : constants) {
    if (!(c.prior_width > 0)) throw std::invalid_argument(c.name + ": the prior width must be > 0");
    if (c.kind == ConstantKind::factor && !(c.lo > 0))
      throw std::invalid_argument(c.name + ": a factor's lower bound must be > 0");
    if (!(c.prior >= c.lo && c.prior <= c.hi))
      throw std::invalid_argument(c.name + ": the prior is outside the bounds");
  }
  for (double m : measured)
    if (!(m > 0) || !std::isfinite(m))
      throw std::invalid_argument("a measurement is not a finite number > 0");
  const Problem p{constants, measured, predict, options};
  const std::size_t n_runs = measured.size();
  std::vector<std::size_t> all(n_runs);
  std::iota(all.begin(), all.end(), 0);
  const std::int64_t fits = 1 + static_cast<std::int64_t>(n_runs) + options.bootstrap;
  std::int64_t fits_done = 0;
  auto done_one = [&] {
    ++fits_done;
    if (options.progress && !options.progress(fits_done, fits))
      throw Cancelled("constant fit stopped after " + std::to_string(fits_done) + " of " +
                      std::to_string(fits) + " fits");
  };
  if (options.progress && !options.progress(0, fits)) throw Cancelled("constant fit stopped");
  const std::vector<double> fitted = minimize(p, all);
  done_one();
  std::vector<double> priors;
  for (const FitConstant& c : constants) priors.push_back(c.prior);

  ConstantFit out;
  std::vector<double> pred_prior, pred_fit, pred_loo;
  for (std::size_t i = 0; i < n_runs; ++i) {
    RunFit r;
    r.measured = measured[i];
    r.prior_predicted = predict(i, priors);
    r.predicted = predict(i, fitted);
    if (n_runs > 1) {
      std::vector<std::size_t> others;
      for (std::size_t j = 0; j < n_runs; ++j)
        if (j != i) others.push_back(j);
      r.loo_predicted = predict(i, minimize(p, others));
    } else {
      r.loo_predicted = r.prior_predicted;  // nothing else to learn from
    }
    done_one();
    pred_prior.push_back(r.prior_predicted);
    pred_fit.push_back(r.predicted);
    pred_loo.push_back(r.loo_predicted);
    out.runs.push_back(r);
  }
  out.prior_error = relative_errors(pred_prior, measured);
  out.fit_error = relative_errors(pred_fit, measured);
  out.loo_error = relative_errors(pred_loo, measured);

  std::vector<std::vector<double>> boot(constants.size());
  Rng rng(options.seed);
  for (std::int64_t b = 0; b < options.bootstrap; ++b) {
    std::vector<std::size_t> sample(n_runs);
    for (std::size_t& s : sample) s = static_cast<std::size_t>(rng.below(n_runs));
    const std::vector<double> v = minimize(p, sample);
    for (std::size_t k = 0; k < v.size(); ++k) boot[k].push_back(v[k]);
    done_one();
  }
  for (std::size_t k = 0; k < constants.size(); ++k) {
    FittedConstant c;
    c.name = constants[k].name;
    c.unit = constants[k].unit;
    c.prior = constants[k].prior;
    c.value = fitted[k];
    c.p05 = boot[k].empty() ? fitted[k] : percentile(boot[k], 0.05);
    c.p95 = boot[k].empty() ? fitted[k] : percentile(boot[k], 0.95);
    out.constants.push_back(c);
  }
  return out;
}

}  // namespace napkin
