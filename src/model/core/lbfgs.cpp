#include "lbfgs.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <stdexcept>

#include "validate.h"

namespace napkin {

void LbfgsOptions::validate() const {
  require_count(max_iterations, "max_iterations", "iterations", 1, 1'000'000);
  require_real(ftol, "ftol", "relative decrease", 0.0, 1.0);
  require_count(memory, "memory", "curvature pairs", 1, 1000);
}

namespace {

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}

}  // namespace

LbfgsResult lbfgs_minimize(const LbfgsObjective& objective, std::vector<double> x,
                           const LbfgsOptions& options) {
  options.validate();
  if (x.empty()) throw std::invalid_argument("start (coordinates) must not be empty");
  // Armijo and weak-Wolfe curvature constants (Nocedal & Wright §3.1).
  constexpr double kC1 = 1e-4, kC2 = 0.9;
  const std::size_t n = x.size();
  const int mem = options.memory;
  LbfgsResult out;
  std::vector<double> g(n, 0.0);
  double f = objective(x, g);
  if (!std::isfinite(f)) {
    out.x = std::move(x);
    return out;
  }
  std::vector<std::vector<double>> S(static_cast<std::size_t>(mem), std::vector<double>(n)), Y(S);
  std::vector<double> rho(static_cast<std::size_t>(mem)), alpha(static_cast<std::size_t>(mem));
  std::vector<double> q(n), dir(n), xn(n), gn(n), best_x(n), best_g(n), s(n), y(n);
  int stored = 0, head = 0, flat = 0;
  int it = 0;
  bool converged = false;
  auto slot = [mem](int k) { return static_cast<std::size_t>(k % mem); };
  for (; it < options.max_iterations; ++it) {
    if (options.keep_going && !options.keep_going(it)) break;
    double gmax = 0;
    for (double v : g) gmax = std::max(gmax, std::abs(v));
    if (gmax == 0) {
      converged = true;
      break;
    }
    // Two-loop recursion: q = H·g with H the inverse-Hessian estimate.
    q = g;
    for (int k = 0; k < stored; ++k) {
      const std::size_t j = slot(head - 1 - k + mem);
      alpha[j] = rho[j] * dot(S[j], q);
      for (std::size_t i = 0; i < n; ++i) q[i] -= alpha[j] * Y[j][i];
    }
    double gamma = 0.1 / gmax;  // first step: 0.1 in the steepest coordinate
    if (stored > 0) {
      const std::size_t j = slot(head - 1 + mem);
      gamma = dot(S[j], Y[j]) / dot(Y[j], Y[j]);
    }
    for (double& v : q) v *= gamma;
    for (int k = stored - 1; k >= 0; --k) {
      const std::size_t j = slot(head - 1 - k + mem);
      const double beta = rho[j] * dot(Y[j], q);
      for (std::size_t i = 0; i < n; ++i) q[i] += S[j][i] * (alpha[j] - beta);
    }
    for (std::size_t i = 0; i < n; ++i) dir[i] = -q[i];
    double gd = dot(g, dir);
    if (!(gd < 0)) {  // not a descent direction: restart from steepest descent
      stored = 0;
      for (std::size_t i = 0; i < n; ++i) dir[i] = -g[i] * 0.1 / gmax;
      gd = dot(g, dir);
    }
    // Weak-Wolfe line search by doubling, then bisection.
    double lo = 0, hi = std::numeric_limits<double>::infinity(), step = 1;
    best_x = x;
    best_g = g;
    double best_f = f;
    for (int ls = 0; ls < 60; ++ls) {
      for (std::size_t i = 0; i < n; ++i) xn[i] = x[i] + step * dir[i];
      const double fn = objective(xn, gn);
      if (!std::isfinite(fn) || fn > f + kC1 * step * gd) {
        hi = step;
      } else {
        if (fn < best_f) {
          best_f = fn;
          best_x = xn;
          best_g = gn;
        }
        if (dot(gn, dir) < kC2 * gd) {
          lo = step;
        } else {
          best_f = fn;
          best_x = xn;
          best_g = gn;
          break;
        }
      }
      step = std::isfinite(hi) ? 0.5 * (lo + hi) : 2 * step;
      if (std::isfinite(hi) && hi - lo < 1e-16 * std::max(1.0, hi)) break;
    }
    if (!(best_f < f)) {  // no progress possible along this direction
      if (stored == 0) {
        converged = true;
        break;
      }
      stored = 0;  // drop the curvature pairs and retry as steepest descent
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = best_x[i] - x[i];
      y[i] = best_g[i] - g[i];
    }
    const double sy = dot(s, y);
    const double decrease = f - best_f;
    x = best_x;
    g = best_g;
    f = best_f;
    // Keep the pair only when it carries positive curvature.
    if (sy > 1e-12 * std::sqrt(dot(s, s) * dot(y, y))) {
      const std::size_t h = static_cast<std::size_t>(head);
      S[h] = s;
      Y[h] = y;
      rho[h] = 1.0 / sy;
      head = (head + 1) % mem;
      stored = std::min(stored + 1, mem);
    }
    flat = decrease <= options.ftol * std::max(std::abs(f), 1e-300) ? flat + 1 : 0;
    if (flat >= 3) {
      converged = true;
      ++it;
      break;
    }
  }
  out.x = std::move(x);
  out.f = f;
  out.iterations = it;
  out.converged = converged;
  return out;
}

}  // namespace napkin
