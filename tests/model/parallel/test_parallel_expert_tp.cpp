// Expert tensor parallelism (Layout::etp): the routed experts split over fewer
// ranks than TP, down to 1 (EP folded over TP, as Megatron Core runs with
// --expert-tensor-parallel-size 1).
#include <gtest/gtest.h>

#include <string>

#include "parallel.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

// Qwen3-235B-A22B (128 experts of 1,536, top-8, 94 layers) at 4,096 tokens.
TrainingJob qwen235(std::int64_t chips, std::int64_t batch) {
  TrainingJob j{.shape = testing_util::preset_shape("Qwen3-235B-A22B"),
                .chip = "H100",
                .n_chips = chips,
                .seq_len = 4096,
                .global_batch = batch,
                .software = software_by_name("megatron-core-fp8")};
  return j;
}

Layout moe_layout(std::int64_t tp, std::int64_t pp, std::int64_t dp, std::int64_t ep,
                  std::int64_t etp) {
  Layout l;
  l.tp = tp, l.pp = pp, l.dp = dp, l.ep = ep, l.etp = etp == tp ? 0 : etp;
  l.zero = 1, l.micro_batch = 1, l.recompute = Checkpointing::none;
  return l;
}

TEST(ExpertTp, SpellingAndGroups) {
  Layout l = moe_layout(2, 8, 16, 32, 1);
  EXPECT_EQ(l.expert_tp(), 1);
  EXPECT_EQ(l.expert_dp(), 1);  // 2 × 16 ranks, 32 of them expert ranks
  EXPECT_NE(to_string(l).find(",ep=32,etp=1,"), std::string::npos) << to_string(l);
  l.etp = 0;  // the default spelling: etp = tp, not printed
  EXPECT_EQ(l.expert_tp(), 2);
  EXPECT_EQ(to_string(l).find("etp"), std::string::npos);
  // The CLI's text: etp equal to tp is stored as the default.
  EXPECT_EQ(parse_layout("tp=2,pp=8,ep=16,etp=2", 256).etp, 0);
  EXPECT_EQ(parse_layout("tp=2,pp=8,ep=32,etp=1", 256).etp, 1);
  EXPECT_THROW(parse_layout("tp=2,etp=0", 256), std::invalid_argument);
}

TEST(ExpertTp, TheSameRanksSplitTheExpertsEitherWay) {
  // EP 16 with the experts split over TP 2, or EP 32 with each expert whole:
  // the same routed FLOPs per rank, the same expert bytes per rank, and the
  // folded one drops the MLP's TP gather and scatter.
  const TrainingJob j = qwen235(256, 2048);
  const LayoutResult split = evaluate_layout(j, moe_layout(2, 8, 16, 16, 2));
  const LayoutResult folded = evaluate_layout(j, moe_layout(2, 8, 16, 32, 1));
  ASSERT_TRUE(split.valid) << split.reason;
  ASSERT_TRUE(folded.valid) << folded.reason;
  EXPECT_NEAR(folded.memory.weights_bytes, split.memory.weights_bytes,
              0.01 * static_cast<double>(split.memory.weights_bytes));
  EXPECT_NEAR(folded.time.compute_seconds, split.time.compute_seconds,
              0.1 * split.time.compute_seconds);
  EXPECT_LT(folded.time.tp_comm_seconds, 0.75 * split.time.tp_comm_seconds);
  // Each rank dispatches its own sequence shard either way; the folded EP
  // group is 32 neighbours (4 nodes), the split one 16 ranks 2 apart (4 nodes).
  EXPECT_GT(folded.time.ep_comm_seconds, 0);
}

TEST(ExpertTp, FoldedEpGroupStaysInANode) {
  // EP 8 over 8 neighbours (one node) against EP 8 two apart (two nodes): the
  // folded all-to-all never leaves NVLink.
  TrainingJob j = qwen235(16, 64);
  j.shape.n_layers = 8;  // a slice of the model: the collectives are per layer
  const LayoutResult folded = evaluate_layout(j, moe_layout(2, 1, 8, 8, 1));
  const LayoutResult split = evaluate_layout(j, moe_layout(2, 1, 8, 8, 2));
  ASSERT_TRUE(folded.valid) << folded.reason;
  ASSERT_TRUE(split.valid) << split.reason;
  EXPECT_LT(folded.time.ep_comm_seconds, 0.5 * split.time.ep_comm_seconds);
}

