// What the Budget panel and the report show beyond the budget report: the
// checks say which model and which sharding they are about and agree with the
// read-outs; plans far longer than the scenario's days are flagged.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "budget_view.h"
#include "format.h"
#include "hardware.h"
#include "plan_inputs.h"
#include "scenario.h"

using namespace napkin;

namespace {
bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}
}  // namespace

TEST(BudgetView, ChecksSayWhichModelAndWhichShardingTheyAreAbout) {
  const BudgetView v = make_budget_view(Scenario{});
  ASSERT_EQ(v.checks.size(), v.report.checks.size() + 1);
  EXPECT_EQ(v.checks[0].name, "memory fits (sharded)");
  // The Chinchilla answer for the compute the run delivers (after goodput).
  EXPECT_TRUE(has(v.checks[0].detail, "Chinchilla " +
                                          format_count(v.report.effective_split.params) +
                                          " (after goodput), states sharded over all 1,000 H100"))
      << v.checks[0].detail;
  EXPECT_EQ(v.checks[1].name, "scenario model fits per device");
  EXPECT_TRUE(v.checks[1].ok);
  EXPECT_TRUE(has(v.checks[1].detail, "Llama-3-70B at ZeRO-3 over DP 64")) << v.checks[1].detail;
  EXPECT_TRUE(has(v.checks[1].detail, "69.2 GB per device of 85.0 GB device memory"))
      << v.checks[1].detail;
  const Check& servable = v.checks[3];
  EXPECT_EQ(servable.name, "servable");
  // The threshold is in the text: half of one 8-chip node's HBM.
  EXPECT_TRUE(has(servable.detail, "at most half of it (320 GB)")) << servable.detail;
}

TEST(BudgetView, PerDeviceCheckAgreesWithTheMemoryReadoutsNumbers) {
  Scenario s;
  s.chip = "TPU v5e";  // 16 GB: the 70B model does not fit a device at DP 64
  s.n_chips = 5000;
  const BudgetView v = make_budget_view(s);
  const TrainingMemory& m = v.memory_by_zero[3];
  EXPECT_GT(m.total, v.device_memory_bytes);
  EXPECT_FALSE(v.checks[1].ok);
  // The cluster-wide check is about another model and sharding, and says so.
  EXPECT_TRUE(has(v.checks[0].detail, "over all 5,000 TPU v5e")) << v.checks[0].detail;
  for (int dp : {1, 64, 4096}) {
    s.training.dp_degree = dp;
    const BudgetView w = make_budget_view(s);
    const TrainingMemory& d = w.memory_by_zero[3];
    EXPECT_EQ(w.checks[1].ok, d.total <= w.device_memory_bytes) << dp;
  }
}

TEST(BudgetView, TextsNameTheIdeaNotTheSourcesNumbering) {
  Scenario s;
  s.tokens_available = 2e12;
  s.serving.served_tokens = 1e16;
  const BudgetView v = make_budget_view(s);
  EXPECT_FALSE(has(v.report.recommendation, "seed Claim")) << v.report.recommendation;
  EXPECT_FALSE(has(v.report.recommendation, "Claim 16"));
  ASSERT_TRUE(v.report.plan.recommend_smaller);
  // The idea itself: repeated tokens are priced by the data-constrained law.
  EXPECT_TRUE(has(v.report.recommendation, "repeats")) << v.report.recommendation;
}

