#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "hardware.h"
#include "kernel_time.h"
#include "parallel.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

TEST(KernelTime, WholeWavesKeepTheFullRate) {
  // The A100's MAMF best shape: 6912 × 16384 is 27 × 128 tiles of 256 × 128,
  // 3,456 tiles = 32 waves of 108 SMs exactly.
  EXPECT_DOUBLE_EQ(gemm_wave_efficiency({6912, 16384, 2048}, 108, 256, 128), 1.0);
  EXPECT_DOUBLE_EQ(gemm_wave_efficiency({108 * 256, 128, 4096}, 108, 256, 128), 1.0);
}

TEST(KernelTime, PartialWaveAndTilePadding) {
  // 8192 × 2304 (GPT-22B's QKV at TP = 8): 32 × 18 = 576 tiles → 6 waves of 108.
  EXPECT_NEAR(gemm_wave_efficiency({8192, 2304, 6144}, 108, 256, 128), 576.0 / 648.0, 1e-12);
  // One row past a tile: 257 rows need two tile rows either way round.
  const double e = gemm_wave_efficiency({257, 108 * 128, 4096}, 108, 256, 128);
  EXPECT_LT(e, 0.6);
  EXPECT_GT(e, 0.3);
}

TEST(KernelTime, SplitKRescuesFewTiles) {
  // One output tile, K = 8192: split into min(108, 8192/256 = 32) pieces.
  EXPECT_EQ(gemm_split_k({128, 128, 8192}, 108, 256, 128), 32);
  EXPECT_NEAR(gemm_wave_efficiency({128, 128, 8192}, 108, 256, 128),
              128.0 * 128 * 32 / (108.0 * 256 * 128), 1e-12);
  EXPECT_EQ(gemm_split_k({128, 128, 200}, 108, 256, 128), 1);  // K too short to split
  EXPECT_EQ(gemm_split_k({8192, 8192, 8192}, 108, 256, 128), 1);
}

TEST(KernelTime, SystolicArrayPadsEveryDimension) {
  EXPECT_DOUBLE_EQ(gemm_wave_efficiency({100, 128, 128}, 0, 128, 128), 100.0 / 128.0);
  EXPECT_DOUBLE_EQ(gemm_wave_efficiency({129, 128, 128}, 0, 128, 128), 129.0 / 256.0);
}

TEST(KernelTime, RooflineOfALargeAndAThinGemm) {
  const Chip& a100 = chip_by_name("A100-80");
  const KernelRates r = kernel_rates(a100);
  EXPECT_DOUBLE_EQ(r.matmul_flops_per_s, 312e12 * a100.efficiency.matmul);
  EXPECT_DOUBLE_EQ(r.hbm_bytes_per_s, 2.03e12 * a100.efficiency.hbm);
  // Compute-bound: FLOPs at the matmul rate, plus each output element's
  // epilogue (2 bytes at the datasheet HBM rate); the operand loads, 1/28 of
  // the math's time, add their overlap term: sqrt(1 + 1/28²), 0.07 %.
  const Gemm big{6912, 16384, 2048};
  EXPECT_DOUBLE_EQ(r.epilogue_seconds_per_element, 2.0 / 2.03e12);
  const double math = gemm_flops(big) / r.matmul_flops_per_s;
  const double loads = 2.0 * (6912.0 * 2048 + 2048.0 * 16384) / r.hbm_bytes_per_s;
  EXPECT_NEAR(gemm_seconds(r, big), std::hypot(math, loads) + 6912.0 * 16384 * 2.0 / 2.03e12,
              1e-12);
  EXPECT_LT(gemm_seconds(r, big), 1.001 * (math + 6912.0 * 16384 * 2.0 / 2.03e12));
  // A matrix-vector product is memory-bound: the weights cross HBM once (and
  // split-K's few fp32 partial rows).
  const Gemm thin{1, 8192, 8192};
  const double bytes = 2.0 * (8192 + 8192.0 * 8192 + 8192);
  EXPECT_NEAR(gemm_seconds(r, thin), bytes / r.hbm_bytes_per_s, 0.005 * bytes / r.hbm_bytes_per_s);
  EXPECT_GE(gemm_seconds(r, thin), bytes / r.hbm_bytes_per_s);
  EXPECT_DOUBLE_EQ(streaming_seconds(r, 1e9), 1e9 / r.hbm_bytes_per_s);
}

