// Sanity checks against published runs that are NOT in published_runs.csv and
// played no part in the calibration. Their layouts are only partly published,
// so each check states its assumptions and the bound is loose (±25 %): these
// guard against gross errors, the CSV tests guard the accuracy. The test prints
// every prediction for the README.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "hardware.h"
#include "model_presets.h"
#include "parallel.h"
#include "parallel_test_util.h"
#include "published_jobs.h"

namespace napkin {
namespace {

void report(const char* name, const LayoutResult& r, double predicted, double published,
            const char* unit) {
  std::printf("| %s | %s | %.1f %s | %.1f %s | %+.0f %% | %s |\n", name,
              to_string(r.layout).c_str(), predicted, unit, published, unit,
              100 * (predicted / published - 1), r.fits ? "yes" : r.reason.c_str());
}

// Llama 3 405B (Llama Team, "The Llama 3 Herd of Models", 2024, Table 4): BF16
// MFU 43 % on 8,192 H100 (TP 8, PP 16, DP 64), 41 % on 16,384 (DP 128), 38 %
// at 131,072 tokens with CP 16 (DP 8); 16M tokens per step. §3.3.2: 126
// layers in an interleaved schedule whose first chunk holds only the
// embedding and whose last holds only the output and the loss (16 stages × 8
// one-layer chunks: the `llama3` preset counts the edges), FSDP that "shards
// optimizer states and gradients" but keeps the parameters unsharded after
// the forward (ZeRO-2 here: every micro-batch's fp32 gradients are
// reduce-scattered over the 400 Gb/s NIC), no activation recomputation at
// 8K. Meta does not say how its MFU counts causal attention; the causal half
// is what its fused kernels execute. What remains (README): 8K tokens on
// 8,192 GPUs needs 3 % more memory than an H100 holds (Meta's schedule, which
// its paper leaves unquantified, holds fewer micro-batches than Megatron's),
// and the 8K rows are 6-8 % pessimistic with bf16 GEMMs at the rate NeMo
// reached on one DGX H100 (0.63 of the peak, chip_efficiency.h; at the 0.53 of
// an earlier source they were 13-17 % under). The guard: the causal-half
// prediction within 10 % of Meta's MFU, at 8K below it (131K reads within
// a few percent either way); the whole-matrix count within 10 % at 8K
// (where attention is a small share).
TEST(ParallelPublished, Llama3_405B) {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3.1-405B"),
                .chip = "H100",
                .software = software_by_name("llama3")};
  struct Case {
    const char* name;
    std::int64_t chips, dp, cp, seq, batch;
    double mfu;
  } cases[] = {{"Llama 3 405B, 8,192 H100, 8K", 8192, 64, 1, 8192, 2048, 43},
               {"Llama 3 405B, 16,384 H100, 8K", 16384, 128, 1, 8192, 2048, 41},
               {"Llama 3 405B, 16,384 H100, 131K, CP 16", 16384, 8, 16, 131072, 128, 38}};
  for (const Case& c : cases) {
    j.n_chips = c.chips;
    j.seq_len = c.seq;
    j.global_batch = c.batch;
    Layout l;
    l.tp = 8, l.pp = 16, l.vpp = 8, l.dp = c.dp, l.cp = c.cp, l.zero = 2;
    l.recompute = Checkpointing::none;
    j.attention_flops = CausalMask::full_matrix;
    const LayoutResult r = evaluate_layout(j, l);
    ASSERT_TRUE(r.valid) << r.reason;
    // The first stage: the embedding's chunk and seven one-layer chunks.
    EXPECT_EQ(memory_by_stage(j, l).front().layers, 7);
    j.attention_flops = CausalMask::causal_half;
    const LayoutResult half = evaluate_layout(j, l);
    report((std::string(c.name) + ", whole-matrix attention").c_str(), r, 100 * r.mfu, c.mfu,
           "% MFU");
    report((std::string(c.name) + ", causal-half attention").c_str(), half, 100 * half.mfu, c.mfu,
           "% MFU");
    std::printf("|   peak stage %lld: %.1f GB of %.1f GB |\n",
                static_cast<long long>(r.memory.stage), r.memory.total_bytes / 1e9,
                r.hbm_bytes / 1e9);
    EXPECT_DOUBLE_EQ(r.step_seconds, half.step_seconds);
    EXPECT_NEAR(100 * half.mfu, c.mfu, 0.10 * c.mfu) << c.name;
    if (c.seq == 8192) {
      EXPECT_LT(100 * half.mfu, c.mfu) << c.name;
      EXPECT_NEAR(100 * r.mfu, c.mfu, 0.10 * c.mfu) << c.name;
    }
    // Sharded gradients: the 16,384-GPU layouts fit; 8,192 is over by < 5 %.
    if (c.chips == 16384)
      EXPECT_TRUE(r.fits) << r.reason;
    else
      EXPECT_LT(static_cast<double>(r.over_hbm_bytes), 0.05 * static_cast<double>(r.hbm_bytes));
  }
}

// DeepSeek-V3 (DeepSeek-AI 2024, §1 and §3): 2,048 H800, PP 16, EP 64 across
// nodes, ZeRO-1, no TP, FP8 GEMMs, 4,096-token sequences, batch up to 15,360;
// 180K H800 GPU-hours per trillion tokens = 1,543 tokens/s per GPU, wall
// clock with the batch ramp and every interruption in it. DualPipe hides the
// all-to-alls and pairs each rank's two stages (the last stage's MTP module
// and output head share a rank with the first's embedding); node-limited
// routing and FP8 dispatch shrink the all-to-alls; MLA as it runs
// (test_parallel_attention.cpp); the RMSNorms and MLA up-projections
// recomputed (§3.2.3), and the MoE's SwiGLU outputs, whose FP8 inputs are
// kept (§3.3.2). The layout that ran fits: every Linear's input in FP8,
// AdamW's moments in bf16 (§3.3.2), the gating weights applied on the
// experts' side as DeepEP hands them over (no expert outputs kept).
TEST(ParallelPublished, DeepSeekV3) {
  const TrainingJob j = testing_util::deepseek_v3_paper_job();
  Layout l = testing_util::deepseek_v3_paper_layout();
  l.recompute = Checkpointing::selective;
  l.recompute_modules = kRecomputeLayernorm | kRecomputeMlaUpProj | kRecomputeMoeAct;
  const LayoutResult r = evaluate_layout(j, l);
  ASSERT_TRUE(r.valid) << r.reason;
  report("DeepSeek-V3, 2,048 H800", r, r.tokens_per_second_per_chip, 1543, "tok/s/GPU");
  EXPECT_NEAR(r.tokens_per_second_per_chip, 1543, 0.25 * 1543);
  EXPECT_TRUE(r.fits) << r.reason;
}

// OPT-175B (Zhang et al. 2022, §2.4): 992 A100-80GB, Megatron TP 8 inside
// FSDP (ZeRO-3) over 124 replicas, 2M-token batches of 2,048-token sequences,
// "up to 147 TFLOP/s per GPU". Assumed: 8 sequences per replica in one
// micro-batch, full recomputation, unfused attention; Metaseq's FairScale
// FSDP around Megatron's layers, so the 2022 kernels with ZeRO-3.
TEST(ParallelPublished, Opt175B) {
  TrainingJob j;
  j.shape = ModelShape{96, 12288, 49152, 96, 96, 128, 50272};
  j.shape.gated = false;
  j.shape.tied_embeddings = true;
  j.shape.qkv_bias = j.shape.o_bias = j.shape.mlp_bias = true;
  j.chip = "A100-80";
  j.n_chips = 992;
  j.seq_len = 2048;
  j.global_batch = 992;
  j.software = software_by_name("megatron-2022");
  j.software.zero_stages = j.software.zero_stages_with_pp = 0b1001;
  j.software.framework = "Metaseq";
  Layout l;
  l.tp = 8, l.pp = 1, l.dp = 124, l.zero = 3, l.micro_batch = 8;
  l.sequence_parallel = false;
  l.recompute = Checkpointing::full;
  const LayoutResult r = evaluate_layout(j, l);
  ASSERT_TRUE(r.valid) << r.reason;
  const double tflops = r.model_flops_per_step / r.step_seconds / 992 / 1e12;
  report("OPT-175B, 992 A100", r, tflops, 147, "TFLOP/s");
  EXPECT_NEAR(tflops, 147, 0.25 * 147);
}

// BLOOM-176B (BigScience 2022, §3.4): 384 A100-80GB, TP 4, PP 12, DP 8,
// ZeRO-1, micro-batch 2, batch 2,048 × 2,048 tokens, 156 TFLOP/s per GPU
// (Megatron's count with recomputation). Megatron-DeepSpeed in bf16, whose
// ZeRO-1 is DeepSpeed's BF16_Optimizer (megatron-deepspeed-bf16), on Jean
// Zay's A100 nodes: 8 GPUs on NVLink, four 100 Gb/s Omni-Path links per node
// (6.25 GB/s per GPU; §3.4.1). With Megatron-LM 2022's software on a DGX
// network the prediction was 19 % optimistic; with the run's framework and
// cluster, about 4 %.
TEST(ParallelPublished, Bloom176B) {
  TrainingJob j;
  j.shape = ModelShape{70, 14336, 57344, 112, 112, 128, 250880};
  j.shape.gated = false;
  j.shape.tied_embeddings = true;
  j.shape.qkv_bias = j.shape.o_bias = j.shape.mlp_bias = true;
  j.chip = "A100-80";
  j.n_chips = 384;
  j.seq_len = 2048;
  j.global_batch = 2048;
  j.software = software_by_name("megatron-deepspeed-bf16");
  Network jean_zay = chip_by_name("A100-80").network;
  jean_zay.inter_node_bytes_per_s = 4 * 100e9 / 8 / 8;
  j.network = jean_zay;
  Layout l;
  l.tp = 4, l.pp = 12, l.dp = 8, l.zero = 1, l.micro_batch = 2;
  l.sequence_parallel = false;
  l.recompute = Checkpointing::full;
  const LayoutResult r = evaluate_layout(j, l);
  ASSERT_TRUE(r.valid) << r.reason;
  const double tflops = megatron_step_flops(j, true) / r.step_seconds / 384 / 1e12;
  report("BLOOM-176B, 384 A100", r, tflops, 156, "TFLOP/s");
  EXPECT_NEAR(tflops, 156, 0.08 * 156);
}

// Fine-grained MoE on Megatron Core, NVIDIA's Megatron Bridge performance
// summary (NeMo container 26.04.01, the layouts and recipes of the table):
// Qwen3-30B-A3B on 16 H100 (FP8 current scaling, EP 16, HybridEP: the flex
// dispatch, no EP overlap) 8,960 tokens/s per GPU; on 8 B200 (MXFP8, EP 8,
// micro-batch 4, HybridEP) 27,136; Qwen3-235B-A22B on 256 B200 (MXFP8, PP 8,
// EP 8, the alltoall dispatcher) 3,776. Napkin is optimistic on all three by
// 47-75 %, where it is within 10 % of the same table's Qwen3-235B on H100
// (EP over four nodes) and its dense runs: the missing term is not found
// (README). The same B200 row ran at 9,691 at micro-batch 1 in container 26.02
// and 18,066 with token dropping in 25.09: the software, not the chip, moves
// these rows by 2-3x between releases. The guard: no more than twice the
// measurement, no less than it.
TEST(ParallelPublished, FineGrainedMoeOnMegatronCore) {
  struct Row {
    const char* name;
    const char* preset;
    const char* chip;
    std::int64_t chips, batch, tp, pp, ep, mb;
    EpDispatch dispatch;
    double published;
  };
  const Row rows[] = {
      {"Qwen3-30B-A3B, 16 H100, FP8", "Qwen3-30B-A3B", "H100", 16, 1024, 1, 1, 16, 1,
       EpDispatch::deduplicated, 8960},
      {"Qwen3-30B-A3B, 8 B200, MXFP8", "Qwen3-30B-A3B", "B200", 8, 512, 1, 1, 8, 4,
       EpDispatch::deduplicated, 27136},
      {"Qwen3-235B-A22B, 256 B200, MXFP8", "Qwen3-235B-A22B", "B200", 256, 8192, 1, 8, 8, 1,
       EpDispatch::all_to_all, 3776},
  };
  for (const Row& row : rows) {
    TrainingJob j{.shape = testing_util::preset_shape(row.preset),
                  .chip = row.chip,
                  .n_chips = row.chips,
                  .seq_len = 4096,
                  .global_batch = row.batch,
                  .software = software_by_name("megatron-core-fp8")};
    j.software.tp_overlap = TpOverlap::backward;
    j.software.ep_dispatch = row.dispatch;
    Layout l;
    l.tp = row.tp, l.pp = row.pp, l.ep = row.ep, l.micro_batch = row.mb;
    l.dp = row.chips / (row.tp * row.pp);
    l.zero = 1, l.sequence_parallel = row.tp > 1, l.recompute = Checkpointing::none;
    const LayoutResult r = evaluate_layout(j, l);
    ASSERT_TRUE(r.valid) << r.reason;
    report(row.name, r, r.tokens_per_second_per_chip, row.published, "tok/s/GPU");
    EXPECT_GT(r.tokens_per_second_per_chip, row.published) << row.name;
    EXPECT_LT(r.tokens_per_second_per_chip, 2 * row.published) << row.name;
  }
}

}  // namespace
}  // namespace napkin

