// A deterministic 1-D minimizer: a coarse grid over [lo, hi], then
// golden-section refinement around the best grid point (Kiefer 1953). Fixed
// grid size and iteration count, so the answer is the same on every machine.
// For unimodal-looking costs that may be flat or infinite in places (a
// forecast that a law cannot reach): the grid finds the basin, the golden
// section its bottom.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>

namespace napkin {

inline constexpr int kMinimizeGrid = 400;
inline constexpr int kMinimizeIterations = 100;

// The x in [lo, hi] that minimizes f (to about (hi − lo)/kMinimizeGrid ×
// 0.618^kMinimizeIterations).
template <typename F>
double minimize_1d(F&& f, double lo, double hi) {
  int best = 0;
  double best_v = std::numeric_limits<double>::max();
  for (int i = 0; i <= kMinimizeGrid; ++i) {
    const double v = f(lo + (hi - lo) * i / kMinimizeGrid);
    if (v < best_v) {
      best_v = v;
      best = i;
    }
  }
  double a = lo + (hi - lo) * std::max(best - 1, 0) / kMinimizeGrid;
  double b = lo + (hi - lo) * std::min(best + 1, kMinimizeGrid) / kMinimizeGrid;
  const double phi = (std::sqrt(5.0) - 1.0) / 2.0;
  for (int it = 0; it < kMinimizeIterations; ++it) {
    const double x1 = b - phi * (b - a);
    const double x2 = a + phi * (b - a);
    if (f(x1) <= f(x2))
      b = x2;
    else
      a = x1;
  }
  return 0.5 * (a + b);
}

}  // namespace napkin
