// The parametric fit of a ladder (Besiroglu et al. 2024: Huber on log L over
// θ = (a, α, b, β, e), grid starts then L-BFGS), its bootstrap forecast with a
// confidence band, and the design of a ladder for a target compute. The
// numerical spine, the ladder and IsoFLOPs are in scaling.cpp.
#include "scaling.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <limits>
#include <mutex>
#include <numeric>

#include "lbfgs.h"
#include "parallel_for.h"
#include "rng.h"
#include "scaling_detail.h"
#include "validate.h"

namespace napkin {

// ================================================================== fitting

std::string_view to_string(Estimator e) {
  switch (e) {
    case Estimator::huber_log: return "huber-log";
    case Estimator::ls_log: return "ls-log";
    case Estimator::ls_linear: return "ls-linear";
    case Estimator::seed_cd: return "seed-cd";
  }
  return "huber-log";
}

Estimator parse_estimator(std::string_view text) {
  for (Estimator e :
       {Estimator::huber_log, Estimator::ls_log, Estimator::ls_linear, Estimator::seed_cd})
    if (text == to_string(e)) return e;
  throw_out_of_range("estimator", "name", "huber-log, ls-log, ls-linear or seed-cd", text);
}

void FitOptions::validate() const {
  require_positive(huber_delta, "huber_delta", "log-loss units");
  require_count(refine_starts, "refine_starts", "starts", 1, 4500);
  require_count(max_iterations, "max_iterations", "iterations", 1, 1'000'000);
  require_count(seed_cd_iterations, "seed_cd_iterations", "iterations", 1, 1'000'000);
  require_count(threads, "threads", "threads (0 = all)", 0, 1024);
  if (!use_grid && !warm_start)
    throw std::invalid_argument(
        "use_grid (starts) must be true when no warm_start is given: the fit needs a start");
  if (warm_start) warm_start->validate();
}

namespace {

// θ = (a, α, b, β, e) with A = eᵃ, B = eᵇ, E = eᵉ (Besiroglu et al. 2024).
using Theta = std::array<double, 5>;

// The points of a fit. A bootstrap resample is the original points weighted
// by how often each was drawn: the same objective with ~37 % fewer terms.
struct FitData {
  std::vector<double> log_n, log_d, log_l, loss, weight;
  explicit FitData(const std::vector<LadderPoint>& pts) {
    for (const auto& p : pts) add(p, 1.0);
  }
  FitData(const std::vector<LadderPoint>& pts, const std::vector<int>& counts) {
    for (std::size_t k = 0; k < pts.size(); ++k)
      if (counts[k] > 0) add(pts[k], counts[k]);
  }
  void add(const LadderPoint& p, double w) {
    log_n.push_back(std::log(p.n_params));
    log_d.push_back(std::log(p.n_tokens));
    log_l.push_back(std::log(p.loss));
    loss.push_back(p.loss);
    weight.push_back(w);
  }
  std::size_t size() const { return loss.size(); }
};

Theta theta_from_law(const LossLaw& l) {
  return {std::log(l.A), l.alpha, std::log(l.B), l.beta, std::log(l.E)};
}
LossLaw law_from_theta(const Theta& t) {
  return LossLaw{std::exp(t[4]), std::exp(t[0]), t[1], std::exp(t[2]), t[3]};
}

// The objective and (when grad != nullptr) its analytic gradient.
double objective_lse(const FitData& d, const Theta& t, Estimator est, double delta, Theta* grad) {
  double f = 0;
  Theta g{};
  for (std::size_t i = 0; i < d.size(); ++i) {
    const double u1 = t[0] - t[1] * d.log_n[i];
    const double u2 = t[2] - t[3] * d.log_d[i];
    const double u3 = t[4];
    const double m = std::max({u1, u2, u3});
    const double e1 = std::exp(u1 - m), e2 = std::exp(u2 - m), e3 = std::exp(u3 - m);
    const double s = e1 + e2 + e3;
    const double lse = m + std::log(s);
    double term = 0, w = 0;  // the point's term and d(term)/d(lse)
    if (est == Estimator::ls_linear) {
      const double pred = std::exp(lse);
      const double r = pred - d.loss[i];
      term = r * r;
      w = 2 * r * pred;
    } else {
      const double r = lse - d.log_l[i];
      if (est == Estimator::ls_log) {
        term = r * r;
        w = 2 * r;
      } else if (std::abs(r) <= delta) {
        term = 0.5 * r * r;
        w = r;
      } else {
        term = delta * (std::abs(r) - 0.5 * delta);
        w = r > 0 ? delta : -delta;
      }
    }
    f += d.weight[i] * term;
    w *= d.weight[i];
    if (grad) {
      const double w1 = w * e1 / s, w2 = w * e2 / s;
      g[0] += w1;
      g[1] -= w1 * d.log_n[i];
      g[2] += w2;
      g[3] -= w2 * d.log_d[i];
      g[4] += w * e3 / s;
    }
  }
  if (grad) *grad = g;
  return f;
}

struct Polished {
  Theta theta{};
  double f = std::numeric_limits<double>::infinity();
  int iterations = 0;
  bool converged = false;
};

// One fit's progress (FitProgressFn), shared by the threads that run it:
// steps are added from any thread and the caller's function is called one
// call at a time, with a count that never decreases.
class FitProgress {
 public:
  FitProgress(const FitProgressFn& fn, std::int64_t total) : fn_(fn), total_(total) {}
  // Adds `steps`; false once the caller asked to stop.
  bool advance(std::int64_t steps) {
    if (!fn_) return true;
    if (stop_.load()) return false;
    std::lock_guard lock(mutex_);
    done_ = std::min(total_, done_ + steps);
    if (!fn_(done_, total_)) stop_.store(true);
    return !stop_.load();
  }
  bool stopped() const { return stop_.load(); }
  void throw_if_stopped() const {
    if (stopped()) throw Cancelled("cancelled by the caller");
  }

