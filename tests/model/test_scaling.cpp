// Phase 01 — every number the seed prints for scaling laws, the lab's money
// tests, and the fitter's convergence, recovery and coverage.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "scaling.h"

using namespace napkin;

namespace {

// Expects `f` to throw std::invalid_argument whose message contains `needle`.
template <class F>
void expect_invalid(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected std::invalid_argument mentioning \"" << needle << "\"";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

bool same_bytes(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

bool same_law(const LossLaw& p, const LossLaw& q) {
  return same_bytes(p.E, q.E) && same_bytes(p.A, q.A) && same_bytes(p.alpha, q.alpha) &&
         same_bytes(p.B, q.B) && same_bytes(p.beta, q.beta);
}

std::vector<LadderPoint> seed_ladder_points(const LossLaw& law,
                                            std::vector<std::pair<double, double>> nd) {
  std::vector<LadderPoint> out;
  for (auto [n, d] : nd) out.push_back({n, d, law.loss(n, d), 0, false});
  return out;
}

// A ladder the size of Chinchilla's (9 budgets × 27 sizes over 2 decades).
SyntheticLadderSpec chinchilla_sized_spec(std::uint64_t seed) {
  SyntheticLadderSpec s;
  s.budgets_flops.clear();
  for (int i = 0; i < 9; ++i) s.budgets_flops.push_back(std::pow(10.0, 18 + 0.5 * i));
  s.sizes_per_budget = 27;
  s.size_span_decades = 2.0;
  s.noise = 0.005;
  s.seed = seed;
  return s;
}

}  // namespace

// ----------------------------------------------------------- ch. 2 power laws

TEST(PowerLaw, StraightLineInLogsSeedTable) {
  const double expected[] = {8.778, 9.278, 9.778, 10.278};
  int i = 0;
  for (double x : {1e18, 1e19, 1e20, 1e21})
    EXPECT_NEAR(std::log10(power_law(x, 0.6, 0.5)), expected[i++], 5e-4);
}

TEST(PowerLaw, FitRecoversCoefficientAndExponent) {
  std::vector<double> xs = {1e18, 1e19, 1e20, 1e21, 1e22}, ys;
  for (double x : xs) ys.push_back(power_law(x, 0.6, 0.5));
  const PowerLawFit f = fit_power_law(xs, ys);
  EXPECT_NEAR(f.coefficient, 0.6000, 5e-5);  // seed: recovered c=0.6000
  EXPECT_NEAR(f.exponent, 0.5000, 5e-5);     // seed: k=0.5000
}

TEST(PowerLaw, RejectsNonPositiveData) {
  expect_invalid([] { fit_power_law({1, -2}, {1, 2}); }, "x");
  expect_invalid([] { fit_power_law({1, 2}, {1, 0}); }, "y");
}

TEST(FitLine, SlopeInterceptAndTraps) {
  const LineFit f = fit_line({0, 1, 2, 3}, {1, 3, 5, 7});
  EXPECT_NEAR(f.slope, 2.0, 1e-12);
  EXPECT_NEAR(f.intercept, 1.0, 1e-12);
  expect_invalid([] { fit_line({1}, {1}); }, "points");
  expect_invalid([] { fit_line({2, 2, 2}, {1, 2, 3}); }, "identical");
  expect_invalid([] { fit_line({1, 2}, {1}); }, "same length");
}

// ------------------------------------------------------------- ch. 3 loss

TEST(Loss, CrossEntropySeedValues) {
  // The seed prints 0.2113 and 2.0369 beside its own code, but that code (the
  // mean of −ln p) gives 0.1841 and 2.0279: the printed figures are misprints
  // (0.2113 is not even the value in bits, 0.2656). We test the arithmetic.
  EXPECT_NEAR(cross_entropy({0.9, 0.8, 0.95, 0.7}), 0.1841, 5e-5);
  EXPECT_NEAR(cross_entropy({0.1, 0.2, 0.05, 0.3}), 2.0279, 5e-5);
  EXPECT_NEAR(cross_entropy({0.25, 0.25}), std::log(4.0), 1e-15);
  expect_invalid([] { cross_entropy({0.5, 0.0}); }, "infinite loss");
  expect_invalid([] { cross_entropy({}); }, "true_token_probs");
}

TEST(Loss, NatsBitsPerplexitySeedTable) {
  struct Row {
    double nats, bits, ppl;
  };
  for (Row r : {Row{2.0, 2.885, 7.39}, Row{1.8, 2.597, 6.05}, Row{1.7, 2.453, 5.47},
                Row{1.6, 2.308, 4.95}}) {
    EXPECT_NEAR(nats_to_bits(r.nats), r.bits, 5e-4);
    EXPECT_NEAR(nats_to_perplexity(r.nats), r.ppl, 5e-3);
    EXPECT_NEAR(bits_to_nats(nats_to_bits(r.nats)), r.nats, 1e-12);
    EXPECT_NEAR(perplexity_to_nats(nats_to_perplexity(r.nats)), r.nats, 1e-12);
  }
  expect_invalid([] { perplexity_to_nats(0.5); }, "perplexity");
  expect_invalid([] { nats_to_bits(-1); }, "nats");
}

TEST(Loss, ComputeForALossDeltaSeedTable) {
  EXPECT_NEAR(compute_increase_for_loss_delta(0.001), 0.033, 5e-4);  // 3.3 %
  EXPECT_NEAR(compute_increase_for_loss_delta(0.010), 0.333, 5e-4);  // 33.3 %
  EXPECT_NEAR(compute_increase_for_loss_delta(0.050), 1.667, 5e-4);  // 166.7 %
  expect_invalid([] { compute_increase_for_loss_delta(0.01, 0.5, 1.6, 1.69); }, "loss");
}

// ----------------------------------------------------------------- ch. 4 Kaplan

TEST(Kaplan, AllocationOfTenTimesCompute) {
  const Allocation a = kaplan_allocation(10);
  EXPECT_NEAR(a.n_multiplier, 5.37, 5e-3);
  EXPECT_NEAR(a.d_multiplier, 1.86, 5e-3);
  EXPECT_NEAR(a.n_multiplier * a.d_multiplier, 10.00, 5e-3);  // the consistency check
  expect_invalid([] { kaplan_allocation(0); }, "compute_multiplier");
  expect_invalid([] { kaplan_allocation(10, 1.5); }, "n_exponent");
}

// ------------------------------------------------ ch. 5 schedule mismatch

TEST(ScheduleToy, KaplanVersusChinchillaReading) {
  const double kaplan = schedule_mismatch_loss_toy(100e9, 1000e9);
  const double chinchilla = schedule_mismatch_loss_toy(100e9, 100e9);
  EXPECT_NEAR(kaplan, 0.3733, 5e-5);
  EXPECT_NEAR(chinchilla, 0.2383, 5e-5);
  EXPECT_NEAR(kaplan - chinchilla, 0.1350, 5e-5);
}

TEST(ScheduleToy, BiasAcrossHorizonsSeedTables) {
  const double d = 100e9;
  const double measured[] = {0.2383, 0.3133, 0.3583, 0.3733};
  const double bias[] = {0.0000, 0.0750, 0.1200, 0.1350};
  int i = 0;
  for (double mult : {1, 2, 5, 10}) {
    const double m = schedule_mismatch_loss_toy(d, d * mult, 3.0, 0.1, 0.15);
    EXPECT_NEAR(m, measured[i], 5e-5);
    EXPECT_NEAR(m - schedule_mismatch_loss_toy(d, d, 3.0, 0.1, 0.15), bias[i], 5e-5);
    // With the bias removed every schedule reads the same 0.2383.
    EXPECT_NEAR(schedule_mismatch_loss_toy(d, d * mult, 3.0, 0.1, 0.0), 0.2383, 5e-5);
    ++i;
  }
  expect_invalid([] { schedule_mismatch_loss_toy(2e9, 1e9); }, "horizon");
}

// ----------------------------------------------------- ch. 6 IsoFLOPs

TEST(Isoflops, SweepAtOneE21SeedTable) {
  const auto pts = isoflop_sweep(1e21, {1e8, 3e8, 1e9, 3e9, 1e10, 3e10});
  const double ratio[] = {16666.7, 1851.9, 166.7, 18.5, 1.7, 0.2};
  const double loss[] = {2.6198, 2.4344, 2.3400, 2.3363, 2.4160, 2.5687};
  const double d_tokens[] = {1.7e12, 5.6e11, 1.7e11, 5.6e10, 1.7e10, 5.6e9};
  ASSERT_EQ(pts.size(), 6u);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    EXPECT_NEAR(pts[i].n_tokens / pts[i].n_params, ratio[i], 0.05);
    EXPECT_NEAR(pts[i].loss, loss[i], 5e-5);
    EXPECT_NEAR(pts[i].n_tokens, d_tokens[i], 0.05 * d_tokens[i]);
    EXPECT_DOUBLE_EQ(pts[i].budget_flops, 1e21);
    // The budget constraint: every point costs C = 6ND.
    EXPECT_NEAR(6 * pts[i].n_params * pts[i].n_tokens, 1e21, 1e21 * 1e-15);
  }
}

TEST(Isoflops, FittedOptimumOneE21) {
  const auto pts = isoflop_sweep(1e21, {1e8, 3e8, 1e9, 3e9, 1e10, 3e10});
  const IsoflopOptimum o = isoflop_optimum(pts, 1e21);
  EXPECT_NEAR(o.n_opt, 1.951e9, 0.0005e9);
  EXPECT_NEAR(o.d_opt, 8.542e10, 0.0005e10);
  EXPECT_NEAR(o.d_opt / o.n_opt, 43.8, 0.05);
  EXPECT_TRUE(o.vertex_inside_sweep);
  EXPECT_EQ(o.n_points, 6);
  // The flat bottom: 1e9 and 3e9 differ by 0.004 nats.
  EXPECT_NEAR(pts[2].loss - pts[3].loss, 0.004, 5e-4);
}

TEST(Isoflops, LadderExponentsSeedValues) {
  std::vector<LadderPoint> ladder;
  const double budgets[] = {1e19, 1e20, 1e21, 1e22};
  const double mults[] = {1, 3, 10, 30};
  for (int i = 0; i < 4; ++i) {
    std::vector<double> sizes;
    for (double n : {1e7, 3e7, 1e8, 3e8, 1e9}) sizes.push_back(n * mults[i]);
    for (const auto& p : isoflop_sweep(budgets[i], sizes)) ladder.push_back(p);
  }
  const auto optima = isoflop_optima(ladder);
  ASSERT_EQ(optima.size(), 4u);
  const ScalingExponents e = fit_scaling_exponents(optima);
  EXPECT_NEAR(e.a, 0.454, 5e-4);
  EXPECT_NEAR(e.b, 0.546, 5e-4);
  EXPECT_NEAR(e.sum, 1.000, 5e-4);
  EXPECT_TRUE(e.sums_to_one);
}

TEST(Isoflops, ParabolaTraps) {
  expect_invalid([] { fit_quadratic({1, 2}, {1, 2}); }, "at least 3");
  expect_invalid([] { fit_quadratic({1, 1, 2, 2}, {1, 2, 3, 4}); }, "degenerate");
  expect_invalid([] { fit_quadratic({5, 5, 5}, {1, 2, 3}); }, "degenerate");
  // Collinear points fit a flat "parabola", and a flat one has no vertex.
  const Quadratic q = fit_quadratic({1, 2, 3, 4}, {2, 4, 6, 8});
  EXPECT_NEAR(q.a, 0, 1e-12);
  expect_invalid([&] { parabola_vertex(q.a * 0, q.b); }, "opens downward");
  expect_invalid([] { parabola_vertex(-1, 2); }, "opens downward");
  EXPECT_DOUBLE_EQ(parabola_vertex(2, -8), 2.0);
}

TEST(Isoflops, QuadraticRecoversExactParabola) {
  std::vector<double> xs = {8, 8.5, 9, 9.5, 10, 10.5}, ys;
  for (double x : xs) ys.push_back(0.3 * x * x - 5.7 * x + 29.0);
  const Quadratic q = fit_quadratic(xs, ys);
  EXPECT_NEAR(q.a, 0.3, 1e-9);
  EXPECT_NEAR(q.b, -5.7, 1e-8);
  EXPECT_NEAR(q.c, 29.0, 1e-7);
  EXPECT_NEAR(parabola_vertex(q.a, q.b), 9.5, 1e-9);
}

TEST(Isoflops, DownwardSweepIsRejected) {
  std::vector<LadderPoint> pts;
  for (double n : {1e8, 1e9, 1e10}) pts.push_back({n, 1e20 / (6 * n), 0, 1e20, false});
  pts[0].loss = 2.0;
  pts[1].loss = 2.5;
  pts[2].loss = 2.0;
  expect_invalid([&] { isoflop_optimum(pts, 1e20); }, "opens downward");
}

TEST(Isoflops, GroupsByLabelNeverBy6ND) {
  // Two runs of one budget whose 6ND differs in the last bit still group
  // together, because the label is carried, not recomputed.
  auto pts = isoflop_sweep(1e20, {1e8, 3e8, 1e9, 3e9});
  pts[1].n_tokens = std::nextafter(pts[1].n_tokens, 1e30);
  EXPECT_EQ(isoflop_optima(pts).size(), 1u);
  pts[0].budget_flops = 0;
  expect_invalid([&] { isoflop_optima(pts); }, "ladder[0].budget_flops");
  expect_invalid([&] { isoflop_optimum(pts, 1e20); }, "sweep[0].budget_flops");
  expect_invalid([] { fit_scaling_exponents({}); }, "optima");
}

// ------------------------------------------------- ch. 7 parametric law

TEST(ParametricLaw, DecompositionAtChinchilla) {
  const LossDecomposition d = decompose_loss(chinchilla_approach3_law(), 70e9, 1.4e12);
  EXPECT_NEAR(d.irreducible, 1.6900, 5e-5);
  EXPECT_NEAR(d.capacity, 0.0835, 5e-5);
  EXPECT_NEAR(d.data, 0.1632, 5e-5);
  EXPECT_NEAR(d.total, 1.9366, 5e-5);
  EXPECT_NEAR(d.irreducible / d.total, 0.873, 5e-4);
  EXPECT_NEAR(d.capacity / d.total, 0.043, 5e-4);
  EXPECT_NEAR(d.data / d.total, 0.084, 5e-4);
}

TEST(ParametricLaw, AnalyticOptimumSeedTable) {
  struct Row {
    double c, n, d, ratio;
  };
  const LossLaw law = chinchilla_approach3_law();
  for (Row r : {Row{1e19, 2.280e8, 7.311e9, 32.1}, Row{1e21, 1.824e9, 9.136e10, 50.1},
                Row{1e23, 1.460e10, 1.142e12, 78.2}, Row{1e25, 1.168e11, 1.427e13, 122.1}}) {
    const ComputeOptimum o = analytic_optimum(law, r.c);
    EXPECT_NEAR(o.n_params, r.n, 5e-4 * std::pow(10, std::floor(std::log10(r.n))));
    EXPECT_NEAR(o.n_tokens, r.d, 5e-4 * std::pow(10, std::floor(std::log10(r.d))));
    EXPECT_NEAR(o.tokens_per_param(), r.ratio, 0.05);
    EXPECT_NEAR(o.loss, law.loss(o.n_params, o.n_tokens), 1e-15);
  }
  EXPECT_NEAR(optimum_exponent(law), 0.4516, 5e-5);
  expect_invalid([&] { analytic_optimum(law, 0); }, "flops");
}

TEST(ParametricLaw, AnalyticOptimumAgreesWithTheSweep) {
  // A fine sweep's vertex lands on the closed form (seed Lab step 6).
  const LossLaw law = chinchilla_approach3_law();
  const ComputeOptimum exact = analytic_optimum(law, 1e21);
  std::vector<double> sizes;
  for (int i = -4; i <= 4; ++i) sizes.push_back(exact.n_params * std::pow(10.0, 0.05 * i));
  const IsoflopOptimum o = isoflop_optimum(isoflop_sweep(1e21, sizes, law), 1e21);
  EXPECT_NEAR(o.n_opt / exact.n_params, 1.0, 2e-3);
  EXPECT_NEAR(o.loss_opt, exact.loss, 1e-5);
}

// ------------------------------------------- ch. 8 residuals & objectives

TEST(Objectives, OutlierComparisonSeedValues) {
  const LossLaw law = chinchilla_approach3_law();
  auto pts = seed_ladder_points(law, {{1e7, 1e10}, {1e8, 1e11}, {1e9, 1e11}, {1e10, 1e12}});
  auto outlier = pts;
  outlier.back().loss += 1.5;
  EXPECT_NEAR(squared_loss(residuals(pts, law, ResidualSpace::linear)), 0.0, 5e-7);
  EXPECT_NEAR(squared_loss(residuals(pts, law, ResidualSpace::log)), 0.0, 5e-7);
  EXPECT_NEAR(huber_loss(residuals(pts, law, ResidualSpace::log)), 0.0, 5e-7);
  const double lin = squared_loss(residuals(outlier, law, ResidualSpace::linear));
  const double log_sq = squared_loss(residuals(outlier, law, ResidualSpace::log));
  const double huber = huber_loss(residuals(outlier, law, ResidualSpace::log));
  EXPECT_NEAR(lin, 2.250000, 5e-7);
  EXPECT_NEAR(log_sq, 0.305852, 5e-7);
  EXPECT_NEAR(huber, 0.000553, 5e-7);
  EXPECT_NEAR(lin / huber, 4000, 100);  // "a factor of about 4,000"
  // The fitter's objective is the same quantity.
  EXPECT_NEAR(fit_objective(outlier, law, Estimator::huber_log), huber, 1e-12);
  EXPECT_NEAR(fit_objective(outlier, law, Estimator::ls_log), log_sq, 1e-12);
  EXPECT_NEAR(fit_objective(outlier, law, Estimator::ls_linear), lin, 1e-9);
}

TEST(Objectives, HuberIsQuadraticThenLinear) {
  EXPECT_DOUBLE_EQ(huber_loss({1e-3}, 1e-3), 0.5e-6);
  EXPECT_DOUBLE_EQ(huber_loss({-3e-3}, 1e-3), 1e-3 * (3e-3 - 0.5e-3));
  EXPECT_DOUBLE_EQ(huber_loss({0.5}, 1.0), 0.125);
  expect_invalid([] { huber_loss({0.1}, 0); }, "delta");
}

// -------------------------------------------------------------- the fitter

TEST(Fitter, RecoversNoiseFreeLawsExactly) {
  for (const LossLaw& truth : {chinchilla_approach3_law(), besiroglu2024_law()}) {
    SyntheticLadderSpec s;
    s.law = truth;
    s.noise = 0;
    const auto pts = synthetic_ladder(s);
    for (Estimator e : {Estimator::huber_log, Estimator::ls_log, Estimator::ls_linear}) {
      FitOptions o;
      o.estimator = e;
      const FitResult f = fit_parametric(pts, o);
      EXPECT_NEAR(f.law.E, truth.E, 1e-5 * truth.E) << to_string(e);
      EXPECT_NEAR(f.law.A, truth.A, 1e-4 * truth.A) << to_string(e);
      EXPECT_NEAR(f.law.alpha, truth.alpha, 1e-5) << to_string(e);
      EXPECT_NEAR(f.law.B, truth.B, 1e-4 * truth.B) << to_string(e);
      EXPECT_NEAR(f.law.beta, truth.beta, 1e-5) << to_string(e);
      EXPECT_LT(f.objective, 1e-16) << to_string(e);
      EXPECT_TRUE(f.converged) << to_string(e);
      EXPECT_EQ(f.n_points, 30);
    }
  }
}

TEST(Fitter, RecoversExponentsWithinOneHundredthAtHalfAPercentNoise) {
  // A 30-point ladder cannot pin α to ±0.01 at 0.5 % noise (that is
  // statistics, not the optimizer); a Chinchilla-sized one (243 runs) can.
  for (std::uint64_t seed = 0; seed < 8; ++seed) {
    const auto pts = synthetic_ladder(chinchilla_sized_spec(seed));
    const FitResult f = fit_parametric(pts);
    EXPECT_NEAR(f.law.alpha, 0.34, 0.01) << "seed " << seed;
    EXPECT_NEAR(f.law.beta, 0.28, 0.01) << "seed " << seed;
  }
}

TEST(Fitter, SeedCoordinateDescentDoesNotConverge) {
  // The claim: on a 30-point Chinchilla ladder with 0.5 % noise the
  // seed's coordinate descent leaves α and β at its start (0.35, 0.30), while
  // the real fitter moves them and reaches a far lower objective.
  SyntheticLadderSpec s;
  s.seed = 1;
  const auto pts = synthetic_ladder(s);
  FitOptions cd;
  cd.estimator = Estimator::seed_cd;
  const FitResult toy = fit_parametric(pts, cd);
  EXPECT_NEAR(toy.law.alpha, 0.35, 1e-3);
  EXPECT_NEAR(toy.law.beta, 0.30, 1e-3);
  EXPECT_FALSE(toy.converged);
  const FitResult real = fit_parametric(pts);
  EXPECT_LT(real.objective, 0.8 * toy.objective);
  EXPECT_GT(std::abs(real.law.beta - 0.30), 0.02);
  EXPECT_NEAR(toy.objective, fit_objective(pts, toy.law, Estimator::seed_cd), 1e-12);
  // Its 200-resample, 60-iteration bootstrap misses the true 1e24 forecast.
  const double truth = optimal_loss(s.law, 1e24);
  EXPECT_NEAR(truth, 1.911, 5e-4);
  BootstrapOptions bo;
  bo.resamples = 200;
  bo.fit = cd;
  bo.fit.seed_cd_iterations = 60;
  const BootstrapResult b = bootstrap_forecast(pts, 1e24, bo);
  EXPECT_FALSE(b.ci_low <= truth && truth <= b.ci_high)
      << "[" << b.ci_low << ", " << b.ci_high << "]";
}

TEST(Fitter, EstimatorsDisagreeOnIdenticalData) {
  // Seed ch. 9: least squares on L, on log L and Huber on log L give
  // different flagship recommendations on the same ladder (with one outlier).
  SyntheticLadderSpec s;
  s.seed = 2;
  s.outliers = 1;
  const auto pts = synthetic_ladder(s);
  std::vector<double> n_opt;
  for (Estimator e : {Estimator::ls_linear, Estimator::ls_log, Estimator::huber_log}) {
    FitOptions o;
    o.estimator = e;
    n_opt.push_back(analytic_optimum(fit_parametric(pts, o).law, 1e24).n_params);
  }
  EXPECT_GT(std::abs(std::log(n_opt[0] / n_opt[2])), 0.05);
  EXPECT_GT(std::abs(std::log(n_opt[1] / n_opt[2])), 0.05);
  // Huber on log L stays near the truth despite the diverged run.
  EXPECT_NEAR(n_opt[2] / analytic_optimum(s.law, 1e24).n_params, 1.0, 0.3);
}

TEST(Fitter, DeterministicWhateverTheThreadCount) {
  SyntheticLadderSpec s;
  s.seed = 7;
  const auto pts = synthetic_ladder(s);
  FitOptions one, two, many;
  one.threads = 1;
  two.threads = 2;
  many.threads = 7;
  const FitResult a = fit_parametric(pts, one), b = fit_parametric(pts, two),
                  c = fit_parametric(pts, many);
  EXPECT_TRUE(same_law(a.law, b.law));
  EXPECT_TRUE(same_law(a.law, c.law));
  EXPECT_TRUE(same_bytes(a.objective, c.objective));
  EXPECT_TRUE(same_law(a.law, fit_parametric(pts, one).law));
}

TEST(Fitter, InvalidInput) {
  SyntheticLadderSpec s;
  auto pts = synthetic_ladder(s);
  expect_invalid([&] { fit_parametric({pts.begin(), pts.begin() + 4}); }, "points");
  auto same_n = pts;
  for (auto& p : same_n) p.n_params = 1e9;
  expect_invalid([&] { fit_parametric(same_n); }, "distinct N");
  auto bad = pts;
  bad[3].loss = std::nan("");
  expect_invalid([&] { fit_parametric(bad); }, "points[3].loss");
  FitOptions o;
  o.huber_delta = 0;
  expect_invalid([&] { fit_parametric(pts, o); }, "huber_delta");
  o = {};
  o.use_grid = false;
  expect_invalid([&] { fit_parametric(pts, o); }, "use_grid");
  expect_invalid([] { parse_estimator("mle"); }, "estimator");
  EXPECT_EQ(parse_estimator("ls-linear"), Estimator::ls_linear);
  EXPECT_EQ(to_string(Estimator::seed_cd), "seed-cd");
}

// --------------------------------------------------- the synthetic ladder

TEST(SyntheticLadder, ShapeLabelsAndBudgetConstraint) {
  SyntheticLadderSpec s;
  const auto pts = synthetic_ladder(s);
  ASSERT_EQ(pts.size(), 30u);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    EXPECT_DOUBLE_EQ(pts[i].budget_flops, s.budgets_flops[i / 6]);
    EXPECT_NEAR(6 * pts[i].n_params * pts[i].n_tokens / pts[i].budget_flops, 1.0, 1e-14);
    EXPECT_FALSE(pts[i].outlier);
  }
  // Sizes are centred on the true optimum, span 1.5 decades.
  EXPECT_NEAR(std::log10(pts[5].n_params / pts[0].n_params), 1.5, 1e-12);
  EXPECT_NEAR(std::log10(pts[0].n_params * pts[5].n_params) / 2,
              std::log10(analytic_optimum(s.law, 1e18).n_params), 1e-12);
}

