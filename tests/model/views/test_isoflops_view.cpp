// The IsoFLOPs view (isoflops_view.h). The golden values were recorded from
// the IsoFLOPs panel's own arithmetic before it moved here (the panel's
// makeView, its plot groupings, reference slopes, candidate recipe, recipe
// winner, ladder designs and N_opt interval), so the move changed no number
// a user sees.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "isoflops_view.h"
#include "panel_settings.h"
#include "scenario.h"

namespace napkin {
namespace {

// Relative 1e-12: the arithmetic is the same; the margin absorbs printing.
#define EXPECT_REL(got, want) EXPECT_NEAR((got), (want), 1e-12 * std::abs(want))

// The panel's default synthetic ladder: Chinchilla Approach 3, five budgets
// 1e18 … 1e22, six sizes over 1.5 decades, σ = 0.5 %, seed 0.
SyntheticLadderSpec panel_spec() {
  SyntheticLadderSpec s;
  s.budgets_flops = log_spaced_flops(1e18, 1e22, 5);
  return s;
}

TEST(IsoflopsView, LogSpacedFlops) {
  const std::vector<double> b = log_spaced_flops(1e18, 1e22, 5);
  ASSERT_EQ(b.size(), 5u);
  for (int i = 0; i < 5; ++i) EXPECT_REL(b[static_cast<std::size_t>(i)], std::pow(10.0, 18 + i));
  EXPECT_THROW(log_spaced_flops(1e18, 1e22, 1), std::invalid_argument);
  EXPECT_THROW(log_spaced_flops(0, 1e22, 3), std::invalid_argument);
  EXPECT_THROW(log_spaced_flops(1e22, 1e18, 3), std::invalid_argument);
}

TEST(IsoflopsView, DefaultLadderAtTheBudgetTarget) {
  const IsoflopsView v = make_isoflops_view(synthetic_ladder(panel_spec()), 1e24);
  EXPECT_TRUE(v.labelled);
  ASSERT_EQ(v.optima.size(), 5u);
  EXPECT_TRUE(v.skipped.empty());
  ASSERT_TRUE(v.exponents.has_value());
  EXPECT_REL(v.exponents->a, 0.43680256725487443);
  EXPECT_REL(v.exponents->b, 0.56319743274512546);
  ASSERT_TRUE(v.n_opt && v.d_opt);
  EXPECT_REL(*v.n_opt, 36111018968.262733);
  EXPECT_REL(*v.d_opt, 4615396392252.0654);
  EXPECT_EQ(v.ladder_min_flops, 1e18);
  EXPECT_EQ(v.ladder_max_flops, 1e22);
  EXPECT_NEAR(v.extrapolation_decades, 2.0, 1e-12);
  EXPECT_EQ(v.design_log10_flops, (std::vector<double>{18, 19, 20, 21, 22}));
  const double n_opt[] = {84957266.260432541, 235593689.16722953, 642675055.6400286,
                          1936391232.1497574, 4526876414.5801039};
  const double loss[] = {3.5202482288249684, 2.97976355948256, 2.5818249837190983,
                         2.3267739641048468, 2.1425221393663971};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_REL(v.optima[i].n_opt, n_opt[i]);
    EXPECT_REL(v.optima[i].loss_opt, loss[i]);
  }
  ASSERT_EQ(v.run_flops.size(), v.points.size());
  for (std::size_t i = 0; i < v.points.size(); ++i)
    EXPECT_EQ(v.run_flops[i], v.points[i].budget_flops);
}

TEST(IsoflopsView, TargetInsideTheLadder) {
  const IsoflopsView v = make_isoflops_view(synthetic_ladder(panel_spec()), 3e20);
  EXPECT_REL(*v.n_opt, 1044328820.1289479);
  EXPECT_REL(*v.d_opt, 47877640678.178398);
  EXPECT_LT(v.extrapolation_decades, 0);  // interpolation
}

TEST(IsoflopsView, UnlabelledLadderHasNoIsoflopsExponents) {
  std::vector<LadderPoint> pts = synthetic_ladder(panel_spec());
  for (LadderPoint& p : pts) p.budget_flops = 0;
  const IsoflopsView v = make_isoflops_view(pts, 1e24);
  EXPECT_FALSE(v.labelled);
  EXPECT_TRUE(v.optima.empty());
  EXPECT_FALSE(v.exponents.has_value());
  EXPECT_FALSE(v.n_opt.has_value());
  EXPECT_NE(v.exponent_error.find("no budget labels"), std::string::npos);
  EXPECT_REL(v.ladder_min_flops, 9.9999999999999987e+17);
  EXPECT_REL(v.ladder_max_flops, 1e22);
  EXPECT_EQ(v.design_log10_flops, (std::vector<double>{18, 19, 20, 21, 22}));
  for (std::size_t i = 0; i < v.points.size(); ++i)
    EXPECT_REL(v.run_flops[i], 6.0 * v.points[i].n_params * v.points[i].n_tokens);
  // Plot (1) bins the runs by 6ND: eight bins over four decades, five used.
  const LadderGroups g = ladder_groups(v);
  const double centres[] = {1.7782794100389228e+18, 1.7782794100389229e+19, 1.7782794100389229e+20,
                            1.7782794100389228e+21, 5.6234132519034909e+21};
  ASSERT_EQ(g.groups.size(), 5u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_REL(g.groups[i].budget_flops, centres[i]);
    EXPECT_EQ(g.groups[i].n_params.size(), 6u);
    EXPECT_FALSE(g.groups[i].optimum.has_value());
    EXPECT_TRUE(g.groups[i].curve_n_params.empty());
  }
}

// A fitted law is what a noisy ladder gives: one whose optimum leaves the
// doubles at the target (tiny exponents, A far above B) shows no forecast and
// no points there, and never throws out of the view (the random-edit GUI test
// once stopped on "puts the optimum outside the representable range").
TEST(IsoflopsView, AFittedLawWithAnOptimumBeyondTheDoublesShowsNone) {
  std::vector<LadderPoint> pts = synthetic_ladder(panel_spec());
  for (LadderPoint& p : pts) p.budget_flops = 0;  // no labels: the exponents come from the law
  const IsoflopsView v = make_isoflops_view(pts, 2.3328e21);
  const LossLaw wild{1.7, 1e6, 0.01, 1.0, 0.01};
  EXPECT_THROW(analytic_optimum(wild, 2.3328e21), std::invalid_argument);
  IsoflopsForecast f;
  ASSERT_NO_THROW(f = isoflops_forecast(v, &wild, {}, std::nullopt));
  EXPECT_FALSE(f.loss.has_value());
  EXPECT_FALSE(f.n_opt_law.has_value());
  std::optional<ExponentCurves> c;
  ASSERT_NO_THROW(c = exponent_curves(v, wild, {1e18, 2.3328e21}));
  ASSERT_TRUE(c.has_value());
  for (double n : c->n_opt) EXPECT_FALSE(std::isfinite(n) && n > 0);  // dropped by the plot
}

TEST(IsoflopsView, BudgetWithoutAVertexIsSkippedAndSaysWhy) {
  std::vector<LadderPoint> pts = synthetic_ladder(panel_spec());
  for (LadderPoint& p : pts)
    if (p.budget_flops == 1e18) p.loss = 5.0 - 0.1 * std::pow(std::log10(p.n_params) - 8, 2);
  const IsoflopsView v = make_isoflops_view(pts, 1e24);
  EXPECT_EQ(v.optima.size(), 4u);
  ASSERT_EQ(v.skipped.size(), 1u);
  EXPECT_EQ(v.skipped[0].rfind("1.00e+18: the loss sweep's fitted parabola opens downward", 0), 0u)
      << v.skipped[0];
  EXPECT_REL(v.exponents->a, 0.43299066199019454);
  // The group of that budget keeps its runs but has no parabola.
  const LadderGroups g = ladder_groups(v);
  ASSERT_EQ(g.groups.size(), 5u);
  EXPECT_FALSE(g.groups[0].optimum.has_value());
  EXPECT_TRUE(g.groups[0].curve_loss.empty());
  EXPECT_EQ(g.groups[0].n_params.size(), 6u);
}

TEST(IsoflopsView, OneVertexIsNotEnoughForExponents) {
  SyntheticLadderSpec s = panel_spec();
  s.budgets_flops = {1e19};
  const IsoflopsView v = make_isoflops_view(synthetic_ladder(s), 1e24);
  EXPECT_EQ(v.optima.size(), 1u);
  EXPECT_FALSE(v.exponents.has_value());
  EXPECT_NE(v.exponent_error.find("fewer than 2"), std::string::npos);
}

TEST(IsoflopsView, GroupsCarryTheirParabolas) {
  const LadderGroups g = ladder_groups(make_isoflops_view(synthetic_ladder(panel_spec()), 1e24));
  ASSERT_EQ(g.groups.size(), 5u);
  EXPECT_TRUE(g.outlier_n.empty());
  // The 18th of 41 points of each budget's parabola.
  const double n17[] = {60497573.360487498, 171139736.14852557, 484131968.64051658,
                        1369546128.4124544, 3874267181.976337};
  const double l17[] = {3.5317521069091953, 2.9861165791820028, 2.5860306059624705,
                        2.3306021969377948, 2.1429737153393997};
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(g.groups[i].budget_flops, std::pow(10.0, 18 + static_cast<int>(i)));
    EXPECT_EQ(g.groups[i].n_params.size(), 6u);
    ASSERT_TRUE(g.groups[i].optimum.has_value());
    ASSERT_EQ(g.groups[i].curve_n_params.size(), 41u);
    EXPECT_REL(g.groups[i].curve_n_params[17], n17[i]);
    EXPECT_REL(g.groups[i].curve_loss[17], l17[i]);
  }
}