 private:
  const FitProgressFn& fn_;
  const std::int64_t total_;
  std::int64_t done_ = 0;
  std::mutex mutex_;
  std::atomic<bool> stop_{false};
};

// Polishes one start with L-BFGS (lbfgs.h) on the objective and its analytic
// gradient. Stops when the relative decrease stays below `ftol` for three
// iterations in a row, or when `progress` says stop.
Polished polish(const FitData& d, const Theta& start, Estimator est, double delta, int max_iter,
                double ftol, FitProgress* progress = nullptr) {
  LbfgsOptions o;
  o.max_iterations = max_iter;
  o.ftol = ftol;
  int counted = 0;  // iterations reported
  if (progress)
    o.keep_going = [&](int it) {
      const int step = it - counted;
      counted = it;
      return progress->advance(step);
    };
  const LbfgsResult r = lbfgs_minimize(
      [&](const std::vector<double>& x, std::vector<double>& grad) {
        Theta t{}, g{};
        std::copy(x.begin(), x.end(), t.begin());
        const double f = objective_lse(d, t, est, delta, &g);
        std::copy(g.begin(), g.end(), grad.begin());
        return f;
      },
      std::vector<double>(start.begin(), start.end()), o);
  if (progress) progress->advance(max_iter - counted);  // the rest of this start's iterations
  Polished out;
  if (!std::isfinite(r.f)) return out;
  std::copy(r.x.begin(), r.x.end(), out.theta.begin());
  out.f = r.f;
  out.iterations = r.iterations;
  out.converged = r.converged;
  return out;
}

// Hoffmann et al.'s grid, as used by Besiroglu et al. (4,500 starts).
std::vector<Theta> start_grid() {
  std::vector<Theta> grid;
  for (int ia = 0; ia <= 5; ++ia)
    for (int ib = 0; ib <= 5; ++ib)
      for (int ie = -2; ie <= 2; ++ie)
        for (int ial = 0; ial <= 4; ++ial)
          for (int ibe = 0; ibe <= 4; ++ibe)
            grid.push_back({5.0 * ia, 0.5 * ial, 5.0 * ib, 0.5 * ibe, 0.5 * ie});
  return grid;
}

// The seed's coordinate descent, transcribed (seed Phase 01 ch. 8,
// fit_parametric): params (E, A, α, B, β), a step of half each start value,
// shrunk ×0.97 whenever no coordinate improves.
FitResult seed_coordinate_descent(const std::vector<LadderPoint>& points, double delta, int iters,
                                  const FitProgressFn& report) {
  FitProgress progress(report, iters);
  std::array<double, 5> params = {1.5, 400.0, 0.35, 400.0, 0.30};
  std::array<double, 5> step{};
  for (int i = 0; i < 5; ++i) step[i] = params[i] != 0 ? 0.5 * std::abs(params[i]) : 0.5;
  auto score = [&](const std::array<double, 5>& p) {
    double total = 0;
    for (const auto& pt : points) {
      const double pred =
          p[0] + p[1] / std::pow(pt.n_params, p[2]) + p[3] / std::pow(pt.n_tokens, p[4]);
      const double r = std::log(pred) - std::log(pt.loss);
      const double a = std::abs(r);
      total += a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
    }
    return total;
  };
  double best = score(params);
  for (int it = 0; it < iters; ++it) {
    if (!progress.advance(it == 0 ? 0 : 1)) progress.throw_if_stopped();
    bool improved = false;
    for (int i = 0; i < 5; ++i) {
      for (double direction : {+1.0, -1.0}) {
        auto trial = params;
        trial[i] = params[i] + direction * step[i];
        if (trial[i] <= 0) continue;
        const double s = score(trial);
        if (s < best) {
          best = s;
          params = trial;
          improved = true;
          break;
        }
      }
    }
    if (!improved)
      for (double& s : step) s *= 0.97;
  }
  progress.advance(1);  // the last iteration: done reaches the total
  FitResult r;
  r.law = LossLaw{params[0], params[1], params[2], params[3], params[4]};
  r.estimator = Estimator::seed_cd;
  r.objective = best;
  r.n_points = static_cast<int>(points.size());
  r.iterations = iters;
  r.starts = 1;
  r.converged = false;  // it stops on its iteration count, not on a test
  return r;
}

void require_fit_input(const std::vector<LadderPoint>& points) {
  require_count(static_cast<std::int64_t>(points.size()), "points", "ladder runs (5 parameters)",
                5);
  validate_points(points);
  std::vector<double> ns, ds;
  for (const auto& p : points) {
    ns.push_back(p.n_params);
    ds.push_back(p.n_tokens);
  }
  if (detail::count_distinct(ns) < 2 || detail::count_distinct(ds) < 2)
    throw std::invalid_argument(
        "points (ladder runs) must span at least 2 distinct N and 2 distinct D to determine the "
        "law; got " +
        std::to_string(detail::count_distinct(ns)) + " distinct N and " +
        std::to_string(detail::count_distinct(ds)) + " distinct D");
}

bool usable(const LossLaw& l) {
  return std::isfinite(l.E) && l.E > 0 && std::isfinite(l.A) && l.A > 0 && std::isfinite(l.B) &&
         l.B > 0 && l.alpha > 0 && l.alpha <= 2 && l.beta > 0 && l.beta <= 2;
}

}  // namespace

double fit_objective(const std::vector<LadderPoint>& points, const LossLaw& law,
                     Estimator estimator, double huber_delta) {
  law.validate();
  validate_points(points);
  require_positive(huber_delta, "huber_delta", "log-loss units");
  const FitData d(points);
  const Estimator e = estimator == Estimator::seed_cd ? Estimator::huber_log : estimator;
  return objective_lse(d, theta_from_law(law), e, huber_delta, nullptr);
}

namespace {
// Full fits are polished to the last digits (the Chinchilla objective is
// checked to 7); bootstrap refits only need their forecast to ~1e-6 nats.
constexpr double kFullFitTolerance = 1e-15;
constexpr double kResampleTolerance = 1e-11;
FitResult fit_lse(const FitData& d, const FitOptions& options, int n_points, double ftol);
void require_physical(const LossLaw& law, const std::vector<LadderPoint>& points) {
  if (const std::string why = law_not_physical(law, points); !why.empty())
    throw NotPhysical("points (ladder runs) do not determine a physical law: " + why,
                      ladder_outliers(points), points.size());
}
}  // namespace

FitResult fit_parametric(const std::vector<LadderPoint>& points, const FitOptions& options) {
  options.validate();
  require_fit_input(points);
  if (options.estimator == Estimator::seed_cd) {
    FitResult r = seed_coordinate_descent(points, options.huber_delta, options.seed_cd_iterations,
                                          options.progress);
    if (!usable(r.law))
      throw std::invalid_argument(
          "points: the seed's coordinate descent did not reach a usable "
          "law");
    require_physical(r.law, points);
    return r;
  }
  FitResult r =
      fit_lse(FitData(points), options, static_cast<int>(points.size()), kFullFitTolerance);
  require_physical(r.law, points);
  return r;
}

namespace {

FitResult fit_lse(const FitData& d, const FitOptions& options, int n_points, double ftol) {
  std::vector<Theta> starts;
  if (options.warm_start) starts.push_back(theta_from_law(*options.warm_start));
  const std::vector<Theta> grid = options.use_grid ? start_grid() : std::vector<Theta>{};
  const std::size_t from_grid =
      options.refine_all_starts
          ? grid.size()
          : std::min(grid.size(), static_cast<std::size_t>(options.refine_starts));
  FitProgress progress(options.progress, static_cast<std::int64_t>(grid.size()) +
                                             static_cast<std::int64_t>(starts.size() + from_grid) *
                                                 options.max_iterations);
  if (options.use_grid) {
    std::vector<double> f(grid.size());
    parallel_for(static_cast<int>(grid.size()), options.threads, [&](int i) {
      if (progress.stopped()) return;
      const double v = objective_lse(d, grid[static_cast<std::size_t>(i)], options.estimator,
                                     options.huber_delta, nullptr);
      f[static_cast<std::size_t>(i)] = std::isfinite(v) ? v : std::numeric_limits<double>::max();
      progress.advance(1);
    });
    progress.throw_if_stopped();
    std::vector<std::size_t> order(grid.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t p, std::size_t q) { return f[p] < f[q]; });
    for (std::size_t k = 0; k < from_grid; ++k) starts.push_back(grid[order[k]]);
  }
  std::vector<Polished> results(starts.size());
  parallel_for(static_cast<int>(starts.size()), options.threads, [&](int i) {
    const auto k = static_cast<std::size_t>(i);
    results[k] = polish(d, starts[k], options.estimator, options.huber_delta,
                        options.max_iterations, ftol, &progress);
  });
  progress.throw_if_stopped();
  // The lowest objective among usable laws; ties go to the earlier start.
  const Polished* best = nullptr;
  for (const auto& r : results)
    if (std::isfinite(r.f) && usable(law_from_theta(r.theta)) && (!best || r.f < best->f))
      best = &r;
  if (!best) {
    const Polished* any = nullptr;
    for (const auto& r : results)
      if (std::isfinite(r.f) && (!any || r.f < any->f)) any = &r;
    const std::string detail = any ? "the best fit has alpha = " + format_value(any->theta[1]) +
                                         ", beta = " + format_value(any->theta[3])
                                   : std::string("no start gave a finite objective");
    throw std::invalid_argument(
        "points (ladder runs) do not determine a usable law (exponents must lie in (0, 2]); " +
        detail);
  }
  FitResult r;
  r.law = law_from_theta(best->theta);
  r.estimator = options.estimator;
  r.objective = best->f;
  r.n_points = n_points;
  r.iterations = best->iterations;
  r.starts = static_cast<int>(starts.size());
  r.converged = best->converged;
  return r;
}

}  // namespace

