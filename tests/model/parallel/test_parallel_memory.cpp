#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "hardware.h"
#include "model_presets.h"
#include "parallel.h"
#include "parallel_software.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

struct GptCase {
  const char* name;
  std::int64_t layers, h, a, t;
};
// The four GPT shapes of Korthikanti et al. Table 3, s = 2048, TP = 8.
constexpr GptCase kGpt[] = {
    {"22B", 48, 6144, 64, 8},
    {"175B", 96, 12288, 96, 8},
    {"530B", 105, 20480, 128, 8},
    {"1T", 128, 25600, 160, 8},
};

TEST(ParallelMemory, KorthikantiEquationsFor175B) {
  // GPT-3 175B, s = 2048, b = 1, h = 12288, a = 96: sbh = 25,165,824 and
  // 5as²b = 2,013,265,920 bytes (softmax, dropout mask, dropout output).
  const std::int64_t s = 2048, b = 1, h = 12288, a = 96;
  auto k = [&](std::int64_t t, bool sp, Checkpointing r) {
    return korthikanti_layer_activation_bytes(s, b, h, a, t, sp, r);
  };
  EXPECT_EQ(k(1, false, Checkpointing::none), 2'868'903'936);     // sbh(34 + 5as/h)
  EXPECT_EQ(k(8, false, Checkpointing::none), 578'813'952);       // sbh(10 + 24/t + 5as/ht)
  EXPECT_EQ(k(8, true, Checkpointing::none), 358'612'992);        // sbh/t (34 + 5as/h)
  EXPECT_EQ(k(8, false, Checkpointing::selective), 327'155'712);  // sbh(10 + 24/t)
  EXPECT_EQ(k(8, true, Checkpointing::selective), 106'954'752);   // 34 sbh/t
  EXPECT_EQ(k(8, false, Checkpointing::full), 50'331'648);        // 2sbh
  EXPECT_EQ(k(8, true, Checkpointing::full), 6'291'456);          // 2sbh/t
}

TEST(ParallelMemory, TermByTermAccountingReproducesKorthikantiForEveryGptShape) {
  for (const GptCase& g : kGpt) {
    const ModelShape shape = gpt_shape(g.layers, g.h, g.a);
    for (std::int64_t b : {1, 4})
      for (std::int64_t t : {1, 2, 8})
        for (bool sp : {false, true})
          for (Checkpointing r :
               {Checkpointing::none, Checkpointing::selective, Checkpointing::full}) {
            LayerActivationInputs in;
            in.seq_len = 2048;
            in.micro_batch = b;
            in.tp = t;
            in.sequence_parallel = sp;
            in.recompute = r;
            in.flash_attention = false;
            in.dropout = true;
            EXPECT_EQ(layer_activation_bytes(shape, in),
                      korthikanti_layer_activation_bytes(2048, b, g.h, g.a, t, sp, r))
                << g.name << " b=" << b << " t=" << t << " sp=" << sp << " r=" << to_string(r);
          }
  }
}

TEST(ParallelMemory, ModernLayersKeepLess) {
  // Llama-3-70B: GQA, SwiGLU, FlashAttention, no dropout, s = 8192, TP = 8 + SP.
  const ModelShape s = testing_util::preset_shape("Llama-3-70B");
  LayerActivationInputs in;
  in.seq_len = 8192;
  in.tp = 8;
  in.sequence_parallel = true;
  in.flash_attention = true;
  in.dropout = false;
  const std::int64_t n = 8192, H = 8192;
  // Replicated 8nH/t; Q and the output-projection input 2·2n·(64/8)·128; K, V
  // with one KV head per rank 2·2n·128; fp32 log-sum-exp 4n·8; SwiGLU 6n·28672/8.
  const std::int64_t expected =
      8 * n * H / 8 + 2 * n * (2 * 8 + 2 * 1) * 128 + 4 * n * 8 + 6 * n * (28672 / 8);
  EXPECT_EQ(layer_activation_bytes(s, in), expected);
  // Selective recomputation has nothing to drop with FlashAttention.
  LayerActivationInputs sel = in;
  sel.recompute = Checkpointing::selective;
  EXPECT_EQ(layer_activation_bytes(s, sel), layer_activation_bytes(s, in));
  // The unfused kernel keeps the s×s scores: far more.
  LayerActivationInputs unfused = in;
  unfused.flash_attention = false;
  EXPECT_GT(layer_activation_bytes(s, unfused), 2 * layer_activation_bytes(s, in));
  // Context parallelism divides the tokens.
  LayerActivationInputs cp = in;
  cp.cp = 4;
  EXPECT_EQ(layer_activation_bytes(s, cp) * 4, layer_activation_bytes(s, in));
}

TEST(ParallelMemory, MoeLayersKeepTheRoutedTokens) {
  const ModelShape s = testing_util::preset_shape("Mixtral-8x7B");  // top-2 of 8
  LayerActivationInputs in;
  in.seq_len = 4096;
  in.flash_attention = true;
  in.dropout = false;
  const std::int64_t dense = layer_activation_bytes(s, in, false);
  const std::int64_t moe = layer_activation_bytes(s, in, true);
  EXPECT_GT(moe, dense);  // two experts per token plus the permuted copies
  in.moe_load_imbalance = 1.5;
  EXPECT_GT(layer_activation_bytes(s, in, true), moe);
}

TEST(ParallelMemory, RoutingWeightsInsideTheExpertsKeepNoExpertOutputs) {
  // Megatron Core since April 2025 weights the experts' activation and
  // unpermutes unweighted: the expert outputs (2 bytes per routed copy and
  // hidden unit) are not kept. Mixtral: 4,096 tokens × top-2 × 4,096 × 2.
  const ModelShape s = testing_util::preset_shape("Mixtral-8x7B");
  LayerActivationInputs in;
  in.seq_len = 4096;
  in.flash_attention = true;
  in.dropout = false;
  const std::int64_t kept = layer_activation_bytes(s, in, true);
  in.moe_combine_keeps_outputs = false;
  EXPECT_EQ(kept - layer_activation_bytes(s, in, true), 4096LL * 2 * 4096 * 2);

  // The presets: Megatron Core's (modern and its FP8 recipe) and DeepSeek-V3's
  // (DeepEP hands the weights to the experts' side) weight inside;
  // torchtitan's keeps the tensor the weights multiply.
  EXPECT_TRUE(software_by_name("modern").moe_probs_in_activation);
  EXPECT_TRUE(software_by_name("megatron-core-fp8").moe_probs_in_activation);
  EXPECT_FALSE(software_by_name("fsdp").moe_probs_in_activation);
  EXPECT_TRUE(software_by_name("deepseek-v3").moe_probs_in_activation);
  EXPECT_FALSE(software_by_name("megatron-2022").moe_probs_in_activation);
  TrainingJob j{.shape = s, .n_chips = 8, .seq_len = 4096, .global_batch = 8};
  Layout l;
  l.ep = 8, l.dp = 8, l.zero = 1, l.recompute = Checkpointing::none;
  const LayoutResult modern = evaluate_layout(j, l);
  j.software.moe_probs_in_activation = false;
  const LayoutResult weighted_combine = evaluate_layout(j, l);
  ASSERT_TRUE(modern.valid) << modern.reason;
  EXPECT_LT(modern.memory.activations_bytes, weighted_combine.memory.activations_bytes);
  EXPECT_DOUBLE_EQ(modern.step_seconds, weighted_combine.step_seconds);
}

TEST(ParallelMemory, AnFp8ActivationInputKeepsAByteAHiddenUnitLess) {
  // The SwiGLU's input (gate and up outputs) kept in FP8 for its backward:
  // 2 bytes per hidden unit fewer in a dense MLP, in every routed copy's
  // experts (with their activation recomputed too) and in a shared expert.
  LayerActivationInputs in;
  in.seq_len = 4096;
  in.flash_attention = true;
  in.dropout = false;
  const ModelShape dense = testing_util::preset_shape("Llama-3-8B");
  LayerActivationInputs fp8 = in;
  fp8.fp8_activation_input = true;
  EXPECT_EQ(layer_activation_bytes(dense, in) - layer_activation_bytes(dense, fp8),
            2LL * 4096 * dense.d_ff);
  const ModelShape moe = testing_util::preset_shape("Mixtral-8x7B");  // top-2, no shared expert
  in.recompute = fp8.recompute = Checkpointing::selective;
  in.recompute_modules = fp8.recompute_modules = kRecomputeMoeAct;
  EXPECT_EQ(layer_activation_bytes(moe, in, true) - layer_activation_bytes(moe, fp8, true),
            2LL * 4096 * 2 * moe.effective_expert_d_ff());
  EXPECT_TRUE(software_by_name("deepseek-v3").fp8_activation_input);         // its report, §3.3.3
  EXPECT_FALSE(software_by_name("megatron-core-fp8").fp8_activation_input);  // opt-in there
}

TEST(ParallelMemory, StageLayers) {
  EXPECT_EQ(stage_layers(96, 8), std::vector<std::int64_t>(8, 12));
  // Llama 3 405B: 126 layers on 16 stages, one fewer on the first and last.
  std::vector<std::int64_t> l3(16, 8);
  l3.front() = 7;
  l3.back() = 7;
  EXPECT_EQ(stage_layers(126, 16), l3);
  EXPECT_EQ(stage_layers(5, 1), std::vector<std::int64_t>{5});
  const std::vector<std::int64_t> odd = stage_layers(10, 4);  // 2, 3, 3, 2
  EXPECT_EQ(odd, (std::vector<std::int64_t>{2, 3, 3, 2}));
  EXPECT_THROW_NAMING(stage_layers(10, 11), "pp");
  // The planner's stages carry the same counts.
  TrainingJob j{
      .shape = testing_util::preset_shape("Llama-3.1-405B"), .n_chips = 16 * 8, .global_batch = 16};
  Layout l;
  l.tp = 8, l.pp = 16, l.dp = 1;
  const std::vector<StageMemory> m = memory_by_stage(j, l);
  for (std::size_t i = 0; i < m.size(); ++i) EXPECT_EQ(m[i].layers, l3[i]);
}

TrainingJob gpt_job(const GptCase& g, std::int64_t chips, std::int64_t batch) {
  TrainingJob j{.shape = gpt_shape(g.layers, g.h, g.a),
                .chip = "A100-80",
                .n_chips = chips,
                .seq_len = 2048,
                .global_batch = batch,
                .software = software_by_name("megatron-2022")};
  return j;
}

TEST(ParallelMemory, FirstStageHoldsKorthikantisInterleavedFactor) {
  // 175B on 64 GPUs, TP 8, PP 8, v = 3, SP + selective: the first stage holds
  // 34·sbh/t · L · (1 + (p − 1)/(p·v)) of layer activations (Korthikanti §4.2.3),
  // plus the embedding's dropout masks of its in-flight micro-batches.
  const TrainingJob j = gpt_job(kGpt[1], 64, 64);
  Layout l;
  l.tp = 8, l.pp = 8, l.vpp = 3, l.dp = 1, l.zero = 0, l.micro_batch = 1;
  l.sequence_parallel = true;
  l.recompute = Checkpointing::selective;
  const std::vector<StageMemory> m = memory_by_stage(j, l);
  ASSERT_EQ(m.size(), 8u);
  const std::int64_t per_layer =
      korthikanti_layer_activation_bytes(2048, 1, 12288, 96, 8, true, Checkpointing::selective);
  const std::int64_t chunks = 2 * 7 + 2 * 8 + 1;  // in flight on stage 0: pv + p − 1
  EXPECT_EQ(m[0].in_flight, chunks);
  const std::int64_t layers = per_layer * 96 * chunks / (8 * 3);
  EXPECT_EQ(layers, per_layer * 96 * (8 * 3 + 8 - 1) / (8 * 3));  // L·(1 + (p−1)/(pv))
  // The embedding is in chunk 0, which Megatron's schedule fills first: p
  // micro-batches, then p − 1 more before the first backward (15 of the 31).
  const std::int64_t embedding_masks = (8 + 7) * (2048 * 12288 / 8);
  EXPECT_EQ(m[0].activations_bytes, layers + embedding_masks);
  // Later stages hold fewer micro-batches.
  for (std::size_t i = 1; i + 1 < m.size(); ++i) EXPECT_LT(m[i].in_flight, m[i - 1].in_flight);
}

TEST(ParallelMemory, InterleavedStagesCountEachChunksOwnLayers) {
  // Llama 3 405B, 126 layers in 16 stages × 8 chunks with the embedding and the
  // loss counted as layers: stage 0's first chunk holds only the embedding. Of
  // its 2·15 + 7·16 + 1 = 143 chunks in flight, 31 are that chunk (16, then 15
  // more before the first backward) and 112 hold one layer each; stage 1 holds
  // 141 one-layer chunks. Averaging stage 0's 7 layers over its 8 chunks would
  // count 143 · 7/8 = 125 layers.
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3.1-405B"),
                .chip = "H100",
                .n_chips = 8192,
                .seq_len = 8192,
                .global_batch = 2048,
                .software = software_by_name("llama3")};
  Layout l;
  l.tp = 8, l.pp = 16, l.vpp = 8, l.dp = 64, l.zero = 2;
  l.sequence_parallel = true;
  l.recompute = Checkpointing::none;
  const std::vector<StageMemory> m = memory_by_stage(j, l);
  EXPECT_EQ(m[0].in_flight, 143);
  EXPECT_EQ(m[1].in_flight, 141);
  EXPECT_EQ(m[0].layers, 7);
  EXPECT_EQ(m[1].layers, 8);
  // No dropout: the embedding keeps nothing, so the two differ by 112 : 141.
  EXPECT_EQ(m[0].activations_bytes * 141, m[1].activations_bytes * 112);
}