TEST(SyntheticLadder, NoiseIsMultiplicativeAndSeeded) {
  SyntheticLadderSpec s;
  s.noise = 0.005;
  const auto a = synthetic_ladder(s), b = synthetic_ladder(s);
  s.seed = 1;
  const auto c = synthetic_ladder(s);
  double sum = 0, sum2 = 0;
  bool differs = false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same_bytes(a[i].loss, b[i].loss));
    differs = differs || a[i].loss != c[i].loss;
    const double z = std::log(a[i].loss / s.law.loss(a[i].n_params, a[i].n_tokens));
    sum += z;
    sum2 += z * z;
  }
  EXPECT_TRUE(differs);
  const double sd = std::sqrt(sum2 / a.size() - (sum / a.size()) * (sum / a.size()));
  EXPECT_GT(sd, 0.0025);
  EXPECT_LT(sd, 0.0080);
}

TEST(SyntheticLadder, GoldenBytesAcrossPlatforms) {
  // Our own xoshiro256** + polar normals: this value is the same on every
  // platform, unlike std::normal_distribution's.
  SyntheticLadderSpec s;
  s.seed = 42;
  const auto pts = synthetic_ladder(s);
  const double z0 = std::log(pts[0].loss / s.law.loss(pts[0].n_params, pts[0].n_tokens)) / 0.005;
  const double z1 = std::log(pts[1].loss / s.law.loss(pts[1].n_params, pts[1].n_tokens)) / 0.005;
  EXPECT_NEAR(z0, -0.72621913824477713, 1e-9);
  EXPECT_NEAR(z1, -0.21119691823196954, 1e-9);
}

