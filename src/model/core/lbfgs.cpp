#include "lbfgs.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
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

// Armijo and weak-Wolfe curvature constants (Nocedal & Wright §3.1).
constexpr double kC1 = 1e-4, kC2 = 0.9;

// The most recent curvature pairs (s, y) and their 1 / (s·y), oldest
// overwritten first.
class CurvatureMemory {
 public:
  CurvatureMemory(int pairs, std::size_t n)
      : mem_(pairs),
        S_(static_cast<std::size_t>(pairs), std::vector<double>(n)),
        Y_(S_),
        rho_(static_cast<std::size_t>(pairs)),
        alpha_(static_cast<std::size_t>(pairs)),
        q_(n) {}
  bool empty() const { return stored_ == 0; }
  void clear() { stored_ = 0; }
  // Keeps the pair only when it carries positive curvature.
  void add(const std::vector<double>& s, const std::vector<double>& y) {
    const double sy = dot(s, y);
    if (!(sy > 1e-12 * std::sqrt(dot(s, s) * dot(y, y)))) return;
    const std::size_t h = static_cast<std::size_t>(head_);
    S_[h] = s;
    Y_[h] = y;
    rho_[h] = 1.0 / sy;
    head_ = (head_ + 1) % mem_;
    stored_ = std::min(stored_ + 1, mem_);
  }
  // dir = −H·g by the two-loop recursion, H the inverse-Hessian estimate
  // (γ·I at first: 0.1 in the steepest coordinate, |g|max = gmax).
  void direction(const std::vector<double>& g, double gmax, std::vector<double>& dir) {
    const std::size_t n = g.size();
    q_ = g;
    for (int k = 0; k < stored_; ++k) {
      const std::size_t j = slot(head_ - 1 - k + mem_);
      alpha_[j] = rho_[j] * dot(S_[j], q_);
      for (std::size_t i = 0; i < n; ++i) q_[i] -= alpha_[j] * Y_[j][i];
    }
    double gamma = 0.1 / gmax;
    if (stored_ > 0) {
      const std::size_t j = slot(head_ - 1 + mem_);
      gamma = dot(S_[j], Y_[j]) / dot(Y_[j], Y_[j]);
    }
    for (double& v : q_) v *= gamma;
    for (int k = stored_ - 1; k >= 0; --k) {
      const std::size_t j = slot(head_ - 1 - k + mem_);
      const double beta = rho_[j] * dot(Y_[j], q_);
      for (std::size_t i = 0; i < n; ++i) q_[i] += S_[j][i] * (alpha_[j] - beta);
    }
    for (std::size_t i = 0; i < n; ++i) dir[i] = -q_[i];
  }

 private:
  std::size_t slot(int k) const { return static_cast<std::size_t>(k % mem_); }
  int mem_;
  std::vector<std::vector<double>> S_, Y_;
  std::vector<double> rho_, alpha_, q_;
  int stored_ = 0, head_ = 0;
};

// The best point a weak-Wolfe line search from (x, f, g) along `dir` (slope
// gd < 0) found: steps doubled until one is too long, then bisected; the
// first step that satisfies both conditions ends it, else the lowest value
// seen that satisfies Armijo's. `f` itself when no step decreased it.
struct LineSearch {
  double f = 0;
  std::vector<double> x, g;
};

LineSearch weak_wolfe(const LbfgsObjective& objective, const std::vector<double>& x, double f,
                      const std::vector<double>& g, const std::vector<double>& dir, double gd,
                      std::vector<double>& xn, std::vector<double>& gn) {
  const std::size_t n = x.size();
  double lo = 0, hi = std::numeric_limits<double>::infinity(), step = 1;
  LineSearch best{f, x, g};
  for (int ls = 0; ls < 60; ++ls) {
    for (std::size_t i = 0; i < n; ++i) xn[i] = x[i] + step * dir[i];
    const double fn = objective(xn, gn);
    if (!std::isfinite(fn) || fn > f + kC1 * step * gd) {
      hi = step;
    } else {
      if (fn < best.f) best = {fn, xn, gn};
      if (dot(gn, dir) < kC2 * gd) {
        lo = step;
      } else {
        best = {fn, xn, gn};
        break;
      }
    }
    step = std::isfinite(hi) ? 0.5 * (lo + hi) : 2 * step;
    if (std::isfinite(hi) && hi - lo < 1e-16 * std::max(1.0, hi)) break;
  }
  return best;
}

}  // namespace

LbfgsResult lbfgs_minimize(const LbfgsObjective& objective, std::vector<double> x,
                           const LbfgsOptions& options) {
  options.validate();
  if (x.empty()) throw std::invalid_argument("start (coordinates) must not be empty");
  const std::size_t n = x.size();
  LbfgsResult out;
  std::vector<double> g(n, 0.0);
  double f = objective(x, g);
  if (!std::isfinite(f)) {
    out.x = std::move(x);
    return out;
  }
  CurvatureMemory memory(options.memory, n);
  std::vector<double> dir(n), xn(n), gn(n), s(n), y(n);
  int flat = 0;
  int it = 0;
  bool converged = false;
  for (; it < options.max_iterations; ++it) {
    if (options.keep_going && !options.keep_going(it)) break;
    double gmax = 0;
    for (double v : g) gmax = std::max(gmax, std::abs(v));
    if (gmax == 0) {
      converged = true;
      break;
    }
    memory.direction(g, gmax, dir);
    double gd = dot(g, dir);
    if (!(gd < 0)) {  // not a descent direction: restart from steepest descent
      memory.clear();
      for (std::size_t i = 0; i < n; ++i) dir[i] = -g[i] * 0.1 / gmax;
      gd = dot(g, dir);
    }
    LineSearch best = weak_wolfe(objective, x, f, g, dir, gd, xn, gn);
    if (!(best.f < f)) {  // no progress possible along this direction
      if (memory.empty()) {
        converged = true;
        break;
      }
      memory.clear();  // drop the curvature pairs and retry as steepest descent
      continue;
    }
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = best.x[i] - x[i];
      y[i] = best.g[i] - g[i];
    }
    const double decrease = f - best.f;
    x = std::move(best.x);
    g = std::move(best.g);
    f = best.f;
    memory.add(s, y);
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