// The K-sweeps of a tiled GEMM at M = N = 8192 on an H800 (H100 silicon),
// tilelang's published benchmark tables: bf16 628 TFLOP/s at K = 1,024 and
// 386 at K = 256 against 766 at K = 16,384; FP8 1,129 and 569 against 1,541
// (a second FP8 run: 927 and 376 against 1,523). The throughput ratios come
// from the epilogue term alone; the chip's large-GEMM rate cancels.
TEST(KernelTime, ThinGemmsFollowThePublishedKSweep) {
  auto ratio = [](const KernelRates& r, std::int64_t k) {
    const Gemm thin{8192, 8192, k}, deep{8192, 8192, 16384};
    return (gemm_flops(thin) / gemm_seconds(r, thin)) / (gemm_flops(deep) / gemm_seconds(r, deep));
  };
  // The kernel's own deep-K rate (766 TFLOP/s), as for FP8 below: the chip's
  // bf16 fraction is the one GEMMs reach inside a training step, lower.
  KernelRates bf16 = kernel_rates(chip_by_name("H800"));
  bf16.matmul_flops_per_s = 766e12;
  EXPECT_NEAR(ratio(bf16, 1024), 628.0 / 766, 0.03);
  EXPECT_NEAR(ratio(bf16, 256), 386.0 / 766, 0.04);
  // The FP8 kernel's own large-GEMM rate (1,579 TFLOP/s fits its sweep); the
  // chip's FP8 rate for training shapes is lower (see Fp8RatesNeedAnFp8Peak).
  KernelRates fp8 = kernel_rates(chip_by_name("H800"), true);
  fp8.matmul_flops_per_s = 1579e12;
  EXPECT_GT(ratio(fp8, 1024), 927.0 / 1523);
  EXPECT_LT(ratio(fp8, 1024), 1129.0 / 1541);
  EXPECT_NEAR(ratio(fp8, 256), 569.0 / 1541, 0.06);
  // A systolic array (TPU) has no per-tile epilogue term.
  EXPECT_EQ(kernel_rates(chip_by_name("TPU v5e")).epilogue_seconds_per_element, 0.0);
}

// Near the ridge compute and loads do not fully overlap. DeepGEMM's README
// (February 2025) times FP8 GEMMs on an H800 (H100 silicon) and states its
// speed-up over CUTLASS for each: at 256-1,024 rows per expert (its masked
// grouped layout) the math and the weight loads take about as long as each
// other, and the roofline's max put the model 9-22 % faster than DeepGEMM
// itself there, while at thousands of rows (the contiguous layout) it sits
// between the two libraries. With the overlap term every row sits between
// them: no faster than DeepGEMM, no more than 5 % slower than CUTLASS.
TEST(KernelTime, NearTheRidgeGroupedGemmsSitBetweenThePublishedKernels) {
  struct Row {
    std::int64_t groups, m, n, k;
    double deepgemm_tflops, speedup_over_cutlass;
  };
  const Row rows[] = {{1, 1024, 4096, 7168, 1233, 1.2}, {1, 1024, 7168, 2048, 925, 1.2},
                      {2, 512, 4096, 7168, 1040, 1.2},  {2, 512, 7168, 2048, 916, 1.2},
                      {4, 256, 4096, 7168, 932, 1.1},   {4, 256, 7168, 2048, 815, 1.2},
                      {4, 8192, 4096, 7168, 1297, 1.2}, {4, 8192, 7168, 2048, 1099, 1.2},
                      {8, 4096, 4096, 7168, 1288, 1.2}, {8, 4096, 7168, 2048, 1093, 1.1}};
  // Standalone kernels: the large-GEMM rate CUTLASS reaches at DeepSeek-V3's
  // shapes (0.62 of the FP8 peak, chip_efficiency.h), not a training step's.
  KernelRates fp8 = kernel_rates(chip_by_name("H800"), true);
  fp8.matmul_flops_per_s = 0.62 * chip_by_name("H800").fp8_peak_flops_per_s;
  for (const Row& row : rows) {
    const Gemm g{row.m, row.n, row.k, row.groups};
    const double deepgemm = gemm_flops(g) / (row.deepgemm_tflops * 1e12);
    const double cutlass = deepgemm * row.speedup_over_cutlass;
    const double model = gemm_seconds(fp8, g, 0, 1.0);
    EXPECT_GE(model, deepgemm) << row.groups << " x " << row.m;
    EXPECT_LE(model, 1.05 * cutlass) << row.groups << " x " << row.m;
  }
  // The term itself: the quadratic mean's overshoot of the max, none on a
  // TPU (no tiled compute units), bad input named.
  EXPECT_DOUBLE_EQ(overlapped_kernel_seconds(3e-6, 4e-6, 132), 5e-6);
  EXPECT_DOUBLE_EQ(overlapped_kernel_seconds(3e-6, 4e-6, 0), 4e-6);
  EXPECT_THROW(overlapped_kernel_seconds(-1.0, 1.0, 132), std::invalid_argument);
}