TEST(SyntheticLadder, OutliersAreInjectedAndMarked) {
  SyntheticLadderSpec s;
  s.outliers = 3;
  const auto with = synthetic_ladder(s);
  s.outliers = 0;
  const auto without = synthetic_ladder(s);
  int marked = 0;
  for (std::size_t i = 0; i < with.size(); ++i) {
    if (with[i].outlier) {
      ++marked;
      EXPECT_NEAR(with[i].loss - without[i].loss, 1.5, 1e-12);
    } else {
      EXPECT_TRUE(same_bytes(with[i].loss, without[i].loss));
    }
  }
  EXPECT_EQ(marked, 3);
}

TEST(SyntheticLadder, BiasDesigns) {
  SyntheticLadderSpec s;
  s.noise = 0;
  const auto clean = synthetic_ladder(s);
  s.lr_decay_bias_nats = 0.1;
  s.bias_mode = BiasMode::fixed_schedule;
  const auto fixed = synthetic_ladder(s);
  s.bias_mode = BiasMode::per_budget;
  const auto per = synthetic_ladder(s);
  double d_max = 0;
  for (const auto& p : clean) d_max = std::max(d_max, p.n_tokens);
  for (std::size_t i = 0; i < clean.size(); ++i) {
    EXPECT_NEAR(fixed[i].loss - clean[i].loss, 0.1 * (1 - clean[i].n_tokens / d_max), 1e-12);
    const double budget_max = clean[(i / 6) * 6].n_tokens;  // smallest N reads the most tokens
    EXPECT_NEAR(per[i].loss - clean[i].loss, 0.1 * (1 - clean[i].n_tokens / budget_max), 1e-12);
  }
  // The longest run of each budget is unbiased under per_budget.
  EXPECT_DOUBLE_EQ(per[0].loss, clean[0].loss);
  EXPECT_EQ(parse_bias_mode("per_budget"), BiasMode::per_budget);
  expect_invalid([] { parse_bias_mode("kaplan"); }, "bias_mode");
}

