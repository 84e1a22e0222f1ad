#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "model_presets.h"
#include "parallel.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

TrainingJob job(std::string_view preset, std::int64_t chips, std::int64_t batch, std::int64_t seq) {
  TrainingJob j{.shape = testing_util::preset_shape(preset),
                .chip = "H100",
                .n_chips = chips,
                .seq_len = seq,
                .global_batch = batch};
  return j;
}

TEST(ParallelSearch, EveryLayoutMultipliesToTheClusterAndIsValid) {
  const TrainingJob j = job("Llama-3-70B", 1024, 512, 8192);  // Llama-3-70B on 1,024 H100
  const SearchResult r = search_layouts(j);
  ASSERT_FALSE(r.layouts.empty());
  EXPECT_GT(r.fitting, 0);
  for (const LayoutResult& l : r.layouts) {
    EXPECT_TRUE(l.valid) << l.reason;
    EXPECT_EQ(l.layout.chips(), 1024);
    EXPECT_LE(l.layout.tp, 8);                     // inside one NVLink node
    EXPECT_EQ(j.shape.n_layers % l.layout.pp, 0);  // even stages
    EXPECT_EQ(l.layout.sequence_parallel, l.layout.tp > 1);
    EXPECT_EQ(l.fits, l.memory.total_bytes <= l.hbm_bytes);
  }
}

// The search prices layouts from per-layer costs it caches: every layout it
// lists must cost what evaluating it alone costs, under every software preset
// (a cache key that misses an axis a cost depends on shows up here).
TEST(ParallelSearch, EveryListedLayoutCostsWhatItCostsAlone) {
  TrainingJob j = job("Llama-3-8B", 64, 128, 4096);
  for (const SoftwarePreset& p : software_presets()) {
    j.software = p.software;
    const SearchResult r = search_layouts(j);
    ASSERT_FALSE(r.layouts.empty()) << p.name;
    for (const LayoutResult& l : r.layouts) {
      const LayoutResult alone = evaluate_layout(j, l.layout);
      ASSERT_DOUBLE_EQ(l.step_seconds, alone.step_seconds) << p.name << " " << to_string(l.layout);
      ASSERT_EQ(l.memory.total_bytes, alone.memory.total_bytes)
          << p.name << " " << to_string(l.layout);
    }
  }
}

TEST(ParallelSearch, EpFoldsOverTpOnlyWithExpertTpBelowTp) {
  // Megatron Bridge's Qwen3 MoE recipes fold EP over TP (expert tensor
  // parallelism 1): EP 32 with DP 16 and TP 2. With the experts split over TP
  // (the default) the layout is refused, and the reason names the way out.
  TrainingJob j = job("Qwen3-30B-A3B", 256, 1024, 4096);
  Layout l;
  l.tp = 2, l.pp = 8, l.dp = 16, l.ep = 32, l.zero = 1;
  const std::optional<std::string> why = layout_problem(j, l);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("must divide dp × cp = 16"), std::string::npos) << *why;
  EXPECT_NE(why->find("etp=1"), std::string::npos) << *why;
  l.etp = 1;
  EXPECT_FALSE(layout_problem(j, l).has_value()) << *layout_problem(j, l);
  EXPECT_EQ(l.expert_dp(), 1);  // 2 × 16 ranks re-carved into 32 expert ranks
  l.sequence_parallel = false;  // Megatron Core runs MoE with TP only with it
  ASSERT_TRUE(layout_problem(j, l).has_value());
  EXPECT_NE(layout_problem(j, l)->find("sequence parallelism"), std::string::npos);
  l.sequence_parallel = true, l.ep = 64;  // 64 > 2 × 16: nothing left to fold over
  ASSERT_TRUE(layout_problem(j, l).has_value());
  EXPECT_NE(layout_problem(j, l)->find("etp × ep = 64 must divide tp × dp × cp = 32"),
            std::string::npos)
      << *layout_problem(j, l);
  l.tp = 1, l.pp = 16, l.ep = 32, l.etp = 0;  // EP 32 > DP 16 with no TP: no such hint
  EXPECT_EQ(layout_problem(j, l)->find("etp=1"), std::string::npos);
  Layout dense;
  dense.tp = 2, dense.dp = 128, dense.etp = 1;
  ASSERT_TRUE(layout_problem(job("Llama-3-8B", 256, 1024, 4096), dense).has_value());
}

