// FP8 training as the frameworks run it: the scaling recipe's casts, the
// layers and the head left in bf16, and the pipeline split that counts the
// embedding and the loss.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model_presets.h"
#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

// Llama 3 70B on 64 H100 as NVIDIA's Megatron Bridge recipe runs it.
TrainingJob llama70b_fp8(const TrainingSoftware& software) {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-70B"),
                .chip = "H100",
                .n_chips = 64,
                .seq_len = 8192,
                .global_batch = 128,
                .software = software};
  return j;
}

Layout recipe_layout() {
  Layout l;
  l.tp = 4, l.pp = 8, l.vpp = 5, l.dp = 2, l.micro_batch = 1, l.zero = 1;
  l.recompute = Checkpointing::none;
  return l;
}

TEST(ParallelFp8, RecipesAreNamedAsMegatronNamesThem) {
  for (Fp8Recipe r : {Fp8Recipe::delayed, Fp8Recipe::tensorwise, Fp8Recipe::blockwise})
    EXPECT_EQ(fp8_recipe_by_name(to_string(r)), r);
  EXPECT_THROW_NAMING(fp8_recipe_by_name("mxfp4"), "fp8-recipe");
  const TrainingSoftware& mc = software_by_name("megatron-core-fp8");
  EXPECT_EQ(mc.fp8_recipe, Fp8Recipe::tensorwise);
  // The performance scripts run every transformer layer in FP8
  // (first_last_layers_bf16 = False); the training recipes' bf16 edge layers
  // stay a property a preset can set.
  EXPECT_EQ(mc.fp8_bf16_edge_layers, 0);
  EXPECT_TRUE(mc.pipeline_split_counts_edges);
  EXPECT_EQ(software_by_name("deepseek-v3").fp8_recipe, Fp8Recipe::blockwise);
  EXPECT_EQ(software_by_name("modern").fp8_recipe, Fp8Recipe::delayed);
}

TEST(ParallelFp8, CurrentScalingReadsEveryCastTensorAgain) {
  TrainingSoftware sw = software_by_name("tp-overlap");
  sw.fp8_matmuls = true;
  const LayoutResult delayed = evaluate_layout(llama70b_fp8(sw), recipe_layout());
  sw.fp8_recipe = Fp8Recipe::tensorwise;
  const LayoutResult tensorwise = evaluate_layout(llama70b_fp8(sw), recipe_layout());
  sw.fp8_recipe = Fp8Recipe::blockwise;
  const LayoutResult blockwise = evaluate_layout(llama70b_fp8(sw), recipe_layout());
  ASSERT_TRUE(delayed.valid) << delayed.reason;
  // The GEMMs are the same; the element-wise passes grow by the amax reads,
  // about 2 bytes per GEMM input and output-gradient element: for Llama 3
  // 70B at TP 4 a few per cent of the step, not a tenth.
  EXPECT_DOUBLE_EQ(tensorwise.time.kernels.gemm_seconds, delayed.time.kernels.gemm_seconds);
  EXPECT_GT(tensorwise.time.kernels.elementwise_seconds,
            1.15 * delayed.time.kernels.elementwise_seconds);
  EXPECT_GT(tensorwise.step_seconds, 1.01 * delayed.step_seconds);
  EXPECT_LT(tensorwise.step_seconds, 1.10 * delayed.step_seconds);
  // The amax of sequence-parallel inputs is reduced over the TP group.
  EXPECT_GT(tensorwise.time.tp_comm_seconds, delayed.time.tp_comm_seconds);
  // Tile-wise scales are computed where the tile is written: no extra pass.
  EXPECT_DOUBLE_EQ(blockwise.step_seconds, delayed.step_seconds);
}