TEST(IsoflopsView, OutlierAndPerBudgetBias) {
  SyntheticLadderSpec s = panel_spec();
  s.outliers = 1;
  s.lr_decay_bias_nats = 0.05;
  s.bias_mode = BiasMode::per_budget;
  s.seed = 5;
  const IsoflopsView v = make_isoflops_view(synthetic_ladder(s), 1e23);
  EXPECT_EQ(v.optima.size(), 5u);
  EXPECT_REL(v.exponents->a, 0.37132009332039084);
  EXPECT_REL(*v.n_opt, 7394642203.628377);
  const LadderGroups g = ladder_groups(v);
  ASSERT_EQ(g.outlier_n.size(), 1u);
  EXPECT_EQ(g.groups[0].n_params.size(), 5u);  // the outlier is drawn apart
  EXPECT_REL(g.groups[0].curve_n_params[17], 89999056.147911325);
  EXPECT_REL(g.groups[0].curve_loss[17], 3.4215480289510651);
  // The lesson on the same ladder without its bias and offset.
  SyntheticLadderSpec clean = s;
  clean.lr_decay_bias_nats = 0;
  const ScheduleLesson l = schedule_lesson(clean, 0.05, 0.05, 1e23);
  EXPECT_REL(*l.n_clean, 12752026764.298838);
  EXPECT_REL(*l.n_bias, 7394642203.628377);
  EXPECT_REL(*l.n_offset, 12752026764.298841);
}

