// The L-BFGS minimizer on problems with known minima: a convex quadratic,
// Rosenbrock's valley, a Huber-type kink, and the edge cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "lbfgs.h"

namespace napkin {
namespace {

// ½ Σ wᵢ (xᵢ − cᵢ)² with weights spanning three decades: an ill-conditioned
// bowl with its minimum at c and value 0.
double quadratic(const std::vector<double>& x, std::vector<double>& g) {
  double f = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double w = std::pow(10.0, 3.0 * static_cast<double>(i) / (x.size() - 1));
    const double c = 1.0 + static_cast<double>(i);
    f += 0.5 * w * (x[i] - c) * (x[i] - c);
    g[i] = w * (x[i] - c);
  }
  return f;
}

// Rosenbrock (1960): 100(y − x²)² + (1 − x)², minimum 0 at (1, 1).
double rosenbrock(const std::vector<double>& v, std::vector<double>& g) {
  const double x = v[0], y = v[1];
  g[0] = -400 * x * (y - x * x) - 2 * (1 - x);
  g[1] = 200 * (y - x * x);
  return 100 * (y - x * x) * (y - x * x) + (1 - x) * (1 - x);
}

TEST(Lbfgs, QuadraticReachesItsMinimum) {
  const LbfgsResult r = lbfgs_minimize(quadratic, std::vector<double>(6, 0.0));
  ASSERT_EQ(r.x.size(), 6u);
  for (std::size_t i = 0; i < 6; ++i) EXPECT_NEAR(r.x[i], 1.0 + static_cast<double>(i), 1e-6) << i;
  EXPECT_NEAR(r.f, 0.0, 1e-12);
  EXPECT_TRUE(r.converged);
  EXPECT_LT(r.iterations, 100);
}

TEST(Lbfgs, RosenbrockFromTheClassicStart) {
  const LbfgsResult r = lbfgs_minimize(rosenbrock, {-1.2, 1.0});
  EXPECT_NEAR(r.x[0], 1.0, 1e-6);
  EXPECT_NEAR(r.x[1], 1.0, 1e-6);
  EXPECT_NEAR(r.f, 0.0, 1e-12);
  EXPECT_TRUE(r.converged);
}

TEST(Lbfgs, NeverIncreasesTheObjective) {
  std::vector<double> g(2);
  const std::vector<double> start = {3.0, -2.0};
  const double f0 = rosenbrock(start, g);
  for (int iters : {1, 2, 5, 20}) {
    LbfgsOptions o;
    o.max_iterations = iters;
    const LbfgsResult r = lbfgs_minimize(rosenbrock, start, o);
    EXPECT_LE(r.f, f0) << iters;
    EXPECT_LE(r.iterations, iters);
    std::vector<double> gr(2);
    EXPECT_DOUBLE_EQ(rosenbrock(r.x, gr), r.f) << "f is the objective at x";
  }
}

TEST(Lbfgs, KinkedHuberObjective) {
  // Σ Huber_δ(xᵢ − cᵢ): linear tails, a quadratic core of width δ; the
  // minimizer must still land inside the core (the scaling fit's case).
  const double delta = 1e-3;
  auto huber = [delta](const std::vector<double>& x, std::vector<double>& g) {
    double f = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double r = x[i] - 0.5 * static_cast<double>(i);
      const double a = std::abs(r);
      f += a <= delta ? 0.5 * r * r : delta * (a - 0.5 * delta);
      g[i] = a <= delta ? r : (r > 0 ? delta : -delta);
    }
    return f;
  };
  const LbfgsResult r = lbfgs_minimize(huber, {4.0, -3.0, 10.0});
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(r.x[i], 0.5 * static_cast<double>(i), 1e-4) << i;
  EXPECT_LT(r.f, 1e-8);
}

TEST(Lbfgs, BacksOffFromWhereTheObjectiveIsUndefined) {
  // −log x + x: minimum 1 at x = 1, undefined (returned as inf) for x ≤ 0.
  auto f = [](const std::vector<double>& x, std::vector<double>& g) {
    if (!(x[0] > 0)) return std::numeric_limits<double>::infinity();
    g[0] = 1.0 - 1.0 / x[0];
    return x[0] - std::log(x[0]);
  };
  const LbfgsResult r = lbfgs_minimize(f, {20.0});
  EXPECT_NEAR(r.x[0], 1.0, 1e-6);
  EXPECT_NEAR(r.f, 1.0, 1e-12);
  // A start outside the domain: no iterations, f = inf, x = the start.
  const LbfgsResult bad = lbfgs_minimize(f, {-1.0});
  EXPECT_FALSE(std::isfinite(bad.f));
  EXPECT_EQ(bad.iterations, 0);
  EXPECT_EQ(bad.x, std::vector<double>{-1.0});
  EXPECT_FALSE(bad.converged);
}

TEST(Lbfgs, ZeroGradientAtTheStartConvergesAtOnce) {
  const LbfgsResult r = lbfgs_minimize(quadratic, {1, 2, 3, 4, 5, 6});
  EXPECT_TRUE(r.converged);
  EXPECT_EQ(r.iterations, 0);
  EXPECT_EQ(r.f, 0.0);
}

TEST(Lbfgs, SameInputSameBits) {
  const LbfgsResult a = lbfgs_minimize(rosenbrock, {-1.2, 1.0});
  const LbfgsResult b = lbfgs_minimize(rosenbrock, {-1.2, 1.0});
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.iterations, b.iterations);
}

TEST(Lbfgs, InvalidOptionsAndStartThrow) {
  LbfgsOptions o;
  o.max_iterations = 0;
  EXPECT_THROW(lbfgs_minimize(rosenbrock, {0.0, 0.0}, o), std::invalid_argument);
  o = {};
  o.ftol = -1;
  EXPECT_THROW(lbfgs_minimize(rosenbrock, {0.0, 0.0}, o), std::invalid_argument);
  o = {};
  o.memory = 0;
  EXPECT_THROW(lbfgs_minimize(rosenbrock, {0.0, 0.0}, o), std::invalid_argument);
  EXPECT_THROW(lbfgs_minimize(rosenbrock, {}), std::invalid_argument);
}

}  // namespace
}  // namespace napkin
