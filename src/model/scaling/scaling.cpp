#include "scaling.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

#include "lbfgs.h"
#include "parallel_for.h"
#include "rng.h"
#include "scaling_detail.h"
#include "validate.h"

namespace napkin {

namespace {

void require_same_size(const std::vector<double>& xs, const std::vector<double>& ys) {
  if (xs.size() != ys.size())
    throw std::invalid_argument("xs and ys (values) must have the same length; got " +
                                std::to_string(xs.size()) + " and " + std::to_string(ys.size()));
}

std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace

int detail::count_distinct(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return static_cast<int>(std::unique(v.begin(), v.end()) - v.begin());
}

std::vector<double> detail::parse_number_list(const std::string& text, std::size_t count,
                                              const std::string& what) {
  std::vector<double> v;
  std::size_t start = 0;
  while (v.size() <= count) {
    const std::size_t comma = text.find(',', start);
    const std::string part =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    char* end = nullptr;
    const double x = std::strtod(part.c_str(), &end);
    if (part.empty() || end != part.c_str() + part.size())
      throw std::invalid_argument(what + "; got \"" + text.substr(0, 80) + "\"");
    v.push_back(x);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (v.size() != count) throw std::invalid_argument(what + "; got " + std::to_string(v.size()));
  return v;
}

// ============================================================ numerical spine

LineFit fit_line(const std::vector<double>& xs, const std::vector<double>& ys) {
  require_same_size(xs, ys);
  require_count(static_cast<std::int64_t>(xs.size()), "points", "(x, y) pairs", 2);
  for (std::size_t i = 0; i < xs.size(); ++i) {
    require_real(xs[i], "x", "value", -std::numeric_limits<double>::max());
    require_real(ys[i], "y", "value", -std::numeric_limits<double>::max());
  }
  const double n = static_cast<double>(xs.size());
  const double mx = std::accumulate(xs.begin(), xs.end(), 0.0) / n;
  const double my = std::accumulate(ys.begin(), ys.end(), 0.0) / n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    sxx += (xs[i] - mx) * (xs[i] - mx);
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  if (sxx == 0)
    throw std::invalid_argument(
        "x (values) must not all be identical: the slope is undefined; got every x = " +
        format_value(xs[0]));
  const double slope = sxy / sxx;
  return {slope, my - slope * mx};
}

PowerLawFit fit_power_law(const std::vector<double>& xs, const std::vector<double>& ys) {
  require_same_size(xs, ys);
  std::vector<double> lx(xs.size()), ly(ys.size());
  for (std::size_t i = 0; i < xs.size(); ++i) {
    require_positive(xs[i], "x", "power-law fit needs values > 0");
    require_positive(ys[i], "y", "power-law fit needs values > 0");
    lx[i] = std::log(xs[i]);
    ly[i] = std::log(ys[i]);
  }
  const LineFit f = fit_line(lx, ly);
  return {std::exp(f.intercept), f.slope};
}

double power_law(double x, double coefficient, double exponent) {
  require_positive(x, "x", "value");
  require_real(coefficient, "coefficient", "value", -std::numeric_limits<double>::max());
  require_real(exponent, "exponent", "value", -std::numeric_limits<double>::max());
  return coefficient * std::pow(x, exponent);
}

Quadratic fit_quadratic(const std::vector<double>& xs, const std::vector<double>& ys) {
  require_same_size(xs, ys);
  if (xs.size() < 3)
    throw std::invalid_argument(
        "points ((x, y) pairs) must number at least 3 for a parabola; got " +
        std::to_string(xs.size()));
  for (std::size_t i = 0; i < xs.size(); ++i) {
    require_real(xs[i], "x", "value", -std::numeric_limits<double>::max());
    require_real(ys[i], "y", "value", -std::numeric_limits<double>::max());
  }
  if (detail::count_distinct(xs) < 3)
    throw std::invalid_argument(
        "x (values) must take at least 3 distinct values: the design is degenerate (the "
        "columns x², x, 1 are collinear); got " +
        std::to_string(detail::count_distinct(xs)) + " distinct");
  const double n = static_cast<double>(xs.size());
  const double m = std::accumulate(xs.begin(), xs.end(), 0.0) / n;
  std::array<double, 5> s{};
  std::array<double, 3> t{};
  for (std::size_t i = 0; i < xs.size(); ++i) {
    const double u = xs[i] - m;
    double p = 1;
    for (int k = 0; k < 5; ++k) {
      s[k] += p;
      if (k < 3) t[k] += ys[i] * p;
      p *= u;
    }
  }
  using M3 = std::array<std::array<double, 3>, 3>;
  const M3 mat = {{{s[4], s[3], s[2]}, {s[3], s[2], s[1]}, {s[2], s[1], s[0]}}};
  const std::array<double, 3> rhs = {t[2], t[1], t[0]};
  auto det3 = [](const M3& q) {
    return q[0][0] * (q[1][1] * q[2][2] - q[1][2] * q[2][1]) -
           q[0][1] * (q[1][0] * q[2][2] - q[1][2] * q[2][0]) +
           q[0][2] * (q[1][0] * q[2][1] - q[1][1] * q[2][0]);
  };
  const double d0 = det3(mat);
  if (!(std::abs(d0) > 1e-12 * s[4] * s[2] * s[0]))
    throw std::invalid_argument(
        "x (values) are too close together: the design is degenerate (the normal equations "
        "are singular)");
  auto solve = [&](int col) {
    M3 q = mat;
    for (int r = 0; r < 3; ++r) q[r][col] = rhs[r];
    return det3(q) / d0;
  };
  const double a = solve(0), bc = solve(1), cc = solve(2);
  // Back from u = x − m to x.
  return {a, bc - 2 * a * m, a * m * m - bc * m + cc};
}

double parabola_vertex(double a, double b) {
  require_real(b, "b", "parabola coefficient", -std::numeric_limits<double>::max());
  if (!std::isfinite(a) || a <= 0)
    throw_out_of_range("a", "parabola coefficient",
                       "> 0: the parabola opens downward or is flat, so there is no interior "
                       "minimum (the sweep does not bracket the optimum)",
                       format_value(a));
  return -b / (2 * a);
}

// ================================================================ the ladder

void validate_points(const std::vector<LadderPoint>& points, std::string_view what) {
  for (std::size_t i = 0; i < points.size(); ++i) {
    const std::string at = std::string(what) + "[" + std::to_string(i) + "].";
    require_positive(points[i].n_params, at + "n_params", "parameters");
    require_positive(points[i].n_tokens, at + "n_tokens", "tokens");
    require_positive(points[i].loss, at + "loss", "nats/token");
    require_real(points[i].budget_flops, at + "budget_flops", "FLOPs (0 = unlabelled)", 0.0);
  }
}

std::string_view to_string(BiasMode mode) {
  return mode == BiasMode::fixed_schedule ? "fixed_schedule" : "per_budget";
}

BiasMode parse_bias_mode(std::string_view text) {
  if (text == "fixed_schedule") return BiasMode::fixed_schedule;
  if (text == "per_budget") return BiasMode::per_budget;
  throw_out_of_range("bias_mode", "design", "fixed_schedule or per_budget", text);
}

void SyntheticLadderSpec::validate() const {
  law.validate();
  require_count(static_cast<std::int64_t>(budgets_flops.size()), "budgets_flops",
                "number of budgets", 1, 1000);
  for (double c : budgets_flops) require_real(c, "budgets_flops", "FLOPs", 1e6, 1e40);
  std::vector<double> sorted = budgets_flops;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw std::invalid_argument(
        "budgets_flops (FLOPs) must be distinct: each budget labels one IsoFLOPs curve; got " +
        format_value(*std::adjacent_find(sorted.begin(), sorted.end())) + " twice");
  require_count(sizes_per_budget, "sizes_per_budget", "runs per budget", 3, 1000);
  require_real(size_span_decades, "size_span_decades", "decades of N", 0.0, 10.0, true);
  require_real(noise, "noise", "σ of log loss", 0.0, 1.0);
  require_real(lr_decay_bias_nats, "lr_decay_bias_nats", "nats", 0.0, 10.0);
  require_real(uniform_offset_nats, "uniform_offset_nats", "nats", -1.0, 10.0);
  const auto n_points =
      static_cast<std::int64_t>(budgets_flops.size()) * static_cast<std::int64_t>(sizes_per_budget);
  require_count(outliers, "outliers", "runs", 0, n_points);
  require_real(outlier_nats, "outlier_nats", "nats", 0.0, 100.0);
}

std::vector<LadderPoint> synthetic_ladder(const SyntheticLadderSpec& spec) {
  spec.validate();
  Rng rng(spec.seed);
  std::vector<LadderPoint> out;
  out.reserve(spec.budgets_flops.size() * static_cast<std::size_t>(spec.sizes_per_budget));
  for (double c : spec.budgets_flops) {
    const double center = std::log10(analytic_optimum(spec.law, c).n_params);
    for (int k = 0; k < spec.sizes_per_budget; ++k) {
      const double frac = static_cast<double>(k) / (spec.sizes_per_budget - 1) - 0.5;
      LadderPoint p;
      p.n_params = std::pow(10.0, center + frac * spec.size_span_decades);
      p.n_tokens = c / (6.0 * p.n_params);
      p.budget_flops = c;
      const double z = rng.normal();
      p.loss = spec.law.loss(p.n_params, p.n_tokens) * std::exp(spec.noise * z);
      out.push_back(p);
    }
  }
  if (spec.lr_decay_bias_nats > 0) {
    // Seed ch. 5: a run read at D of a schedule planned for D_sched is
    // penalized bias·(1 − D/D_sched). Each budget's runs are contiguous.
    const auto per = static_cast<std::size_t>(spec.sizes_per_budget);
    double ladder_max = 0;
    for (const auto& p : out) ladder_max = std::max(ladder_max, p.n_tokens);
    for (std::size_t start = 0; start < out.size(); start += per) {
      double horizon = ladder_max;
      if (spec.bias_mode == BiasMode::per_budget) {
        horizon = 0;
        for (std::size_t k = start; k < start + per; ++k)
          horizon = std::max(horizon, out[k].n_tokens);
      }
      for (std::size_t k = start; k < start + per; ++k)
        out[k].loss += spec.lr_decay_bias_nats * (1.0 - out[k].n_tokens / horizon);
    }
  }
  for (auto& p : out) p.loss += spec.uniform_offset_nats;
  // Outliers are drawn after every noise draw, so switching them on changes
  // no other point.
  std::vector<std::size_t> order(out.size());
  std::iota(order.begin(), order.end(), 0);
  for (int k = 0; k < spec.outliers; ++k) {
    const auto j =
        static_cast<std::size_t>(k) + rng.below(order.size() - static_cast<std::size_t>(k));
    std::swap(order[static_cast<std::size_t>(k)], order[j]);
    LadderPoint& p = out[order[static_cast<std::size_t>(k)]];
    p.loss += spec.outlier_nats;
    p.outlier = true;
  }
  for (auto& p : out)
    if (!(p.loss > 0))
      throw std::invalid_argument("uniform_offset_nats (nats) makes a loss non-positive; got " +
                                  format_value(spec.uniform_offset_nats));
  return out;
}

std::vector<LadderPoint> isoflop_sweep(double budget_flops, const std::vector<double>& n_params,
                                       const LossLaw& law) {
  require_positive(budget_flops, "budget_flops", "FLOPs");
  law.validate();
  std::vector<LadderPoint> out;
  for (double n : n_params) {
    require_positive(n, "n_params", "parameters");
    LadderPoint p;
    p.n_params = n;
    p.n_tokens = budget_flops / (6.0 * n);
    p.loss = law.loss(n, p.n_tokens);
    p.budget_flops = budget_flops;
    out.push_back(p);
  }
  return out;
}

double schedule_mismatch_loss_toy(double tokens_seen, double horizon_tokens, double base_a,
                                  double base_b, double decay_penalty) {
  require_positive(tokens_seen, "tokens_seen", "tokens");
  require_positive(horizon_tokens, "horizon_tokens", "tokens");
  if (tokens_seen > horizon_tokens)
    throw_out_of_range("tokens_seen", "tokens",
                       "<= horizon_tokens (" + format_value(horizon_tokens) +
                           "): a curve cannot be read past its horizon",
                       format_value(tokens_seen));
  require_real(base_a, "base_a", "nats", 0.0);
  require_real(base_b, "base_b", "exponent", 0.0);
  require_real(decay_penalty, "decay_penalty", "nats", 0.0);
  const double intrinsic = base_a / std::pow(tokens_seen, base_b);
  return intrinsic + decay_penalty * (1.0 - tokens_seen / horizon_tokens);
}

// ================================================================== IsoFLOPs

IsoflopOptimum isoflop_optimum(const std::vector<LadderPoint>& sweep, double budget_flops) {
  require_positive(budget_flops, "budget_flops", "FLOPs");
  validate_points(sweep, "sweep");
  std::vector<double> x, y;
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    if (sweep[i].budget_flops != budget_flops)
      throw std::invalid_argument(
          "sweep[" + std::to_string(i) + "].budget_flops (FLOPs) must equal the sweep's budget " +
          format_value(budget_flops) + "; got " + format_value(sweep[i].budget_flops));
    x.push_back(std::log10(sweep[i].n_params));
    y.push_back(sweep[i].loss);
  }
  IsoflopOptimum o;
  o.budget_flops = budget_flops;
  o.parabola = fit_quadratic(x, y);
  const double xv = parabola_vertex(o.parabola.a, o.parabola.b);
  o.n_opt = std::pow(10.0, xv);
  o.d_opt = budget_flops / (6.0 * o.n_opt);
  o.loss_opt = o.parabola.at(xv);
  o.n_points = static_cast<int>(sweep.size());
  o.vertex_inside_sweep =
      xv >= *std::min_element(x.begin(), x.end()) && xv <= *std::max_element(x.begin(), x.end());
  if (!std::isfinite(o.n_opt) || !std::isfinite(o.d_opt) || o.n_opt <= 0)
    throw std::invalid_argument(
        "sweep: the vertex lies so far outside the swept sizes that N_opt "
        "is not a finite number; budget " +
        format_value(budget_flops));
  return o;
}

std::vector<IsoflopOptimum> isoflop_optima(const std::vector<LadderPoint>& ladder) {
  validate_points(ladder, "ladder");
  std::vector<double> budgets;
  for (std::size_t i = 0; i < ladder.size(); ++i) {
    if (ladder[i].budget_flops <= 0)
      throw std::invalid_argument("ladder[" + std::to_string(i) +
                                  "].budget_flops (FLOPs) must be a budget label > 0 for the "
                                  "IsoFLOPs method; got " +
                                  format_value(ladder[i].budget_flops));
    budgets.push_back(ladder[i].budget_flops);
  }
  std::sort(budgets.begin(), budgets.end());
  budgets.erase(std::unique(budgets.begin(), budgets.end()), budgets.end());
  std::vector<IsoflopOptimum> out;
  for (double c : budgets) {
    std::vector<LadderPoint> sweep;
    for (const auto& p : ladder)
      if (p.budget_flops == c) sweep.push_back(p);
    out.push_back(isoflop_optimum(sweep, c));
  }
  return out;
}

ScalingExponents fit_scaling_exponents(const std::vector<IsoflopOptimum>& optima,
                                       double tolerance) {
  require_count(static_cast<std::int64_t>(optima.size()), "optima", "budgets", 2);
  require_real(tolerance, "tolerance", "|a + b − 1|", 0.0);
  std::vector<double> cs, ns, ds;
  for (const auto& o : optima) {
    cs.push_back(o.budget_flops);
    ns.push_back(o.n_opt);
    ds.push_back(o.d_opt);
  }
  const PowerLawFit fn = fit_power_law(cs, ns);
  const PowerLawFit fd = fit_power_law(cs, ds);
  ScalingExponents e;
  e.a = fn.exponent;
  e.b = fd.exponent;
  e.n_coefficient = fn.coefficient;
  e.d_coefficient = fd.coefficient;
  e.sum = e.a + e.b;
  e.sums_to_one = std::abs(e.sum - 1.0) <= tolerance;
  return e;
}

// ======================================================== the parametric law

LossDecomposition decompose_loss(const LossLaw& law, double n_params, double n_tokens) {
  law.validate();
  require_positive(n_params, "n_params", "parameters");
  require_positive(n_tokens, "n_tokens", "tokens");
  LossDecomposition d;
  d.irreducible = law.E;
  d.capacity = law.A / std::pow(n_params, law.alpha);
  d.data = law.B / std::pow(n_tokens, law.beta);
  d.total = d.irreducible + d.capacity + d.data;
  return d;
}

ComputeOptimum analytic_optimum(const LossLaw& law, double flops) {
  law.validate();
  require_positive(flops, "flops", "FLOPs");
  ComputeOptimum o;
  o.flops = flops;
  // In logs, so extreme budgets or coefficients do not overflow.
  const double log_n =
      (std::log(law.alpha * law.A / (law.beta * law.B)) + law.beta * std::log(flops / 6.0)) /
      (law.alpha + law.beta);
  o.n_params = std::exp(log_n);
  o.n_tokens = flops / (6.0 * o.n_params);
  if (!std::isfinite(o.n_params) || !(o.n_params > 0) || !std::isfinite(o.n_tokens) ||
      !(o.n_tokens > 0))
    throw std::invalid_argument(
        "flops (FLOPs) puts the optimum outside the representable range; "
        "got " +
        format_value(flops));
  o.loss = law.loss(o.n_params, o.n_tokens);
  return o;
}

double optimum_exponent(const LossLaw& law) {
  law.validate();
  return law.beta / (law.alpha + law.beta);
}

// ======================================================= residuals & losses

std::vector<double> residuals(const std::vector<LadderPoint>& points, const LossLaw& law,
                              ResidualSpace space) {
  law.validate();
  validate_points(points);
  std::vector<double> out;
  out.reserve(points.size());
  for (const auto& p : points) {
    const double pred = law.loss(p.n_params, p.n_tokens);
    out.push_back(space == ResidualSpace::linear ? pred - p.loss
                                                 : std::log(pred) - std::log(p.loss));
  }
  return out;
}

double squared_loss(const std::vector<double>& rs) {
  double total = 0;
  for (double r : rs) {
    require_real(r, "residual", "value", -std::numeric_limits<double>::max());
    total += r * r;
  }
  return total;
}

double huber_loss(const std::vector<double>& rs, double delta) {
  require_positive(delta, "delta", "Huber threshold");
  double total = 0;
  for (double r : rs) {
    require_real(r, "residual", "value", -std::numeric_limits<double>::max());
    const double a = std::abs(r);
    total += a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
  }
  return total;
}

// ============================================================== the decision

double optimal_loss(const LossLaw& law, double flops) { return analytic_optimum(law, flops).loss; }

RecipeComparison compare_recipes(const LossLaw& baseline, const LossLaw& candidate,
                                 double target_flops) {
  baseline.validate();
  candidate.validate();
  require_positive(target_flops, "target_flops", "FLOPs");
  RecipeComparison r;
  r.target_flops = target_flops;
  r.baseline_loss = optimal_loss(baseline, target_flops);
  r.candidate_loss = optimal_loss(candidate, target_flops);
  r.delta = r.candidate_loss - r.baseline_loss;
  r.candidate_wins = r.candidate_loss < r.baseline_loss;
  // The seed scans 10^(16 + 0.12 i); each sign change is then bisected in log C.
  auto diff = [&](double log_c) {
    const double c = std::pow(10.0, log_c);
    return optimal_loss(candidate, c) - optimal_loss(baseline, c);
  };
  // A tie (a zero difference) is no sign: identical laws never cross.
  double prev_x = 16.0, prev = diff(prev_x);
  for (int i = 1; i <= 100; ++i) {
    const double x = 16.0 + i * 0.12;
    const double cur = diff(x);
    if (cur == 0) continue;
    if (prev != 0 && (prev < 0) != (cur < 0)) {
      double lo = prev_x, hi = x, flo = prev;
      for (int k = 0; k < 200 && hi - lo > 1e-13; ++k) {
        const double mid = 0.5 * (lo + hi);
        const double fm = diff(mid);
        if (fm != 0 && (fm < 0) == (flo < 0)) {
          lo = mid;
          flo = fm;
        } else {
          hi = mid;
        }
      }
      r.crossovers_flops.push_back(std::pow(10.0, 0.5 * (lo + hi)));
    }
    prev_x = x;
    prev = cur;
  }
  if (!r.crossovers_flops.empty()) {
    r.crossover_flops = r.crossovers_flops.front();
    // The sign just past the crossing says who wins above it.
    const double past = *r.crossover_flops * 1.5;
    r.candidate_wins_above_crossover =
        optimal_loss(candidate, past) - optimal_loss(baseline, past) < 0;
  }
  return r;
}

double extrapolation_decades(double ladder_max_flops, double target_flops) {
  require_positive(ladder_max_flops, "ladder_max_flops", "FLOPs");
  require_positive(target_flops, "target_flops", "FLOPs");
  return std::log10(target_flops / ladder_max_flops);
}

ExtrapolationRisk extrapolation_risk(double ladder_max_flops, double target_flops,
                                     double ci_width_nats) {
  ExtrapolationRisk r;
  r.decades = extrapolation_decades(ladder_max_flops, target_flops);
  require_real(ci_width_nats, "ci_width_nats", "nats", 0.0);
  if (r.decades <= 0) {
    r.decades = 0;
    r.band = RiskBand::interpolation;
    r.statement = "INTERPOLATION — low risk";
    return r;
  }
  r.score = r.decades * (1 + 20 * ci_width_nats);
  r.band = r.score < 2 ? RiskBand::low : r.score < 4 ? RiskBand::moderate : RiskBand::high;
  const char* band = r.band == RiskBand::low        ? "LOW"
                     : r.band == RiskBand::moderate ? "MODERATE"
                                                    : "HIGH";
  r.statement = fmt("%.1f decades of extrapolation, ", r.decades) +
                fmt("CI %.3f nats -> ", ci_width_nats) + band + " risk" +
                fmt(" (score %.1f)", r.score);
  return r;
}

// ============================================================== conversions

Allocation kaplan_allocation(double compute_multiplier, double n_exponent) {
  require_positive(compute_multiplier, "compute_multiplier", "× compute");
  require_real(n_exponent, "n_exponent", "exponent", 0.0, 1.0);
  return {std::pow(compute_multiplier, n_exponent), std::pow(compute_multiplier, 1.0 - n_exponent)};
}

double nats_to_bits(double nats) {
  require_real(nats, "nats", "nats/token", 0.0);
  return nats / std::log(2.0);
}
double bits_to_nats(double bits) {
  require_real(bits, "bits", "bits/token", 0.0);
  return bits * std::log(2.0);
}
double nats_to_perplexity(double nats) {
  require_real(nats, "nats", "nats/token", 0.0, 700.0);
  return std::exp(nats);
}
double perplexity_to_nats(double perplexity) {
  require_real(perplexity, "perplexity", "effective choices", 1.0);
  return std::log(perplexity);
}

double cross_entropy(const std::vector<double>& probs) {
  require_count(static_cast<std::int64_t>(probs.size()), "true_token_probs", "tokens", 1);
  double total = 0;
  for (double p : probs) {
    if (!(p > 0 && p <= 1))
      throw_out_of_range("true_token_probs", "probability",
                         "in (0, 1]: a zero probability on a true token gives infinite loss",
                         format_value(p));
    total -= std::log(p);
  }
  return total / static_cast<double>(probs.size());
}

double compute_increase_for_loss_delta(double delta_nats, double alpha, double loss,
                                       double irreducible) {
  require_real(delta_nats, "delta_nats", "nats", 0.0);
  require_positive(alpha, "alpha", "exponent");
  require_positive(irreducible, "irreducible", "nats/token");
  require_real(loss, "loss", "nats/token", irreducible, std::numeric_limits<double>::max(), true);
  return delta_nats / (alpha * (loss - irreducible));
}

double effective_tokens_toy(double unique_tokens, int epochs, double half_life_epochs) {
  require_positive(unique_tokens, "unique_tokens", "tokens");
  require_count(epochs, "epochs", "passes over the unique tokens", 1, 1'000'000);
  require_positive(half_life_epochs, "half_life_epochs", "epochs");
  double sum = 0;
  for (int r = 1; r <= epochs; ++r) sum += std::exp(-(r - 1) / half_life_epochs);
  return unique_tokens * sum;
}

double data_constrained_loss_toy(const LossLaw& law, double n_params, double unique_tokens,
                                 int epochs, double half_life_epochs) {
  law.validate();
  return law.loss(n_params, effective_tokens_toy(unique_tokens, epochs, half_life_epochs));
}

}  // namespace napkin