TEST(IsoflopsView, LessonBiasTiltsOffsetDoesNot) {  // seed ch. 5: Kaplan → Chinchilla
  const ScheduleLesson l = schedule_lesson(panel_spec(), 0.05, 0.05, 1e24);
  EXPECT_REL(*l.n_clean, 36111018968.262733);
  EXPECT_REL(*l.n_bias, 19824575518.304199);
  EXPECT_REL(*l.n_offset, 36111018968.262733);
  EXPECT_REL(*l.bias_shift, 19824575518.304199 / 36111018968.262733 - 1.0);
  EXPECT_NEAR(*l.offset_shift, 0.0, 1e-12);
  EXPECT_TRUE(l.lesson_error.empty());
  const ScheduleLesson near = schedule_lesson(panel_spec(), 0.05, 0.05, 3e20);
  EXPECT_REL(*near.n_bias, 869492640.44127333);
}

TEST(IsoflopsView, ExponentCurvesFromTheVerticesOrTheLaw) {
  const IsoflopsView v = make_isoflops_view(synthetic_ladder(panel_spec()), 1e24);
  EXPECT_FALSE(exponent_curves(make_isoflops_view(
                                   [] {
                                     auto p = synthetic_ladder(panel_spec());
                                     for (auto& q : p) q.budget_flops = 0;
                                     return p;
                                   }(),
                                   1e24),
                               std::nullopt, {1e18})
                   .has_value());  // no exponents, no law: nothing to draw
  const auto c = exponent_curves(v, std::nullopt, {1e18, 1e21, 1e24});
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(c->from_law);
  EXPECT_REL(c->n_opt[0], 86461813.381703898);
  EXPECT_REL(c->d_opt[1], 94322805119.513306);
  EXPECT_REL(c->n_opt[2], 36111018968.262733);
  EXPECT_REL(c->kaplan_n[1], 13391349346.689255);
  EXPECT_REL(c->chinchilla_n[2], 86461813381.703903);
  EXPECT_REL(c->kaplan_n[0], c->n_opt[0]);  // anchored at the smallest budget

  std::vector<LadderPoint> pts = synthetic_ladder(panel_spec());
  for (LadderPoint& p : pts) p.budget_flops = 0;
  const IsoflopsView u = make_isoflops_view(pts, 1e24);
  const auto law = exponent_curves(u, chinchilla_approach3_law(), {1e18, 1e21, 1e24});
  ASSERT_TRUE(law.has_value());
  EXPECT_TRUE(law->from_law);
  EXPECT_REL(law->n_opt[0], 80581983.807559416);
  EXPECT_REL(law->d_opt[2], 4035834749563.708);
  EXPECT_REL(law->kaplan_n[2], 1933027154374.6904);
  EXPECT_REL(law->chinchilla_n[1], 2548226072.0669522);
  EXPECT_REL(law->exponents.a, optimum_exponent(chinchilla_approach3_law()));
  EXPECT_NEAR(law->exponents.a + law->exponents.b, 1.0, 1e-15);
}