TEST(SyntheticLadder, InvalidSpec) {
  SyntheticLadderSpec s;
  s.sizes_per_budget = 2;
  expect_invalid([&] { synthetic_ladder(s); }, "sizes_per_budget");
  s = {};
  s.noise = -0.1;
  expect_invalid([&] { synthetic_ladder(s); }, "noise");
  s = {};
  s.budgets_flops = {};
  expect_invalid([&] { synthetic_ladder(s); }, "budgets_flops");
  s = {};
  s.budgets_flops = {1e19, 1e20, 1e19};
  expect_invalid([&] { synthetic_ladder(s); }, "distinct");
  s = {};
  s.outliers = 31;
  expect_invalid([&] { synthetic_ladder(s); }, "outliers");
  s = {};
  s.law.alpha = 0;
  expect_invalid([&] { synthetic_ladder(s); }, "alpha");
}

// ------------------------------------ the Kaplan → Chinchilla money tests

TEST(MoneyTest, NonuniformBiasTiltsTheFittedExponent) {
  SyntheticLadderSpec s;
  s.seed = 3;
  const ScalingExponents clean = fit_scaling_exponents(isoflop_optima(synthetic_ladder(s)));
  const double top_clean = isoflop_optima(synthetic_ladder(s)).back().n_opt;
  for (BiasMode mode : {BiasMode::fixed_schedule, BiasMode::per_budget}) {
    s.lr_decay_bias_nats = 0.05;
    s.bias_mode = mode;
    const auto optima = isoflop_optima(synthetic_ladder(s));
    const ScalingExponents biased = fit_scaling_exponents(optima);
    // Measured, not assumed (seed ch. 5: the sign is a property of the
    // design). Under both designs a penalty that grows as D shrinks makes the
    // data-starved large models look worse: the exponent falls and the
    // recommended N at the largest budget shrinks.
    EXPECT_LT(biased.a, clean.a - 0.02) << to_string(mode);
    EXPECT_LT(optima.back().n_opt, 0.95 * top_clean) << to_string(mode);
    EXPECT_NEAR(biased.sum, 1.0, 1e-12);
  }
}

