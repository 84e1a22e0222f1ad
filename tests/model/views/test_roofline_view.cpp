// The Roofline view (roofline_view.h): every plot of the panel from one
// scenario, and the verdicts the panel, the report and the CLI share.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "expect_throw.h"
#include "roofline_test_util.h"
#include "roofline_view.h"

namespace napkin {
namespace {

TEST(RooflinePanel, DefaultScenarioFillsEveryPlot) {
  const RooflinePanelData d = roofline_panel({});
  EXPECT_NEAR(d.ridge_flops_per_byte, 241, 0.5);
  EXPECT_EQ(d.roofline.size(), 65u);
  EXPECT_EQ(d.operations.size(), 5u);
  EXPECT_EQ(d.decode_wall.size(), 11u);
  EXPECT_NEAR(d.mfu_budget.mfu, 0.357, 0.0005);
  EXPECT_NEAR(d.hfu_over_mfu, 8.0 / 6.0, 1e-15);
  EXPECT_EQ(d.latency.size(), 11u);
  EXPECT_EQ(d.model_sizes.size(), 31u);
  EXPECT_EQ(d.tiles.size(), 1024u - 64u + 1u);
  EXPECT_EQ(d.kv_heads.size(), 6u);  // divisors of 32
  EXPECT_EQ(d.depth_width.size(), 8u);
  ASSERT_TRUE(d.chips_for_budget.has_value());
  // The default 7B model with its KV cache on v5e.
  const double n = static_cast<double>(count_params(ModelShape{}).total);
  EXPECT_EQ(d.chips_to_hold_weights, chips_to_hold_weights(n, v5e()));
  // The model-size plot marks the model at its active parameters, from the view.
  EXPECT_EQ(d.active_params, static_cast<double>(count_params(ModelShape{}).active));
}

TEST(RooflinePanel, SeventyBOnV5eMatchesTheNapkinPlusItsKvCache) {
  RooflineScenario sc;
  sc.shape = llama3_70b();
  sc.overlay_chips = {"H100", "A100-80"};
  const RooflinePanelData d = roofline_panel(sc);
  EXPECT_EQ(d.overlays.size(), 2u);
  // Llama3-70B is 70.6B parameters and its 8k KV cache adds ~2 % per step:
  // still 64 chips for the 1 s turn.
  EXPECT_EQ(d.chips_for_budget, 64);
  EXPECT_EQ(d.chips_to_hold_weights, 9);
  EXPECT_EQ(d.operations[2].name, "decode");
  EXPECT_EQ(d.operations[2].bound, Bound::memory);
}

TEST(RooflinePanel, IsDeterministicAndRejectsAnUnknownChip) {
  RooflineScenario sc;
  sc.shape = llama3_70b();
  const RooflinePanelData a = roofline_panel(sc), b = roofline_panel(sc);
  ASSERT_EQ(a.latency.size(), b.latency.size());
  for (std::size_t i = 0; i < a.latency.size(); ++i)
    EXPECT_EQ(a.latency[i].total_seconds, b.latency[i].total_seconds);
  for (std::size_t i = 0; i < a.decode_wall.size(); ++i)
    EXPECT_EQ(a.decode_wall[i].intensity, b.decode_wall[i].intensity);
  sc.turn.budget_seconds = 0.1;  // below the 0.25 s overhead: a verdict, not an error
  EXPECT_EQ(roofline_panel(sc).serving.verdict, LatencyVerdict::below_overhead);
  sc = {};
  sc.overlay_chips = {"Z80"};
  EXPECT_THROW_NAMING(roofline_panel(sc), "chip");
}

// ------------------------------------------------ what the panel used to compute
// Golden values recorded from the Roofline panel's own arithmetic before it
// moved into the view (its compute(), read-outs, decode note, MFU what-if and
// model-size note), so the move changed no number a user sees.

#define EXPECT_REL(got, want) EXPECT_NEAR((got), (want), 1e-12 * std::abs(want))

RooflineScenario seventy_b() {
  RooflineScenario sc;
  sc.shape = llama3_70b();
  sc.overlay_chips = {"H100"};
  return sc;
}

TEST(RooflineView, KvShareAndTheDecodeStepAtTheScenariosBatch) {
  RooflinePanelData d = roofline_panel({});  // the default model, batch 1, 8k context on v5e
  EXPECT_REL(d.decode_at_batch.kv_share_of_bytes, 0.24167319302169388);
  EXPECT_REL(d.decode_at_batch.fraction_of_ridge, 0.003152637842209303);
  EXPECT_REL(d.decode_wall.back().fraction_of_ridge, 0.01300519416556823);
  EXPECT_EQ(d.decode_at_batch.batch, 1);
  d = roofline_panel(seventy_b());
  EXPECT_REL(d.decode_at_batch.kv_share_of_bytes, 0.018668346635555833);
  EXPECT_REL(d.decode_at_batch.fraction_of_ridge, 0.004079749360941522);
  RooflineScenario big = seventy_b();
  big.chip = "H100";
  big.operations.decode_batch = 64;
  d = roofline_panel(big);
  EXPECT_REL(d.decode_at_batch.kv_share_of_bytes, 0.54904231393068892);
  EXPECT_REL(d.decode_at_batch.fraction_of_ridge, 0.097661947366929597);
  // The decode operation placed on the roofline is the same step.
  for (const PlacedOperation& op : d.operations) {
    if (op.name == "decode") {
      EXPECT_REL(op.intensity, d.decode_at_batch.intensity);
    }
  }
}

TEST(RooflineView, BiggestLeverWhatIfAndTheAgenda) {  // seed ch. 4: 100/45/60/50/25 s
  RooflinePanelData d = roofline_panel({});
  EXPECT_EQ(d.mfu_budget.biggest_lever, MfuLever::memory);
  EXPECT_REL(d.mfu_budget.biggest_lever_fraction, 0.21428571428571427);
  EXPECT_REL(d.mfu_without_lever.mfu, 0.45454545454545453);  // 100 / 220 s
  EXPECT_REL(d.hfu, 0.47619047619047616);
  ASSERT_EQ(d.mfu_agenda.size(), 4u);
  const MfuLever order[] = {MfuLever::memory, MfuLever::comms, MfuLever::vector,
                            MfuLever::optimizer};
  const double fractions[] = {0.21428571428571427, 0.17857142857142858, 0.16071428571428573,
                              0.089285714285714288};
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(d.mfu_agenda[i].lever, order[i]);
    EXPECT_REL(d.mfu_agenda[i].fraction, fractions[i]);
  }
  RooflineScenario sc;
  sc.mfu = {100, 0, 0, 0, 0};  // pure matmul: nothing to remove
  d = roofline_panel(sc);
  EXPECT_EQ(d.mfu_budget.biggest_lever, MfuLever::none);
  EXPECT_EQ(d.mfu_budget.biggest_lever_fraction, 0.0);
  EXPECT_EQ(d.mfu_without_lever.mfu, 1.0);
  EXPECT_REL(d.hfu, 1.3333333333333333);  // over 100 %: HFU of a perfect step with recompute
  sc.mfu = {100, 20, 20, 5, 5};           // a tie goes to the first in agenda order
  d = roofline_panel(sc);
  EXPECT_EQ(d.mfu_budget.biggest_lever, MfuLever::vector);
  EXPECT_REL(d.mfu_without_lever.mfu, 0.76923076923076927);
  EXPECT_EQ(d.mfu_agenda[0].lever, MfuLever::vector);
  EXPECT_EQ(d.mfu_agenda[1].lever, MfuLever::memory);
  EXPECT_EQ(mfu_budget_without(sc.mfu, MfuLever::none).mfu, d.mfu_budget.mfu);
}

TEST(RooflineView, DeployCountAndWhatBindsIt) {
  RooflinePanelData d = roofline_panel(seventy_b());  // 1 s turn on v5e
  EXPECT_EQ(d.serving.verdict, LatencyVerdict::meets);
  EXPECT_EQ(d.serving.deploy_chips, 64);
  EXPECT_TRUE(d.serving.deploy_latency_bound);
  EXPECT_REL(d.resident_weight_bytes, 141107412992.0);
  RooflineScenario sc = seventy_b();
  sc.turn.budget_seconds = 0.26;  // 10 ms above the overhead
  EXPECT_EQ(roofline_panel(sc).serving.deploy_chips, 4096);
  sc = seventy_b();
  sc.chip = "H100";
  sc.turn.budget_seconds = 100;  // one chip is fast enough; two hold the weights
  d = roofline_panel(sc);
  EXPECT_EQ(d.serving.chips_for_budget, 1);
  EXPECT_EQ(d.serving.chips_to_hold_weights, 2);
  EXPECT_EQ(d.serving.deploy_chips, 2);
  EXPECT_FALSE(d.serving.deploy_latency_bound);  // memory-bound
  EXPECT_REL(d.turn.total_seconds, 6.911761417280716);
  EXPECT_TRUE(d.turn.meets_budget);
  sc = seventy_b();
  sc.turn.max_chips = 2;  // no slice up to 2 chips: the answer is a smaller model
  d = roofline_panel(sc);
  EXPECT_EQ(d.serving.verdict, LatencyVerdict::no_slice);
  EXPECT_FALSE(d.serving.deploy_chips.has_value());
  EXPECT_FALSE(d.chips_for_budget.has_value());
  EXPECT_EQ(d.largest_servable.largest_on_one_chip, 0.0);
  EXPECT_REL(d.largest_servable.largest_on_any, 2511886431.509582);
}

TEST(RooflineView, BudgetAtOrBelowTheOverheadIsAVerdict) {
  RooflineScenario sc = seventy_b();
  sc.turn.budget_seconds = 0.2;  // overhead 0.25 s
  const RooflinePanelData d = roofline_panel(sc);
  EXPECT_EQ(d.serving.verdict, LatencyVerdict::below_overhead);
  EXPECT_FALSE(d.chips_for_budget.has_value());
  EXPECT_FALSE(d.serving.deploy_chips.has_value());
  EXPECT_EQ(d.chips_to_hold_weights, 9);
  // Everything else is drawn as for a reachable budget; nothing meets this one.
  EXPECT_REL(d.turn.total_seconds, 28.590726520474902);
  EXPECT_FALSE(d.turn.meets_budget);
  ASSERT_EQ(d.latency.size(), 11u);
  EXPECT_REL(d.latency[3].total_seconds, 3.7925908150593628);
  for (const TurnLatency& t : d.latency) EXPECT_FALSE(t.meets_budget);
  for (const ModelSizePoint& m : d.model_sizes) EXPECT_FALSE(m.chips_for_budget.has_value());
  EXPECT_EQ(d.largest_servable.largest_on_any, 0.0);
  sc.turn.budget_seconds = sc.turn.overhead_seconds;  // equal is impossible too
  EXPECT_EQ(roofline_panel(sc).serving.verdict, LatencyVerdict::below_overhead);
}

TEST(RooflineView, LargestServableModel) {
  RooflineScenario sc = seventy_b();
  sc.chip = "H100";
  sc.turn.budget_seconds = 100;
  RooflinePanelData d = roofline_panel(sc);
  EXPECT_REL(d.largest_servable.largest_on_one_chip, 1e12);
  EXPECT_REL(d.largest_servable.largest_on_any, 1e12);
  d = roofline_panel({});
  EXPECT_EQ(d.largest_servable.largest_on_one_chip, 0.0);
  EXPECT_REL(d.largest_servable.largest_on_any, 1e12);
  std::vector<ModelSizePoint> sweep(3);
  sweep[0] = {1e9, 1, 1, 0};
  sweep[1] = {1e10, 4, 1, 0};
  sweep[2] = {1e11, std::nullopt, 2, 0};
  const ServableSizes s = largest_servable(sweep);
  EXPECT_EQ(s.largest_on_one_chip, 1e9);
  EXPECT_EQ(s.largest_on_any, 1e10);
}

TEST(RooflineView, ServabilityOfAModelUnderTheScenario) {  // the report's servability memo
  Scenario s;                                              // 1,000 H100, 1 s turn, 0.25 s overhead
  s.chip = "TPU v5e";
  const TurnInputs t = scenario_turn(s, 70e9);
  EXPECT_EQ(t.chip, "TPU v5e");
  EXPECT_EQ(t.prefill_tokens, s.serving.prompt_tokens);
  EXPECT_EQ(t.batch, s.serving.batch);
  EXPECT_EQ(t.kv_bytes_per_request, 0);
  const ServingNeed n = servability(s, 70e9);
  EXPECT_EQ(n.verdict, LatencyVerdict::meets);
  EXPECT_EQ(n.chips_for_budget, chips_for_latency_budget(t));
  EXPECT_EQ(n.chips_to_hold_weights, chips_to_hold_weights(t));
  s.serving.latency_budget_seconds = 0.25;
  EXPECT_EQ(servability(s, 70e9).verdict, LatencyVerdict::below_overhead);
}

TEST(RooflineView, KvShareOfBytes) {
  EXPECT_EQ(kv_share_of_bytes(3, 1), 0.25);
  EXPECT_EQ(kv_share_of_bytes(0, 0), 0.0);
  EXPECT_THROW_NAMING(kv_share_of_bytes(-1, 1), "weight_bytes");
  EXPECT_THROW_NAMING(kv_share_of_bytes(1, -1), "kv_bytes");
}

TEST(RooflineView, KvServingNodeIsTheScenariosChip) {  // issue: "8-chip H100 node" on a v5e
  RooflineScenario sc = seventy_b();  // chip TPU v5e; KvServing's own default chip is H100
  ASSERT_EQ(sc.kv.chip, "H100");
  const RooflinePanelData v5e_node = roofline_panel(sc);
  KvServing expect = sc.kv;
  expect.chip = "TPU v5e";
  expect.n_params = static_cast<double>(count_params(sc.shape).total);
  expect.n_layers = sc.shape.n_layers;
  expect.n_query_heads = sc.shape.n_heads;
  expect.d_head = sc.shape.d_head;
  expect.seq_len = sc.operations.context_tokens;
  expect.batch = sc.operations.decode_batch;
  expect.bytes_per_param = sc.operations.bytes_per_param;
  expect.kv_bytes_per_elem = sc.operations.bytes_per_elem;
  const std::vector<GqaPoint> want = kv_heads_sweep(expect);
  ASSERT_EQ(v5e_node.kv_heads.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_EQ(v5e_node.kv_heads[i].concurrent_requests, want[i].concurrent_requests) << i;
  sc.chip = "H100";
  EXPECT_NE(roofline_panel(sc).kv_heads.back().concurrent_requests,
            v5e_node.kv_heads.back().concurrent_requests);
}

}  // namespace
}  // namespace napkin