// ===================================================== forecast with a CI

void BootstrapOptions::validate() const {
  require_count(resamples, "resamples", "bootstrap resamples", 1, 10'000'000);
  require_real(confidence, "confidence", "fraction", 0.0, 1.0, true);
  if (confidence >= 1.0) throw_out_of_range("confidence", "fraction", "in (0, 1)", "1");
  require_count(min_successful, "min_successful", "resamples", 1, 10'000'000);
  fit.validate();
}

namespace {
struct Percentiles {
  std::size_t low = 0, median = 0, high = 0;
};
// The seed's percentile convention: sorted[int(q·n)].
Percentiles percentiles(std::size_t m, double confidence) {
  auto at = [m](double q) {
    return std::min(m - 1, static_cast<std::size_t>(q * static_cast<double>(m)));
  };
  const double tail = 0.5 * (1.0 - confidence);
  return {at(tail), m / 2, at(1.0 - tail)};
}
}  // namespace

BootstrapResult bootstrap_forecast(const std::vector<LadderPoint>& points, double target_flops,
                                   const BootstrapOptions& options, const ProgressFn& progress) {
  options.validate();
  require_positive(target_flops, "target_flops", "FLOPs");
  require_fit_input(points);
  BootstrapResult out;
  out.target_flops = target_flops;
  out.fit = fit_parametric(points, options.fit);
  out.point_forecast = optimal_loss(out.fit.law, target_flops);

  FitOptions refit = options.fit;
  refit.use_grid = false;
  refit.warm_start = out.fit.law;
  refit.threads = 1;
  refit.progress = nullptr;  // the resamples report through `progress`
  const int n = options.resamples;
  std::vector<double> loss(static_cast<std::size_t>(n), 0.0), n_opt(loss.size(), 0.0);
  std::vector<LossLaw> laws(loss.size());
  std::vector<char> ok(loss.size(), 0);
  const auto size = points.size();
  parallel_for(
      n, options.fit.threads,
      [&](int i) {
        Rng rng(stream_seed(options.seed, static_cast<std::uint64_t>(i)));
        std::vector<int> counts(size, 0);
        for (std::size_t k = 0; k < size; ++k) ++counts[rng.below(size)];
        std::vector<double> ns, ds;
        for (std::size_t k = 0; k < size; ++k)
          if (counts[k] > 0) {
            ns.push_back(points[k].n_params);
            ds.push_back(points[k].n_tokens);
          }
        if (detail::count_distinct(ns) < 3 || detail::count_distinct(ds) < 3) return;  // degenerate
        try {
          FitResult f;
          if (refit.estimator == Estimator::seed_cd) {
            std::vector<LadderPoint> sample;
            for (std::size_t k = 0; k < size; ++k)
              for (int c = 0; c < counts[k]; ++c) sample.push_back(points[k]);
            f = fit_parametric(sample, refit);
          } else {
            f = fit_lse(FitData(points, counts), refit, static_cast<int>(size), kResampleTolerance);
          }
          const ComputeOptimum o = analytic_optimum(f.law, target_flops);
          if (!std::isfinite(o.loss)) return;
          const auto k = static_cast<std::size_t>(i);
          loss[k] = o.loss;
          n_opt[k] = o.n_params;
          laws[k] = f.law;
          ok[k] = 1;
        } catch (const std::invalid_argument&) {
          // An unusable refit: skipped, counted below.
        }
      },
      progress);
  std::vector<double> ns_ok;
  for (std::size_t k = 0; k < loss.size(); ++k)
    if (ok[k]) {
      out.forecasts.push_back(loss[k]);
      ns_ok.push_back(n_opt[k]);
      out.laws.push_back(laws[k]);
    }
  out.n_successful = static_cast<int>(out.forecasts.size());
  out.n_skipped = n - out.n_successful;
  if (out.n_successful < options.min_successful)
    throw std::invalid_argument(
        "points (ladder runs): too few successful bootstrap fits (" +
        std::to_string(out.n_successful) + " of " + std::to_string(n) + ", need at least " +
        std::to_string(options.min_successful) +
        "); the ladder is too small or too degenerate to put an interval on the forecast");
  std::sort(out.forecasts.begin(), out.forecasts.end());
  std::sort(ns_ok.begin(), ns_ok.end());
  const Percentiles q = percentiles(out.forecasts.size(), options.confidence);
  out.ci_low = out.forecasts[q.low];
  out.ci_high = out.forecasts[q.high];
  out.median = out.forecasts[q.median];
  out.width = out.ci_high - out.ci_low;
  out.n_opt_low = ns_ok[q.low];
  out.n_opt_high = ns_ok[q.high];
  return out;
}