TEST(MoneyTest, UniformOffsetIsAbsorbedIntoEAndChangesNothing) {
  SyntheticLadderSpec s;
  s.seed = 3;
  const auto base = synthetic_ladder(s);
  s.uniform_offset_nats = 0.05;
  const auto shifted = synthetic_ladder(s);
  const auto o0 = isoflop_optima(base), o1 = isoflop_optima(shifted);
  for (std::size_t i = 0; i < o0.size(); ++i) EXPECT_NEAR(o1[i].n_opt / o0[i].n_opt, 1.0, 1e-9);
  EXPECT_NEAR(fit_scaling_exponents(o1).a, fit_scaling_exponents(o0).a, 1e-10);
  // The parametric fit: E takes the offset, the exponents do not move.
  FitOptions lin;
  lin.estimator = Estimator::ls_linear;
  const FitResult f0 = fit_parametric(base, lin), f1 = fit_parametric(shifted, lin);
  EXPECT_NEAR(f1.law.E - f0.law.E, 0.05, 1e-4);
  EXPECT_NEAR(f1.law.alpha, f0.law.alpha, 1e-4);
  EXPECT_NEAR(f1.law.beta, f0.law.beta, 1e-4);
  // Noise-free, Huber on log L recovers the truth with E + 0.05 exactly.
  s.noise = 0;
  const FitResult h = fit_parametric(synthetic_ladder(s));
  EXPECT_NEAR(h.law.E, 1.74, 1e-6);
  EXPECT_NEAR(h.law.alpha, 0.34, 1e-6);
  EXPECT_NEAR(h.law.beta, 0.28, 1e-6);
}