TEST(IsoflopsView, CandidateRecipesAndTheCrossoverWinner) {  // seed ch. 12
  const LossLaw base = chinchilla_approach3_law();
  const LossLaw same = candidate_law(base, {});
  EXPECT_REL(same.A, 499.87199999999996);
  EXPECT_REL(same.alpha, 0.36000000000000004);
  EXPECT_REL(same.B, 379.89749999999998);
  EXPECT_REL(same.beta, 0.27000000000000002);
  RecipeComparison r = compare_recipes(base, same, 1e24);
  EXPECT_REL(r.delta, -0.00012400939073109463);
  EXPECT_TRUE(r.candidate_wins);
  ASSERT_TRUE(r.crossover_flops.has_value());
  EXPECT_REL(*r.crossover_flops, 4.6739930117806706e+23);
  ASSERT_TRUE(r.candidate_wins_above_crossover.has_value());
  EXPECT_TRUE(*r.candidate_wins_above_crossover);

  CandidateRecipe seed;
  seed.preset = CandidatePreset::seed_candidate;
  const LossLaw sc = candidate_law(base, seed);
  EXPECT_REL(sc.A, 615.0);
  EXPECT_REL(sc.B, 351.5);
  r = compare_recipes(base, sc, 1e24);
  EXPECT_REL(r.delta, 0.0058624140373890743);
  EXPECT_FALSE(r.crossover_flops.has_value());
  EXPECT_FALSE(r.candidate_wins_above_crossover.has_value());

  CandidateRecipe bes;
  bes.preset = CandidatePreset::besiroglu2024;
  const LossLaw bc = candidate_law(base, bes);
  EXPECT_REL(bc.B, 1929.0227499999999);
  r = compare_recipes(base, bc, 1e24);
  EXPECT_REL(r.delta, 0.042365826881811675);
  EXPECT_EQ(r.crossovers_flops.size(), 2u);
  EXPECT_REL(*r.crossover_flops, 1.3597112660410533e+17);
  EXPECT_TRUE(*r.candidate_wins_above_crossover);  // just past the first crossing

  CandidateRecipe floor;
  floor.alpha_delta = -5;
  EXPECT_EQ(candidate_law(base, floor).alpha, 0.01);  // exponents floored at 0.01

  const RecipeCurves c = recipe_curves(base, same, {1e20, 1e24});
  ASSERT_EQ(c.delta.size(), 2u);
  EXPECT_REL(c.delta[1], -0.00012400939073109463);
  EXPECT_EQ(c.delta[0], c.candidate[0] - c.baseline[0]);
}