std::vector<BandPoint> forecast_band(const std::vector<LossLaw>& laws,
                                     const std::vector<double>& flops, double confidence) {
  require_count(static_cast<std::int64_t>(laws.size()), "laws", "bootstrap laws", 1);
  require_real(confidence, "confidence", "fraction", 0.0, 1.0, true);
  if (confidence >= 1.0) throw_out_of_range("confidence", "fraction", "in (0, 1)", "1");
  for (const auto& l : laws) l.validate();
  const Percentiles q = percentiles(laws.size(), confidence);
  std::vector<BandPoint> out;
  std::vector<double> v(laws.size());
  for (double c : flops) {
    require_positive(c, "flops", "FLOPs");
    for (std::size_t k = 0; k < laws.size(); ++k) v[k] = optimal_loss(laws[k], c);
    std::sort(v.begin(), v.end());
    out.push_back({c, v[q.low], v[q.median], v[q.high]});
  }
  return out;
}

BandPoint optimal_params_interval(const std::vector<LossLaw>& laws, double flops,
                                  double confidence) {
  require_count(static_cast<std::int64_t>(laws.size()), "laws", "bootstrap laws", 1);
  require_real(confidence, "confidence", "fraction", 0.0, 1.0, true);
  if (confidence >= 1.0) throw_out_of_range("confidence", "fraction", "in (0, 1)", "1");
  require_positive(flops, "flops", "FLOPs");
  std::vector<double> ns;
  ns.reserve(laws.size());
  for (const LossLaw& l : laws) ns.push_back(analytic_optimum(l, flops).n_params);
  std::sort(ns.begin(), ns.end());
  const Percentiles q = percentiles(ns.size(), confidence);
  return {flops, ns[q.low], ns[q.median], ns[q.high]};
}

