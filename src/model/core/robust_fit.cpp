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

// The inverse of a small symmetric positive-definite matrix (Gauss–Jordan
// with partial pivoting; the matrices here are JᵀWJ/σ² + I, so >= I).
std::vector<std::vector<double>> inverse_spd(std::vector<std::vector<double>> a) {
  const std::size_t n = a.size();
  std::vector<std::vector<double>> inv(n, std::vector<double>(n, 0.0));
  for (std::size_t i = 0; i < n; ++i) inv[i][i] = 1;
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t pivot = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::abs(a[r][c]) > std::abs(a[pivot][c])) pivot = r;
    std::swap(a[c], a[pivot]);
    std::swap(inv[c], inv[pivot]);
    const double d = a[c][c];
    for (std::size_t k = 0; k < n; ++k) a[c][k] /= d, inv[c][k] /= d;
    for (std::size_t r = 0; r < n; ++r) {
      if (r == c) continue;
      const double f = a[r][c];
      if (f == 0) continue;
      for (std::size_t k = 0; k < n; ++k) a[r][k] -= f * a[c][k], inv[r][k] -= f * inv[c][k];
    }
  }
  return inv;
}

// Which constants the runs identify (robust_fit.h): the Laplace posterior's
// standard deviation over the prior's for each constant at `fitted`, the least
// informed held first until every free constant is under the threshold.
// Returns each constant's ratio and whether it is held; constants fixed by
// their bounds (lo == hi) are neither fitted nor counted.
struct Identification {
  std::vector<double> sd_ratio;
  std::vector<bool> held;
};

Identification identify(const Problem& p, const std::vector<double>& fitted) {
  const std::size_t n = p.constants.size(), runs = p.measured.size();
  Identification out{std::vector<double>(n, 1.0), std::vector<bool>(n, false)};
  std::vector<std::size_t> free;
  for (std::size_t k = 0; k < n; ++k)
    if (p.constants[k].lo < p.constants[k].hi) free.push_back(k);
  if (free.empty()) return out;
  // d ln(prediction) / d(coordinate), one prior width per unit, by central
  // differences of a tenth of a prior width; and each run's Huber weight.
  constexpr double h = 0.1;
  const double sigma = p.options.sigma;
  std::vector<std::vector<double>> jac(runs, std::vector<double>(n, 0.0));
  std::vector<double> weight(runs, 1.0);
  for (std::size_t i = 0; i < runs; ++i) {
    const double r = std::abs(std::log(p.predict(i, fitted) / p.measured[i])) / sigma;
    if (r > p.options.huber_delta) weight[i] = std::isfinite(r) ? p.options.huber_delta / r : 0.0;
    for (std::size_t k : free) {
      std::vector<double> up = fitted, down = fitted;
      const double t = to_coord(p.constants[k], fitted[k]);
      up[k] = from_coord(p.constants[k], t + h);
      down[k] = from_coord(p.constants[k], t - h);
      const double d = (std::log(p.predict(i, up)) - std::log(p.predict(i, down))) / (2 * h);
      jac[i][k] = std::isfinite(d) ? d : 0.0;  // a prediction the model refuses: no information
    }
  }
  while (!free.empty()) {
    const std::size_t m = free.size();
    std::vector<std::vector<double>> a(m, std::vector<double>(m, 0.0));
    for (std::size_t x = 0; x < m; ++x) {
      a[x][x] = 1;  // the prior: unit width in these coordinates
      for (std::size_t y = 0; y < m; ++y)
        for (std::size_t i = 0; i < runs; ++i)
          a[x][y] += weight[i] * jac[i][free[x]] * jac[i][free[y]] / (sigma * sigma);
    }
    const std::vector<std::vector<double>> cov = inverse_spd(a);
    std::size_t worst = 0;
    for (std::size_t x = 0; x < m; ++x) {
      out.sd_ratio[free[x]] = std::sqrt(std::max(0.0, cov[x][x]));
      if (out.sd_ratio[free[x]] > out.sd_ratio[free[worst]]) worst = x;
    }
    if (out.sd_ratio[free[worst]] <= p.options.identify_sd_ratio) break;
    out.held[free[worst]] = true;
    free.erase(free.begin() + static_cast<std::ptrdiff_t>(worst));
  }
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
  if (!(identify_sd_ratio > 0 && identify_sd_ratio <= 1))
    throw std::invalid_argument("identify_sd_ratio must be in (0, 1]");
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
  const Problem first{constants, measured, predict, options};
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
  // Fit, find what the runs identify, hold the rest at their priors and fit
  // again; the leave-one-out fits and the resamples hold the same constants.
  std::vector<double> fitted = minimize(first, all);
  const Identification id = identify(first, fitted);
  std::vector<FitConstant> reduced = constants;
  bool any_held = false;
  for (std::size_t k = 0; k < reduced.size(); ++k)
    if (id.held[k]) reduced[k].lo = reduced[k].hi = reduced[k].prior, any_held = true;
  const Problem p{reduced, measured, predict, options};
  if (any_held) fitted = minimize(p, all);
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
    c.sd_ratio = id.sd_ratio[k];
    c.held = id.held[k];
    if (c.held) {  // as uncertain as the prior: its 90 % range
      const FitConstant& k0 = constants[k];
      c.p05 = from_coord(k0, -1.6449);
      c.p95 = from_coord(k0, 1.6449);
    }
    out.constants.push_back(c);
  }
  return out;
}

}  // namespace napkin
