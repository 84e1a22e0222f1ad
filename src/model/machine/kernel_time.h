// Seconds of one kernel on one chip: the roofline (compute against HBM) at the
// chip's calibrated efficiencies, and for GEMMs the loss to tile padding and
// partial waves. Used by the parallelism planner for every matmul and
// element-wise kernel of a training step.
//
// Sources: the roofline (Williams, Waterman & Patterson 2009); tile and wave
// quantization as NVIDIA documents them ("Matrix Multiplication Background
// User's Guide", NVIDIA Deep Learning Performance documentation): a GEMM's
// output is cut into tiles, one tile per SM at a time, so a GEMM of T tiles on
// U SMs takes ceil(T/U) waves; split-K (cuBLAS, CUTLASS) cuts the K loop when
// there are fewer tiles than SMs.
#pragma once

#include <cstdint>

#include "hardware.h"

namespace napkin {

// What one chip sustains, derived from the hardware table.
struct KernelRates {
  double matmul_flops_per_s = 0;     // peak × efficiency.matmul (GEMMs that fill whole waves)
  double attention_flops_per_s = 0;  // bf16 peak × efficiency.attention (fused attention)
  double hbm_bytes_per_s = 0;        // HBM bandwidth × efficiency.hbm
  std::int64_t compute_units = 0;    // SMs / CUs; 0: tile padding only (TPU MXUs)
  std::int64_t tile_long = 128;      // output tile, elements: long × short, either way round
  std::int64_t tile_short = 128;
  // A GEMM's fixed cost per output element: the tile's epilogue (writing its
  // bf16 result) does not overlap the tile's main loop, so a GEMM's time is
  // its FLOPs plus ~2 bytes per output element at the datasheet HBM rate.
  // Measured K-sweeps at M = N = 8192 on an H800 (tilelang's published
  // benchmark/matmul and matmul_fp8 tables) fit t = 2MNK/R + MN·c with c =
  // 6.3e-13 s (bf16) and 5.2e-13 s (FP8); 2 bytes / 3.35 TB/s = 6.0e-13 s.
  // This is why thin GEMMs (small K: narrow models, wide TP) run below the
  // chip's large-GEMM rate. 0 on chips without tiled compute units (TPUs).
  double epilogue_seconds_per_element = 0;
};

// The rates of `chip`; with `fp8_matmuls` GEMMs run at the chip's FP8 peak
// (throws naming fp8 when the chip has none).
KernelRates kernel_rates(const Chip& chip, bool fp8_matmuls = false);

// A (batched) GEMM: `batch` independent products of (m × k) @ (k × n).
struct Gemm {
  std::int64_t m = 1;
  std::int64_t n = 1;
  std::int64_t k = 1;
  std::int64_t batch = 1;
};

// 2·m·n·k·batch.
double gemm_flops(const Gemm& g);

// Split-K factor for output tiles of tile_m × tile_n: when a GEMM has fewer
// tiles than compute units, the K loop is cut into up to units/tiles pieces of
// at least 256 elements.
std::int64_t gemm_split_k(const Gemm& g, std::int64_t compute_units, std::int64_t tile_m,
                          std::int64_t tile_n);

// Fraction of the chip's whole-wave matmul rate the GEMM keeps, for the better
// of the two orientations of a tile_long × tile_short output tile (cuBLAS picks
// its kernel per shape): m·n·batch·S / (waves · units · tile area) with S the
// split-K factor and waves = ceil(tiles·S / units). Without compute units, the
// padding of m, n and k to tile_short (a systolic array). In (0, 1].
double gemm_wave_efficiency(const Gemm& g, std::int64_t compute_units, std::int64_t tile_long = 128,
                            std::int64_t tile_short = 128);

// Seconds of a kernel whose compute and memory traffic overlap as far as its
// software pipeline lets them: sqrt(compute² + memory²), not the roofline's
// max. Far from the ridge the two agree (within 2 % once one time is five
// times the other); at the ridge the max assumes every load hides behind the
// math, which no pipelined GEMM achieves. Published FP8 grouped GEMMs on an
// H800 at 256-1,024 rows per group (DeepGEMM README, February 2025: its
// masked-layout table, and CUTLASS's times from the stated speed-ups), where
// the two times are within 2x of each other, run up to 22 % (DeepGEMM) and
// 34 % (CUTLASS) slower than the max predicts; a p-norm (c^p + m^p)^(1/p) centres CUTLASS's times
// at p = 1.6 and DeepGEMM's at p = 2.3, each normalised by its own large-GEMM rate. p = 2 lies
// between them. Used for every GEMM (gemm_seconds) and the serving side's unembedding; the `ideal`
// serving engine keeps the roofline's max, and so do chips without tiled compute units
// (`compute_units` 0: TPUs), for which no such measurement is cited.
double overlapped_kernel_seconds(double compute_seconds, double memory_seconds,
                                 std::int64_t compute_units);

// Seconds: the longest of the compute time (FLOPs at the matmul rate × wave
// efficiency, plus the epilogue of every output element), the memory time
// (operands and result, `bytes_per_element` each, plus split-K partial sums in
// fp32 and `extra_bytes`, at the HBM rate), and the main loop — the math alone
// (padding and partial waves leave SMs idle while loads run; they do not
// compete with them) against the operand loads, by overlapped_kernel_seconds
// — plus the epilogue, which follows it.
double gemm_seconds(const KernelRates& rates, const Gemm& g, double extra_bytes = 0,
                    double bytes_per_element = 2);

// Expected seconds of a grouped GEMM (a MoE layer's experts): `g.batch`
// groups of (rows × g.k) @ (g.k × g.n) whose rows vary from group to group
// around g.m with standard deviation `rows_spread` (tokens routed at
// random: a Binomial(N, p) count has spread √(N·p·(1 − p))). Each group's
// rows pad to whole tiles, so equal shares that fill whole tiles exactly
// are the best case, not the expected one. Averaged over eight points of
// equal probability of the rows' normal approximation (each at least one
// row), every group at that point's rows; gemm_seconds when the spread is 0.
double grouped_gemm_seconds(const KernelRates& rates, const Gemm& g, double rows_spread,
                            double bytes_per_element = 2);

// Seconds of a memory-bound kernel that moves `bytes` through HBM.
double streaming_seconds(const KernelRates& rates, double bytes);

// Which published sequence-length curve a fused causal attention kernel
// follows (attention_length_factor).
enum class AttentionCurve {
  flash_attention_3,  // FlashAttention-3, the chip's best kernel on Hopper and later GPUs
  flash_attention_2,  // FlashAttention-2 (and the FlashAttention-1-class kernels)
  flat,               // no published curve (TPUs): the rate at 8,192 tokens everywhere
};

// A fused causal attention kernel's rate at `seq_tokens` tokens per sequence,
// relative to its rate at 8,192 (where every chip's attention fraction is
// set: Efficiency::attention). Shorter sequences run slower: every query
// block pays its tile's prologue and epilogue over fewer key blocks, and the
// half-masked diagonal blocks are a larger share of the work. The curves are
// the FlashAttention-3 paper's (Shah et al. 2024, fig. 5: causal forward,
// head dim 128, bf16, batch x sequence = 16K tokens, H100 SXM5), in TFLOP/s at
// 512, 1K, 2K, 4K, 8K and 16K tokens: FlashAttention-3 292, 423, 521, 579, 602,
// 616; FlashAttention-2 191, 260, 298, 319, 333, 335. Linear in log2(length)
// between those points, and held at the end points beyond them; the backward
// is taken to scale as the forward (the paper plots the backward without the
// causal mask only). Throws std::invalid_argument unless seq_tokens >= 1.
double attention_length_factor(AttentionCurve curve, std::int64_t seq_tokens);

// The curve of the chip's best fused attention kernel: FlashAttention-2's
// where that is the chip's best (Efficiency::attention_best_is_fa2),
// FlashAttention-3's on other GPUs, whose attention fractions are
// FlashAttention-3's or later kernels' (the same figure's cuDNN curve is
// flatter: 484 of 529 TFLOP/s at 2K; FlashAttention-4's and AMD's kernels
// have none published), none without tiled compute units (TPUs).
AttentionCurve best_attention_curve(const Chip& chip);

}  // namespace napkin
