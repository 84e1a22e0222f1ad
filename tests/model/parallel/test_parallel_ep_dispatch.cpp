// The expert dispatch (TrainingSoftware::ep_dispatch): Megatron Core's
// alltoall dispatcher sends every (token, expert) copy; the flex dispatcher
// (DeepEP, HybridEP) sends a token once per destination rank and, between
// nodes, once per destination node.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

TEST(EpDispatch, NamesRoundTrip) {
  for (EpDispatch d : {EpDispatch::all_to_all, EpDispatch::deduplicated})
    EXPECT_EQ(ep_dispatch_by_name(to_string(d)), d);
  EXPECT_EQ(to_string(EpDispatch::deduplicated), "flex");
  EXPECT_EQ(software_by_name("megatron-core-fp8").ep_dispatch, EpDispatch::all_to_all);
  EXPECT_EQ(software_by_name("deepseek-v3").ep_dispatch, EpDispatch::deduplicated);
  try {
    (void)ep_dispatch_by_name("deepep");
    FAIL() << "accepted deepep";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ep-dispatch"), std::string::npos) << m;
    EXPECT_NE(m.find("alltoall, flex"), std::string::npos) << m;
  }
}

// The expected ranks or nodes a token's top-k experts fall on.
TEST(EpDispatch, ExpectedBinsHit) {
  using parallel_detail::expected_bins_hit;
  // 128 experts, top-8: over 2 nodes of 64 nearly always both; over 8 ranks
  // of 16, 5.34; over 16 ranks of 8, 6.60 (2 × (1 − C(64,8)/C(128,8)), ...).
  EXPECT_NEAR(expected_bins_hit(128, 64, 8), 1.9938082714, 1e-9);
  EXPECT_NEAR(expected_bins_hit(128, 16, 8), 5.3393568954, 1e-9);
  EXPECT_NEAR(expected_bins_hit(128, 8, 8), 6.5965128110, 1e-9);
  // Boundaries: one bin is always hit; one pick hits one bin; more picks than
  // fit outside a bin hit every bin; nothing to draw from hits nothing.
  EXPECT_DOUBLE_EQ(expected_bins_hit(128, 128, 8), 1.0);
  EXPECT_DOUBLE_EQ(expected_bins_hit(128, 4, 1), 1.0);
  EXPECT_DOUBLE_EQ(expected_bins_hit(16, 8, 9), 2.0);
  EXPECT_DOUBLE_EQ(expected_bins_hit(0, 8, 2), 0.0);
  // Never more bins than picks, never more than the bins.
  for (std::int64_t per : {1, 2, 4, 8, 16, 32, 64})
    for (std::int64_t k : {1, 2, 4, 8, 16}) {
      const double hit = expected_bins_hit(128, per, k);
      EXPECT_LE(hit, static_cast<double>(std::min<std::int64_t>(k, 128 / per)) + 1e-12);
      EXPECT_GE(hit, 1.0 - 1e-12);
    }
}

// Qwen3-30B-A3B (128 experts of 768, top-8) with EP 16 over two DGX-H100s,
// as Megatron Bridge's H100 recipe runs it (HybridEP).
TrainingJob qwen30(std::int64_t chips, EpDispatch d) {
  TrainingJob j{.shape = testing_util::preset_shape("Qwen3-30B-A3B"),
                .chip = "H100",
                .n_chips = chips,
                .seq_len = 4096,
                .global_batch = 1024,
                .software = software_by_name("megatron-core-fp8")};
  j.software.ep_dispatch = d;
  return j;
}

Layout ep_layout(std::int64_t chips, std::int64_t ep) {
  Layout l;
  l.dp = chips, l.ep = ep, l.zero = 1, l.micro_batch = 1, l.recompute = Checkpointing::none;
  return l;
}