TEST(ParallelMemory, OneF1BStageIHoldsPMinusIMicroBatches) {
  const TrainingJob j = gpt_job(kGpt[3], 512, 512);
  Layout l;
  l.tp = 8, l.pp = 64, l.dp = 1, l.zero = 0, l.micro_batch = 1;
  const std::vector<StageMemory> m = memory_by_stage(j, l);
  for (std::int64_t i = 0; i < 64; ++i) EXPECT_EQ(m[static_cast<std::size_t>(i)].in_flight, 64 - i);
  // Fewer micro-batches than stages: nobody holds more than m.
  TrainingJob small = j;
  small.global_batch = 16;
  for (const StageMemory& s : memory_by_stage(small, l)) EXPECT_LE(s.in_flight, 16);
}

TEST(ParallelMemory, MoreTensorOrPipelineParallelismNeverRaisesWeights) {
  for (const ModelPreset& p : model_presets()) {
    TrainingJob j{.shape = p.shape, .n_chips = 1024, .seq_len = 4096, .global_batch = 1024};
    auto max_weights = [&](std::int64_t tp, std::int64_t pp) {
      Layout l;
      l.tp = tp, l.pp = pp, l.dp = 1024 / (tp * pp), l.zero = 1;
      if (layout_problem(j, l)) return std::int64_t{-1};
      std::int64_t w = 0;
      for (const StageMemory& s : memory_by_stage(j, l)) w = std::max(w, s.weights_bytes);
      return w;
    };
    for (std::int64_t pp : {1, 2, 4, 8}) {
      if (p.shape.n_layers < pp) continue;
      std::int64_t prev = max_weights(1, pp);
      for (std::int64_t tp : {2, 4, 8}) {
        const std::int64_t w = max_weights(tp, pp);
        if (w < 0) continue;  // tp does not divide this shape
        EXPECT_LE(w, prev) << p.name << " tp " << tp << " pp " << pp;
        prev = w;
      }
    }
    for (std::int64_t tp : {1, 8}) {
      std::int64_t prev = max_weights(tp, 1);
      if (prev < 0) continue;
      for (std::int64_t pp : {2, 4, 8, 16}) {
        if (p.shape.n_layers < pp) continue;
        const std::int64_t w = max_weights(tp, pp);
        if (w < 0) continue;
        EXPECT_LE(w, prev) << p.name << " tp " << tp << " pp " << pp;
        prev = w;
      }
    }
  }
}

