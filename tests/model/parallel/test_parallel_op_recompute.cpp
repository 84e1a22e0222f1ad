// torchtitan's op-level selective checkpointing (recompute=selective:op,
// kRecomputeOp): every second matmul's output recomputed in each block (the
// keys, the output projection, the MLP's up projection), the queries, values,
// attention output, gate and down projections kept (torchtitan's
// parallelize_llama.py, _save_list and _custom_policy).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "parallel.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

// Llama 3 8B on 8 A100s with FSDP (ZeRO-3), torchtitan eager.
TrainingJob titan_llama8(const char* software = "fsdp") {
  return TrainingJob{.shape = testing_util::preset_shape("Llama-3-8B"),
                     .chip = "A100-80",
                     .n_chips = 8,
                     .seq_len = 8192,
                     .global_batch = 8,
                     .software = software_by_name(software)};
}

Layout titan_layout(const char* recompute, const char* tp = "1") {
  const std::string dp = std::string(tp) == "1" ? "8" : "1";
  return parse_layout(std::string("tp=") + tp + ",pp=1,vpp=1,cp=1,dp=" + dp +
                          ",zero=3,mb=1,sp=on,recompute=" + recompute,
                      8);
}

TEST(OpRecompute, SpellingAndRoundTrip) {
  const Layout l = titan_layout("selective:op");
  EXPECT_EQ(l.recompute, Checkpointing::selective);
  EXPECT_EQ(l.recompute_modules, kRecomputeOp);
  EXPECT_EQ(recompute_text(l), "selective:op");
  EXPECT_EQ(parse_layout(to_string(l), 8), l);
}

