// The generic constant fitter: recovers known constants, priors hold what the
// runs do not constrain, one outlier does not drag the fit, intervals cover.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "parallel_for.h"
#include "robust_fit.h"

using namespace napkin;

namespace {

// y = a·x1 + b·x2 + c, the shape of the step-time adapter.
struct Synthetic {
  std::vector<double> x1, x2, y;
};

Synthetic make(double a, double b, double c) {
  Synthetic s;
  for (int i = 0; i < 12; ++i) {
    s.x1.push_back(1.0 + i);
    s.x2.push_back(0.5 + (i * 7 % 5));
    s.y.push_back(a * s.x1.back() + b * s.x2.back() + c);
  }
  return s;
}

std::vector<FitConstant> constants() {
  return {{"a", "×", ConstantKind::factor, 1.0, 0.5, 0.1, 10.0, "test"},
          {"b", "×", ConstantKind::factor, 1.0, 0.5, 0.1, 10.0, "test"},
          {"c", "s", ConstantKind::offset, 0.0, 1.0, 0.0, 10.0, "test"}};
}

}  // namespace

TEST(RobustFit, RecoversTheConstantsOfExactData) {
  const Synthetic s = make(1.3, 0.7, 0.4);
  ConstantFitOptions o;
  o.bootstrap = 50;
  const ConstantFit f = fit_constants(
      constants(), s.y,
      [&](std::size_t i, std::span<const double> k) {
        return k[0] * s.x1[i] + k[1] * s.x2[i] + k[2];
      },
      o);
  // The priors pull a little; twelve exact runs at σ = 5 % outweigh them.
  EXPECT_NEAR(f.constants[0].value, 1.3, 0.02);
  EXPECT_NEAR(f.constants[1].value, 0.7, 0.02);
  EXPECT_NEAR(f.constants[2].value, 0.4, 0.1);
  EXPECT_LT(f.fit_error.mean_abs, 0.005);
  EXPECT_LT(f.loo_error.mean_abs, 0.01);
  EXPECT_GT(f.prior_error.mean_abs, 0.05);
  for (const FittedConstant& c : f.constants) {
    EXPECT_LE(c.p05, c.value + 1e-9) << c.name;
    EXPECT_GE(c.p95, c.value - 1e-9) << c.name;
  }
}

TEST(RobustFit, OneRunDoesNotSwingWhatItCannotConstrain) {
  // One run, three constants: the fit matches it but stays near the priors.
  const std::vector<double> measured = {2.0};
  const ConstantFit f = fit_constants(
      constants(), measured,
      [](std::size_t, std::span<const double> k) { return k[0] * 1.0 + k[1] * 1.0 + k[2]; });
  EXPECT_NEAR(f.runs[0].predicted, 2.0, 0.05);
  EXPECT_NEAR(f.constants[0].value, f.constants[1].value, 1e-3);  // symmetric: no reason to differ
  EXPECT_LT(f.constants[0].value, 1.3);
  // With one run, leave-one-out has nothing to learn from: the prior prediction.
  EXPECT_DOUBLE_EQ(f.runs[0].loo_predicted, f.runs[0].prior_predicted);
}

TEST(RobustFit, AnOutlierIsDownWeighted) {
  Synthetic s = make(1.2, 1.0, 0.0);
  s.y[5] *= 3;  // one broken measurement
  const ConstantFit f =
      fit_constants(constants(), s.y, [&](std::size_t i, std::span<const double> k) {
        return k[0] * s.x1[i] + k[1] * s.x2[i] + k[2];
      });
  EXPECT_NEAR(f.constants[0].value, 1.2, 0.1);
  EXPECT_GT(f.runs[5].measured / f.runs[5].predicted, 2.0);  // the outlier stays an outlier
}

TEST(RobustFit, BadInputNamesTheConstant) {
  std::vector<FitConstant> c = constants();
  c[0].lo = 0;
  const std::vector<double> m = {1.0};
  auto p = [](std::size_t, std::span<const double>) { return 1.0; };
  try {
    fit_constants(c, m, p);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()), "a: a factor's lower bound must be > 0");
  }
  EXPECT_THROW(fit_constants(constants(), std::vector<double>{}, p), std::invalid_argument);
  EXPECT_THROW(fit_constants(constants(), std::vector<double>{-1.0}, p), std::invalid_argument);
}