TEST(ParallelMemory, ZeroThreeNeverHoldsMoreStateThanZeroOne) {
  for (const ModelPreset& p : model_presets()) {
    TrainingJob j{.shape = p.shape, .n_chips = 256, .global_batch = 256};
    for (std::int64_t dp : {1, 4, 32}) {
      Layout l;
      l.tp = 8, l.pp = 256 / (8 * dp), l.dp = dp;
      if (layout_problem(j, l)) continue;
      auto state = [&](int zero) {
        l.zero = zero;
        std::vector<std::int64_t> out;
        for (const StageMemory& s : memory_by_stage(j, l))
          out.push_back(s.weights_bytes + s.grads_bytes + s.optimizer_bytes);
        return out;
      };
      const auto z0 = state(0), z1 = state(1), z2 = state(2), z3 = state(3);
      for (std::size_t i = 0; i < z1.size(); ++i) {
        EXPECT_LE(z1[i], z0[i]) << p.name;
        EXPECT_LE(z2[i], z1[i]) << p.name;
        EXPECT_LE(z3[i], z1[i]) << p.name << " dp " << dp;
        if (dp == 1) {
          EXPECT_EQ(z3[i], z0[i]);  // nothing to shard over
        }
      }
    }
  }
}

TEST(ParallelMemory, StateBytesPerParameter) {
  // Dense 1-stage, 1-rank: bf16 weights 2 + fp32 gradients 4 + Adam 12 = 18
  // bytes per parameter (Megatron's mixed precision); bf16 gradients: 16.
  TrainingJob j{.shape = testing_util::preset_shape("Llama-2-7B"),
                .n_chips = 1,
                .seq_len = 4096,
                .global_batch = 1};
  Layout l;
  l.zero = 0;
  const StageMemory m = memory_by_stage(j, l)[0];
  const std::int64_t n = count_params(j.shape).total;
  EXPECT_EQ(m.weights_bytes, 2 * n);
  EXPECT_EQ(m.grads_bytes, 4 * n);
  EXPECT_EQ(m.optimizer_bytes, 12 * n);
  j.software.fp32_grads = false;
  EXPECT_EQ(memory_by_stage(j, l)[0].grads_bytes, 2 * n);
  EXPECT_EQ(m.total_bytes, m.weights_bytes + m.grads_bytes + m.optimizer_bytes +
                               m.activations_bytes + m.buffers_bytes + m.non_tensor_bytes());
}

