// The 1-D minimizer the planner and the data-constrained law share.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "minimize.h"

using napkin::minimize_1d;

TEST(Minimize1d, FindsTheBottomOfAParabola) {
  EXPECT_NEAR(minimize_1d([](double x) { return (x - 1.234) * (x - 1.234); }, -10, 10), 1.234,
              1e-9);
}

TEST(Minimize1d, AMinimumAtAnEndIsFound) {
  EXPECT_NEAR(minimize_1d([](double x) { return x; }, 2, 5), 2, 1e-9);
  EXPECT_NEAR(minimize_1d([](double x) { return -x; }, 2, 5), 5, 1e-9);
}

TEST(Minimize1d, InfeasibleStretchesAreSkipped) {
  // Infinite (unreachable) below 3: the grid finds the feasible basin.
  auto f = [](double x) { return x < 3 ? std::numeric_limits<double>::max() : (x - 4) * (x - 4); };
  EXPECT_NEAR(minimize_1d(f, 0, 10), 4, 1e-9);
}

TEST(Minimize1d, TheGridFindsTheDeeperOfTwoBasins) {
  auto f = [](double x) { return std::min((x + 2) * (x + 2) + 1, (x - 3) * (x - 3)); };
  EXPECT_NEAR(minimize_1d(f, -5, 5), 3, 1e-9);
}