TEST(ParallelFp8, TheHeadAndTheEdgeLayersStayInBf16) {
  TrainingSoftware sw = software_by_name("tp-overlap");
  sw.fp8_matmuls = true;
  Layout l = recipe_layout();
  l.pp = 1, l.vpp = 1, l.dp = 16;
  TrainingJob j = llama70b_fp8(sw);
  const LayoutResult fp8 = evaluate_layout(j, l);
  sw.fp8_bf16_edge_layers = 1;
  j.software = sw;
  const LayoutResult edges = evaluate_layout(j, l);
  j.software.fp8_matmuls = false;
  j.software.fp8_bf16_edge_layers = 0;
  const LayoutResult bf16 = evaluate_layout(j, l);
  ASSERT_TRUE(fp8.valid && edges.valid && bf16.valid);
  // Two of 80 layers in bf16: their GEMMs take the bf16 time, so the GEMM
  // time grows by 2/80 of the difference between the two precisions' layers.
  const double head_gemm_share = 0.1;  // bounds the unembedding's GEMMs
  const double layer_gap = (bf16.time.kernels.gemm_seconds - fp8.time.kernels.gemm_seconds) / 80.0;
  const double grown = edges.time.kernels.gemm_seconds - fp8.time.kernels.gemm_seconds;
  EXPECT_GT(grown, 2 * layer_gap * (1 - head_gemm_share));
  EXPECT_LT(grown, 2 * layer_gap * (1 + head_gemm_share));
  // FP8 makes the layers faster, never the head.
  EXPECT_LT(fp8.step_seconds, edges.step_seconds);
  EXPECT_LT(edges.step_seconds, bf16.step_seconds);
  j.software.fp8_matmuls = true;
  j.software.fp8_bf16_edge_layers = 41;
  EXPECT_THROW_NAMING(evaluate_layout(j, l), "fp8_bf16_edge_layers");
}

TEST(ParallelFp8, CountingTheEdgesLightensTheFirstAndLastChunk) {
  TrainingSoftware sw = software_by_name("megatron-core-fp8");
  const Layout l = recipe_layout();
  const std::vector<StageMemory> counted = memory_by_stage(llama70b_fp8(sw), l);
  sw.pipeline_split_counts_edges = false;
  const std::vector<StageMemory> even = memory_by_stage(llama70b_fp8(sw), l);
  ASSERT_EQ(counted.size(), 8u);
  for (const StageMemory& m : even) EXPECT_EQ(m.layers, 10);
  // 80 layers + embedding + loss in 40 chunks: the first and last chunk give
  // up their layer to the middle, as the recipe's explicit layout does.
  EXPECT_EQ(counted.front().layers, 9);
  EXPECT_EQ(counted.back().layers, 9);
  std::int64_t total = 0;
  for (const StageMemory& m : counted) total += m.layers;
  EXPECT_EQ(total, 80);
  // The last stage no longer carries the head on top of a full share.
  const LayoutResult a = evaluate_layout(llama70b_fp8(software_by_name("megatron-core-fp8")), l);
  const LayoutResult b = evaluate_layout(llama70b_fp8(sw), l);
  EXPECT_LT(a.step_seconds, b.step_seconds);
}

TEST(ParallelFp8, GemmInputsAreKeptInFp8ForTheBackward) {
  TrainingSoftware sw = software_by_name("megatron-core-fp8");
  const Layout l = recipe_layout();
  const LayoutResult fp8 = evaluate_layout(llama70b_fp8(sw), l);
  sw.fp8_matmuls = false;
  const LayoutResult bf16 = evaluate_layout(llama70b_fp8(sw), l);
  ASSERT_TRUE(fp8.valid && bf16.valid);
  // QKV's, FC1's and FC2's saved inputs at 1 byte: a tenth to a quarter of a
  // Llama 3 70B layer's activations at TP 4 with sequence parallelism.
  const double ratio = static_cast<double>(fp8.memory.activations_bytes) /
                       static_cast<double>(bf16.memory.activations_bytes);
  EXPECT_GT(ratio, 0.72);
  EXPECT_LT(ratio, 0.90);
  // NVIDIA ran this layout without recomputation on 80 GB H100s.
  EXPECT_TRUE(fp8.fits) << fp8.reason;
  // Full recomputation keeps only each layer's input: only the working set of
  // the layer being recomputed shrinks.
  Layout full = l;
  full.recompute = Checkpointing::full;
  sw.fp8_matmuls = true;
  const LayoutResult a = evaluate_layout(llama70b_fp8(sw), full);
  sw.fp8_matmuls = false;
  const LayoutResult b = evaluate_layout(llama70b_fp8(sw), full);
  EXPECT_LT(a.memory.activations_bytes, b.memory.activations_bytes);
  EXPECT_GT(static_cast<double>(a.memory.activations_bytes),
            0.9 * static_cast<double>(b.memory.activations_bytes));
}