// Memory outside the tensors, item by item (the sources are in
// parallel_memory.cpp): the CUDA context and kernels, NCCL's buffers for each
// communicator the layout moves data over, the allocator's fragmentation.
TEST(ParallelMemory, NonTensorMemoryIsItemised) {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-70B"),
                .n_chips = 256,
                .seq_len = 4096,
                .global_batch = 256};
  Layout l;
  l.tp = 8, l.pp = 4, l.dp = 8;
  const StageMemory m = memory_by_stage(j, l)[0];
  EXPECT_EQ(m.runtime_bytes, 666'632'192);  // eager module loading, PyTorch PR #86509
  EXPECT_EQ(m.communicators, 3);            // TP, DP, PP
  EXPECT_EQ(m.comm_buffers_bytes, 3 * 688'000'000);
  const std::int64_t tensors =
      m.weights_bytes + m.grads_bytes + m.optimizer_bytes + m.activations_bytes + m.buffers_bytes;
  EXPECT_NEAR(static_cast<double>(m.fragmentation_bytes), 0.015 * static_cast<double>(tensors),
              1.0);
  EXPECT_FALSE(m.non_tensor_measured);
  // A 2-rank group keeps smaller buffers; a single rank none.
  l.tp = 2, l.pp = 1, l.dp = 128;
  const StageMemory two = memory_by_stage(j, l)[0];
  EXPECT_EQ(two.communicators, 2);
  EXPECT_EQ(two.comm_buffers_bytes, 544'000'000 + 688'000'000);
  j.n_chips = 1, j.global_batch = 1;
  l.tp = 1, l.dp = 1;
  j.shape = testing_util::preset_shape("Llama-2-7B");
  EXPECT_EQ(memory_by_stage(j, l)[0].communicators, 0);
}

