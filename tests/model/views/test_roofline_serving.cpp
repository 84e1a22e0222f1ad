// The Roofline panel's "Serving layout" view from the scenario
// (roofline_view.h: scenario_serving, scenario_serving_view).
#include <gtest/gtest.h>

#include <algorithm>

#include <stdexcept>
#include <string>

#include "roofline_view.h"
#include "scenario.h"

namespace napkin {
namespace {

TEST(ScenarioServing, TakesEveryInputFromTheScenario) {
  Scenario s;
  s.chip = "TPU v5e";
  s.serving.chips = 16;
  s.serving.batch = 4;
  s.serving.prompt_tokens = 2048;
  s.serving.context_len = 8192;
  s.serving.decode_tokens = 256;
  s.serving.weight_dtype = Dtype::int8;
  s.serving.kv_dtype = Dtype::fp8;
  s.serving.overhead_seconds = 0.1;
  s.serving.latency_budget_seconds = 2.0;
  s.roofline.serving_layout.ttft_budget_seconds = 0.0;  // not bounded
  s.roofline.serving_layout.tpot_budget_seconds = 0.04;
  s.roofline.serving_layout.communication = false;
  s.serving.price_per_chip_hour_dollars = 1.5;
  s.price_per_chip_hour_dollars = 4.0;  // the training cluster's: not the serving chips'
  const ScenarioServing ss = scenario_serving(s);
  const ServingInputs& in = ss.inputs.search.serving;
  EXPECT_EQ(in.chip, "TPU v5e");
  EXPECT_EQ(in.batch, 4);
  EXPECT_EQ(in.prompt_tokens, 2048);
  EXPECT_EQ(in.cached_tokens, 8192 - 2048);
  EXPECT_EQ(in.decode_tokens, 256);
  EXPECT_EQ(in.weights, Dtype::int8);
  EXPECT_EQ(in.kv, Dtype::fp8);
  EXPECT_DOUBLE_EQ(in.overhead_seconds, 0.1);
  EXPECT_FALSE(in.assume.communication);
  EXPECT_DOUBLE_EQ(in.cost.price_per_chip_hour_dollars, 1.5);
  // Serving on another chip (the Budget planner's Serving chip): this chip is
  // priced at its own, the training price.
  Scenario other = s;
  other.serving.chip = "H200";
  EXPECT_DOUBLE_EQ(scenario_serving(other).inputs.search.serving.cost.price_per_chip_hour_dollars,
                   4.0);
  other.serving.chip = s.chip;
  EXPECT_DOUBLE_EQ(scenario_serving(other).inputs.search.serving.cost.price_per_chip_hour_dollars,
                   1.5);
  EXPECT_EQ(in.layout.chips(), 16);
  EXPECT_TRUE(ss.fastest_split);
  EXPECT_EQ(in.layout, *fastest_layout(ss.model, in, 16));
  EXPECT_DOUBLE_EQ(*ss.inputs.search.budget.turn_seconds, 2.0);
  EXPECT_FALSE(ss.inputs.search.budget.ttft_seconds.has_value());
  EXPECT_DOUBLE_EQ(*ss.inputs.search.budget.tpot_seconds, 0.04);
  EXPECT_EQ(ss.inputs.search.max_chips, s.roofline.serving_layout.search_max_chips);
}

TEST(ScenarioServing, AChosenSplitIsUsedWhileItIsValid) {
  Scenario s;  // Llama-3-70B: 64 heads, 80 layers
  s.serving.chips = 8;
  s.roofline.serving_layout.tp = 2;
  s.roofline.serving_layout.pp = 4;
  s.roofline.serving_layout.ep = 1;
  ScenarioServing ss = scenario_serving(s);
  EXPECT_FALSE(ss.fastest_split);
  EXPECT_EQ(ss.inputs.search.serving.layout, (ServingLayout{2, 4, 1}));
  s.serving.chips = 16;  // 2 × 4 is no longer a split of 16 chips: the fastest one is
  ss = scenario_serving(s);
  EXPECT_TRUE(ss.fastest_split);
  EXPECT_EQ(ss.inputs.search.serving.layout.chips(), 16);
  s.serving.chips = 8;
  s.roofline.serving_layout.tp = 8;
  s.roofline.serving_layout.pp = 1;
  s.roofline.serving_layout.ep = 1;
  s.shape.n_heads = 4;  // TP 8 no longer divides the heads
  s.shape.n_kv_heads = 4;
  ss = scenario_serving(s);
  EXPECT_TRUE(ss.fastest_split);
}

TEST(ScenarioServing, TheViewIsMakeServingView) {
  Scenario s;
  const ScenarioServing ss = scenario_serving(s);
  const ServingView a = scenario_serving_view(ss);
  const ServingView b = make_serving_view(ss.model, ss.inputs);
  ASSERT_EQ(a.search.best.has_value(), b.search.best.has_value());
  if (a.search.best) {
    EXPECT_EQ(a.search.best->chips, b.search.best->chips);
    EXPECT_EQ(a.search.best->layout, b.search.best->layout);
    EXPECT_EQ(a.search.best->max_batch, b.search.best->max_batch);
  }
  EXPECT_DOUBLE_EQ(a.chosen.memory.weights_bytes, b.chosen.memory.weights_bytes);
  EXPECT_EQ(a.precisions.size(), 4u);
  EXPECT_TRUE(a.disaggregation.has_value());  // the default bounds TTFT and TPOT
  EXPECT_EQ(a.precision, "bf16 weights, bf16 KV cache");
}

TEST(ScenarioServing, ABudgetAtOrBelowTheOverheadStillShowsTheLayout) {
  Scenario s;
  s.serving.latency_budget_seconds = 0.2;  // overhead 0.25 s
  const ServingView v = scenario_serving_view(scenario_serving(s));
  EXPECT_FALSE(v.search.best.has_value());
  EXPECT_NE(v.search.reason.find("latency_budget_seconds"), std::string::npos) << v.search.reason;
  EXPECT_GT(v.chosen.memory.weights_bytes, 0);
  EXPECT_GT(v.chosen.decode_step_seconds, 0);
}

TEST(ScenarioServing, LowerWeightPrecisionHoldsFewerBytesPerChip) {
  Scenario s;  // one layout for every precision (the fastest split may change with it)
  s.roofline.serving_layout.tp = 8;
  s.roofline.serving_layout.pp = 1;
  s.roofline.serving_layout.ep = 1;
  double last = 1e300;
  // fp8's block scales cost less than int8's group scales, so the order is by bits.
  for (Dtype d : {Dtype::bf16, Dtype::int8, Dtype::int4}) {
    s.serving.weight_dtype = d;
    const ServingResult r =
        evaluate_serving(scenario_serving(s).model, scenario_serving(s).inputs.search.serving);
    EXPECT_LE(r.memory.weights_bytes, last) << to_string(d);
    last = r.memory.weights_bytes;
  }
}

// The panel's latency-throughput frontier is serving_frontier() on the chosen
// layout and engine, and the P99-TTFT-limited rate max_request_rate_for_ttft().
TEST(ScenarioServing, TheFrontierIsTheModesFrontier) {
  Scenario s;
  s.serving.engine = "vllm";
  s.serving.weight_dtype = Dtype::fp8;
  s.serving.prompt_tokens = 1024;
  s.serving.overhead_seconds = 0;
  s.roofline.serving_layout.ttft_budget_seconds = 0.5;
  const ServingPanelView v = make_serving_panel_view(s);
  ASSERT_TRUE(v.valid()) << v.error;
  const ServingFrontierView& f = v.frontier;
  ASSERT_TRUE(f.error.empty()) << f.error;
  EXPECT_DOUBLE_EQ(f.ttft_p99_target_seconds, 0.5);
  ModeInputs m;
  m.serving = v.inputs.inputs.search.serving;
  m.requests = 64;
  const std::vector<FrontierPoint> want = serving_frontier(v.inputs.model, m);
  ASSERT_EQ(f.points.size(), want.size());
  ASSERT_GE(want.size(), 3u);
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(f.points[i].concurrency, want[i].concurrency);
    EXPECT_DOUBLE_EQ(f.points[i].output_tokens_per_second_per_chip,
                     want[i].output_tokens_per_second_per_chip);
  }
  // Throughput rises with the concurrency, and so does the time per token.
  EXPECT_GT(want.back().output_tokens_per_second_per_chip,
            want.front().output_tokens_per_second_per_chip);
  EXPECT_GT(want.back().tpot_p50_seconds, want.front().tpot_p50_seconds);
  m.mode = BatchingMode::server;
  EXPECT_DOUBLE_EQ(f.max_request_rate_per_second,
                   max_request_rate_for_ttft(v.inputs.model, m, 0.5));
  EXPECT_GT(f.max_request_rate_per_second, 0);
  // No TTFT budget: the turn budget is the target. Long outputs are refused
  // by name, never simulated for minutes.
  s.roofline.serving_layout.ttft_budget_seconds = 0;
  EXPECT_DOUBLE_EQ(make_serving_panel_view(s).frontier.ttft_p99_target_seconds,
                   s.serving.latency_budget_seconds);
  s.serving.decode_tokens = 100'000;
  const ServingPanelView longer = make_serving_panel_view(s);
  EXPECT_TRUE(longer.frontier.points.empty());
  EXPECT_NE(longer.frontier.error.find("4,096"), std::string::npos) << longer.frontier.error;
}

// Issue 25: the frontier runs the serving run's scheduler as set (tokens
// per iteration, chunked prefill), the engine's defaults when unset; the
// same ModeInputs the CLI's --max-num-tokens and --chunked-prefill give.
TEST(ScenarioServing, TheFrontierRunsTheSchedulerAsSet) {
  Scenario s;
  s.serving.engine = "tensorrt-llm";
  s.serving.prompt_tokens = 4096;
  s.serving.decode_tokens = 256;
  s.serving.overhead_seconds = 0;
  const ServingPanelView defaults = make_serving_panel_view(s);
  ASSERT_TRUE(defaults.valid() && defaults.frontier.error.empty()) << defaults.frontier.error;
  EXPECT_FALSE(defaults.inputs.max_tokens_per_step);
  EXPECT_FALSE(defaults.inputs.chunked_prefill);
  s.roofline.serving_layout.max_tokens_per_step = 2048;  // below the prompt: only chunks admit it
  s.roofline.serving_layout.chunked_prefill = true;
  const ServingPanelView set = make_serving_panel_view(s);
  ASSERT_TRUE(set.valid() && set.frontier.error.empty()) << set.frontier.error;
  EXPECT_EQ(set.inputs.max_tokens_per_step, 2048);
  EXPECT_EQ(set.inputs.chunked_prefill, true);
  ModeInputs m;
  m.serving = set.inputs.inputs.search.serving;
  m.requests = std::clamp<std::int64_t>(32'768 / 256, 8, 64);
  m.max_tokens_per_step = 2048;
  m.chunked_prefill = true;
  const std::vector<FrontierPoint> want = serving_frontier(set.inputs.model, m);
  ASSERT_EQ(set.frontier.points.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_DOUBLE_EQ(set.frontier.points[i].output_tokens_per_second_per_chip,
                     want[i].output_tokens_per_second_per_chip);
  // A budget below every prompt, unchunked: nothing is ever admitted past
  // the first request at a time, so the curve differs from the chunked one.
  s.roofline.serving_layout.chunked_prefill = false;
  const ServingPanelView unchunked = make_serving_panel_view(s);
  ASSERT_TRUE(unchunked.valid()) << unchunked.error;
  EXPECT_NE(unchunked.frontier.points.back().output_tokens_per_second_per_chip,
            set.frontier.points.back().output_tokens_per_second_per_chip);
}

// The tab's benchmark run is napkin-cli serve --mode on the chosen layout:
// the same ModeInputs give the same numbers, a static run's concurrency is
// its batch, and a run that cannot be made says why instead of throwing.
TEST(ScenarioServing, TheBenchmarkRunIsTheModesRun) {
  Scenario s;
  s.chip = "H100";
  s.serving.chips = 8;
  s.serving.engine = "vllm";
  s.serving.prompt_tokens = 1000;
  s.serving.context_len = 1000;
  s.serving.decode_tokens = 200;
  ServingLayoutSettings& r = s.roofline.serving_layout;
  r.tp = 8;
  r.pp = 1;
  r.ep = 1;
  r.run_mode = BatchingMode::server;
  r.run_request_rate_per_second = 4;
  r.run_requests = 500;
  r.run_concurrency = 32;
  const ScenarioServing in = scenario_serving(s);
  ModeInputs by_hand;
  by_hand.serving = in.inputs.search.serving;
  by_hand.mode = BatchingMode::server;
  by_hand.request_rate_per_second = 4;
  by_hand.requests = 500;
  by_hand.concurrency = 32;
  const ModeResult want = evaluate_mode(in.model, by_hand);
  const ServingPanelView v = make_serving_panel_view(s);
  ASSERT_TRUE(v.valid()) << v.error;
  ASSERT_TRUE(v.run.valid()) << v.run.error;
  EXPECT_DOUBLE_EQ(v.run.result.output_tokens_per_second, want.output_tokens_per_second);
  EXPECT_DOUBLE_EQ(v.run.result.ttft_seconds.p99, want.ttft_seconds.p99);
  EXPECT_EQ(v.run.result.concurrency, 32);
  EXPECT_EQ(v.run.result.requests, 500);
  // Static: one batch of the concurrency, prefilled and decoded together.
  r.run_mode = BatchingMode::static_batch;
  r.run_concurrency = 16;
  const ServingPanelView st = make_serving_panel_view(s);
  ASSERT_TRUE(st.run.valid()) << st.run.error;
  EXPECT_EQ(st.run.result.concurrency, 16);
  EXPECT_EQ(st.run.result.mode, BatchingMode::static_batch);
  // Auto: the serving turn's batch.
  r.run_concurrency = 0;
  EXPECT_EQ(make_serving_panel_view(s).run.result.concurrency, s.serving.batch);
  // A batch whose caches cannot fit is refused by name, the rest of the view kept.
  r.run_concurrency = 1'000'000;
  const ServingPanelView big = make_serving_panel_view(s);
  ASSERT_TRUE(big.valid()) << big.error;
  EXPECT_FALSE(big.run.valid());
  EXPECT_NE(big.run.error.find("batch"), std::string::npos) << big.run.error;
  // Lengths spread either side of the turn's: the offline run and the
  // frontier hold the same longest requests; a static batch's are the turn's.
  r.run_concurrency = 0;
  r.run_mode = BatchingMode::offline;
  r.run_prompt_spread_tokens = 500;
  r.run_output_spread_tokens = 100;
  const ServingPanelView spread = make_serving_panel_view(s);
  ASSERT_TRUE(spread.run.valid()) << spread.run.error;
  EXPECT_EQ(spread.inputs.run.prompt_spread, 500);
  EXPECT_EQ(spread.inputs.run.output_spread, 100);
  ASSERT_FALSE(spread.frontier.points.empty()) << spread.frontier.error;
  EXPECT_EQ(spread.frontier.points.back().concurrency, spread.run.result.max_concurrency);
  EXPECT_LT(spread.run.result.max_concurrency, v.run.result.max_concurrency);
  r.run_mode = BatchingMode::static_batch;
  const ScenarioServing st_in = scenario_serving(s);
  EXPECT_EQ(st_in.run.prompt_spread, 0);
  EXPECT_EQ(st_in.prompt_spread, 500);  // the frontier keeps them
  // A spread as long as the turn's prompt is refused by name.
  r.run_mode = BatchingMode::offline;
  r.run_prompt_spread_tokens = 1000;
  const ServingPanelView wide = make_serving_panel_view(s);
  EXPECT_FALSE(wide.run.valid());
  EXPECT_NE(wide.run.error.find("prompt_spread"), std::string::npos) << wide.run.error;
}

TEST(RooflineSettings, ServingFieldsAreValidated) {
  RooflineSettings r;
  EXPECT_NO_THROW(r.validate());
  r.serving_layout.search_max_chips = 0;
  EXPECT_THROW(r.validate(), std::invalid_argument);
  r = {};
  r.serving_layout.tpot_budget_seconds = -1;
  EXPECT_THROW(r.validate(), std::invalid_argument);
  r = {};
  r.serving_layout.max_tokens_per_step = -1;
  try {
    r.validate();
    ADD_FAILURE() << "a negative token budget was accepted";
  } catch (const std::invalid_argument& e) {
    // Named as the scenario file spells it (roofline.serving_layout.*).
    EXPECT_NE(std::string(e.what()).find("serving_layout.max_tokens_per_step"), std::string::npos)
        << e.what();
  }
  r.serving_layout.max_tokens_per_step = 0;  // the engine's
  EXPECT_NO_THROW(r.validate());
  r.serving_layout.run_requests = 0;
  EXPECT_THROW(r.validate(), std::invalid_argument);
  r = {};
  r.serving_layout.run_request_rate_per_second = 0;
  EXPECT_THROW(r.validate(), std::invalid_argument);
}

// The panel reruns its serving search only when one of the view's inputs
// changes: every serving-layout setting is one, the roofline tab's are not.
TEST(ScenarioServing, SameInputsAreWhatTheViewReads) {
  const Scenario base;
  EXPECT_TRUE(same_serving_inputs(base, base));
  Scenario other = base;
  other.roofline.matmul_dim = 4096;
  other.roofline.overlays = {"TPU v5e"};
  other.roofline.prefill_mfu = 0.5;
  EXPECT_TRUE(same_serving_inputs(base, other));
  const auto differs = [&](auto&& change) {
    Scenario s = base;
    change(s);
    return !same_serving_inputs(base, s) && !same_serving_inputs(s, base);
  };
  EXPECT_TRUE(differs([](Scenario& s) { s.roofline.serving_layout.tp = 2; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.roofline.serving_layout.communication = false; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.roofline.serving_layout.max_tokens_per_step = 2048; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.roofline.serving_layout.chunked_prefill = false; }));
  EXPECT_TRUE(
      differs([](Scenario& s) { s.roofline.serving_layout.generated_tokens_per_day = 2e9; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.serving.engine = "sglang"; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.chip = "A100-80"; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.shape.n_layers += 1; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.pue = 1.3; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.serving.price_per_chip_hour_dollars = 1.5; }));
  EXPECT_TRUE(differs([](Scenario& s) { s.price_per_chip_hour_dollars = 4.0; }));
}

}  // namespace
}  // namespace napkin

// The Roofline panel's one view carries the serving search that arrived off
// the UI thread (none before the first one); a refused scenario keeps it.
TEST(RooflineView, CarriesTheServingSearchThatArrived) {
  Scenario s;
  const RooflineView before = make_roofline_view(s);
  ASSERT_TRUE(before.valid()) << before.error;
  EXPECT_EQ(before.serving, nullptr);
  const RooflineSlow serving = std::make_shared<const ServingPanelView>(make_serving_panel_view(s));
  const RooflineView v = make_roofline_view(s, serving);
  ASSERT_TRUE(v.valid()) << v.error;
  EXPECT_EQ(v.serving.get(), serving.get());
  EXPECT_EQ(v.data.chips_for_budget, before.data.chips_for_budget);
  s.chip = "no such chip";
  const RooflineView refused = make_roofline_view(s, serving);
  EXPECT_FALSE(refused.valid());
  EXPECT_EQ(refused.serving.get(), serving.get());
}