namespace napkin {
namespace {

// The source of Blackwell's bf16 GEMM rate (chip_efficiency.h), and Hopper's until
// a single-node NeMo row replaced it: one training step decomposed by kernel
// (ml-engineering, "when to upgrade GPUs", 2026): Llama-3.1-8B on 8 GPUs,
// ZeRO-2, micro-batch 1 of 8K tokens, fused element-wise kernels;
// everything but attention ran at 463 TFLOP/s on H200 and 771 on B200 (6·N
// per token, N = 8.03B). Napkin's ZeRO-2 overlaps the gradient collectives
// DeepSpeed's default leaves exposed (which the derivation added back), so
// neither chip reads slower. H200's GEMMs run at the rate NeMo reached on
// one DGX H100 (0.63 of the peak against the 0.53 this step's subtraction
// gave), and B200's at this step's 0.39 with that bias taken out (0.464), so
// both read about a quarter faster than this DeepSpeed step: what its
// exposed collectives (about 9 % of the step) and its other overheads cost.
TEST(ParallelPublished, TheGemmRateReproducesItsPublishedStep) {
  TrainingJob j{.shape = ModelShape{32, 4096, 14336, 32, 8, 128, 128256},
                .n_chips = 8,
                .seq_len = 8192,
                .global_batch = 8,
                .software = software_by_name("fsdp-compile")};
  Layout l;
  l.dp = 8, l.zero = 2, l.micro_batch = 1;
  l.recompute = Checkpointing::none;
  const struct {
    const char* chip;
    double dense_tflops, at_most;
  } steps[] = {{"H200", 463, 1.30}, {"B200", 771, 1.30}};
  for (const auto& step : steps) {
    j.chip = step.chip;
    const LayoutResult r = evaluate_layout(j, l);
    ASSERT_TRUE(r.valid) << r.reason;
    const double dense_seconds = r.step_seconds - r.time.kernels.attention_seconds;
    const double tflops = 6.0 * 8.03e9 * 8192 / dense_seconds / 1e12;
    std::printf("| %s dense path | %.0f TFLOP/s | %.0f published |\n", step.chip, tflops,
                step.dense_tflops);
    EXPECT_GT(tflops, step.dense_tflops) << step.chip;
    EXPECT_LT(tflops, step.at_most * step.dense_tflops) << step.chip;
  }
}

}  // namespace
}  // namespace napkin