TEST(KernelTime, Fp8RatesNeedAnFp8Peak) {
  // FP8 GEMMs run at their own fraction of the FP8 peak (the bf16 in-step
  // share of the MAMF times the FP8 MAMF: 0.558), below the best FP8 GEMM
  // published for the chip (MAMF 1,402.6 of 1,979 TFLOP/s), and faster than
  // the bf16 GEMMs of a training step.
  const Chip& h100 = chip_by_name("H100");
  EXPECT_DOUBLE_EQ(kernel_rates(h100, true).matmul_flops_per_s, 1979e12 * 0.558);
  EXPECT_LT(h100.efficiency.matmul_fp8, 1402.6 / 1979);
  EXPECT_GT(kernel_rates(h100, true).matmul_flops_per_s, kernel_rates(h100).matmul_flops_per_s);
  for (const Chip& c : hardware_table())
    EXPECT_EQ(c.fp8_peak_flops_per_s > 0, c.efficiency.matmul_fp8 > 0) << c.name;
  EXPECT_THROW_NAMING(kernel_rates(chip_by_name("A100-80"), true), "fp8");
}

// A grouped GEMM's groups (a MoE layer's experts) take their rows at random
// around the mean: equal shares that fill whole tiles exactly are its best
// case, and the spread pads some groups by a tile more.
TEST(KernelTime, GroupedGemmsPadTheirSpreadRowsToWholeTiles) {
  const KernelRates r = kernel_rates(chip_by_name("H100"), true);
  // Mixtral-8x7B's first expert GEMM at TP 8 for 2,048 tokens routed to 2 of
  // 8 experts: 512 rows each, two tiles of 256 exactly; each expert's count
  // is Binomial(2048, 1/4), spread 19.6 rows.
  const Gemm whole{512, 3584, 4096, 8};
  const double spread = std::sqrt(2048 * 0.25 * 0.75);
  EXPECT_DOUBLE_EQ(grouped_gemm_seconds(r, whole, 0, 1), gemm_seconds(r, whole, 0, 1));
  EXPECT_GT(grouped_gemm_seconds(r, whole, spread, 1), 1.05 * gemm_seconds(r, whole, 0, 1));
  // Half a tile from any boundary (448 rows: 3.5 tiles of 128, 1.75 of 256)
  // the same spread crosses none: the time moves only with the rows.
  const Gemm mid{448, 3584, 4096, 8};
  EXPECT_NEAR(grouped_gemm_seconds(r, mid, spread, 1), gemm_seconds(r, mid, 0, 1),
              0.01 * gemm_seconds(r, mid, 0, 1));
  // A spread wider than the mean keeps every group at one row or more.
  EXPECT_GE(grouped_gemm_seconds(r, {2, 3584, 4096, 8}, 10, 1),
            gemm_seconds(r, {1, 3584, 4096, 8}, 0, 1));
  EXPECT_THROW_NAMING(grouped_gemm_seconds(r, whole, -1, 1), "grouped GEMM rows spread");
}

TEST(KernelTime, BadInputNamesTheParameter) {
  const KernelRates r = kernel_rates(chip_by_name("H100"));
  EXPECT_THROW_NAMING(gemm_seconds(r, {0, 1, 1}), "GEMM m");
  EXPECT_THROW_NAMING(gemm_seconds(r, {1, 1, 1, 0}), "GEMM batch");
  EXPECT_THROW_NAMING(gemm_seconds(r, {1, 1, 1}, -1), "extra bytes");
  EXPECT_THROW_NAMING(streaming_seconds(r, std::nan("")), "bytes moved");
  EXPECT_THROW_NAMING(gemm_wave_efficiency({1, 1, 1}, 108, 128, 256), "tile short side");
}