TEST(ExpertTp, WholeExpertsHoldTpTimesTheExpertWeights) {
  // The same EP with etp 1 against etp = tp = 2: twice the routed experts'
  // bytes per rank (the attention, norms and tables unchanged).
  TrainingJob j = qwen235(64, 256);
  j.shape.n_layers = 8;
  const LayoutResult whole = evaluate_layout(j, moe_layout(2, 1, 32, 16, 1));
  const LayoutResult halves = evaluate_layout(j, moe_layout(2, 1, 32, 16, 2));
  ASSERT_TRUE(whole.valid) << whole.reason;
  ASSERT_TRUE(halves.valid) << halves.reason;
  // 8 layers × 128 / 16 experts × 3 · 4,096 · 1,536 / 2 parameters × 2 bytes.
  EXPECT_EQ(whole.memory.weights_bytes - halves.memory.weights_bytes, 1'207'959'552);
}

TEST(ExpertTp, Qwen3With235BPublishedLayoutFits) {
  // Megatron Bridge's H100 recipe (qwen3_235b_a22b_pretrain_256gpu_h100_fp8cs):
  // TP 2, PP 8, VP 4, EP 32 with expert TP 1, micro-batch 1, no recompute,
  // 256 H100. It ran; it must fit.
  TrainingJob j = qwen235(256, 8192);
  j.network = cluster_by_name("dgx-h100").network;
  Layout l = moe_layout(2, 8, 16, 32, 1);
  l.vpp = 4;
  const LayoutResult r = evaluate_layout(j, l);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_TRUE(r.fits) << r.reason;
}

TEST(ExpertTp, SearchFindsTheFoldedLayoutWhenEpIsFixedAboveDp) {
  // EP 32 on 256 ranks with TP 2 and PP 8 leaves DP 16: only the folded
  // expert grid runs it, and the search offers it.
  TrainingJob j = qwen235(256, 2048);
  j.network = cluster_by_name("dgx-h100").network;
  SearchOptions o;
  o.tp = 2, o.pp = 8, o.ep = 32, o.micro_batch = 1;
  o.even_stages = false;  // 94 layers on 8 stages, as the recipe runs them
  const SearchResult r = search_layouts(j, o);
  ASSERT_FALSE(r.layouts.empty()) << r.none_reason;
  for (const LayoutResult& l : r.layouts) EXPECT_EQ(l.layout.etp, 1) << to_string(l.layout);
  o.etp = 2;  // the experts split over TP: no layout, and the reason says so
  const SearchResult none = search_layouts(j, o);
  EXPECT_TRUE(none.layouts.empty());
  EXPECT_FALSE(none.none_reason.empty());
}

TEST(ExpertTp, EveryListedMoeLayoutCostsWhatItCostsAlone) {
  // The search's caches key on every axis a cost depends on, etp among them.
  TrainingJob j{.shape = testing_util::preset_shape("Qwen3-30B-A3B"),
                .chip = "H100",
                .n_chips = 32,
                .seq_len = 4096,
                .global_batch = 64};
  for (const char* sw : {"modern", "megatron-core-fp8"}) {
    j.software = software_by_name(sw);
    const SearchResult r = search_layouts(j);
    ASSERT_FALSE(r.layouts.empty()) << sw;
    for (const LayoutResult& l : r.layouts) {
      const LayoutResult alone = evaluate_layout(j, l.layout);
      ASSERT_DOUBLE_EQ(l.step_seconds, alone.step_seconds) << sw << " " << to_string(l.layout);
      ASSERT_EQ(l.memory.total_bytes, alone.memory.total_bytes) << sw << " " << to_string(l.layout);
    }
  }
}

}  // namespace
}  // namespace napkin