TEST(IsoflopsView, AlternativeLadderDesigns) {  // seed ch. 9 and ch. 11
  const std::vector<double> design = {18, 19, 20, 21, 22};
  LadderDesignOptions d = ladder_design_options(design, 1e24);
  ASSERT_EQ(d.options.size(), 6u);
  const double far[] = {1.8, 162.69999999999939, 2.0499999999999989, 1.8700000000000001,
                        2.5, 1.604001534213876};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_REL(d.options[i].variance, far[i]);
  EXPECT_EQ(d.options[0].kind, LadderDesignKind::this_ladder);
  EXPECT_EQ(d.options[5].kind, LadderDesignKind::plan);
  ASSERT_TRUE(d.plan.has_value());
  EXPECT_EQ(d.plan->budgets_flops.size(), 5u);
  EXPECT_REL(d.plan->budgets_flops.back(), 1.5000000000000002e+22);
  EXPECT_REL(d.plan->fraction_of_flagship, 0.01648994431175093);

  d = ladder_design_options(design, 3e20);
  const double near[] = {0.22276446917052653, 23.949284788760487,  0.2756100278168423,
                         0.32638127571399422, 0.52845558646315816, 17.541870625641391};
  for (std::size_t i = 0; i < 6; ++i) EXPECT_REL(d.options[i].variance, near[i]);
  EXPECT_REL(d.plan->budgets_flops.back(), 4.5e18);
  EXPECT_REL(d.plan->fraction_of_flagship, 0.040558154581807629);

  // C* too small for a 3 % plan from the smallest budget: no plan, no bar.
  d = ladder_design_options(design, 1e19);
  EXPECT_FALSE(d.plan.has_value());
  EXPECT_TRUE(d.options[5].log10_flops.empty());
  EXPECT_EQ(d.options[5].variance, 0);
  // One budget: this ladder has no slope.
  d = ladder_design_options({20}, 1e24);
  EXPECT_EQ(d.options[0].variance, 0);
  EXPECT_THROW(ladder_design_options({}, 1e24), std::invalid_argument);
}

TEST(IsoflopsView, OptimalParamsIntervalUsesTheBootstrapPercentiles) {
  BootstrapOptions b;
  b.resamples = 40;
  b.seed = 2;
  const BootstrapResult r = bootstrap_forecast(synthetic_ladder(SyntheticLadderSpec{}), 1e24, b);
  EXPECT_REL(r.laws[0].A, 646.32063387934966);
  const BandPoint at = optimal_params_interval(r.laws, 1e24);
  EXPECT_REL(at.low, 31101552633.547478);
  EXPECT_REL(at.high, 44358714466.047508);
  EXPECT_EQ(at.low, r.n_opt_low);  // the same convention as the bootstrap's own
  EXPECT_EQ(at.high, r.n_opt_high);
  const BandPoint lower = optimal_params_interval(r.laws, 1e22);
  EXPECT_REL(lower.low, 4388851373.046298);
  EXPECT_REL(lower.high, 5564032443.2013369);
  EXPECT_LE(lower.low, lower.median);
  EXPECT_LE(lower.median, lower.high);
  EXPECT_THROW(optimal_params_interval({}, 1e24), std::invalid_argument);
}

TEST(IsoflopsView, InvalidInputThrows) {
  EXPECT_THROW(make_isoflops_view({}, 1e24), std::invalid_argument);
  EXPECT_THROW(make_isoflops_view(synthetic_ladder(panel_spec()), 0), std::invalid_argument);
  std::vector<LadderPoint> bad = synthetic_ladder(panel_spec());
  bad[3].loss = -1;
  EXPECT_THROW(make_isoflops_view(bad, 1e24), std::invalid_argument);
  EXPECT_THROW(ladder_groups(make_isoflops_view(synthetic_ladder(panel_spec()), 1e24), 0),
               std::invalid_argument);
}