// Per token and layer at TP 1 it keeps, in bf16: the block's input, the
// queries (4,096), the values (1,024), the attention's output (4,096), the
// gate projection (14,336) and the down projection (4,096): 31,744 elements,
// plus the fp32 log-sum-exp of 32 heads: 63,616 bytes a token.
TEST(OpRecompute, KeepsTheSaveListsOutputs) {
  LayerActivationInputs in;
  in.seq_len = 8192;
  in.micro_batch = 1;
  in.recompute = Checkpointing::selective;
  in.recompute_modules = kRecomputeOp;
  in.flash_attention = true;
  in.dropout = false;
  const ModelShape s = testing_util::preset_shape("Llama-3-8B");
  EXPECT_EQ(layer_activation_bytes(s, in), std::int64_t{63'616} * 8192);
  // With TP 8 and sequence parallelism: the input and the two
  // reduce-scatters' outputs as sequence shards, the projections split, the
  // down projection's partial sum whole.
  in.tp = 8;
  in.sequence_parallel = true;
  const std::int64_t per_token =
      2 * (4096 / 8 + 512 + 128 + 512 + 14336 / 8 + 4096 + 2 * 4096 / 8) + 4 * 4;
  EXPECT_EQ(layer_activation_bytes(s, in), per_token * 8192);
}

// Between no checkpointing and full: it keeps less than the first and more
// than the second, and its step is slower than the first's and faster than
// the second's; its recomputed FLOPs are the keys', the output projection's
// and one MLP matmul's forward.
TEST(OpRecompute, CostsBetweenNoneAndFull) {
  for (const char* tp : {"1", "8"}) {
    const TrainingJob j = titan_llama8();
    const LayoutResult none = evaluate_layout(j, titan_layout("none", tp));
    const LayoutResult op = evaluate_layout(j, titan_layout("selective:op", tp));
    const LayoutResult full = evaluate_layout(j, titan_layout("full", tp));
    ASSERT_TRUE(none.valid && op.valid && full.valid) << op.reason;
    EXPECT_LT(op.memory.activations_bytes, none.memory.activations_bytes) << tp;
    EXPECT_GT(op.memory.activations_bytes, full.memory.activations_bytes) << tp;
    EXPECT_GT(op.step_seconds, none.step_seconds) << tp;
    EXPECT_LT(op.step_seconds, full.step_seconds) << tp;
    EXPECT_GT(op.time.recompute_seconds, 0) << tp;
    const ModelShape& s = j.shape;
    const double tokens = 8.0 * 8192;
    const double weights = static_cast<double>(s.n_layers * s.d_model) *
                           static_cast<double>((s.n_kv_heads + s.n_heads) * s.d_head + s.d_ff);
    EXPECT_NEAR(op.recompute_flops_per_step, 2 * tokens * weights,
                1e-9 * op.recompute_flops_per_step)
        << tp;
  }
}

// Priced for dense blocks with separate Q, K and V projections, in bf16,
// alone: MoE, MLA, FP8 GEMMs and other modules beside it are refused with the
// reason.
TEST(OpRecompute, RefusedWhereItIsNotPriced) {
  TrainingJob moe = titan_llama8();
  moe.shape = testing_util::preset_shape("Mixtral-8x7B");
  const Layout op = titan_layout("selective:op");
  ASSERT_TRUE(layout_problem(moe, op));
  EXPECT_NE(layout_problem(moe, op)->find("dense blocks"), std::string::npos);
  const Layout both = titan_layout("selective:op+layernorm");
  ASSERT_TRUE(layout_problem(titan_llama8(), both));
  EXPECT_NE(layout_problem(titan_llama8(), both)->find("stands alone"), std::string::npos);
  EXPECT_FALSE(layout_problem(titan_llama8(), op));
}

// torchao's Float8 linears call aten.mm on Float8 tensors; the policy's
// dispatch mode sees it before the tensors' own dispatch turns it into
// _scaled_mm, so the policy keeps the same bf16 outputs as without Float8
// (torchao keeps the bf16 input too), and the matmuls it recomputes run in FP8.
TEST(OpRecompute, Float8KeepsWhatBf16Keeps) {
  const Layout op = titan_layout("selective:op");
  TrainingJob bf16 = titan_llama8();
  bf16.chip = "H100";
  TrainingJob fp8 = bf16;
  fp8.software.fp8_matmuls = true;
  fp8.software.fp8_recipe = Fp8Recipe::tensorwise;
  ASSERT_FALSE(layout_problem(fp8, op));
  const LayoutResult a = evaluate_layout(bf16, op), b = evaluate_layout(fp8, op);
  EXPECT_EQ(b.memory.activations_bytes, a.memory.activations_bytes);
  EXPECT_LT(b.step_seconds, a.step_seconds);
  EXPECT_GT(b.step_seconds, 0.5 * a.step_seconds);
}

// Each framework runs its own selective checkpointing only: Megatron has no
// op-level policy, torchtitan no module list (its selective is by op or by
// layer, full:N). Refused with the framework's name and what it runs.
TEST(OpRecompute, EachFrameworkRunsItsOwnSelective) {
  const Layout op = titan_layout("selective:op");
  for (const char* megatron : {"modern", "tp-overlap"}) {
    const auto why = layout_problem(titan_llama8(megatron), op);
    ASSERT_TRUE(why) << megatron;
    EXPECT_NE(why->find("torchtitan's op-level policy"), std::string::npos) << *why;
    EXPECT_NE(why->find(std::string(titan_llama8(megatron).software.framework)), std::string::npos)
        << *why;
    EXPECT_FALSE(layout_problem(titan_llama8(megatron), titan_layout("selective"))) << megatron;
    EXPECT_FALSE(layout_problem(titan_llama8(megatron), titan_layout("selective:mlp")));
  }
  for (const char* titan : {"fsdp", "fsdp-compile"}) {
    for (const char* modules : {"selective", "selective:mlp+layernorm"}) {
      const auto why = layout_problem(titan_llama8(titan), titan_layout(modules));
      ASSERT_TRUE(why) << titan << " " << modules;
      EXPECT_EQ(why->rfind("recompute=selective", 0), 0u) << *why;
      EXPECT_NE(why->find("not by module"), std::string::npos) << *why;
    }
    EXPECT_FALSE(layout_problem(titan_llama8(titan), op)) << titan;
    EXPECT_FALSE(layout_problem(titan_llama8(titan), titan_layout("full:4"))) << titan;
  }
}

}  // namespace
}  // namespace napkin

namespace napkin {
namespace {

// torchtitan's selective is its op-level policy: under the fsdp presets a
// search's selective candidates (and a lock on selective) are
// recompute=selective:op; under Megatron's software they stay the attention
// core, and named modules win over both.
TEST(OpRecompute, TorchtitansSearchedSelectiveIsTheOpPolicy) {
  SearchOptions opt;
  opt.recompute = Checkpointing::selective;
  opt.micro_batch = 1;
  for (const char* software : {"fsdp", "fsdp-compile", "modern"}) {
    const SearchResult r = search_layouts(titan_llama8(software), opt);
    ASSERT_FALSE(r.layouts.empty()) << software;
    const bool torchtitan = std::string(software) != "modern";
    for (const LayoutResult& l : r.layouts)
      EXPECT_EQ(l.layout.recompute_modules, torchtitan ? kRecomputeOp : 0u) << software;
  }
  opt.recompute_modules = kRecomputeLayernorm;
  for (const LayoutResult& l : search_layouts(titan_llama8("fsdp"), opt).layouts)
    EXPECT_EQ(l.layout.recompute_modules, kRecomputeLayernorm);
  // Unlocked, the torchtitan search tries the op-level policy beside none and full.
  SearchOptions open;
  open.micro_batch = 1;
  const SearchResult all = search_layouts(titan_llama8("fsdp"), open);
  EXPECT_TRUE(std::any_of(all.layouts.begin(), all.layouts.end(), [](const LayoutResult& l) {
    return l.layout.recompute_modules == kRecomputeOp;
  }));
}

}  // namespace
}  // namespace napkin
