// A small L-BFGS minimizer (Nocedal 1980; Nocedal & Wright, Numerical
// Optimization, 2nd ed., Algorithm 7.4, the two-loop recursion) with a
// weak-Wolfe bisection line search in the style of Lewis & Overton (2013),
// which copes with objectives that are only piecewise smooth, such as the
// Huber loss of the scaling-law fit.
//
// Dense problems of a handful of parameters: the scaling law has five. Plain
// C++20, no allocation in the objective's hot path beyond what it does itself.
#pragma once

#include <functional>
#include <limits>
#include <vector>

namespace napkin {

struct LbfgsOptions {
  int max_iterations = 400;
  // Converged when the objective's relative decrease stays at or below ftol
  // for three iterations in a row (or the gradient is exactly zero, or no step
  // along steepest descent decreases the objective).
  double ftol = 1e-15;
  int memory = 8;  // curvature pairs kept
  // Optional: called before each iteration with the iterations done; false
  // stops the search there (the result holds the best point so far,
  // converged = false).
  std::function<bool(int iterations_done)> keep_going;
  void validate() const;
};

struct LbfgsResult {
  std::vector<double> x;                               // the best point found
  double f = std::numeric_limits<double>::infinity();  // the objective there; inf when the start is
                                                       // not finite
  int iterations = 0;
  bool converged = false;  // false: stopped on max_iterations
};

// Returns the objective at x and writes its gradient into grad (grad has
// x's size on entry). A non-finite value marks x as outside the domain: the
// line search backs off from it.
using LbfgsObjective =
    std::function<double(const std::vector<double>& x, std::vector<double>& grad)>;

// Minimizes `objective` from `start` (at least one coordinate). Never throws
// for a bad objective: a start where it is not finite returns f = inf, x =
// start and no iterations. Throws std::invalid_argument for invalid options
// or an empty start.
LbfgsResult lbfgs_minimize(const LbfgsObjective& objective, std::vector<double> start,
                           const LbfgsOptions& options = {});

}  // namespace napkin