TEST(IsoflopsView, ExtrapolationDecadesIsSigned) {
  EXPECT_NEAR(extrapolation_decades(1.3e22, 1.3e24), 2.0, 1e-12);
  EXPECT_NEAR(extrapolation_decades(1e22, 1e21), -1.0, 1e-12);
  EXPECT_THROW(extrapolation_decades(0, 1e21), std::invalid_argument);
}

// The panel's cheap path for its settings, pinned against the calls the
// IsoFLOPs panel made itself before they moved here (synthetic_ladder →
// make_isoflops_view, schedule_lesson of the clean spec).
TEST(IsoflopsView, LadderViewOfTheDefaultSettings) {
  const IsoflopsSettings s;
  const IsoflopsLadderView lv = make_isoflops_ladder_view(s, 1e24);
  EXPECT_TRUE(lv.synthetic);
  ASSERT_TRUE(lv.truth.has_value());
  EXPECT_EQ(lv.truth->E, s.synthetic.law.E);
  const IsoflopsView v = make_isoflops_view(synthetic_ladder(panel_spec()), 1e24);
  ASSERT_TRUE(lv.view.n_opt.has_value());
  EXPECT_EQ(*lv.view.n_opt, *v.n_opt);
  EXPECT_EQ(lv.view.points.size(), 30u);
  const ScheduleLesson l = schedule_lesson(panel_spec(), 0.05, 0.05, 1e24);
  ASSERT_TRUE(lv.lesson.n_bias && l.n_bias && lv.lesson.offset_shift);
  EXPECT_EQ(*lv.lesson.n_bias, *l.n_bias);
  EXPECT_LT(*lv.lesson.bias_shift, 0);              // the bias lowers N_opt
  EXPECT_NEAR(*lv.lesson.offset_shift, 0.0, 1e-9);  // the offset moves nothing

  IsoflopsSettings loaded = s;
  LoadedLadder ladder;
  ladder.file_name = "runs.csv";
  ladder.points = synthetic_ladder(panel_spec());
  ladder.data_rows = static_cast<std::int64_t>(ladder.points.size());
  loaded.loaded = ladder;
  loaded.loss_cut.enabled = false;
  const IsoflopsLadderView ll = make_isoflops_ladder_view(loaded, 1e24);
  EXPECT_FALSE(ll.synthetic);
  EXPECT_FALSE(ll.truth.has_value());
  EXPECT_FALSE(ll.lesson.n_clean.has_value());
  EXPECT_EQ(*ll.view.n_opt, *v.n_opt);
  loaded.loss_cut.enabled = true;
  loaded.loss_cut.max_loss = 2.0;  // below every run
  EXPECT_THROW(make_isoflops_ladder_view(loaded, 1e24), std::invalid_argument);
}

// The read-outs at C*, pinned against the panel's former expressions:
// analytic_optimum, optimal_loss, forecast_band at C*, optimal_params_interval,
// decompose_loss at each law's optimum.
TEST(IsoflopsView, ForecastAtTheTarget) {
  const std::vector<LadderPoint> pts = synthetic_ladder(panel_spec());
  const IsoflopsView v = make_isoflops_view(pts, 1e24);
  const FitResult fit = fit_parametric(pts);
  const IsoflopsForecast none = isoflops_forecast(v, nullptr, {});
  EXPECT_EQ(*none.n_opt, *v.n_opt);
  EXPECT_FALSE(none.loss.has_value());
  EXPECT_FALSE(none.interval.has_value());
  EXPECT_FALSE(none.exponents_from_law);

  BootstrapOptions o;
  o.resamples = 60;
  const BootstrapResult r = bootstrap_forecast(pts, 1e24, o);
  const IsoflopsForecast f = isoflops_forecast(v, &fit.law, r.laws, chinchilla_approach3_law());
  EXPECT_FALSE(f.optimum_from_law);
  EXPECT_EQ(*f.n_opt, *v.n_opt);
  EXPECT_EQ(f.exponents->a, v.exponents->a);
  EXPECT_EQ(*f.loss, optimal_loss(fit.law, 1e24));
  EXPECT_EQ(f.interval->low, r.ci_low);
  EXPECT_EQ(f.interval->high, r.ci_high);
  EXPECT_EQ(*f.n_opt_law, analytic_optimum(fit.law, 1e24).n_params);
  EXPECT_EQ(f.n_opt_law_interval->low, r.n_opt_low);
  EXPECT_EQ(f.n_opt_law_interval->high, r.n_opt_high);
  const ComputeOptimum t = analytic_optimum(chinchilla_approach3_law(), 1e24);
  EXPECT_EQ(f.truth_split->total,
            decompose_loss(chinchilla_approach3_law(), t.n_params, t.n_tokens).total);
  EXPECT_NEAR(f.fitted_split->total, *f.loss, 1e-12);

  // Without budget labels: the fitted law's optimum and exponents.
  std::vector<LadderPoint> unlabelled = pts;
  for (LadderPoint& p : unlabelled) p.budget_flops = 0;
  const IsoflopsView u = make_isoflops_view(unlabelled, 1e24);
  const IsoflopsForecast fu = isoflops_forecast(u, &fit.law, {});
  EXPECT_TRUE(fu.optimum_from_law);
  EXPECT_TRUE(fu.exponents_from_law);
  EXPECT_EQ(*fu.n_opt, analytic_optimum(fit.law, 1e24).n_params);
  EXPECT_EQ(fu.exponents->a, exponents_from_law(fit.law).a);
  EXPECT_FALSE(isoflops_forecast(u, nullptr, {}).n_opt.has_value());
}