TEST(ParallelSearch, RankedByStepTimeAmongThoseThatFit) {
  const SearchResult r = search_layouts(job("Llama-3-70B", 1024, 512, 8192));
  bool in_fitting = true;
  for (std::size_t i = 1; i < r.layouts.size(); ++i) {
    const LayoutResult &a = r.layouts[i - 1], &b = r.layouts[i];
    if (!b.fits) in_fitting = false;
    if (b.fits) {
      EXPECT_TRUE(in_fitting) << "a fitting layout after one that does not";
      EXPECT_LE(a.step_seconds, b.step_seconds);
    } else if (!a.fits) {
      EXPECT_LE(a.over_hbm_bytes, b.over_hbm_bytes);
    }
  }
  // The best layout is as good as any the user could pick by hand.
  Layout hand;
  hand.tp = 8, hand.pp = 4, hand.dp = 32;
  const LayoutResult h = evaluate_layout(job("Llama-3-70B", 1024, 512, 8192), hand);
  if (h.fits) {
    EXPECT_LE(r.layouts.front().step_seconds, h.step_seconds + 1e-12);
  }
}

TEST(ParallelSearch, ParetoFrontTradesMemoryForTime) {
  const SearchResult r = search_layouts(job("Llama-3-70B", 1024, 512, 8192));
  ASSERT_FALSE(r.pareto.empty());
  for (std::size_t k = 1; k < r.pareto.size(); ++k) {
    const LayoutResult &a = r.layouts[r.pareto[k - 1]], &b = r.layouts[r.pareto[k]];
    EXPECT_LE(a.memory.total_bytes, b.memory.total_bytes);
    EXPECT_GT(a.step_seconds, b.step_seconds);
  }
  // Nothing that fits beats a front member on both axes.
  for (std::size_t i : r.pareto) {
    for (const LayoutResult& l : r.layouts) {
      if (!l.fits) continue;
      EXPECT_FALSE(l.memory.total_bytes < r.layouts[i].memory.total_bytes &&
                   l.step_seconds < r.layouts[i].step_seconds);
    }
  }
  // The fastest fitting layout is on the front.
  EXPECT_EQ(r.pareto.back(), 0u);
}

TEST(ParallelSearch, FixedAxesAreHonoured) {
  SearchOptions o;
  o.tp = 4;
  o.recompute = Checkpointing::full;
  o.zero = 1;
  const SearchResult r = search_layouts(job("Llama-3-70B", 1024, 512, 8192), o);
  ASSERT_FALSE(r.layouts.empty());
  for (const LayoutResult& l : r.layouts) {
    EXPECT_EQ(l.layout.tp, 4);
    EXPECT_EQ(l.layout.recompute, Checkpointing::full);
    EXPECT_EQ(l.layout.zero, 1);
  }
}

TEST(ParallelSearch, MoeSearchesExpertParallelismInsideANode) {
  const TrainingJob j = job("Mixtral-8x7B", 256, 256, 4096);  // Mixtral-8x7B
  const SearchResult r = search_layouts(j);
  ASSERT_GT(r.fitting, 0);
  std::set<std::int64_t> eps, etps;
  for (const LayoutResult& l : r.layouts) {
    const Layout& L = l.layout;
    EXPECT_EQ(j.shape.n_experts % L.ep, 0);
    // The expert grid re-carves TP × DP × CP; its EP group sits in a node.
    EXPECT_EQ((L.tp * L.dp * L.cp) % (L.expert_tp() * L.ep), 0);
    EXPECT_LE(L.expert_tp() * L.ep, 8);
    EXPECT_TRUE(L.etp == 0 || (L.etp == 1 && L.tp > 1)) << to_string(L);  // one spelling
    eps.insert(L.ep);
    etps.insert(L.expert_tp());
  }
  EXPECT_GT(eps.size(), 1u);
  EXPECT_TRUE(etps.count(1) && etps.size() > 1);  // the experts whole, and split
}

