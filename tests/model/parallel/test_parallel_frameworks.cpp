// Frameworks as their code runs them: eager PyTorch's element-wise work
// (torchtitan without torch.compile) and FSDP2's copies around its
// collectives, priced byte by byte against the chip's streaming rate;
// DeepSpeed's bf16 optimizer; DeepSeek-V3's all-to-alls and MTP modules.
#include <gtest/gtest.h>

#include "hardware.h"
#include "model_presets.h"
#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"
#include "published_jobs.h"
#include "single_chip_layout.h"

namespace napkin {
namespace {

// A small GQA model on one A100: nothing but the element-wise work differs
// between the two FSDP presets.
TrainingJob gqa_job(const char* software) {
  TrainingJob j{.shape = ModelShape{4, 1024, 4096, 8, 2, 128, 32000},
                .chip = "A100-80",
                .n_chips = 1,
                .seq_len = 2048,
                .global_batch = 1,
                .software = software_by_name(software)};
  return j;
}

using testing_util::single_chip;

double hbm_rate(const char* chip) {
  const Chip& c = chip_by_name(chip);
  return c.hbm_bytes_per_s * c.efficiency.hbm;
}

TEST(ParallelFrameworks, EagerTorchtitanPaysItsUnfusedOpsByteForByte) {
  const LayoutResult eager = evaluate_layout(gqa_job("fsdp"), single_chip());
  const LayoutResult compiled = evaluate_layout(gqa_job("fsdp-compile"), single_chip());
  ASSERT_TRUE(eager.valid && compiled.valid) << eager.reason << compiled.reason;
  // Per layer, n = 2,048 tokens: rotary on q (1,024 wide) and k (256 wide),
  // 20 bytes each way; repeat_kv 4 bytes each way; SwiGLU 4 more bytes per
  // hidden unit forward and 8 backward; the separate projections' input
  // gradients added (18 bytes per d_model element). The loss: 4 + 16 bytes
  // per fp32 logit.
  const double n = 2048, q = n * 1024, kv = n * 256, ff = n * 4096, H = 1024, V = 32000;
  const double layer = 24 * (q + kv) * 2 + 4 * ff + 8 * ff + 18 * n * H;
  const double bytes = 4 * layer + 20 * n * V;
  EXPECT_NEAR(eager.time.kernels.elementwise_seconds - compiled.time.kernels.elementwise_seconds,
              bytes / hbm_rate("A100-80"), 1e-9);
  EXPECT_DOUBLE_EQ(eager.time.kernels.gemm_seconds, compiled.time.kernels.gemm_seconds);
  EXPECT_GT(eager.step_seconds, compiled.step_seconds);
  // Without GQA nothing is expanded: an MHA model pays no repeat_kv.
  TrainingJob mha = gqa_job("fsdp");
  mha.shape.n_kv_heads = 8;
  TrainingJob mha_compiled = mha;
  mha_compiled.software = software_by_name("fsdp-compile");
  const double kv_mha = n * 1024;
  const double layer_mha = 20 * (q + kv_mha) * 2 + 4 * ff + 8 * ff + 18 * n * H;
  EXPECT_NEAR(evaluate_layout(mha, single_chip()).time.kernels.elementwise_seconds -
                  evaluate_layout(mha_compiled, single_chip()).time.kernels.elementwise_seconds,
              (4 * layer_mha + 20 * n * V) / hbm_rate("A100-80"), 1e-9);
}

TEST(ParallelFrameworks, Fsdp2CopiesOnlyWhereItShards) {
  // Llama-2-13B-like, one A100 node: ZeRO-3 over 8 ranks copies every
  // gathered layer out twice (4 bytes per parameter each) and its gradients
  // in once, cast to fp32 (6); DDP (ZeRO-0) and a single rank copy nothing.
  TrainingJob j = gqa_job("fsdp");
  j.shape = ModelShape{8, 2048, 5504, 16, 16, 128, 32000};
  j.n_chips = 8;
  j.global_batch = 8;
  Layout l = single_chip();
  l.dp = 8;
  TrainingSoftware no_copies = j.software;
  no_copies.fsdp2_copies = false;
  TrainingJob plain = j;
  plain.software = no_copies;
  for (std::int64_t zero : {0, 3}) {
    l.zero = zero;
    const LayoutResult with = evaluate_layout(j, l), without = evaluate_layout(plain, l);
    ASSERT_TRUE(with.valid && without.valid) << with.reason;
    const double delta =
        with.time.kernels.elementwise_seconds - without.time.kernels.elementwise_seconds;
    if (zero == 0) {
      EXPECT_DOUBLE_EQ(delta, 0.0);
      continue;
    }
    // Per layer: attention 4·2048² + MLP 3·2048·5504 + two norms.
    const double params = 4.0 * 2048 * 2048 + 3.0 * 2048 * 5504 + 2 * 2048;
    EXPECT_NEAR(delta, 8 * params * (4 + 4 + 2 + 4) / hbm_rate("A100-80"), 1e-9);
    EXPECT_GT(with.step_seconds, without.step_seconds);
  }
}

TEST(ParallelFrameworks, TheFsdpPresetsSayWhatTheyRun) {
  const TrainingSoftware& eager = software_by_name("fsdp");
  const TrainingSoftware& compiled = software_by_name("fsdp-compile");
  EXPECT_TRUE(eager.eager_elementwise);
  EXPECT_FALSE(compiled.eager_elementwise);
  EXPECT_TRUE(eager.fsdp2_copies && compiled.fsdp2_copies);
  EXPECT_TRUE(eager.eager_loss);
  EXPECT_FALSE(compiled.eager_loss);  // compile.components: ["model", "loss"]
  // Megatron's presets fuse and have no FSDP2 copies.
  for (const char* name : {"modern", "megatron-2022", "megatron-deepspeed", "llama3"}) {
    EXPECT_FALSE(software_by_name(name).eager_elementwise) << name;
    EXPECT_FALSE(software_by_name(name).fsdp2_copies) << name;
    EXPECT_FALSE(software_by_name(name).eager_loss) << name;
  }
  TrainingSoftware run = compiled;
  run.eager_loss = true;
  EXPECT_EQ(software_changes(compiled, run), std::vector<std::string>{"eager fp32 loss"});
}

// F.cross_entropy on the logits cast to fp32: at its backward the log-softmax
// output, the gradient arriving and the one leaving are all fp32, 8 bytes per
// logit above the 4 kept; only the last stage holds them, and a recomputed
// layer's working set comes later, so the peak takes the larger.
TEST(ParallelFrameworks, TheEagerLossPeaksAtThreeFp32CopiesOfTheLogits) {
  auto stages = [](bool eager, Checkpointing recompute, std::int64_t pp) {
    TrainingJob j = gqa_job("fsdp-compile");
    j.software.eager_loss = eager;
    j.n_chips = pp;
    Layout l = single_chip();
    l.pp = pp;
    l.recompute = recompute;
    return memory_by_stage(j, l);
  };
  const double logits = 2048.0 * 32000;
  const auto none_eager = stages(true, Checkpointing::none, 1);
  const auto none_fused = stages(false, Checkpointing::none, 1);
  EXPECT_EQ(none_eager[0].activations_bytes - none_fused[0].activations_bytes,
            static_cast<std::int64_t>(8 * logits));
  // With full recomputation the transient replaces the smaller working set.
  const auto full_eager = stages(true, Checkpointing::full, 1);
  const auto full_fused = stages(false, Checkpointing::full, 1);
  const TrainingJob job = gqa_job("fsdp-compile");  // the context points at it
  const parallel_detail::JobContext c = parallel_detail::make_context(job);
  Layout full = single_chip();
  full.recompute = Checkpointing::full;
  const std::int64_t working = parallel_detail::layer_cost(c, full, false).full_activation_bytes;
  ASSERT_LT(working, static_cast<std::int64_t>(8 * logits));
  EXPECT_EQ(full_eager[0].activations_bytes - full_fused[0].activations_bytes,
            static_cast<std::int64_t>(8 * logits) - working);
  // Two stages: only the last computes the loss.
  const auto two_eager = stages(true, Checkpointing::none, 2);
  const auto two_fused = stages(false, Checkpointing::none, 2);
  EXPECT_EQ(two_eager[0].activations_bytes, two_fused[0].activations_bytes);
  EXPECT_EQ(two_eager[1].activations_bytes - two_fused[1].activations_bytes,
            static_cast<std::int64_t>(8 * logits));
}

// The caching allocator puts a tensor in one free block: the bf16 logits,
// freed once cast, leave a block no fp32 copy of the logits fits in, so at
// the loss's backward 2 bytes per logit are reserved and unused. Counted as
// fragmentation; not where the pipeline keeps the logits, and not where the
// cluster's measured non-tensor memory replaces the estimate.
TEST(ParallelFrameworks, TheEagerLossLeavesTheBf16LogitsBlockReserved) {
  auto peak = [](bool eager, std::int64_t pp, bool kept, bool measured) {
    TrainingJob j = gqa_job("fsdp-compile");
    j.software.eager_loss = eager;
    j.software.pipeline_keeps_outputs = kept;
    if (measured) j.measured_non_tensor_bytes = 1'000'000'000;
    j.n_chips = pp;
    Layout l = single_chip();
    l.pp = pp;
    l.recompute = Checkpointing::none;
    return memory_by_stage(j, l).back();
  };
  const double logits = 2048.0 * 32000;
  const StageMemory eager = peak(true, 1, false, false), fused = peak(false, 1, false, false);
  // 1.5 % of the 8 more bytes per logit of tensors, and the hole.
  EXPECT_NEAR(static_cast<double>(eager.fragmentation_bytes - fused.fragmentation_bytes),
              2 * logits + 0.015 * 8 * logits, 2);
  EXPECT_EQ(eager.total_bytes - fused.total_bytes, static_cast<std::int64_t>(8 * logits) +
                                                       eager.fragmentation_bytes -
                                                       fused.fragmentation_bytes);
  // The pipeline keeps the logits: no block is freed.
  const StageMemory kept = peak(true, 2, true, false), kept_fused = peak(false, 2, true, false);
  EXPECT_NEAR(static_cast<double>(kept.fragmentation_bytes - kept_fused.fragmentation_bytes),
              0.015 * 8 * logits, 2);
  EXPECT_NEAR(static_cast<double>(peak(true, 2, false, false).fragmentation_bytes -
                                  peak(false, 2, false, false).fragmentation_bytes),
              2 * logits + 0.015 * 8 * logits, 2);
  // A measured figure stands for all the memory outside the tensors.
  EXPECT_EQ(peak(true, 1, false, true).fragmentation_bytes, 0);
  EXPECT_EQ(peak(true, 1, false, true).total_bytes - peak(false, 1, false, true).total_bytes,
            static_cast<std::int64_t>(8 * logits));
}

// DTensor's loss_parallel decomposes the vocabulary-sharded log-softmax and
// its backward into element-wise ops: at the backward the saved output,
// zeros_like with the target scattered in, exp(output) and their sum: 12
// bytes per logit above the 4 kept, where F.cross_entropy's kernels take 8.
// Only with TP (without it the loss is F.cross_entropy's) and an eager loss.
TEST(ParallelFrameworks, DTensorLossParallelHoldsFourMoreBytesPerLogit) {
  auto run = [](std::int64_t tp, bool eager, bool dtensor) {
    TrainingJob j = gqa_job("fsdp-compile");
    j.software.eager_loss = eager;
    j.software.dtensor_loss_parallel = dtensor;
    j.n_chips = tp;
    Layout l = single_chip();
    l.tp = tp;
    l.sequence_parallel = tp > 1;
    const LayoutResult r = evaluate_layout(j, l);
    EXPECT_TRUE(r.valid) << r.reason;
    return r;
  };
  const double local_logits = 2048.0 * 32000 / 2;
  const LayoutResult d = run(2, true, true), f = run(2, true, false);
  EXPECT_EQ(d.memory.activations_bytes - f.memory.activations_bytes,
            static_cast<std::int64_t>(4 * local_logits));
  EXPECT_GT(d.step_seconds, f.step_seconds);  // 38 bytes per logit each way, not 14 and 22
  EXPECT_EQ(run(1, true, true).memory.activations_bytes,
            run(1, true, false).memory.activations_bytes);
  EXPECT_EQ(run(2, false, true).memory.activations_bytes,
            run(2, false, false).memory.activations_bytes);
  EXPECT_TRUE(software_by_name("fsdp").dtensor_loss_parallel);
  EXPECT_FALSE(software_by_name("modern").dtensor_loss_parallel);  // Megatron's fused loss
}

// FSDP2 keeps the final norm and the output layer gathered from their forward
// to their backward (torchtitan's fully_shard([norm, output],
// reshard_after_forward=False)); before 2025 the root module held the
// embedding too. Whole bf16 copies while the loss runs, only under ZeRO-3
// with more than one shard, and not with PP (the stage stays gathered all
// step and its weights count already).
TEST(ParallelFrameworks, FsdpKeepsTheOutputLayerGatheredWhileTheLossRuns) {
  auto activations = [](bool output, bool root, int zero, std::int64_t pp) {
    TrainingJob j = gqa_job("fsdp-compile");
    j.software.zero3_output_gathered = output;
    j.software.zero3_root_gathered = root;
    j.n_chips = 2 * pp;
    j.global_batch = 2 * pp;
    Layout l = single_chip();
    l.dp = 2, l.pp = pp, l.zero = zero;
    return memory_by_stage(j, l).back().activations_bytes;
  };
  const std::int64_t table = 32000 * 1024, output_layer = 1024 + table;  // the norm and the table
  const std::int64_t none = activations(false, false, 3, 1);
  EXPECT_EQ(activations(true, false, 3, 1) - none, 2 * output_layer);
  EXPECT_EQ(activations(true, true, 3, 1) - none, 2 * (output_layer + table));
  EXPECT_EQ(activations(true, true, 2, 1), activations(false, false, 2, 1));
  EXPECT_EQ(activations(true, true, 3, 2), activations(false, false, 3, 2));
  EXPECT_TRUE(software_by_name("fsdp-compile").zero3_output_gathered);
  EXPECT_FALSE(software_by_name("fsdp-compile").zero3_root_gathered);
}

// torch.distributed.pipelining's last stage kept every micro-batch's output,
// the logits, until the step ended, for step() to return them (torchtitan
// asks it not to since October 2025): two bytes per logit per micro-batch of
// the step on the last stage only, and nothing without a pipeline.
TEST(ParallelFrameworks, PipeliningKeptEveryMicroBatchsLogitsOnTheLastStage) {
  auto stages = [](bool kept, std::int64_t pp) {
    TrainingJob j = gqa_job("fsdp-compile");
    j.software.pipeline_keeps_outputs = kept;
    j.n_chips = pp;
    j.global_batch = 4;
    Layout l = single_chip();
    l.pp = pp;
    return memory_by_stage(j, l);
  };
  const auto kept = stages(true, 2), freed = stages(false, 2);
  EXPECT_EQ(kept[0].activations_bytes, freed[0].activations_bytes);
  EXPECT_EQ(kept[1].activations_bytes - freed[1].activations_bytes,
            static_cast<std::int64_t>(4 * 2 * 2048.0 * 32000));
  EXPECT_EQ(stages(true, 1)[0].activations_bytes, stages(false, 1)[0].activations_bytes);
  EXPECT_FALSE(software_by_name("fsdp").pipeline_keeps_outputs);
}

// torch.distributed.pipelining allocates a receive buffer per micro-batch
// once and keeps it: 4 stages, 8 micro-batches of 2,048 tokens, buffers of
// 2,048 x 1,024 bf16. Stage 0 holds 8 gradient buffers; stage 1 those 8, the
// 8 - 3 input buffers its 3 in-flight activations do not already count, and
// as many input gradients; the last stage 7 input buffers and 7 gradients.
// With TP 2 and SP a buffer is the sequence shard; Megatron's p2p adds none.
TEST(ParallelFrameworks, PipeliningPreallocatesAReceiveBufferPerMicroBatch) {
  auto buffers = [](bool preallocated, std::int64_t tp) {
    TrainingJob j = gqa_job("fsdp-compile");
    j.software.pipeline_preallocates_receives = preallocated;
    j.n_chips = 4 * tp;
    j.global_batch = 8;
    Layout l = single_chip();
    l.pp = 4, l.tp = tp, l.sequence_parallel = tp > 1;
    std::vector<std::int64_t> out;
    for (const StageMemory& m : memory_by_stage(j, l)) out.push_back(m.buffers_bytes);
    return out;
  };
  const std::int64_t buffer = 2 * 2048 * 1024;
  const auto on = buffers(true, 1), off = buffers(false, 1);
  ASSERT_EQ(on.size(), 4u);
  EXPECT_EQ(on[0] - off[0], 8 * buffer);
  EXPECT_EQ(on[1] - off[1], (8 + 2 * 5) * buffer);
  EXPECT_EQ(on[2] - off[2], (8 + 2 * 6) * buffer);
  EXPECT_EQ(on[3] - off[3], 2 * 7 * buffer);
  const auto sharded_on = buffers(true, 2), sharded_off = buffers(false, 2);
  EXPECT_EQ(sharded_on[3] - sharded_off[3], 2 * 7 * buffer / 2);
  EXPECT_TRUE(software_by_name("fsdp").pipeline_preallocates_receives);
  EXPECT_FALSE(software_by_name("modern").pipeline_preallocates_receives);
}

TEST(ParallelFrameworks, DeepSpeedBf16OptimizerAddsThroughACastAndAllReducesFp32) {
  // DP 2 across two nodes, four micro-batches per step. BF16_Optimizer adds
  // every micro-batch's bf16 gradient into fp32 through a cast copy: 18 bytes
  // per parameter and micro-batch, where the fp16 preset's autograd adds take
  // 6 for every micro-batch after the first; its ZeRO-1 all-reduces the fp32
  // gradients where the fp16 one reduce-scatters 2-byte ones.
  TrainingJob j = gqa_job("megatron-deepspeed");
  j.shape = ModelShape{8, 2048, 8192, 16, 16, 128, 32000};
  j.shape.gated = false;
  j.n_chips = 2;
  j.global_batch = 8;
  j.network = chip_by_name("A100-80").network;
  j.network->chips_per_node = 1;
  Layout l = single_chip();
  l.dp = 2, l.zero = 1, l.recompute = Checkpointing::full;
  TrainingJob bf16 = j;
  bf16.software = software_by_name("megatron-deepspeed-bf16");
  const LayoutResult fp16 = evaluate_layout(j, l), b = evaluate_layout(bf16, l);
  ASSERT_TRUE(fp16.valid && b.valid) << fp16.reason << b.reason;
  // fp16 gradients, unsharded under ZeRO-1: 2 bytes per parameter.
  const double params = static_cast<double>(fp16.memory.grads_bytes) / 2;
  const double m = 4;
  EXPECT_NEAR(b.time.kernels.elementwise_seconds - fp16.time.kernels.elementwise_seconds,
              params * (18 * m - 6 * (m - 1)) / hbm_rate("A100-80"), 1e-6);
  // All-reduce of 4 bytes (2 × 4 on the bus) and a 2-byte gather, against a
  // 2-byte reduce-scatter and the same gather: 2.5 times the traffic.
  EXPECT_NEAR(b.time.dp_comm_seconds / fp16.time.dp_comm_seconds, 2.5, 0.1);
  // The fresh bf16 gradients sit beside the fp32 ones: 6 bytes per parameter.
  EXPECT_NEAR(static_cast<double>(b.memory.grads_bytes), 6 * params, 8);
}

// DeepSeek-V3's all-to-alls: node-limited routing sends a token over the
// network once per remote node it uses (at most 4 of the group's nodes), FP8
// dispatch halves one of the two transfers.
TEST(ParallelFrameworks, NodeLimitedFp8DispatchCarriesLessOverTheNetwork) {
  TrainingJob j{.shape = testing_util::preset_shape("DeepSeek-V3"),
                .chip = "H800",
                .n_chips = 64,
                .seq_len = 4096,
                .global_batch = 64,
                .software = software_by_name("deepseek-v3")};
  j.software.overlap_ep_comm = false;  // the all-to-alls on the critical path, to see them
  Layout l;
  l.dp = 64, l.ep = 64, l.zero = 1, l.recompute = Checkpointing::none;
  const parallel_detail::JobContext c = parallel_detail::make_context(j);
  const double limited = parallel_detail::layer_cost(c, l, true).fwd_ep;
  TrainingJob plain = j;
  plain.software.ep_dispatch = EpDispatch::all_to_all;
  plain.software.ep_nodes_per_token = 0;
  plain.software.fp8_ep_dispatch = false;
  const double every_copy =
      parallel_detail::layer_cost(parallel_detail::make_context(plain), l, true).fwd_ep;
  // 8 nodes of 8: every copy sends 8 × 7/8 = 7 hidden states per token over
  // InfiniBand in bf16 (4 bytes a dispatch and a combine); node-limited, the
  // 8 experts drawn from 4 nodes' 128 land on 3.63 of them (4 × (1 −
  // C(96, 8) / C(128, 8))), 7/8 of those remote, in 3 bytes: 9.5 against 28.
  const double n = 4096, H = 7168;
  const double ib = c.inter.bytes_per_s;
  const double latency = 2 * (7 * c.intra.latency_seconds + 7 * c.inter.latency_seconds);
  EXPECT_NEAR(limited, latency + n * H * 3.6290109244 * 7 / 8 * 3 / ib, 1e-6);
  EXPECT_GT(every_copy, 2.5 * limited);
}

// Multi-token prediction: each module is one more block on the last stage and
// one more pass of the output head and the loss.
TEST(ParallelFrameworks, MtpModulesWeighOnTheLastStage) {
  TrainingJob j{.shape = ModelShape{8, 2048, 8192, 16, 16, 128, 32000},
                .chip = "H100",
                .n_chips = 2,
                .seq_len = 2048,
                .global_batch = 8};
  Layout l;
  l.pp = 2, l.zero = 1, l.recompute = Checkpointing::none;
  TrainingJob mtp = j;
  mtp.shape.mtp_modules = 1;
  const LayoutResult base = evaluate_layout(j, l), with = evaluate_layout(mtp, l);
  ASSERT_TRUE(base.valid && with.valid) << with.reason;
  EXPECT_GT(with.step_seconds, base.step_seconds);
  const parallel_detail::JobContext c = parallel_detail::make_context(mtp);
  const std::vector<parallel_detail::StageComposition> comps =
      parallel_detail::stage_compositions(c, l);
  EXPECT_EQ(comps.front().layers, 4);
  EXPECT_EQ(comps.back().layers, 5);
}

}  // namespace
}  // namespace napkin