// The panel's one view of a scenario: the ladder at the plan's C*, the slow
// results as they arrived (none: pending), and a scenario with no fittable
// ladder as the view's error instead of an exception.
TEST(IsoflopsView, PanelViewOfAScenario) {
  Scenario s;
  const IsoflopsShown pending = make_isoflops_view(s);
  ASSERT_TRUE(pending.valid());
  const IsoflopsLadderView lv = make_isoflops_ladder_view(s.isoflops, isoflops_target_flops(s));
  EXPECT_EQ(pending.target(), isoflops_target_flops(s));
  EXPECT_EQ(*pending.view().n_opt, *lv.view.n_opt);
  EXPECT_EQ(pending.fit_state, JobState::pending);
  EXPECT_FALSE(pending.fit.has_value());
  EXPECT_FALSE(pending.forecast.loss.has_value());
  EXPECT_EQ(pending.serial, 0);

  IsoflopsSlow slow;
  slow.fit = fit_parametric(lv.view.points);
  slow.fit_state = JobState::current;
  slow.serial = 7;
  const IsoflopsShown fitted = make_isoflops_view(s, &slow);
  ASSERT_TRUE(fitted.fit.has_value());
  EXPECT_EQ(fitted.serial, 7);
  EXPECT_FALSE(fitted.fitStale());
  EXPECT_EQ(*fitted.forecast.loss, optimal_loss(slow.fit->law, fitted.target()));
  EXPECT_EQ(fitted.candidate.a_multiplier, s.isoflops.candidate.a_multiplier);

  Scenario bad = s;
  LoadedLadder ladder;
  ladder.file_name = "runs.csv";
  ladder.points = synthetic_ladder(panel_spec());
  ladder.data_rows = static_cast<std::int64_t>(ladder.points.size());
  bad.isoflops.loaded = ladder;
  bad.isoflops.loss_cut.enabled = true;
  bad.isoflops.loss_cut.max_loss = 2.0;  // below every run
  const IsoflopsShown refused = make_isoflops_view(bad, &slow);
  EXPECT_FALSE(refused.valid());
  EXPECT_TRUE(refused.view().points.empty());
}

TEST(IsoflopsView, BandGridAndLossCurve) {
  const std::vector<double> g = forecast_band_flops();
  ASSERT_EQ(g.size(), 97u);
  EXPECT_EQ(g.front(), 1e16);
  EXPECT_NEAR(g.back(), 1e28, 1e16);
  const std::vector<double> l = optimal_loss_curve(chinchilla_approach3_law(), {1e20, 1e24});
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(l[1], optimal_loss(chinchilla_approach3_law(), 1e24));
  EXPECT_GT(l[0], l[1]);
}

}  // namespace
}  // namespace napkin