TEST(EpDispatch, FlexCrossesTheNetworkOncePerNode) {
  const TrainingJob a2a = qwen30(16, EpDispatch::all_to_all);
  const TrainingJob flex = qwen30(16, EpDispatch::deduplicated);
  const parallel_detail::JobContext ca = parallel_detail::make_context(a2a);
  const parallel_detail::JobContext cf = parallel_detail::make_context(flex);
  const Layout l = ep_layout(16, 16);
  const double t_a2a = parallel_detail::layer_cost(ca, l, true).fwd_ep;
  const double t_flex = parallel_detail::layer_cost(cf, l, true).fwd_ep;
  // alltoall: 8 copies a token, half of them to the other node; flex: the
  // other node once in 1.994 nodes hit, i.e. 0.997 copies — against 4, the
  // network being the bound (bf16 both ways: 2 + 2 bytes per element).
  const double n = 4096, H = 2048, ib = cf.inter.bytes_per_s;
  const double latency = 2 * (7 * cf.intra.latency_seconds + 1 * cf.inter.latency_seconds);
  EXPECT_NEAR(t_flex, latency + n * H * 1.9938082714 / 2 * 4 / ib, 1e-7);
  EXPECT_GT(t_a2a, 3.5 * t_flex);
  // The whole step: less EP time, the same compute.
  const LayoutResult ra = evaluate_layout(a2a, l), rf = evaluate_layout(flex, l);
  ASSERT_TRUE(ra.valid && rf.valid) << ra.reason << rf.reason;
  EXPECT_LT(rf.time.ep_comm_seconds, 0.4 * ra.time.ep_comm_seconds);
  EXPECT_DOUBLE_EQ(rf.time.compute_seconds, ra.time.compute_seconds);
  EXPECT_GT(rf.tokens_per_second_per_chip, ra.tokens_per_second_per_chip);
}

TEST(EpDispatch, InsideOneNodeFlexSendsOncePerRank) {
  // EP 8 in one node: 16 experts a rank, a token's 8 land on 5.34 ranks, of
  // which 7/8 are another rank — NVLink only.
  TrainingJob a2a = qwen30(8, EpDispatch::all_to_all), flex = qwen30(8, EpDispatch::deduplicated);
  const Layout l = ep_layout(8, 8);
  const parallel_detail::JobContext ca = parallel_detail::make_context(a2a);
  const parallel_detail::JobContext cf = parallel_detail::make_context(flex);
  const double t_a2a = parallel_detail::layer_cost(ca, l, true).fwd_ep;
  const double t_flex = parallel_detail::layer_cost(cf, l, true).fwd_ep;
  const double n = 4096, H = 2048, nv = cf.intra.bytes_per_s;
  const double latency = 2 * 7 * cf.intra.latency_seconds;
  EXPECT_NEAR(t_flex, latency + n * H * 5.3393568954 * 7 / 8 * 4 / nv, 1e-7);
  EXPECT_NEAR(t_a2a, latency + n * H * 8 * 7 / 8 * 4 / nv, 1e-7);
}

TEST(EpDispatch, DenseModelsAndEpOneAreUntouched) {
  for (EpDispatch d : {EpDispatch::all_to_all, EpDispatch::deduplicated}) {
    TrainingJob j = qwen30(8, d);
    const LayoutResult r = evaluate_layout(j, ep_layout(8, 1));
    ASSERT_TRUE(r.valid) << r.reason;
    EXPECT_EQ(r.time.ep_comm_seconds, 0.0);
  }
  TrainingJob dense = qwen30(8, EpDispatch::deduplicated);
  dense.shape = testing_util::preset_shape("Llama-3-8B");
  TrainingJob dense_a2a = dense;
  dense_a2a.software.ep_dispatch = EpDispatch::all_to_all;
  EXPECT_DOUBLE_EQ(evaluate_layout(dense, ep_layout(8, 1)).step_seconds,
                   evaluate_layout(dense_a2a, ep_layout(8, 1)).step_seconds);
}

// What a run sets on top of its preset is said, one phrase each, and
// nothing when it sets nothing.
TEST(EpDispatch, SoftwareChangesNameWhatARunSetsOnItsPreset) {
  const TrainingSoftware& base = software_by_name("megatron-core-fp8");
  EXPECT_TRUE(software_changes(base, base).empty());
  TrainingSoftware run = base;
  run.ep_dispatch = EpDispatch::deduplicated;
  run.overlap_ep_comm = true;
  run.pipe_schedule = PipeSchedule::zb_h1;
  run.moe_load_imbalance = 1.25;
  const std::vector<std::string> c = software_changes(base, run);
  const std::vector<std::string> expected{"zb-h1 schedule", "flex expert dispatch",
                                          "expert all-to-alls overlapped",
                                          "busiest expert rank 1.25x the mean"};
  EXPECT_EQ(c, expected);
  TrainingSoftware bf16 = base;
  bf16.fp8_matmuls = false;
  EXPECT_EQ(software_changes(base, bf16), std::vector<std::string>{"bf16 GEMMs"});
  TrainingSoftware fp8 = software_by_name("modern");
  fp8.fp8_matmuls = true;
  fp8.fp8_recipe = Fp8Recipe::blockwise;
  EXPECT_EQ(software_changes(software_by_name("modern"), fp8),
            (std::vector<std::string>{"FP8 GEMMs", "blockwise FP8 scaling"}));
}

}  // namespace
}  // namespace napkin