TEST(MoneyTest, ExponentsSumToOne) {
  for (std::uint64_t seed = 0; seed < 5; ++seed)
    for (double bias : {0.0, 0.03}) {
      SyntheticLadderSpec s;
      s.seed = seed;
      s.lr_decay_bias_nats = bias;
      const ScalingExponents e = fit_scaling_exponents(isoflop_optima(synthetic_ladder(s)));
      EXPECT_NEAR(e.sum, 1.0, 1e-12);
      EXPECT_TRUE(e.sums_to_one);
    }
  // Noise-free, the IsoFLOPs exponent matches the law's β/(α+β).
  SyntheticLadderSpec s;
  s.noise = 0;
  EXPECT_NEAR(fit_scaling_exponents(isoflop_optima(synthetic_ladder(s))).a, 0.4516, 5e-4);
}

TEST(MoneyTest, DeterministicLadderAndOptima) {
  SyntheticLadderSpec s;
  s.seed = 11;
  s.lr_decay_bias_nats = 0.02;
  s.outliers = 2;
  const auto a = synthetic_ladder(s), b = synthetic_ladder(s);
  ASSERT_EQ(a.size(), b.size());
  // Field by field: a memcmp of the structs would also compare their padding
  // bytes, which are indeterminate (the test failed at random on that).
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_TRUE(same_bytes(a[i].n_params, b[i].n_params));
    EXPECT_TRUE(same_bytes(a[i].n_tokens, b[i].n_tokens));
    EXPECT_TRUE(same_bytes(a[i].loss, b[i].loss));
    EXPECT_TRUE(same_bytes(a[i].budget_flops, b[i].budget_flops));
    EXPECT_EQ(a[i].outlier, b[i].outlier);
  }
  s.outliers = 0;  // a 1.5-nat outlier can turn a parabola upside down
  const auto oa = isoflop_optima(synthetic_ladder(s)), ob = isoflop_optima(synthetic_ladder(s));
  for (std::size_t i = 0; i < oa.size(); ++i) EXPECT_TRUE(same_bytes(oa[i].n_opt, ob[i].n_opt));
}

// ------------------------------------------------------ ch. 10 bootstrap

TEST(Bootstrap, SeededIdenticalBytesAcrossThreadCounts) {
  SyntheticLadderSpec s;
  s.seed = 5;
  const auto pts = synthetic_ladder(s);
  BootstrapOptions o;
  o.resamples = 120;
  o.seed = 9;
  o.fit.threads = 1;
  const BootstrapResult a = bootstrap_forecast(pts, 1e24, o);
  o.fit.threads = 3;
  const BootstrapResult b = bootstrap_forecast(pts, 1e24, o);
  ASSERT_EQ(a.forecasts.size(), b.forecasts.size());
  for (std::size_t i = 0; i < a.forecasts.size(); ++i)
    EXPECT_TRUE(same_bytes(a.forecasts[i], b.forecasts[i]));
  EXPECT_TRUE(same_bytes(a.ci_low, b.ci_low));
  EXPECT_TRUE(same_bytes(a.ci_high, b.ci_high));
  o.seed = 10;
  EXPECT_NE(bootstrap_forecast(pts, 1e24, o).ci_low, a.ci_low);
  // The interval brackets the median and the point forecast sits inside it.
  EXPECT_LE(a.ci_low, a.median);
  EXPECT_LE(a.median, a.ci_high);
  EXPECT_NEAR(a.width, a.ci_high - a.ci_low, 0);
  EXPECT_LE(a.n_opt_low, a.n_opt_high);
  EXPECT_EQ(a.n_successful + a.n_skipped, 120);
}