TEST(BudgetView, FlagsAPlanLongerThanTwiceTheScenariosDays) {
  Scenario s;
  s.serving.served_tokens = 1e17;  // serving dominates: a small model trained for years
  const BudgetView v = make_budget_view(s);
  ASSERT_TRUE(v.report.plan.recommend_smaller);
  EXPECT_GT(v.report.plan.same_loss_days, 60);
  EXPECT_TRUE(v.plan_too_long);
  EXPECT_TRUE(has(v.report.recommendation, "more than twice the 30 days planned"))
      << v.report.recommendation;
  // The flag follows the rule exactly, and a modest serving load stays unflagged.
  int flagged = 0, unflagged_smaller = 0;
  for (double served : {1e12, 1e13, 3e13, 1e14, 1e15, 1e16}) {
    s.serving.served_tokens = served;
    const BudgetView w = make_budget_view(s);
    const InferenceAwarePlan& p = w.report.plan;
    EXPECT_EQ(w.plan_too_long, (p.recommend_smaller && p.same_loss_days > 2 * s.days) ||
                                   w.run().wall_clock_days > 2 * s.days)
        << served;
    EXPECT_EQ(w.run_too_long, w.run().wall_clock_days > 2 * s.days) << served;
    EXPECT_EQ(has(w.report.recommendation, "more than twice"), w.plan_too_long) << served;
    flagged += w.plan_too_long;
    unflagged_smaller += p.recommend_smaller && !w.plan_too_long;
  }
  EXPECT_GT(flagged, 0);
  EXPECT_GT(unflagged_smaller, 0);
}