TEST(RobustFit, ErrorsAreRelativeToTheMeasurement) {
  const std::vector<double> pred = {1.1, 0.8}, meas = {1.0, 1.0};
  const ErrorSummary e = relative_errors(pred, meas);
  EXPECT_NEAR(e.mean_abs, 0.15, 1e-12);
  EXPECT_NEAR(e.mean_signed, -0.05, 1e-12);
}

TEST(RobustFit, ProgressCountsEveryFitAndStopsTheFit) {
  const Synthetic s = make(1.3, 0.7, 0.4);
  const auto predict = [&](std::size_t i, std::span<const double> k) {
    return k[0] * s.x1[i] + k[1] * s.x2[i] + k[2];
  };
  ConstantFitOptions o;
  o.bootstrap = 20;
  std::vector<std::int64_t> seen;
  std::int64_t total = 0;
  o.progress = [&](std::int64_t done, std::int64_t t) {
    seen.push_back(done);
    total = t;
    return true;
  };
  fit_constants(constants(), s.y, predict, o);
  // The fit, one leave-one-out fit per run (12), the resamples (20), and the start.
  EXPECT_EQ(total, 1 + 12 + 20);
  ASSERT_EQ(seen.size(), 34u);
  EXPECT_EQ(seen.front(), 0);
  EXPECT_EQ(seen.back(), 33);
  // false stops it: no result, Cancelled.
  o.progress = [](std::int64_t done, std::int64_t) { return done < 5; };
  EXPECT_THROW(fit_constants(constants(), s.y, predict, o), Cancelled);
}

TEST(RobustFit, ConstantsTheRunsDoNotIdentifyStayAtTheirPriors) {
  // y = a·b·x: the runs see only the product a·b; c has no effect at all.
  Synthetic s = make(1.0, 1.0, 0.0);
  for (std::size_t i = 0; i < s.y.size(); ++i) s.y[i] = 1.5 * s.x1[i];
  const auto predict = [&](std::size_t i, std::span<const double> k) {
    return k[0] * k[1] * s.x1[i] + 0 * k[2];
  };
  ConstantFitOptions o;
  o.bootstrap = 10;
  const ConstantFit f = fit_constants(constants(), s.y, predict, o);
  // c first (nothing informs it), then one of the pair; the other carries
  // the product the runs pin.
  EXPECT_TRUE(f.constants[2].held);
  EXPECT_NEAR(f.constants[2].sd_ratio, 1.0, 1e-9);
  EXPECT_DOUBLE_EQ(f.constants[2].value, 0.0);
  EXPECT_NE(f.constants[0].held, f.constants[1].held);
  const FittedConstant& held = f.constants[0].held ? f.constants[0] : f.constants[1];
  const FittedConstant& fitted = f.constants[0].held ? f.constants[1] : f.constants[0];
  EXPECT_GT(held.sd_ratio, 0.5);
  EXPECT_DOUBLE_EQ(held.value, 1.0);
  // As uncertain as its prior: 1.0 × exp(±1.645 × 0.5).
  EXPECT_NEAR(held.p05, std::exp(-1.6449 * 0.5), 1e-3);
  EXPECT_NEAR(held.p95, std::exp(1.6449 * 0.5), 1e-3);
  EXPECT_LT(fitted.sd_ratio, 0.5);
  EXPECT_NEAR(fitted.value, 1.5, 0.02);
  EXPECT_LT(f.fit_error.mean_abs, 0.01);

  // At a ratio of 1 every constant is fitted: the pair splits the product.
  o.identify_sd_ratio = 1;
  const ConstantFit all = fit_constants(constants(), s.y, predict, o);
  for (const FittedConstant& k : all.constants) EXPECT_FALSE(k.held) << k.name;
  EXPECT_NEAR(all.constants[0].value, all.constants[1].value, 1e-3);
  EXPECT_NEAR(all.constants[0].value * all.constants[1].value, 1.5, 0.03);
  o.identify_sd_ratio = 0;
  EXPECT_THROW(fit_constants(constants(), s.y, predict, o), std::invalid_argument);
}
