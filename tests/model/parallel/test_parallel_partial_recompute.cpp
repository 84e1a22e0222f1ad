// Partial recomputation (Layout::recompute_layers): full recomputation of the
// first N layers of each model chunk, Megatron's --recompute-method block
// --recompute-num-layers N; the other layers keep their activations.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"
#include "published_jobs.h"

namespace napkin {
namespace {

// Llama 3 70B (80 layers) on 64 H100: TP 4, PP 8, ten layers a stage.
TrainingJob llama70() {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-70B"),
                .chip = "H100",
                .n_chips = 64,
                .seq_len = 8192,
                .global_batch = 128,
                .software = software_by_name("megatron-core-fp8")};
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

// Selective recomputation by module (Megatron's --recompute-modules).
TEST(RecomputeModules, Spelling) {
  const Layout l = at("selective:mla_up_proj+layernorm");
  EXPECT_EQ(l.recompute, Checkpointing::selective);
  EXPECT_EQ(l.recompute_modules, kRecomputeLayernorm | kRecomputeMlaUpProj);
  // Megatron's order, whatever the order given.
  EXPECT_NE(to_string(l).find(",recompute=selective:layernorm+mla_up_proj"), std::string::npos)
      << to_string(l);
  EXPECT_EQ(parse_layout(to_string(l), 64), l);
  // The attention core alone is plain selective: one spelling.
  EXPECT_EQ(at("selective:core_attn"), at("selective"));
  EXPECT_EQ(at("selective").selective_modules(), kRecomputeCoreAttn);
  EXPECT_EQ(at("full").selective_modules(), 0u);
  try {
    (void)at("selective:moe");
    FAIL() << "accepted moe";
  } catch (const std::invalid_argument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("\"moe\""), std::string::npos) << m;
    EXPECT_NE(m.find("mla_up_proj"), std::string::npos) << m;  // the accepted names
  }
  EXPECT_THROW(at("selective:"), std::invalid_argument);
  EXPECT_EQ(recompute_modules_text(parse_recompute_modules("shared_experts mlp moe_act")),
            "moe_act+mlp+shared_experts");
}

TEST(RecomputeModules, RefusedWhereTheModelHasNone) {
  const TrainingJob dense = llama70();
  for (const char* m : {"mla_up_proj", "moe_act", "shared_experts"}) {
    const auto p = layout_problem(dense, at((std::string("selective:") + m).c_str()));
    ASSERT_TRUE(p) << m;
    EXPECT_NE(p->find(m), std::string::npos) << *p;
  }
  EXPECT_FALSE(layout_problem(dense, at("selective:layernorm+mlp")));
  Layout full = at("full");
  full.recompute_modules = kRecomputeMlp;
  ASSERT_TRUE(layout_problem(dense, full));
  EXPECT_NE(layout_problem(dense, full)->find("selective recomputation only"), std::string::npos);
}

// DeepSeek-V3's layer at 4,096 tokens: each module drops what it recomputes
// from the stored activations, exactly.
TEST(RecomputeModules, EachModuleDropsItsOwnActivations) {
  const ModelShape s = testing_util::preset_shape("DeepSeek-V3");
  LayerActivationInputs in;
  in.seq_len = 4096;
  in.flash_attention = true;
  in.dropout = false;
  in.recompute = Checkpointing::selective;
  const std::int64_t base = layer_activation_bytes(s, in, true);
  auto without = [&](std::uint32_t m) {
    LayerActivationInputs x = in;
    x.recompute_modules = m;
    return base - layer_activation_bytes(s, x, true);
  };
  const std::int64_t n = 4096, H = 7168;
  // Queries and keys of 192 and values of 128 for each of 128 heads, bf16.
  EXPECT_EQ(without(kRecomputeMlaUpProj), 2 * n * 128 * (2 * 192 + 128));
  EXPECT_EQ(without(kRecomputeLayernorm), 4 * n * H);      // two norms' outputs
  EXPECT_EQ(without(kRecomputeMoeAct), 2 * n * 8 * 2048);  // the product of 8 experts' units
  EXPECT_EQ(without(kRecomputeSharedExperts), 6 * n * 2048);
  EXPECT_EQ(
      without(kRecomputeMlaUpProj | kRecomputeLayernorm | kRecomputeMoeAct),
      without(kRecomputeMlaUpProj) + without(kRecomputeLayernorm) + without(kRecomputeMoeAct));
  EXPECT_EQ(without(kRecomputeMlp), 0);  // a MoE layer has no dense MLP
}

// DeepSeek-V3 on 2,048 H800 (its paper's layout): recomputing the MLA
// up-projections costs their forward GEMMs and their FLOPs, and saves memory.
TEST(RecomputeModules, RecomputedGemmsCostTimeAndCountInHfu) {
  const TrainingJob j = testing_util::deepseek_v3_paper_job();
  Layout l = testing_util::deepseek_v3_paper_layout();
  const LayoutResult none = evaluate_layout(j, l);
  l.recompute = Checkpointing::selective;
  l.recompute_modules = kRecomputeMlaUpProj;
  const LayoutResult up = evaluate_layout(j, l);
  ASSERT_TRUE(none.valid && up.valid) << up.reason;
  EXPECT_GT(up.time.recompute_seconds, 0);
  EXPECT_LT(up.time.recompute_seconds, 0.05 * up.step_seconds);
  EXPECT_GT(up.step_seconds, none.step_seconds);
  EXPECT_LT(up.memory.activations_bytes, none.memory.activations_bytes);
  // 2 FLOPs per token per up-projection weight: 61 layers × 128 heads ×
  // (1,536 × 192 + 512 × (128 + 128)).
  const double tokens = 15360.0 * 4096;
  EXPECT_NEAR(up.recompute_flops_per_step, 2 * tokens * 61 * 128 * (1536.0 * 192 + 512.0 * 256),
              1e-9 * up.recompute_flops_per_step);
  EXPECT_GT(up.hfu, none.hfu);
}

// Megatron's uniform method (Layout::recompute_group): every layer recomputed,
// N layers to a checkpoint. The same time and FLOPs as full; one checkpoint
// per N layers of a chunk, and N layers re-materialised together.
TEST(UniformRecompute, SpellingAndRefusals) {
  const Layout l = at("uniform:4");
  EXPECT_EQ(l.recompute, Checkpointing::full);
  EXPECT_EQ(l.recompute_group, 4);
  EXPECT_EQ(l.recompute_layers, 0);
  EXPECT_EQ(recompute_text(l), "uniform:4");
  EXPECT_EQ(parse_layout(to_string(l), 64), l);
  EXPECT_EQ(at("uniform:1"), at("full"));  // one layer to a checkpoint is full
  EXPECT_EQ(parse_layout("recompute=full", 64, l).recompute_group, 1);
  for (const char* bad : {"uniform:0", "uniform:", "uniform:x", "uniform:100001"})
    EXPECT_THROW(at(bad), std::invalid_argument) << bad;
  const TrainingJob j = llama70();
  Layout mixed = at("full:3");
  mixed.recompute_group = 2;
  ASSERT_TRUE(layout_problem(j, mixed));
  EXPECT_NE(layout_problem(j, mixed)->find("uniform:2"), std::string::npos);
  Layout selective = at("selective");
  selective.recompute_group = 2;
  EXPECT_TRUE(layout_problem(j, selective));
}

TEST(UniformRecompute, FewerCheckpointsALargerWorkingSet) {
  const TrainingJob j = llama70();
  const LayoutResult full = evaluate_layout(j, at("full"));
  ASSERT_TRUE(full.valid) << full.reason;
  const parallel_detail::JobContext c = parallel_detail::make_context(j);
  const parallel_detail::LayerCost layer = parallel_detail::layer_cost(c, at("full"), false);
  const std::vector<StageMemory> full_stages = memory_by_stage(j, at("full"));
  for (std::int64_t n : {2, 5, 10, 40}) {
    const Layout l = at(("uniform:" + std::to_string(n)).c_str());
    const LayoutResult r = evaluate_layout(j, l);
    ASSERT_TRUE(r.valid) << r.reason;
    EXPECT_DOUBLE_EQ(r.step_seconds, full.step_seconds) << n;
    EXPECT_DOUBLE_EQ(r.recompute_flops_per_step, full.recompute_flops_per_step) << n;
    // A middle stage (no embedding, no loss) of L layers: in_flight ×
    // ceil(L / n) checkpoints and min(n, L) layers re-materialised, where
    // full keeps in_flight × L and one.
    const StageMemory m = memory_by_stage(j, l)[3];
    const StageMemory f = full_stages[3];
    const std::int64_t L = m.layers;
    ASSERT_GE(L, 10);
    const std::int64_t groups = (L + n - 1) / n, together = std::min<std::int64_t>(n, L);
    EXPECT_EQ(m.activations_bytes - f.activations_bytes,
              m.in_flight * (groups - L) * layer.activation_bytes +
                  (together - 1) * layer.full_activation_bytes)
        << n;
  }
}

}  // namespace
}  // namespace napkin