TEST(KernelTime, AttentionFollowsThePublishedLengthCurves) {
  // FlashAttention-3 paper, fig. 5 (causal forward, head dim 128, H100):
  // TFLOP/s at 512 ... 16K tokens, relative to 8K where the chips' rates are set.
  constexpr AttentionCurve fa3 = AttentionCurve::flash_attention_3,
                           fa2 = AttentionCurve::flash_attention_2;
  EXPECT_DOUBLE_EQ(attention_length_factor(fa3, 8192), 1.0);
  EXPECT_DOUBLE_EQ(attention_length_factor(fa2, 8192), 1.0);
  EXPECT_NEAR(attention_length_factor(fa3, 2048), 521.0 / 602.0, 1e-12);
  EXPECT_NEAR(attention_length_factor(fa2, 4096), 319.0 / 333.0, 1e-12);
  EXPECT_NEAR(attention_length_factor(fa3, 16384), 616.0 / 602.0, 1e-12);
  // Linear in log2(length): 3,000 tokens is 0.551 of the way from 2K to 4K.
  const double x = std::log2(3000.0) - 11.0;
  EXPECT_NEAR(attention_length_factor(fa3, 3000), (521.0 + 58.0 * x) / 602.0, 1e-12);
  // Held at the end points beyond them.
  EXPECT_DOUBLE_EQ(attention_length_factor(fa3, 1), 292.0 / 602.0);
  EXPECT_DOUBLE_EQ(attention_length_factor(fa3, 512), 292.0 / 602.0);
  EXPECT_DOUBLE_EQ(attention_length_factor(fa2, 1 << 20), 335.0 / 333.0);
  EXPECT_DOUBLE_EQ(attention_length_factor(AttentionCurve::flat, 512), 1.0);
  // Never faster for a shorter sequence.
  for (AttentionCurve c : {fa3, fa2})
    for (std::int64_t len = 256; len < (1 << 18); len = len * 3 / 2)
      EXPECT_LE(attention_length_factor(c, len), attention_length_factor(c, len * 3 / 2)) << len;
  EXPECT_THROW_NAMING(attention_length_factor(fa3, 0), "attention sequence length");
}

TEST(KernelTime, EachChipsBestAttentionHasItsCurve) {
  EXPECT_EQ(best_attention_curve(chip_by_name("A100-80")), AttentionCurve::flash_attention_2);
  EXPECT_EQ(best_attention_curve(chip_by_name("A100-40")), AttentionCurve::flash_attention_2);
  EXPECT_EQ(best_attention_curve(chip_by_name("H100")), AttentionCurve::flash_attention_3);
  EXPECT_EQ(best_attention_curve(chip_by_name("B200")), AttentionCurve::flash_attention_3);
  for (const Chip& c : hardware_table()) {
    if (c.compute_units == 0) {
      EXPECT_EQ(best_attention_curve(c), AttentionCurve::flat) << c.name;
    }
  }
}

TEST(KernelTime, ShortSequencesRunAttentionBelowItsRateAt8K) {
  // The same tokens per micro-batch in sequences of 2,048 and 8,192: a
  // quarter of the attention FLOPs, at FlashAttention-3's rate for 2K
  // (kernel_time.h: 521 TFLOP/s on H100, against 602 at 8K). With context
  // parallelism the kernel's length is the rank's share of the sequence: CP 4
  // over 8K runs the 2K kernel on the same attention FLOPs per token.
  auto attention = [](std::int64_t seq, Layout l, const char* sw) {
    TrainingJob j{.shape = testing_util::preset_shape("Llama-3-70B"),
                  .chip = "H100",
                  .n_chips = 1024,
                  .seq_len = seq,
                  .global_batch = 512 * 8192 / seq,
                  .software = software_by_name(sw)};
    const LayoutResult r = evaluate_layout(j, l);
    EXPECT_TRUE(r.valid) << r.reason;
    return r.time.kernels.attention_seconds;
  };
  auto with = [](std::int64_t dp, std::int64_t pp, std::int64_t mb, std::int64_t cp, int zero) {
    Layout l;
    l.tp = 8, l.pp = pp, l.dp = dp, l.cp = cp, l.zero = zero, l.micro_batch = mb;
    l.recompute = Checkpointing::none;
    return l;
  };
  const double at_8k = attention(8192, with(32, 4, 1, 1, 1), "modern");
  EXPECT_NEAR(attention(2048, with(32, 4, 4, 1, 1), "modern") / at_8k, 0.25 * 602.0 / 521.0, 1e-9);
  EXPECT_NEAR(attention(8192, with(8, 4, 1, 4, 1), "modern") / at_8k, 602.0 / 521.0, 1e-9);
  // torchtitan's SDPA runs FlashAttention-2: its curve (298 of 333 at 2K).
  EXPECT_NEAR(attention(2048, with(128, 1, 4, 1, 3), "fsdp") /
                  attention(8192, with(128, 1, 1, 1, 3), "fsdp"),
              0.25 * 333.0 / 298.0, 1e-9);
}

TEST(KernelTime, EveryChipHasKernelData) {
  for (const Chip& c : hardware_table()) {
    EXPECT_GE(c.compute_units, 0) << c.name;
    EXPECT_GE(c.gemm_tile_long, c.gemm_tile_short) << c.name;
    EXPECT_GT(c.efficiency.hbm, 0.3) << c.name;
    EXPECT_LE(c.efficiency.hbm, 1.0) << c.name;
    EXPECT_GT(c.efficiency.attention, 0.2) << c.name;
    EXPECT_LE(c.efficiency.attention, 1.0) << c.name;
  }
}

}  // namespace
}  // namespace napkin