TEST(ParallelSearch, NothingFitsOnTooFewChips) {
  TrainingJob j = job("Llama-3-70B", 8, 8, 8192);
  const SearchResult r = search_layouts(j);
  EXPECT_EQ(r.fitting, 0);
  EXPECT_TRUE(r.pareto.empty());
  ASSERT_FALSE(r.layouts.empty());
  for (const LayoutResult& l : r.layouts) EXPECT_FALSE(l.reason.empty());
  EXPECT_NE(r.layouts.front().reason.find("HBM"), std::string::npos);
}

TEST(ParallelSearch, MfuGridHasOneCellPerTpPp) {
  const SearchResult r = search_layouts(job("Llama-3-70B", 1024, 512, 8192));
  const std::vector<MfuCell> grid = mfu_by_tp_pp(r);
  std::set<std::pair<std::int64_t, std::int64_t>> seen;
  double best = 0;
  for (const MfuCell& c : grid) {
    EXPECT_TRUE(seen.insert({c.tp, c.pp}).second);
    const LayoutResult& l = r.layouts[c.index];
    EXPECT_EQ(l.layout.tp, c.tp);
    EXPECT_EQ(l.layout.pp, c.pp);
    if (c.fits) {
      EXPECT_DOUBLE_EQ(l.mfu, c.mfu);
      best = std::max(best, c.mfu);
    }
  }
  EXPECT_DOUBLE_EQ(best, r.layouts.front().mfu);
}

TEST(ParallelSearch, BadOptionsNameTheField) {
  SearchOptions o;
  o.max_vpp = 0;
  EXPECT_THROW_NAMING(search_layouts(job("Llama-3-70B", 64, 64, 4096), o), "max_vpp");
}

// Issue 27: locks that leave no layout say why, as the CLI does.
TEST(ParallelSearch, LocksThatLeaveNoLayoutSayWhy) {
  SearchOptions o;
  o.tp = 8;
  o.pp = 4;
  const TrainingJob j = job("Llama-3-70B", 3000, 375, 8192);
  const SearchResult r = search_layouts(j, o);
  EXPECT_TRUE(r.layouts.empty());
  EXPECT_EQ(r.none_reason, "3,000 chips is not divisible by TP × PP = 32");
  EXPECT_EQ(no_layout_reason(j, o), r.none_reason);
  o.tp.reset();
  o.pp = 3;  // 80 layers in 3 even stages
  EXPECT_EQ(no_layout_reason(job("Llama-3-70B", 1536, 512, 8192), o),
            "80 layers do not split evenly into PP = 3 stages");
  o.pp.reset();
  o.tp = 16;  // beyond one 8-chip H100 node
  EXPECT_EQ(no_layout_reason(job("Llama-3-70B", 1024, 512, 8192), o),
            "TP = 16 spans more than one node of 8 × H100 (TP is kept inside a node)");
  // Issue 27 item 20: the simplest split's own problem reads its numbers
  // grouped, as the rest of the sentence does ("dp × mb = 1000000" before).
  o.tp.reset();
  EXPECT_EQ(no_layout_reason(job("Llama-3-8B", 1'000'000, 512, 8192), o),
            "the simplest split of 1,000,000 chips under the locks (DP 1,000,000) cannot run: "
            "global_batch (512 sequences) must be a multiple of dp × mb = 1,000,000");
  // A search that finds layouts has no reason.
  EXPECT_TRUE(search_layouts(job("Llama-3-70B", 1024, 512, 8192)).none_reason.empty());
}

}  // namespace
}  // namespace napkin