TEST(Bootstrap, BandAcrossBudgetsReproducesTheInterval) {
  SyntheticLadderSpec s;
  s.seed = 4;
  BootstrapOptions o;
  o.resamples = 100;
  const BootstrapResult b = bootstrap_forecast(synthetic_ladder(s), 1e24, o);
  ASSERT_EQ(b.laws.size(), static_cast<std::size_t>(b.n_successful));
  const auto band = forecast_band(b.laws, {1e20, 1e22, 1e24});
  ASSERT_EQ(band.size(), 3u);
  EXPECT_DOUBLE_EQ(band[2].low, b.ci_low);
  EXPECT_DOUBLE_EQ(band[2].high, b.ci_high);
  EXPECT_DOUBLE_EQ(band[2].median, b.median);
  // The band widens with the extrapolation distance from the ladder (≤ 1e22).
  EXPECT_LT(band[0].high - band[0].low, band[2].high - band[2].low);
  for (const auto& p : band) EXPECT_LE(p.low, p.high);
  expect_invalid([] { forecast_band({}, {1e24}); }, "laws");
  expect_invalid([&] { forecast_band(b.laws, {0.0}); }, "flops");
}

TEST(Bootstrap, CoverageOfTheTrueForecast) {
  // 100 seeded 30-point Chinchilla ladders at 0.5 % noise: the 95 % interval
  // must contain the true optimal loss at 1e24 FLOPs at least 90 times.
  const double truth = optimal_loss(chinchilla_approach3_law(), 1e24);
  int covered = 0;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    SyntheticLadderSpec s;
    s.seed = seed;
    BootstrapOptions o;
    o.resamples = 200;
    o.seed = seed;
    const BootstrapResult b = bootstrap_forecast(synthetic_ladder(s), 1e24, o);
    if (b.ci_low <= truth && truth <= b.ci_high) ++covered;
  }
  EXPECT_GE(covered, 90);
}

TEST(Bootstrap, ProgressAndCancel) {
  SyntheticLadderSpec s;
  const auto pts = synthetic_ladder(s);
  BootstrapOptions o;
  o.resamples = 64;
  for (int threads : {1, 2}) {
    o.fit.threads = threads;
    int last = 0, calls = 0;
    bool monotone = true;
    bootstrap_forecast(pts, 1e24, o, [&](int done, int total) {
      monotone = monotone && done >= last && total == 64;
      last = done;
      ++calls;
      return true;
    });
    EXPECT_TRUE(monotone);
    EXPECT_EQ(last, 64);
    EXPECT_GE(calls, 1);
    int seen = 0;
    EXPECT_THROW(bootstrap_forecast(pts, 1e24, o,
                                    [&](int done, int) {
                                      seen = done;
                                      return done < 10;
                                    }),
                 Cancelled);
    EXPECT_LT(seen, 64);
  }
}

TEST(Bootstrap, DegenerateResamplesSkippedAndLoudWhenTooFew) {
  // Five runs at three sizes: many resamples repeat a size and are skipped.
  std::vector<LadderPoint> pts;
  const LossLaw law = chinchilla_approach3_law();
  for (auto [n, d] : std::vector<std::pair<double, double>>{
           {1e8, 1e10}, {1e9, 1e10}, {1e10, 1e11}, {1e8, 1e12}, {1e9, 1e12}})
    pts.push_back({n, d, law.loss(n, d), 0, false});
  BootstrapOptions o;
  o.resamples = 100;
  o.min_successful = 100;
  expect_invalid([&] { bootstrap_forecast(pts, 1e24, o); }, "too few successful bootstrap fits");
  o.min_successful = 1;
  const BootstrapResult r = bootstrap_forecast(pts, 1e24, o);
  EXPECT_GT(r.n_skipped, 0);
  EXPECT_EQ(r.n_successful + r.n_skipped, 100);
}

TEST(Bootstrap, InvalidOptions) {
  SyntheticLadderSpec s;
  const auto pts = synthetic_ladder(s);
  BootstrapOptions o;
  o.confidence = 1.0;
  expect_invalid([&] { bootstrap_forecast(pts, 1e24, o); }, "confidence");
  o = {};
  o.resamples = 0;
  expect_invalid([&] { bootstrap_forecast(pts, 1e24, o); }, "resamples");
  expect_invalid([&] { bootstrap_forecast(pts, -1, {}); }, "target_flops");
}

// ------------------------------------------------ ch. 9 & 11 ladder design

TEST(LadderDesign, ExtrapolationVarianceSeedDesigns) {
  const double clustered = extrapolation_variance({19.0, 19.2, 19.4, 19.6}, 25.0);
  const double spread = extrapolation_variance({18.0, 19.0, 20.0, 21.0}, 25.0);
  const double skewed = extrapolation_variance({18.0, 18.5, 19.0, 21.5}, 25.0);
  const double extremes = extrapolation_variance({18.0, 21.0}, 25.0);
  EXPECT_NEAR(clustered, 162.70, 5e-3);
  EXPECT_NEAR(spread, 6.30, 5e-3);
  EXPECT_NEAR(skewed, 4.81, 5e-3);
  EXPECT_NEAR(extremes, 7.22, 5e-3);
  EXPECT_NEAR(clustered / spread, 26, 0.5);    // "26× worse"
  EXPECT_NEAR(clustered / extremes, 23, 0.5);  // "beats four clustered runs by 23×"
  expect_invalid([] { extrapolation_variance({19.0}, 25.0); }, "log10_flops");
  expect_invalid([] { extrapolation_variance({19.0, 19.0}, 25.0); }, "identical");
}