TEST(ParallelMemory, AMeasuredNonTensorFigureReplacesTheEstimate) {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-8B"),
                .n_chips = 64,
                .seq_len = 8192,
                .global_batch = 64};
  Layout l;
  l.tp = 8, l.dp = 8;
  const StageMemory estimated = memory_by_stage(j, l)[0];
  j.measured_non_tensor_bytes = 5'000'000'000;
  const StageMemory measured = memory_by_stage(j, l)[0];
  EXPECT_TRUE(measured.non_tensor_measured);
  EXPECT_EQ(measured.non_tensor_bytes(), 5'000'000'000);
  EXPECT_EQ(measured.total_bytes - measured.non_tensor_bytes(),
            estimated.total_bytes - estimated.non_tensor_bytes());
  j.measured_non_tensor_bytes = -1;
  EXPECT_THROW_NAMING(memory_by_stage(j, l), "measured_non_tensor_bytes");
}

// A TPU runs the step as one XLA program, whose buffers are planned when it
// compiles: no CUDA context, NCCL buffers or caching allocator beside the
// tensors (parallel_non_tensor.cpp). A measured figure still replaces it. An
// AMD chip keeps a GPU's reserve under ROCm's names (the HIP runtime, RCCL's
// buffers).
TEST(ParallelMemory, TpusCountNothingOutsideTheTensors) {
  for (const Chip& chip : hardware_table()) {
    EXPECT_EQ(chip.xla_compiled, chip.name.rfind("TPU", 0) == 0) << chip.name;
    EXPECT_EQ(chip.rocm, chip.name.rfind("MI", 0) == 0) << chip.name;
  }
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-8B"),
                .chip = "TPU v5p",
                .n_chips = 64,
                .seq_len = 8192,
                .global_batch = 64};
  Layout l;
  l.tp = 8, l.dp = 8;
  const StageMemory tpu = memory_by_stage(j, l)[0];
  EXPECT_TRUE(tpu.non_tensor_xla);
  EXPECT_EQ(tpu.non_tensor_bytes(), 0);
  EXPECT_EQ(tpu.communicators, 0);
  EXPECT_EQ(tpu.total_bytes, tpu.weights_bytes + tpu.grads_bytes + tpu.optimizer_bytes +
                                 tpu.activations_bytes + tpu.buffers_bytes);
  j.chip = "H100";
  const StageMemory gpu = memory_by_stage(j, l)[0];
  EXPECT_FALSE(gpu.non_tensor_xla);
  EXPECT_FALSE(gpu.non_tensor_rocm);
  EXPECT_GT(gpu.non_tensor_bytes(), 0);
  EXPECT_EQ(gpu.total_bytes - gpu.non_tensor_bytes(), tpu.total_bytes);
  j.chip = "MI300X";
  const StageMemory amd = memory_by_stage(j, l)[0];
  EXPECT_TRUE(amd.non_tensor_rocm);
  EXPECT_EQ(amd.non_tensor_bytes() - amd.fragmentation_bytes,
            gpu.non_tensor_bytes() - gpu.fragmentation_bytes);
  j.chip = "TPU v5p";
  j.measured_non_tensor_bytes = 2'000'000'000;
  const StageMemory measured = memory_by_stage(j, l)[0];
  EXPECT_TRUE(measured.non_tensor_measured);
  EXPECT_FALSE(measured.non_tensor_xla);
  EXPECT_EQ(measured.total_bytes, tpu.total_bytes + 2'000'000'000);
}