namespace napkin {
namespace {

// A FlashAttention-1-class kernel (llm-foundry's Triton FlashAttention) runs
// at half FlashAttention-2's rate on every chip: Hopper's FlashAttention-2
// fraction where the chip has one, the chip's attention fraction otherwise.
TEST(ParallelFrameworks, FlashAttention1RunsAtHalfFlashAttention2) {
  for (const char* chip : {"H100", "A100-80"}) {
    TrainingJob fa2 = gqa_job("fsdp");
    fa2.chip = chip;
    TrainingJob fa1 = fa2;
    fa1.software.attention_kernel = AttentionKernel::flash_attention_1;
    const LayoutResult two = evaluate_layout(fa2, single_chip());
    const LayoutResult one = evaluate_layout(fa1, single_chip());
    ASSERT_TRUE(one.valid && two.valid) << one.reason;
    EXPECT_NEAR(one.time.kernels.attention_seconds / two.time.kernels.attention_seconds, 2.0, 1e-9)
        << chip;
    EXPECT_DOUBLE_EQ(one.time.kernels.gemm_seconds, two.time.kernels.gemm_seconds) << chip;
    // A run whose kernel is not its preset's says so where the changes are listed.
    EXPECT_EQ(software_changes(fa2.software, fa1.software),
              std::vector<std::string>{"FlashAttention-1-class attention"});
  }
}

TEST(ParallelFrameworks, PytorchSdpaRunsFlashAttention2OnHopper) {
  // torchtitan calls F.scaled_dot_product_attention, whose default on H100
  // is FlashAttention-2 (cuDNN is opt-in): 0.307 of the bf16 peak inside a
  // step (0.33 alone) where Megatron's cuDNN attention reaches 0.527, both at
  // 8K tokens; at this job's 2K each follows its own curve (FlashAttention-3
  // paper: 521 of 602 TFLOP/s, FlashAttention-2 298 of 333). On A100
  // FlashAttention-2 is the best kernel, and the presets agree.
  TrainingJob j = gqa_job("fsdp-compile");
  j.chip = "H100";
  TrainingJob te = j;
  te.software.attention_kernel = AttentionKernel::best;
  const LayoutResult sdpa = evaluate_layout(j, single_chip());
  const LayoutResult cudnn = evaluate_layout(te, single_chip());
  ASSERT_TRUE(sdpa.valid && cudnn.valid) << sdpa.reason;
  EXPECT_NEAR(sdpa.time.kernels.attention_seconds / cudnn.time.kernels.attention_seconds,
              0.527 / 0.307 * (521.0 / 602.0) / (298.0 / 333.0), 1e-9);
  EXPECT_DOUBLE_EQ(sdpa.time.kernels.gemm_seconds, cudnn.time.kernels.gemm_seconds);
  j.chip = te.chip = "A100-80";
  EXPECT_DOUBLE_EQ(evaluate_layout(j, single_chip()).time.kernels.attention_seconds,
                   evaluate_layout(te, single_chip()).time.kernels.attention_seconds);
  EXPECT_EQ(software_by_name("fsdp").attention_kernel, AttentionKernel::flash_attention_2);
  EXPECT_EQ(software_by_name("modern").attention_kernel, AttentionKernel::best);
}

TEST(ParallelFrameworks, FsdpWithPipelineGathersOncePerStep) {
  // torchtitan does not reshard after forward when PP is on, and the
  // pipeline schedule skips the gradient sync until the last micro-batch:
  // ZeRO-3 with PP moves and holds what ZeRO-1 does. Without PP it gathers
  // per layer and micro-batch; Megatron-style ZeRO-3 gathers per micro-batch
  // with PP too.
  TrainingJob j = gqa_job("fsdp");
  j.shape = ModelShape{8, 2048, 5504, 16, 16, 128, 32000};
  j.n_chips = 16;
  j.global_batch = 32;
  // ZeRO-1 as the reference, which FSDP itself does not offer.
  j.software.zero_stages = j.software.zero_stages_with_pp = 0b1111;
  Layout l = single_chip();
  l.pp = 2, l.dp = 8, l.micro_batch = 1;
  auto with_zero = [&](const TrainingJob& job, int zero) {
    Layout x = l;
    x.zero = zero;
    return evaluate_layout(job, x);
  };
  const LayoutResult z3 = with_zero(j, 3), z1 = with_zero(j, 1);
  ASSERT_TRUE(z3.valid && z1.valid) << z3.reason;
  EXPECT_DOUBLE_EQ(z3.step_seconds, z1.step_seconds);
  EXPECT_EQ(z3.memory.total_bytes, z1.memory.total_bytes);
  EXPECT_EQ(zero_as_run(j, z3.layout), 1);
  TrainingJob megatron = j;
  megatron.software.zero3_gathers_once_with_pp = false;
  EXPECT_GT(with_zero(megatron, 3).step_seconds, with_zero(megatron, 1).step_seconds);
  EXPECT_LT(with_zero(megatron, 3).memory.weights_bytes, z3.memory.weights_bytes);
  l.pp = 1, l.dp = 16;  // no pipeline: FSDP shards and gathers per layer
  EXPECT_LT(with_zero(j, 3).memory.weights_bytes, with_zero(j, 1).memory.weights_bytes);
  EXPECT_EQ(zero_as_run(j, l), l.zero);
}

// FSDP2's sharded parameter is the fp32 master (MixedPrecisionPolicy casts
// to bf16 only when it gathers): 16 bytes per parameter on its shard (the
// fp32 parameter, its fp32 gradient, Adam's two moments), no bf16 shard; with
// PP, where FSDP keeps a stage's weights gathered, the bf16 copy is whole.
TEST(ParallelFrameworks, Fsdp2HoldsNoBf16ShardAtRest) {
  TrainingJob j = gqa_job("fsdp");
  j.n_chips = 8;
  j.global_batch = 8;
  Layout l = single_chip();
  l.dp = 8;
  l.zero = 3;
  const StageMemory fsdp = memory_by_stage(j, l)[0];
  EXPECT_EQ(fsdp.weights_bytes, 0);
  EXPECT_EQ(fsdp.grads_bytes * 4, fsdp.optimizer_bytes + fsdp.grads_bytes);  // 4 : 12 bytes
  j.software = software_by_name("modern");  // Megatron's distributed optimizer keeps one
  EXPECT_EQ(memory_by_stage(j, l)[0].weights_bytes * 2, fsdp.grads_bytes);
}

// DTensor's TP with sequence parallelism saves each region's gathered input
// (PrepareModuleInput to Replicate, then the linears keep it), where Megatron
// keeps the local shard and gathers it again in the backward: 4 bytes per
// token and d_model element whole instead of 1/t of them, per layer, and
// one all-gather fewer per region in the backward.
TEST(ParallelFrameworks, DtensorTpKeepsTheGatheredInputsAndSkipsTheRegather) {
  const ModelShape shape = testing_util::preset_shape("Llama-3-70B");
  LayerActivationInputs in;
  in.seq_len = 8192;
  in.tp = 8;
  in.sequence_parallel = true;
  in.flash_attention = true;
  in.dropout = false;
  const std::int64_t shard = layer_activation_bytes(shape, in);
  in.tp_inputs_gathered = true;
  const std::int64_t nH = 8192LL * 8192;
  EXPECT_EQ(layer_activation_bytes(shape, in) - shard, 4 * nH - 4 * nH / 8);
  in.sequence_parallel = false;  // without SP every rank holds them whole anyway
  const std::int64_t whole = layer_activation_bytes(shape, in);
  in.tp_inputs_gathered = false;
  EXPECT_EQ(layer_activation_bytes(shape, in), whole);

  TrainingJob j{.shape = shape,
                .chip = "H100",
                .n_chips = 64,
                .seq_len = 8192,
                .global_batch = 64,
                .software = software_by_name("fsdp-compile")};
  Layout l;
  l.tp = 8, l.dp = 8, l.zero = 3, l.micro_batch = 1, l.sequence_parallel = true;
  l.recompute = Checkpointing::none;
  const LayoutResult dtensor = evaluate_layout(j, l);
  j.software.tp_saves_gathered_inputs = false;
  const LayoutResult megatron_like = evaluate_layout(j, l);
  ASSERT_TRUE(dtensor.valid && megatron_like.valid);
  EXPECT_GT(dtensor.memory.activations_bytes, megatron_like.memory.activations_bytes);
  EXPECT_LT(dtensor.time.tp_comm_seconds, megatron_like.time.tp_comm_seconds);
}

// NeMo 1.0's Apex distributed Adam keeps the fp32 master as the 16 bits the
// bf16 weight lacks: 10 bytes of optimizer state per parameter where
// Megatron's distributed optimizer keeps 12. Nemotron-4 340B's published
// NeMo 24.07 layout (TP 8, PP 8, VP 12 on 128 H100, selective recomputation)
// ran with the optimizer and its gradient buffer in bf16 (its launcher
// configuration's optim.dtype and grad_sync_dtype): 4 bytes of state, 2 of
// gradient. Under Megatron's optimizer it would not fit; as it ran, it does.
TEST(ParallelFrameworks, NemoDistributedAdamKeepsTheMasterAsRemainders) {
  TrainingJob j;
  j.shape = ModelShape{96, 18432, 73728, 96, 8, 192, 256000};
  j.shape.gated = false;
  j.shape.norm_bias = true;
  j.chip = "H100";
  j.network = cluster_by_name("dgx-h100").network;
  j.n_chips = 128;
  j.seq_len = 4096;
  j.global_batch = 32;
  j.software = software_by_name("megatron-core-fp8");
  j.software.fp8_bf16_edge_layers = 0;
  j.software.pipeline_split_counts_edges = false;
  Layout l;
  l.tp = 8, l.pp = 8, l.vpp = 12, l.dp = 2, l.zero = 1, l.micro_batch = 1;
  l.recompute = Checkpointing::selective;
  const LayoutResult megatron = evaluate_layout(j, l);
  TrainingJob nemo = j;
  nemo.software = software_by_name("nemo-1.0");
  nemo.software.fp8_matmuls = true;
  const LayoutResult remainders = evaluate_layout(nemo, l);
  nemo.software.optimizer_bytes_per_param = 4;  // optim.dtype bf16: two bf16 moments
  nemo.software.fp32_grads = false;             // grad_sync_dtype bf16
  const LayoutResult as_run = evaluate_layout(nemo, l);
  ASSERT_TRUE(megatron.valid && remainders.valid && as_run.valid);
  EXPECT_EQ(software_by_name("nemo-1.0").optimizer_bytes_per_param, 10.0);
  EXPECT_NEAR(static_cast<double>(remainders.memory.optimizer_bytes) /
                  static_cast<double>(megatron.memory.optimizer_bytes),
              10.0 / 12.0, 1e-3);
  EXPECT_NEAR(static_cast<double>(as_run.memory.optimizer_bytes) /
                  static_cast<double>(megatron.memory.optimizer_bytes),
              4.0 / 12.0, 1e-3);
  EXPECT_NEAR(static_cast<double>(as_run.memory.grads_bytes) /
                  static_cast<double>(megatron.memory.grads_bytes),
              0.5, 1e-3);
  EXPECT_FALSE(megatron.fits);
  EXPECT_TRUE(as_run.fits);
}

// DeepSeek-V3 (§3.3.2): an fp32 master and AdamW's two moments in bf16, 8
// bytes of optimizer state per parameter where Megatron's Adam keeps 12.
TEST(ParallelFrameworks, DeepSeekV3KeepsAdamsMomentsInBf16) {
  TrainingJob j = testing_util::deepseek_v3_paper_job();
  Layout l = testing_util::deepseek_v3_paper_layout();
  EXPECT_EQ(j.software.optimizer_bytes_per_param, 8.0);
  const LayoutResult bf16_moments = evaluate_layout(j, l);
  j.software.optimizer_bytes_per_param = 0;  // the optimizer's own count
  const LayoutResult fp32_moments = evaluate_layout(j, l);
  ASSERT_TRUE(bf16_moments.valid && fp32_moments.valid);
  EXPECT_NEAR(static_cast<double>(bf16_moments.memory.optimizer_bytes) /
                  static_cast<double>(fp32_moments.memory.optimizer_bytes),
              8.0 / 12.0, 1e-3);
}

}  // namespace
}  // namespace napkin