TEST(BudgetView, KvHeadOptionsAreTheDivisorsOfTheQueryHeads) {
  EXPECT_EQ(kv_head_options(64), (std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(kv_head_options(1), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(kv_head_options(12).size(), 6u);
}

TEST(BudgetView, AnEditedShapeIsMadeConsistent) {
  ModelShape s = Scenario{}.shape;  // 64 heads, 8 KV heads, dense
  s.n_heads = 48;                   // 8 still divides 48
  EXPECT_EQ(consistent_shape(s).n_kv_heads, 8);
  s.n_heads = 36;  // 8 does not: gcd(36, 8) = 4
  EXPECT_EQ(consistent_shape(s).n_kv_heads, 4);
  s.n_experts = 16;  // dense → MoE: top-k at least 1
  EXPECT_EQ(consistent_shape(s).top_k, 1);
  s.top_k = 40;  // more than the experts: clamped
  EXPECT_EQ(consistent_shape(s).top_k, 16);
  s.n_experts = 0;  // back to dense: no routing left
  s.shared_experts = 2;
  s.n_dense_layers = 3;
  const ModelShape d = consistent_shape(s);
  EXPECT_EQ(d.top_k, 0);
  EXPECT_EQ(d.shared_experts, 0);
  EXPECT_EQ(d.n_dense_layers, 0);
  EXPECT_NO_THROW(d.validate());
}

TEST(BudgetView, MemoNumbers) {
  const BudgetView v = make_budget_view(Scenario{});
  EXPECT_NEAR(v.chip_hours, 1000.0 * 30 * 24, 1e-9);
  EXPECT_NEAR(v.decades_beyond_ladder, std::log10(1.026e24 / 1.3e22), 1e-3);  // 1.9 decades
}

TEST(BudgetView, WhatThePlotsAndReadoutsShowIsComputedHere) {
  const BudgetView v = make_budget_view(Scenario{});
  EXPECT_NEAR(v.six_nd_error_at_seq, six_nd_error(v.attention_fraction_at_seq), 1e-15);
  EXPECT_NEAR(v.six_nd_error_at_seq, 0.157, 0.001);  // "6ND −15.7 %" at 8K
  EXPECT_NEAR(v.lifetime_flops_ratio, 2.30, 0.005);  // "2.30× fewer FLOPs" at 1e14 served
  EXPECT_EQ(v.fits_device_by_zero, (std::array<bool, 4>{false, false, false, true}));
  EXPECT_EQ(v.checks[1].ok, v.fits_device_by_zero[3]);
}

// The verdicts the Budget panel computed itself before, recorded from its
// expressions (total ≤ HBM; chinchilla ÷ small).
TEST(BudgetView, MemoryFitsPerZeroStage) {
  const BudgetView v = make_budget_view(Scenario{});  // Llama-3-70B shape on H100, DP 64
  // CUDA's total, as the Parallelism panel's (not the datasheet's 80 GB).
  EXPECT_EQ(v.device_memory_bytes, 81'089LL << 20);
  EXPECT_EQ(v.device_memory_bytes, device_memory(chip_by_name("H100")).bytes);
  EXPECT_EQ(v.memory_by_zero[0].total, 1180398911488);
  EXPECT_EQ(v.memory_by_zero[3].total, 69178034176);
  EXPECT_FALSE(v.fits_device_by_zero[0]);
  EXPECT_FALSE(v.fits_device_by_zero[1]);
  EXPECT_FALSE(v.fits_device_by_zero[2]);
  EXPECT_TRUE(v.fits_device_by_zero[3]);
  for (std::size_t z = 0; z < 4; ++z)
    EXPECT_EQ(v.fits_device_by_zero[z], v.memory_by_zero[z].total <= v.device_memory_bytes) << z;
}

TEST(BudgetView, LifetimeFlopsRatio) {
  const BudgetView v = make_budget_view(Scenario{});
  // 2.2961050601500905 before goodput entered the plan; the plan now starts
  // from the compute left after crashes (default interruption rate).
  EXPECT_NEAR(v.lifetime_flops_ratio, 2.3014911325427221, 1e-12);
  EXPECT_NEAR(v.lifetime_flops_ratio,
              v.report.plan.lifetime_flops_chinchilla / v.report.plan.lifetime_flops_small, 0);
  EXPECT_TRUE(std::isfinite(v.lifetime_flops_ratio));
}

// ------------------------------------------------ the planned run as it will really go

TEST(BudgetView, RangesArePercentilesInOrderAndReproducible) {
  Scenario s;
  EXPECT_FALSE(make_budget_view(s).ranges.has_value());
  s.ranges.mfu = default_spread(RangeInput::mfu, s.mfu);
  const BudgetView v = make_budget_view(s);
  ASSERT_TRUE(v.ranges.has_value());
  for (const OutputDistribution* d :
       {&v.ranges->days, &v.ranges->dollars, &v.ranges->energy_kwh, &v.ranges->loss}) {
    EXPECT_LE(d->p.p10, d->p.p50);
    EXPECT_LE(d->p.p50, d->p.p90);
  }
  EXPECT_EQ(v.ranges->draws, 10'000);
  // The same numbers off the view (what the panel runs on a worker thread).
  const auto again = budget_ranges(s, v.plan_inputs);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->days.p.p50, v.ranges->days.p.p50);
  EXPECT_FALSE(make_budget_view(s, nullptr, {.ranges = false}).ranges.has_value());
  // The memo carries them.
  EXPECT_TRUE(has(v.report.recommendation, "P50")) << v.report.recommendation;
  // Ranges that arrive from a worker become the view's, in its memo too.
  const BudgetView w = make_budget_view(s, &*again, {.ranges = false});
  ASSERT_TRUE(w.ranges.has_value());
  EXPECT_EQ(w.ranges->days.p.p50, again->days.p.p50);
  EXPECT_TRUE(has(w.report.recommendation, "P50")) << w.report.recommendation;
  // Arrived ranges of a scenario that no longer has any are not shown.
  Scenario none = s;
  none.ranges = {};
  EXPECT_FALSE(make_budget_view(none, &*again).ranges.has_value());
}

// FP8 training's loss is in the plan's law, and the ranges and the loss
// curves read the same law as the recommendation (a plain MFU spread moves the
// days, not the loss: every draw's loss is the run's).
TEST(BudgetView, Fp8TrainingLossIsTheSameInRangesAndRecommendation) {
  Scenario s;
  s.training.precision = Precision::mixed_fp8;
  s.ranges.mfu = default_spread(RangeInput::mfu, s.mfu);
  const BudgetView v = make_budget_view(s);
  ASSERT_TRUE(v.ranges.has_value());
  EXPECT_EQ(v.report.law, s.trained_law());
  EXPECT_NE(v.report.law, s.plan_law());
  const double loss = v.report.recommended.run.loss;
  EXPECT_NEAR(v.ranges->loss.p.p10, loss, 1e-12);
  EXPECT_NEAR(v.ranges->loss.p.p90, loss, 1e-12);
  Scenario bf16 = s;
  bf16.training.precision = Precision::mixed_bf16;
  EXPECT_GT(loss, make_budget_view(bf16).report.recommended.run.loss);
}

TEST(BudgetView, ArrivedRangesSetInPlaceAreWhatAWholeViewWouldShow) {
  // The panel puts the worker's ranges into the view it shows rather than
  // planning again: the same ranges and memo as make_budget_view with them.
  Scenario s;
  s.ranges.mfu = default_spread(RangeInput::mfu, s.mfu);
  BudgetView shown = make_budget_view(s, nullptr, {.ranges = false});
  EXPECT_FALSE(has(shown.report.recommendation, "P50"));
  const auto arrived = budget_ranges(s, shown.plan_inputs);
  ASSERT_TRUE(arrived.has_value());
  set_arrived_ranges(shown, &*arrived);
  const BudgetView whole = make_budget_view(s, &*arrived, {.ranges = false});
  ASSERT_TRUE(shown.ranges.has_value());
  EXPECT_EQ(shown.ranges->days.p.p50, whole.ranges->days.p.p50);
  EXPECT_EQ(shown.report.recommendation, whole.report.recommendation);
  // Older ranges replaced by newer ones: one ranges sentence, the newer.
  Scenario wider = s;
  wider.ranges.mfu = Spread{0.2, 0.6};
  const auto newer = budget_ranges(wider, shown.plan_inputs);
  ASSERT_TRUE(newer.has_value());
  set_arrived_ranges(shown, &*newer);
  EXPECT_EQ(shown.report.recommendation,
            make_budget_view(s, &*newer, {.ranges = false}).report.recommendation);
  // None arrived: the sentence goes; a scenario without ranges shows none.
  set_arrived_ranges(shown, nullptr);
  EXPECT_FALSE(shown.ranges.has_value());
  EXPECT_EQ(shown.report.recommendation,
            make_budget_view(s, nullptr, {.ranges = false}).report.recommendation);
  BudgetView plain = make_budget_view(Scenario{});
  set_arrived_ranges(plain, &*arrived);
  EXPECT_FALSE(plain.ranges.has_value());
}

TEST(BudgetView, GoodputCurvesOptimumIsYoungDaly) {
  Scenario s;
  s.goodput.checkpoint_write_minutes = 2.0;
  const BudgetView v = make_budget_view(s);
  const RunReport& run = v.run();
  const double rate = job_crashes_per_hour(s.goodput.interruptions_per_1000_chip_days, s.n_chips);
  const auto yd = young_daly_interval_minutes(2.0, rate);
  ASSERT_TRUE(yd && v.goodput_curve.optimum_minutes);
  EXPECT_DOUBLE_EQ(*v.goodput_curve.optimum_minutes, *yd);
  EXPECT_DOUBLE_EQ(*yd, std::sqrt(2.0 * 2.0 * 60.0 / rate));
  EXPECT_EQ(run.goodput_inputs.checkpoint_write_minutes, 2.0);
}

TEST(BudgetView, TrainThisModelMatchesTrainRun) {
  Scenario s;
  s.plan.mode = PlanMode::train_model;
  s.plan.train_tokens = 15e12;
  const BudgetView v = make_budget_view(s);
  ASSERT_TRUE(v.train.has_value());
  const RunReport direct = train_run(s.train_inputs(), budget_law());
  EXPECT_DOUBLE_EQ(v.run().wall_clock_days, direct.wall_clock_days);
  EXPECT_DOUBLE_EQ(v.run().cost.rental_dollars, direct.cost.rental_dollars);
  EXPECT_DOUBLE_EQ(v.run().loss, direct.loss);
  EXPECT_TRUE(has(v.plan_subject, "Llama-3-70B")) << v.plan_subject;
  EXPECT_TRUE(has(v.plan_subject, "sharded over all 1,000 H100")) << v.plan_subject;
  // 15T tokens on 70B take far longer than 30 days on 1,000 H100: flagged.
  EXPECT_GT(direct.wall_clock_days, 60);
  EXPECT_TRUE(v.run_too_long);
  EXPECT_TRUE(v.plan_too_long);
  EXPECT_TRUE(has(v.report.recommendation, "more than twice the 30 days"))
      << v.report.recommendation;
  // The serving constraint is about the scenario's model and names the precision.
  EXPECT_TRUE(has(v.serving.text, "bf16 weights")) << v.serving.text;
  EXPECT_TRUE(has(v.serving.text, "Llama-3-70B")) << v.serving.text;
}

TEST(BudgetView, ServingConstraintNamesPrecisionAndAgreesWithTheMemo) {
  Scenario s;
  const BudgetView v = make_budget_view(s);
  ASSERT_TRUE(v.serving.enabled);
  ASSERT_TRUE(v.serving.largest_params.has_value());
  EXPECT_EQ(v.serving.precision, describe_precision(Dtype::bf16, Dtype::bf16));
  EXPECT_EQ(v.serving.binds, v.report.recommended.serving_binds);
  EXPECT_EQ(*v.report.serving_limit.max_params, *v.serving.largest_params);
  EXPECT_TRUE(has(v.report.recommendation, v.serving.precision)) << v.report.recommendation;
  // Reused while only the budget moves; searched again when the precision changes.
  Scenario more = s;
  more.n_chips = 2000;
  const BudgetView w = make_budget_view(more, nullptr, {.previous = &v});
  EXPECT_EQ(w.serving.largest_params, v.serving.largest_params);
  Scenario fp8 = s;
  fp8.serving.weight_dtype = Dtype::fp8;
  EXPECT_NE(serving_search_key(fp8), serving_search_key(s));
  const BudgetView x = make_budget_view(fp8, nullptr, {.previous = &v});
  EXPECT_GE(*x.serving.largest_params, *v.serving.largest_params);
  EXPECT_TRUE(has(x.serving.text, "fp8")) << x.serving.text;
}

// The serving limit is priced by the scenario's engine preset, not the
// roofline bound: a real engine's kernels, launches and host work make each
// turn slower, so the largest servable model can only shrink, and the
// read-out names the engine.
TEST(BudgetView, ServingLimitUsesTheScenarioEngine) {
  Scenario s;
  s.serving.weight_dtype = Dtype::fp8;
  const BudgetView ideal = make_budget_view(s);
  ASSERT_TRUE(ideal.serving.largest_params.has_value());
  EXPECT_TRUE(has(ideal.serving.text, "ideal engine")) << ideal.serving.text;
  Scenario trt = s;
  trt.serving.engine = "tensorrt-llm";
  EXPECT_NE(serving_search_key(trt), serving_search_key(s));
  const BudgetView v = make_budget_view(trt, nullptr, {.previous = &ideal});
  ASSERT_TRUE(v.serving.largest_params.has_value());
  EXPECT_LT(*v.serving.largest_params, *ideal.serving.largest_params);
  EXPECT_TRUE(has(v.serving.text, "tensorrt-llm engine")) << v.serving.text;
  EXPECT_EQ(*v.report.serving_limit.max_params, *v.serving.largest_params);
  EXPECT_TRUE(has(v.report.serving_limit.detail, "tensorrt-llm")) << v.report.serving_limit.detail;
}

TEST(BudgetView, DataLimitIsStatedInTheMemo) {
  Scenario s;
  s.tokens_available = 5e12;
  const BudgetView v = make_budget_view(s);
  EXPECT_TRUE(has(v.report.recommendation, "5.0T unique tokens")) << v.report.recommendation;
  // The planned run repeats the data: the memo says so and names the best split under the limit.
  ASSERT_GT(v.run().epochs, 1.0);
  EXPECT_TRUE(has(v.report.recommendation, "Data limit: the planned run sees"))
      << v.report.recommendation;
  EXPECT_TRUE(has(v.report.recommendation, format_count(v.report.data.best.params)))
      << v.report.recommendation;
}

TEST(BudgetView, SpreadsStartAroundTheLikelyValueAndLowAboveHighIsRefused) {
  const Scenario s;
  for (RangeInput in : kRangeInputs) {
    const double likely = range_likely(s, in);
    const Spread sp = default_spread(in, likely);
    EXPECT_LE(sp.low, likely);
    EXPECT_GE(sp.high, likely);
    EXPECT_EQ(spread_problem(in, sp, likely), "");
    const std::string why = spread_problem(in, Spread{sp.high * 1.1, sp.low}, likely);
    EXPECT_TRUE(has(why, "above high")) << why;
    EXPECT_TRUE(has(why, plan_input_info(range_input_key(in)).label.data())) << why;
  }
  EXPECT_EQ(spread_problem(RangeInput::mfu, Spread{0.6, 0.5}, 0.4),
            "MFU range refused (%): low 60 % is above high 50 %.");
  EXPECT_TRUE(has(spread_problem(RangeInput::mfu, Spread{0.45, 0.5}, 0.4), "likely value 40 %"));
  // The scenario refuses such ranges too.
  Scenario t;
  t.ranges.mfu = Spread{0.6, 0.5};
  EXPECT_THROW(t.validate(), std::invalid_argument);
  t.ranges.mfu = Spread{0.45, 0.5};  // the likely 40 % lies below it
  EXPECT_THROW(t.validate(), std::invalid_argument);
  // A value moved past a bound carries the bound with it.
  const Spread w = widened(Spread{0.45, 0.5}, 0.4);
  EXPECT_EQ(w.low, 0.4);
  EXPECT_EQ(w.high, 0.5);
  t.ranges.mfu = w;
  EXPECT_NO_THROW(t.validate());
}

TEST(BudgetView, TheLargestBudgetStillComputes) {
  // 100,000 chips for a year: the data-limited split's search stays within
  // the parameter counts the law accepts.
  const DataLimitedSplit s = best_split_under_data_limit(budget_law(), 3e30, 1e13);
  EXPECT_LE(s.params, 1e15);
  Scenario big;
  big.n_chips = 100000;
  big.days = 365;
  big.mfu = 0.7;
  big.tokens_per_param = 1;
  EXPECT_NO_THROW(make_budget_view(big));
}

TEST(BudgetView, TheDaysHistogramLeavesStalledDrawsOut) {
  Scenario s;
  s.plan.mode = PlanMode::train_model;
  s.plan.train_tokens = 15e12;
  s.goodput.restart_minutes = 30;
  s.ranges.interruptions_per_1000_chip_days = Spread{0.1, 40.0};  // some draws never progress
  s.ranges.shape = RangeShape::lognormal;
  const BudgetView v = make_budget_view(s);
  ASSERT_TRUE(v.ranges.has_value());
  ASSERT_GT(v.ranges->capped_draws, 0);
  const Histogram& h = v.ranges->days.histogram;
  const double top = h.lo + h.bin_width * static_cast<double>(h.counts.size());
  EXPECT_LT(top, 36500.0);
  std::int64_t shown = 0;
  for (std::int64_t c : h.counts) shown += c;
  EXPECT_LE(shown + v.ranges->capped_draws, v.ranges->draws);
  EXPECT_GE(shown, (v.ranges->draws - v.ranges->capped_draws) * 98 / 100);
}

// Issue 14: the Budget planner's MFU is the slider's (assumed) or the chosen
// layout's (predicted), and the view says which; the memory check then uses
// the layout.
TEST(BudgetViewMfu, AssumedByDefaultPredictedWhenAsked) {
  Scenario s;
  const BudgetView assumed = make_budget_view(s);
  EXPECT_EQ(assumed.mfu.source, MfuSource::assumed);
  EXPECT_DOUBLE_EQ(assumed.scenario.mfu, s.mfu);
  for (const Check& c : assumed.checks) EXPECT_NE(c.name, "layout memory");

  s.parallel.mfu_source = MfuSource::predicted;
  const MfuChoice expected = budget_mfu(s);
  ASSERT_EQ(expected.source, MfuSource::predicted);
  const BudgetView predicted = make_budget_view(s);
  EXPECT_EQ(predicted.mfu.source, MfuSource::predicted);
  EXPECT_DOUBLE_EQ(predicted.scenario.mfu, expected.mfu);
  // C scales with the MFU: chips × peak × MFU × seconds.
  EXPECT_NEAR(predicted.report.flops / assumed.report.flops, expected.mfu / s.mfu, 1e-12);
  EXPECT_NE(predicted.report.recommendation.find("predicted for the layout " + expected.layout),
            std::string::npos);
  // Its range, the band published runs like it measured, is the Monte
  // Carlo's MFU range, and the memo says where it comes from.
  ASSERT_TRUE(predicted.scenario.ranges.mfu.has_value());
  EXPECT_EQ(*predicted.scenario.ranges.mfu, (Spread{expected.mfu_low, expected.mfu_high}));
  EXPECT_LT(expected.mfu_low, expected.mfu);
  EXPECT_NE(predicted.report.recommendation.find("; " + expected.range_text() + ". "),
            std::string::npos)
      << predicted.report.recommendation;
  EXPECT_FALSE(assumed.scenario.ranges.mfu.has_value());
  bool found = false;
  for (const Check& c : predicted.checks)
    if (c.name == "layout memory") {
      found = true;
      EXPECT_TRUE(c.ok) << c.detail;
      EXPECT_NE(c.detail.find(expected.layout), std::string::npos) << c.detail;
    }
  EXPECT_TRUE(found);

  // Reused from the previous view while the search inputs stay the same.
  Scenario longer = s;
  longer.days = 60;
  BudgetViewOptions o;
  o.previous = &predicted;
  const BudgetView again = make_budget_view(longer, nullptr, o);
  EXPECT_DOUBLE_EQ(again.scenario.mfu, expected.mfu);
  EXPECT_NEAR(again.report.flops / predicted.report.flops, 2.0, 1e-12);
}

// A layout chosen in the Parallelism panel (an imported config's, say) is
// what the run holds: with the slider's MFU too, the memory check and
// read-out are the layout's peak stage, not the data-parallel estimate that
// counts no tensor, pipeline or expert parallelism and would say "too big".
TEST(BudgetViewMfu, AChosenLayoutsMemoryIsTheScenarioModelsMemory) {
  Scenario s;
  const BudgetView plain = make_budget_view(s);
  ASSERT_FALSE(plain.layout_memory);
  EXPECT_EQ(plain.checks.at(1).name, "scenario model fits per device");
  s.parallel.chosen = parse_layout("tp=8,pp=5,cp=1,zero=1,mb=1,sp=on,recompute=full", s.n_chips);
  const BudgetView v = make_budget_view(s);
  EXPECT_EQ(v.mfu.source, MfuSource::assumed);
  ASSERT_TRUE(v.layout_memory);
  const LayoutResult r = evaluate_layout(training_job(s), *s.parallel.chosen);
  EXPECT_EQ(v.layout_memory->peak_stage_bytes, r.memory.total_bytes);
  EXPECT_EQ(v.layout_memory->fits, r.fits);
  EXPECT_EQ(v.checks.at(1).name, "layout memory");
  EXPECT_EQ(v.checks.at(1).ok, r.fits);
  EXPECT_NE(v.checks.at(1).detail.find(to_string(r.layout)), std::string::npos);
  for (const Check& c : v.checks) EXPECT_NE(c.name, "scenario model fits per device");
  // The memory plot's bars: every stage of the layout, the largest the peak.
  const std::vector<StageMemory> stages = memory_by_stage(training_job(s), r.layout);
  ASSERT_EQ(v.layout_memory->stages.size(), 5u);
  std::int64_t peak = 0;
  for (std::size_t i = 0; i < stages.size(); ++i) {
    EXPECT_EQ(v.layout_memory->stages[i].total_bytes, stages[i].total_bytes);
    peak = std::max(peak, stages[i].total_bytes);
  }
  EXPECT_EQ(peak, v.layout_memory->peak_stage_bytes);
  EXPECT_EQ(v.layout_memory->axes, "TP 8 · PP 5 · DP 25");
}

TEST(BudgetViewMfu, ALayoutThatDoesNotFitDrawsItsStagesOverTheHbm) {
  Scenario s;
  s.parallel.mfu_source = MfuSource::predicted;
  Layout whole;  // the whole 70B model on every rank
  whole.dp = 500;
  whole.cp = 2;
  s.parallel.chosen = whole;
  const BudgetView v = make_budget_view(s);
  ASSERT_TRUE(v.layout_memory);
  EXPECT_FALSE(v.layout_memory->fits);
  ASSERT_EQ(v.layout_memory->stages.size(), 1u);
  EXPECT_EQ(v.layout_memory->stages[0].total_bytes, v.layout_memory->peak_stage_bytes);
  EXPECT_GT(v.layout_memory->peak_stage_bytes, v.layout_memory->hbm_bytes);
  EXPECT_EQ(v.layout_memory->axes, "TP 1 · PP 1 · DP 500 · CP 2");
}

TEST(BudgetViewMfu, ALayoutThatDoesNotFitFallsBackToTheSliderAndSaysWhy) {
  Scenario s;
  s.parallel.mfu_source = MfuSource::predicted;
  Layout whole;  // the whole 70B model on every rank: does not fit
  whole.dp = 500;
  whole.cp = 2;
  s.parallel.chosen = whole;
  const BudgetView v = make_budget_view(s);
  EXPECT_EQ(v.mfu.source, MfuSource::assumed);
  EXPECT_DOUBLE_EQ(v.scenario.mfu, s.mfu);
  EXPECT_NE(v.report.recommendation.find("does not fit"), std::string::npos);
  bool failed = false;
  for (const Check& c : v.checks)
    if (c.name == "layout memory") failed = !c.ok;
  EXPECT_TRUE(failed);
}

// Issue 26: the Compute C read-out names the peak C is counted against. MFU is
// model FLOPs over the bf16 peak for every training precision, so FP8 training
// leaves C alone at an assumed MFU and moves it only through a predicted one.
TEST(BudgetViewMfu, TheComputeNoteNamesThePeakCUses) {
  Scenario s;
  const BudgetView bf16 = make_budget_view(s);
  EXPECT_EQ(bf16.compute_peak_note,
            "chips × 990 TFLOP/s (the H100's bf16 dense peak) × MFU × days");

  s.training.precision = Precision::mixed_fp8;
  const BudgetView fp8 = make_budget_view(s);
  EXPECT_EQ(fp8.compute_peak_note,
            "FP8 training: MFU over the 990 TFLOP/s bf16 peak, not the 1,979 TFLOP/s FP8 peak; "
            "an assumed MFU is taken as given");
  EXPECT_DOUBLE_EQ(fp8.report.flops, bf16.report.flops);
  EXPECT_DOUBLE_EQ(fp8.report.train_gemm_peak_flops_per_s, 1979e12);

  s.parallel.mfu_source = MfuSource::predicted;
  const BudgetView predicted = make_budget_view(s);
  ASSERT_EQ(predicted.mfu.source, MfuSource::predicted);
  EXPECT_TRUE(has(predicted.compute_peak_note, "the layout's FP8 GEMMs raise the predicted MFU"))
      << predicted.compute_peak_note;
  EXPECT_TRUE(has(predicted.compute_peak_note, "990 TFLOP/s bf16 peak"))
      << predicted.compute_peak_note;
  // The FP8 layout's faster GEMMs are where C grows.
  Scenario bf16_predicted = s;
  bf16_predicted.training.precision = Precision::mixed_bf16;
  EXPECT_GT(predicted.report.flops, make_budget_view(bf16_predicted).report.flops);
}