// A layout fits against what CUDA reports for the device (81,089 MiB on an
// H100), not the datasheet's decimal 80 GB.
TEST(ParallelMemory, LayoutsFitTheDevicesReportedMemory) {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-8B"),
                .chip = "H100",
                .n_chips = 8,
                .global_batch = 8};
  Layout l;
  l.tp = 8;
  const LayoutResult r = evaluate_layout(j, l);
  EXPECT_EQ(r.hbm_bytes, 81'089LL << 20);
  EXPECT_GT(r.hbm_bytes, chip_by_name("H100").hbm_bytes);
}

TEST(ParallelMemory, ExpertsAreShardedOverExpertParallelRanks) {
  TrainingJob j;
  j.shape = testing_util::preset_shape("Mixtral-8x7B");  // 8 experts
  j.n_chips = 64;
  j.global_batch = 64;
  j.seq_len = 4096;
  Layout l;
  l.tp = 1, l.pp = 1, l.dp = 64, l.zero = 0;
  l.ep = 1;
  const std::int64_t w1 = memory_by_stage(j, l)[0].weights_bytes;
  l.ep = 8;
  const std::int64_t w8 = memory_by_stage(j, l)[0].weights_bytes;
  // 8 experts of 3 × 4096 × 14336 per layer on one rank vs one.
  const std::int64_t expert = 3LL * 4096 * 14336;
  EXPECT_EQ(w1 - w8, 2 * 32 * 7 * expert);
}

TEST(ParallelMemory, InvalidLayoutNamesTheField) {
  const TrainingJob j = gpt_job(kGpt[1], 64, 64);
  Layout l;
  l.tp = 7, l.dp = 64 / 7;
  EXPECT_THROW_NAMING(memory_by_stage(j, l), "dp × tp × pp × cp");
  l.tp = 64, l.dp = 1;  // 96 heads
  EXPECT_THROW_NAMING(memory_by_stage(j, l), "tp (tensor-parallel ranks) must divide heads");
}

}  // namespace
}  // namespace napkin