// A recomputed MLP keeps no FP8 copy of FC1's input (its checkpoint is the
// bf16 input) and no FP8 copy of FC2's: of the GEMM inputs FP8 saves without
// recomputation, only QKV's is left.
TEST(ParallelFp8, ARecomputedMlpKeepsNoFp8Copies) {
  TrainingSoftware sw = software_by_name("megatron-core-fp8");
  Layout l = recipe_layout();
  l.recompute = Checkpointing::selective;
  auto layer_bytes = [&](bool fp8, std::uint32_t modules) {
    sw.fp8_matmuls = fp8;
    Layout x = l;
    x.recompute_modules = modules;
    const TrainingJob job = llama70b_fp8(sw);  // the context points at it
    const parallel_detail::JobContext c = parallel_detail::make_context(job);
    return parallel_detail::layer_cost(c, x, false).activation_bytes;
  };
  const std::int64_t core = kRecomputeCoreAttn, mlp = kRecomputeCoreAttn | kRecomputeMlp;
  const std::int64_t saved_core = layer_bytes(false, core) - layer_bytes(true, core);
  const std::int64_t saved_mlp = layer_bytes(false, mlp) - layer_bytes(true, mlp);
  // 8,192 tokens at TP 4: the MLP's norm output (sequence-parallel, 2,048 ×
  // 8,192) and the activation's output (8,192 × 28,672 / 4), one byte each.
  const std::int64_t norm_out = 2048LL * 8192, act_out = 8192LL * 28672 / 4;
  EXPECT_EQ(saved_core - saved_mlp, norm_out + act_out);
  // What is left, QKV's input at one byte, is what the output projection's
  // FP8 copy of the attention output (2,048 of 8,192 wide on this rank) adds.
  EXPECT_EQ(saved_mlp, 0);
}

TEST(ParallelFp8, MemoryBoundGemmsMoveOneBytePerOperand) {
  // 16 tokens per micro-batch: every weight GEMM of a Llama 3 70B layer at
  // TP 4 is bound by its memory traffic. Forward and input-gradient GEMMs
  // read a weight-sized operand, which FP8 halves (1-byte x, w and dy; bf16
  // output); weight-gradient GEMMs are bound by accumulating into the fp32
  // gradient, which FP8 does not change. Together well below the bf16 time;
  // with 2-byte FP8 operands the two took the same time.
  TrainingSoftware sw = software_by_name("tp-overlap");
  sw.fp8_matmuls = true;
  TrainingJob j = llama70b_fp8(sw);
  j.seq_len = 16;
  j.global_batch = 16;
  Layout l = recipe_layout();
  l.pp = 1, l.vpp = 1, l.dp = 16;
  const LayoutResult fp8 = evaluate_layout(j, l);
  j.software.fp8_matmuls = false;
  const LayoutResult bf16 = evaluate_layout(j, l);
  ASSERT_TRUE(fp8.valid && bf16.valid) << fp8.reason << bf16.reason;
  const double ratio = fp8.time.kernels.gemm_seconds / bf16.time.kernels.gemm_seconds;
  EXPECT_GT(ratio, 0.75);
  EXPECT_LT(ratio, 0.92);
}

TEST(ParallelFp8, TheMoeRouterStaysInBf16) {
  // Megatron-Core's router is a plain torch linear outside Transformer
  // Engine (router.py, TopKRouter.gating), so FP8 training runs it in bf16.
  // Slowing the bf16 GEMM rate a hundredfold must slow an FP8 MoE layer (its
  // router) and leave an FP8 dense layer alone.
  TrainingSoftware sw = software_by_name("tp-overlap");
  sw.fp8_matmuls = true;
  TrainingJob j{.shape = testing_util::preset_shape("Mixtral-8x7B"),
                .chip = "H100",
                .n_chips = 64,
                .seq_len = 4096,
                .global_batch = 64,
                .software = sw};
  Layout l;
  l.tp = 2, l.pp = 4, l.ep = 8, l.dp = 8, l.micro_batch = 1;
  parallel_detail::JobContext c = parallel_detail::make_context(j);
  const parallel_detail::LayerCost moe = parallel_detail::layer_cost(c, l, true);
  const parallel_detail::LayerCost dense = parallel_detail::layer_cost(c, l, false);
  c.bf16_rates.matmul_flops_per_s /= 100;
  const parallel_detail::LayerCost moe_slow = parallel_detail::layer_cost(c, l, true);
  const parallel_detail::LayerCost dense_slow = parallel_detail::layer_cost(c, l, false);
  EXPECT_GT(moe_slow.fwd_mix.gemm_seconds, 1.01 * moe.fwd_mix.gemm_seconds);
  EXPECT_GT(moe_slow.wgrad, moe.wgrad);
  EXPECT_DOUBLE_EQ(dense_slow.fwd_mix.gemm_seconds, dense.fwd_mix.gemm_seconds);
}

}  // namespace
}  // namespace napkin