TEST(LadderDesign, DesignForAOneE25Flagship) {
  const LadderDesign d = design_ladder(1e25);
  const double budgets[] = {1.000e18, 1.968e19, 3.873e20, 7.622e21, 1.500e23};
  ASSERT_EQ(d.budgets_flops.size(), 5u);
  for (int i = 0; i < 5; ++i)
    EXPECT_NEAR(d.budgets_flops[i], budgets[i],
                5e-4 * std::pow(10, std::floor(std::log10(budgets[i]))));
  EXPECT_NEAR(d.total_flops, 1.580e23, 5e-4 * 1e23);
  EXPECT_NEAR(d.fraction_of_flagship, 0.0158, 5e-5);
  EXPECT_NEAR(d.spread_decades, 5.2, 0.05);
  // In money at Phase 00's $1,753 per 1e21 FLOPs: flagship ~$17.5M, ladder ~$277k.
  EXPECT_NEAR(1e25 / 1e21 * 1753, 17.5e6, 0.05e6);
  EXPECT_NEAR(d.total_flops / 1e21 * 1753, 277e3, 0.5e3);
  expect_invalid([] { design_ladder(1e25, 0.03, 1); }, "n_budgets");
  expect_invalid([] { design_ladder(1e19); }, "min_flops");
}

// ----------------------------------------------------- ch. 12 the decision

TEST(Decision, SeedCandidateWinsEverywhereInTheScan) {
  // The seed's candidate (better per parameter, worse per token) wins at every
  // budget it prints and never crosses in the seed's 1e16 … 1e28 scan: the
  // seed's script prints "no crossover in range" (the laws cross near 1e14).
  const LossLaw baseline = chinchilla_approach3_law();
  const LossLaw candidate{1.69, 500.0, 0.38, 380.0, 0.26};
  for (double c : {1e20, 1e22, 1e24, 1e26}) {
    const RecipeComparison r = compare_recipes(baseline, candidate, c);
    EXPECT_TRUE(r.candidate_wins) << c;
    EXPECT_NEAR(r.delta, r.candidate_loss - r.baseline_loss, 1e-15);
    EXPECT_FALSE(r.crossover_flops.has_value());
  }
  EXPECT_NEAR(compare_recipes(baseline, candidate, 1e24).delta, -0.0041, 5e-5);
}

TEST(Decision, CompareRecipesFindsTheCrossover) {
  // A candidate with a lower floor E but 10 % larger A and B: worse on small
  // ladders, better at the flagship.
  const LossLaw baseline = chinchilla_approach3_law();
  const LossLaw candidate{1.65, 406.4 * 1.1, 0.34, 410.7 * 1.1, 0.28};
  const RecipeComparison r = compare_recipes(baseline, candidate, 1e24);
  EXPECT_NEAR(r.baseline_loss, optimal_loss(baseline, 1e24), 1e-15);
  EXPECT_TRUE(r.candidate_wins);
  ASSERT_TRUE(r.crossover_flops.has_value());
  ASSERT_EQ(r.crossovers_flops.size(), 1u);
  const double c = *r.crossover_flops;
  EXPECT_NEAR(std::log10(c), std::log10(2.11e22), 0.01);
  EXPECT_NEAR(optimal_loss(candidate, c), optimal_loss(baseline, c), 1e-12);
  // The winner differs on the two sides of the crossover.
  EXPECT_GT(optimal_loss(candidate, c / 10), optimal_loss(baseline, c / 10));
  EXPECT_LT(optimal_loss(candidate, c * 10), optimal_loss(baseline, c * 10));
  // Identical laws never cross.
  EXPECT_FALSE(compare_recipes(baseline, baseline, 1e24).crossover_flops.has_value());
}

TEST(Decision, ExtrapolationRiskSeedStatements) {
  const ExtrapolationRisk a = extrapolation_risk(1e22, 1e25, 0.008);
  EXPECT_EQ(a.statement,
            "3.0 decades of extrapolation, CI 0.008 nats -> MODERATE risk (score 3.5)");
  EXPECT_EQ(a.band, RiskBand::moderate);
  EXPECT_NEAR(a.score, 3.48, 1e-9);
  const ExtrapolationRisk b = extrapolation_risk(1e20, 1e25, 0.040);
  EXPECT_EQ(b.statement, "5.0 decades of extrapolation, CI 0.040 nats -> HIGH risk (score 9.0)");
  EXPECT_EQ(b.band, RiskBand::high);
  const ExtrapolationRisk c = extrapolation_risk(1e22, 1e21, 0.01);
  EXPECT_EQ(c.statement, "INTERPOLATION — low risk");
  EXPECT_EQ(c.band, RiskBand::interpolation);
  EXPECT_EQ(extrapolation_risk(1e22, 1e23, 0.0).band, RiskBand::low);
  expect_invalid([] { extrapolation_risk(0, 1e25, 0.01); }, "ladder_max_flops");
}

// -------------------------------------------- seed Claim 16 data-constrained

TEST(DataConstrained, EffectiveTokensToySeedTable) {
  struct Row {
    int r;
    double eff_b, efficiency;
  };
  for (Row row : {Row{1, 100.0, 1.000}, Row{2, 181.9, 0.909}, Row{4, 303.8, 0.759},
                  Row{8, 440.3, 0.550}, Row{16, 529.2, 0.331}, Row{32, 550.7, 0.172}}) {
    const double eff = effective_tokens_toy(100e9, row.r);
    EXPECT_NEAR(eff / 1e9, row.eff_b, 0.05);
    EXPECT_NEAR(eff / (100e9 * row.r), row.efficiency, 5e-4);
  }
  const LossLaw law = chinchilla_approach3_law();
  EXPECT_NEAR(data_constrained_loss_toy(law, 1e9, 100e9, 4),
              law.loss(1e9, effective_tokens_toy(100e9, 4)), 1e-15);
  expect_invalid([] { effective_tokens_toy(1e9, 0); }, "epochs");
}
