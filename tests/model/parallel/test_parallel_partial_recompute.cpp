// Partial recomputation (Layout::recompute_layers): full recomputation of the
// first N layers of each model chunk, Megatron's --recompute-method block
// --recompute-num-layers N; the other layers keep their activations.
#include <gtest/gtest.h>

#include <string>

#include "parallel.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

// Llama 3 70B (80 layers) on 64 H100: TP 4, PP 8, ten layers a stage.
TrainingJob llama70() {
  TrainingJob j;
  j.shape = testing_util::preset_shape("Llama-3-70B");
  j.chip = "H100";
  j.n_chips = 64;
  j.seq_len = 8192;
  j.global_batch = 128;
  j.software = software_by_name("megatron-core-fp8");
  return j;
}

Layout at(const char* recompute) {
  return parse_layout(std::string("tp=4,pp=8,vpp=1,cp=1,zero=1,mb=1,sp=on,recompute=") + recompute,
                      64);
}

TEST(PartialRecompute, Spelling) {
  const Layout l = at("full:4");
  EXPECT_EQ(l.recompute, Checkpointing::full);
  EXPECT_EQ(l.recompute_layers, 4);
  EXPECT_NE(to_string(l).find(",recompute=full:4"), std::string::npos) << to_string(l);
  EXPECT_EQ(parse_layout(to_string(l), 64), l);
  // Another recompute value resets the count; full alone is every layer.
  EXPECT_EQ(parse_layout("recompute=none", 64, l).recompute_layers, 0);
  EXPECT_EQ(at("full").recompute_layers, 0);
  EXPECT_EQ(to_string(at("full")).find("full:"), std::string::npos);
  for (const char* bad : {"full:0", "full:", "full:x", "full:-1", "block:4"})
    EXPECT_THROW(at(bad), std::invalid_argument) << bad;
}

TEST(PartialRecompute, RefusedWhereItMeansNothing) {
  const TrainingJob j = llama70();
  Layout l = at("full:10");  // every layer of a ten-layer chunk
  ASSERT_TRUE(layout_problem(j, l));
  EXPECT_NE(layout_problem(j, l)->find("write recompute=full"), std::string::npos);
  l = at("full:9");
  EXPECT_FALSE(layout_problem(j, l)) << *layout_problem(j, l);
  l.recompute = Checkpointing::none;  // a count without full recomputation
  ASSERT_TRUE(layout_problem(j, l));
  EXPECT_NE(layout_problem(j, l)->find("full recomputation only"), std::string::npos);
  l.vpp = 2;  // five layers a chunk: 9 covers them
  l.recompute = Checkpointing::full;
  EXPECT_TRUE(layout_problem(j, l));
}

// N of a stage's ten layers recompute: the recompute time is N/10 of full's,
// the activations lie between none's and full's, linear in N, and so do the
// step and the hardware FLOPs.
TEST(PartialRecompute, CostsTheShareOfLayersItRecomputes) {
  const TrainingJob j = llama70();
  const LayoutResult none = evaluate_layout(j, at("none"));
  const LayoutResult full = evaluate_layout(j, at("full"));
  ASSERT_TRUE(none.valid && full.valid);
  double last_step = none.step_seconds;
  std::int64_t last_act = none.memory.activations_bytes;
  for (std::int64_t n = 1; n <= 9; ++n) {
    const LayoutResult r = evaluate_layout(j, at(("full:" + std::to_string(n)).c_str()));
    ASSERT_TRUE(r.valid) << r.reason;
    const double share = static_cast<double>(n) / 10;
    EXPECT_NEAR(r.time.recompute_seconds, share * full.time.recompute_seconds,
                1e-9 * full.time.recompute_seconds);
    EXPECT_NEAR(r.recompute_flops_per_step, share * full.recompute_flops_per_step,
                1e-9 * full.recompute_flops_per_step);
    EXPECT_DOUBLE_EQ(r.model_flops_per_step, none.model_flops_per_step);
    EXPECT_GT(r.step_seconds, last_step);
    EXPECT_LT(r.step_seconds, full.step_seconds);
    EXPECT_LT(r.memory.activations_bytes, last_act);
    EXPECT_GT(r.memory.activations_bytes, full.memory.activations_bytes);
    last_step = r.step_seconds;
    last_act = r.memory.activations_bytes;
  }
  // The activations: the stored layers' share of none's plus the checkpoints
  // and the one layer re-materialised at a time, as full counts them.
  const LayoutResult half = evaluate_layout(j, at("full:5"));
  const double stored = static_cast<double>(none.memory.activations_bytes);
  const double ckpt = static_cast<double>(full.memory.activations_bytes);
  EXPECT_LT(static_cast<double>(half.memory.activations_bytes), 0.5 * stored + ckpt);
  EXPECT_GT(static_cast<double>(half.memory.activations_bytes), 0.5 * stored);
}

TEST(PartialRecompute, TheSearchKeepsALockedCount) {
  const TrainingJob j = llama70();
  SearchOptions o;
  o.tp = 4, o.pp = 8;
  o.recompute = Checkpointing::full;
  o.recompute_layers = 3;
  const SearchResult r = search_layouts(j, o);
  ASSERT_FALSE(r.layouts.empty());
  for (const LayoutResult& x : r.layouts) {
    EXPECT_EQ(x.layout.recompute, Checkpointing::full);
    EXPECT_EQ(x.layout.recompute_layers, 3) << to_string(x.layout);
    // vpp 2 leaves five layers a chunk, vpp 5 two: 3 of 2 is not offered.
    EXPECT_LT(3 * x.layout.pp * x.layout.vpp, 80) << to_string(x.layout);
    // Each row costs what evaluating it alone costs (the caches key the count).
    EXPECT_DOUBLE_EQ(x.step_seconds, evaluate_layout(j, x.layout).step_seconds);
  }
}

}  // namespace
}  // namespace napkin