// ============================================================ ladder design

double extrapolation_variance(const std::vector<double>& log10_flops, double target_log10_flops) {
  require_count(static_cast<std::int64_t>(log10_flops.size()), "log10_flops", "design points", 2);
  require_real(target_log10_flops, "target_log10_flops", "log10 FLOPs",
               -std::numeric_limits<double>::max());
  for (double x : log10_flops)
    require_real(x, "log10_flops", "log10 FLOPs", -std::numeric_limits<double>::max());
  const double n = static_cast<double>(log10_flops.size());
  const double xbar = std::accumulate(log10_flops.begin(), log10_flops.end(), 0.0) / n;
  double sxx = 0;
  for (double x : log10_flops) sxx += (x - xbar) * (x - xbar);
  if (sxx == 0)
    throw std::invalid_argument(
        "log10_flops (design points) must not all be identical: the slope is undefined");
  return 1.0 / n + (target_log10_flops - xbar) * (target_log10_flops - xbar) / sxx;
}

LadderDesign design_ladder(double flagship_flops, double fraction, int n_budgets,
                           double min_flops) {
  require_positive(flagship_flops, "flagship_flops", "FLOPs");
  require_real(fraction, "fraction", "share of the flagship", 0.0, 1.0, true);
  require_count(n_budgets, "n_budgets", "budgets", 2, 1000);
  require_positive(min_flops, "min_flops", "FLOPs");
  const double top = flagship_flops * fraction / 2.0;
  if (!(top > min_flops))
    throw_out_of_range("min_flops", "FLOPs", "< half the ladder budget (" + format_value(top) + ")",
                       format_value(min_flops));
  LadderDesign d;
  const double ratio = std::pow(top / min_flops, 1.0 / (n_budgets - 1));
  for (int i = 0; i < n_budgets; ++i) d.budgets_flops.push_back(min_flops * std::pow(ratio, i));
  d.total_flops = std::accumulate(d.budgets_flops.begin(), d.budgets_flops.end(), 0.0);
  d.fraction_of_flagship = d.total_flops / flagship_flops;
  d.spread_decades = std::log10(d.budgets_flops.back()) - std::log10(d.budgets_flops.front());
  return d;
}

}  // namespace napkin
