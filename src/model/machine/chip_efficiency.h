// What each chip achieves of its datasheet peaks inside a training step, and
// where each fraction comes from: published microbenchmarks, vendor
// conventions, one stated calibration row, and the rules that carry a
// measured fraction to the chips without one. Included by hardware.cpp alone.
#pragma once

#include <string_view>

#include "hardware.h"

namespace napkin::chip_efficiency {

// clang-format off
// Efficiencies: achieved fractions of the datasheet peaks, from published
// microbenchmarks and vendor conventions (never from the training runs that
// Napkin's tests predict).
//  matmul: "Maximum Achievable Matmul FLOPS" (MAMF) sweeps of bf16 torch.matmul
//    (S. Bekman, ml-engineering, compute/accelerator, MAMF comparison table):
//    A100 SXM 267.9 of 312 TFLOP/s (85.9 %, shape 6912x16384x2048, CUDA 12.1);
//    H100 SXM 792.1 of 989 (80.1 %, 6144x17920x2816); MI300X 668.4 of 1,300
//    (51.4 %, torch 2.5.1 + ROCm 6.3, TunableOp; the table's current row,
//    which replaced a ROCm-6.2 figure of 781.9). The best shapes fill whole
//    waves of 128x128 tiles, so the fraction is per-SM efficiency; smaller
//    GEMMs lose more to padding and partial waves (kernel_time.h). The
//    A100's short sweeps run at the 1,410
//    MHz boost clock; under sustained load at its 400 W limit it holds about
//    1,305 MHz, the clock NVIDIA uses for the A100's HPL Rpeak (G. Lockwood,
//    "peak FLOPS" notes): 85.9 % × 1305/1410 = 0.80. The H100's 989 TFLOP/s is
//    already quoted at 1,830 MHz, below its 1,980 MHz boost: MAMF as measured.
//    matmul_best is the MAMF fraction as measured (A100 0.859, H100 0.801,
//    B200 0.776, MI300X 0.514): the most any GEMM reached, a fit's ceiling.
//    Inside a training step Hopper's and Blackwell's GEMMs run well below
//    their MAMF. The one published decomposition of a step by kernel
//    (S. Bekman, ml-engineering, insights/when-to-upgrade-gpus, 2026:
//    Llama-3.1-8B, 8 GPUs, DeepSpeed ZeRO-2, micro-batch 1 of 8K tokens,
//    fused element-wise kernels, torch 2.13 / CUDA 13.0) ran everything but
//    attention at 463 TFLOP/s on H200 and 771 on B200 (6·N per token, N =
//    8.03B). Less the element-wise, optimizer and gradient-collective time
//    Napkin prices for that step (ZeRO-2's reduce-scatter and all-gather
//    of the bf16 gradients and weights unoverlapped: DeepSpeed's
//    overlap_comm is off by default), its GEMMs ran at 0.53 of the H100's
//    peak and 0.39 of the B200's ("young" sm_100 cuBLAS, the source says):
//    the `matmul` fractions. The A100's sustained-clock fraction (0.80)
//    predicts its published steps (Korthikanti, Narayanan, vTrain) without
//    such a term. On H100 that subtraction understates the rate: NVIDIA's
//    DGX Cloud Benchmarking recipes (release 24.11.1) ran Llama 3.1 8B in
//    BF16 on one DGX H100 (NeMo 24.09: TP 1, CP 2, 32 micro-batches of one
//    8K sequence per step) in 12.91 s, which Napkin's step reproduces with
//    GEMMs at 0.63 of the peak (0.79 of the MAMF): the H100's `matmul`, set
//    from that single-node row alone (the scoreboard's dgxc-h100 set leaves
//    it out). At 0.53 every multi-node BF16 table of that release read 9-17
//    % slow. Hopper's FP8 fraction takes the same in-step share of its own
//    MAMF (below). B200 has no such row: its fraction is the
//    decomposition's 0.39 with the bias that subtraction showed on Hopper
//    taken out, 0.39 x 0.63/0.53 = 0.464 (0.60 of B200's MAMF). Kept at the
//    raw 0.39 it priced DGX Cloud's GB200 BF16 tables (release 25.05) 20-25 %
//    slow while their FP8 rows, at Hopper's in-step share of the FP8 MAMF,
//    read 13-27 % fast: bf16 GEMMs at half their MAMF beside FP8 at 0.79 of
//    theirs, FP8 3.1x bf16 on one chip where those tables ran it 1.5x.
//  attention, in the same source, counts 6·s²·d per layer (forward and
//    backward as 3 forwards); Napkin counts the backward as 2.5 forwards
//    (FlashAttention's five matmuls to two), so a measured rate R is
//    R·3.5/3 in Napkin's count: 447 TFLOP/s on H200 is 0.527 of 989, 834
//    on B200 0.432 of 2,250.
//  link: nccl-tests bus bandwidth of large collectives inside a node: ~230-235
//    of 300 GB/s on DGX A100; on H100 "~20 % protocol overhead: ~370 of 450
//    GB/s" (NCCL maintainers, nccl-tests issue 212).
//  hbm: element-wise kernels with reductions or random numbers (layer norm,
//    softmax, dropout) reach 60-85 % of HBM peak in Nsight profiles, below a
//    plain copy (~1.8 of 2.04 TB/s on A100, ~3.0 of 3.35 TB/s on H100): 0.70
//    on A100, 0.75 on H100-class parts.
//  attention: fused causal attention, forward + backward, head dim 128:
//    FlashAttention-2 reaches 190-225 of 312 TFLOP/s on A100 (Dao 2023,
//    fig. 5-6); on H100 FlashAttention-3 / cuDNN reach 600-740 TFLOP/s forward
//    and about 1.6x FlashAttention-2's ~330 backward (Shah et al. 2024): ~560
//    alone, and inside a training step about that: FlashAttention-3 ran at
//    447 of 989 TFLOP/s in Llama-3.1-8B training steps at 8K tokens on H200
//    (H100's compute; the step's kernel time split by kernel, S. Bekman,
//    ml-engineering, insights/when-to-upgrade-gpus, 2026), 0.527 in
//    Napkin's count (see `matmul` above for both conversions).
//    FlashAttention-2 itself on H100, which PyTorch's SDPA runs there unless
//    told otherwise (its cuDNN backend has been opt-in since 2.5.1, pytorch
//    #138522): "only 35% utilization" (Shah et al. 2024, abstract); 329
//    TFLOP/s forward against cuDNN's 631 at (1, 24, 4608, 128) on a torch
//    nightly of December 2024 (pytorch issue #142132); ~330 backward: 0.33
//    alone. Standalone rates enter a step at Hopper's in-step share of its
//    kernels' rate, FlashAttention-3's 521 inside the H200 steps against
//    ~560 alone (0.93; the rule MI300X's attention follows): FlashAttention-2
//    0.33 x 0.93 = 0.307 on H100, 200 of 312 (0.64) x 0.93 = 0.60 on A100.
// Fractions derived by a stated rule are computed, rounded as their source
// lines print them, so a changed input moves all that follow from it: the
// H100's in-step share of its MAMF carries to its FP8 MAMF, to MI300X's, and
// by the chips' MAMF rows (percent) to Blackwell's (B200's bf16, Hopper's FP8).
constexpr double rounded_to(double x, double per) {
  return static_cast<double>(static_cast<long long>(x * per + 0.5)) / per;
}
constexpr double kH100Bf16InStep = 0.63, kH100Bf16Mamf = 0.801;
// The step decomposition's bf16 fractions (H100's from its H200 step, B200's)
// and B200's with the decomposition's bias on Hopper (0.53 against 0.63)
// taken out.
constexpr double kH100Bf16Decomposed = 0.53, kB200Bf16Decomposed = 0.39;
constexpr double kB200Bf16InStep =
    rounded_to(kB200Bf16Decomposed * kH100Bf16InStep / kH100Bf16Decomposed, 1000);
constexpr double kHopperFp8InStep = rounded_to(kH100Bf16InStep / kH100Bf16Mamf * 0.709, 1000);
constexpr double blackwell_bf16(double mamf_percent) {
  return rounded_to(kB200Bf16InStep * mamf_percent / 77.6, 1000);
}
constexpr double blackwell_fp8(double fp8_mamf_percent) {
  return rounded_to(kHopperFp8InStep * fp8_mamf_percent / 70.9, 1000);
}
constexpr Efficiency kA100Eff{0.80, 0.78, 0.70, 0.60,
    "A100: MAMF 267.9/312 TFLOP/s at boost x 1305/1410 MHz sustained at 400 W; nccl-tests "
    "~230 of 300 GB/s NVLink 3; fused element-wise kernels ~70 % of HBM; FlashAttention-2 "
    "~200 of 312 TFLOP/s alone (Dao 2023) x Hopper's in-step/standalone 0.93",
    0, 0.859, 0, true};
// FP8 on Hopper: DeepGEMM's published H800 table (README, Feb 2025) gives, for
// DeepSeek-V3's dense training shapes at M = 4,096, its TFLOP/s and its speedup
// over a tuned CUTLASS 3.6 FP8 GEMM; the CUTLASS figures (1,132 at K = 16,384,
// 1,185 at K = 7,168, 990 at K = 1,536, 932 at K = 2,048 TFLOP/s of 1,979) are
// 0.57-0.65 of the FP8 peak after the wave and epilogue terms, 0.62: standalone
// GEMMs, 0.87 of the FP8 MAMF (1,402.6 of 1,979, 70.9 %). Inside a training
// step a GEMM keeps less of its MAMF, as the bf16 fraction shows (0.63 of the
// peak, 0.79 of the MAMF), so FP8 takes the same in-step share of the FP8
// MAMF, the rule Blackwell's fractions follow: 0.63/0.801 x 0.709 = 0.558.
// It was 0.62 (the CUTLASS figure) until the bf16 fraction was set from a
// training step; the README shows both against the FP8 sets (Megatron Bridge
// on H100 −5.5 % at 0.558 and +0.7 % at 0.62; NeMo 24.07 −0.1 % and +5.9 %;
// DGX Cloud's FP8 rows +2 % and +8 %).
constexpr Efficiency kH100Eff{kH100Bf16InStep, 0.80, 0.75, 0.527,
    "H100: bf16 GEMMs 0.63 of 989 TFLOP/s inside training steps, below the MAMF 792.1 "
    "(set from one single-node row: Llama 3.1 8B BF16 on a DGX H100, 12.91 s per step, NVIDIA "
    "DGX Cloud Benchmarking 24.11; ml-engineering MAMF tables); NCCL "
    "~370 of 450 GB/s NVLink 4; fused element-wise kernels ~75 % of HBM; FlashAttention-3 "
    "forward+backward 447 of 989 TFLOP/s inside Llama-3.1-8B steps on H200 (521 in Napkin's "
    "count; ml-engineering, when to upgrade GPUs); "
    "FP8 GEMMs 0.558 of the FP8 peak, the bf16 in-step share of the MAMF (0.79) x the FP8 MAMF "
    "1,402.6 of 1,979 (standalone CUTLASS 3.6 at DeepSeek-V3's training shapes on H800 reach "
    "0.62, DeepGEMM README); FlashAttention-2 (PyTorch SDPA's default) ~330 of 989 TFLOP/s "
    "alone (FlashAttention-3 paper; pytorch issue 142132) x the in-step/standalone 0.93",
    kHopperFp8InStep, kH100Bf16Mamf, 0.307};
// H200: the H100's die with HBM3e at 4.8 TB/s. One benchmark suite ran
// BabelStream on both (Azure AI-benchmarking-guide, ND H100 v5 and ND H200 v5
// results, September 2024): copies at 2.90 of 3.35 TB/s on H100 and 4.01 of
// 4.8 on H200, 0.965 of the H100's fraction. The H200's memory fractions are
// the H100's scaled by that ratio (the rule the Blackwell GEMM fractions
// follow with the MAMF rows): element-wise kernels 0.75 x 0.965 = 0.724.
constexpr double kH200OverH100Copy = (4.01 / 4.80) / (2.90 / 3.35);
constexpr Efficiency kH200Eff{kH100Eff.matmul, kH100Eff.link,
    rounded_to(kH100Eff.hbm * kH200OverH100Copy, 1000), kH100Eff.attention,
    "H200: the H100's fractions (same die and kernels; its attention fraction was measured on "
    "H200), memory-bound kernels at the H100's x 0.965, the two chips' BabelStream copy "
    "fractions (2.90 of 3.35 and 4.01 of 4.8 TB/s, Azure AI-benchmarking-guide): fused "
    "element-wise kernels 0.724 of HBM",
    kH100Eff.matmul_fp8, kH100Eff.matmul_best, kH100Eff.attention_fa2};
// B200: the same MAMF sweeps (ml-engineering, compute/accelerator, 2026
// table): bf16 1,745.0 of 2,250 TFLOP/s (77.6 %, 1792x16128x3072, torch 2.7.1
// + CUDA 12.8); FP8 3,432.5 of 4,500 (76.3 %), where H100 reaches 1,402.6 of
// 1,979 (70.9 %). FP8 at training shapes: Hopper's in-step 0.558 scaled by
// the two chips' FP8 MAMF, 0.558 × 76.3/70.9 = 0.600. Attention inside a
// training step: FlashAttention-4 ran at 834 of 2,250 TFLOP/s in
// Llama-3.1-8B training steps at 8K tokens on B200, where
// FlashAttention-3 ran at 447 of 989 on H200 (ml-engineering,
// insights/when-to-upgrade-gpus, 2026; its isolated benchmark gives the same
// 1.88x); cuDNN's kernel, which Transformer Engine runs, is at most FA4's
// ("up to 1.3x" slower forward, FlashAttention-4 paper): 0.432 in Napkin's
// count (834 x 3.5/3 of 2,250). Its bf16 GEMMs in that step: 0.39, 0.464
// with the decomposition's bias on Hopper taken out (Hopper's comment above). NVLink 5:
// nccl-tests all_reduce of 8 GiB on 8 B200 (p6-b200, NCCL 2.27.7) 682.2 of
// 900 GB/s bus bandwidth with NVLink SHARP off, the ring H100's 370 of 450
// counts (ml-engineering, network/README): 0.76. HBM: no public B200 copy
// measurement cited, Hopper's fraction.
constexpr Efficiency kB200Eff{kB200Bf16InStep, 0.76, 0.75, 0.432,
    "B200: bf16 GEMMs 0.464 of 2,250 TFLOP/s inside training steps, below the MAMF 1,745: 0.39 "
    "in a Llama-3.1-8B step decomposed by kernel (ml-engineering, when to upgrade GPUs; MAMF "
    "tables) x 0.63/0.53, the bias that decomposition showed on H100; FP8 MAMF "
    "3,432.5 of 4,500; FP8 GEMMs of training shapes at Hopper's in-step 0.558 x the FP8 MAMF "
    "ratio 76.3/70.9 = 0.600; fused attention 834 of 2,250 TFLOP/s in that step's count, 973 in "
    "Napkin's (FlashAttention-4); nccl-tests all_reduce 682.2 of 900 GB/s on 8 B200 (ring, "
    "ml-engineering network tables); HBM fraction assumed as H100 (no public B200 copy "
    "benchmark cited)",
    blackwell_fp8(76.3), 0.776};
// GB200: B200's die at 1,200 W and a 2.5 PFLOP/s peak. No GB200 step has
// been published by kernel, so its in-step fractions are B200's scaled by
// the two chips' MAMF rows, the rule FP8 on Blackwell already follows
// (Hopper's in-step FP8 fraction x the FP8 MAMF ratio): the MAMF table's
// GB200 rows, bf16 1,822 of 2,500 TFLOP/s (72.9 %) and FP8 3,615.6 of 5,000
// (72.3 %, a development torch 2.10 with CUDA 13.0), against B200's 77.6 %
// and H100's FP8 70.9 %: bf16 0.464 x 72.9/77.6 = 0.436, FP8 0.558 x
// 72.3/70.9 = 0.569. The bf16 MAMF is the ceiling.
constexpr Efficiency kGb200Eff{blackwell_bf16(72.9), 0.76, 0.75, 0.432,
    "GB200: B200's in-step fractions scaled by the MAMF rows (no GB200 step measured by "
    "kernel): bf16 GEMMs 0.464 x 72.9/77.6 = 0.436 of the peak inside training steps, FP8 GEMMs "
    "Hopper's 0.558 x 72.3/70.9 = 0.569 (ml-engineering MAMF tables: GB200 1,822 of 2,500 "
    "TFLOP/s bf16, 3,615.6 of 5,000 FP8), fused attention 0.432 (FlashAttention-4), NVLink 5 at "
    "0.76; the ceiling is GB200's own MAMF, 72.9 %",
    blackwell_fp8(72.3), 0.729};
// B300: the MAMF tables' B300 rows (ml-engineering, torch 2.9.1 + CUDA 13.0):
// bf16 1,769.0 of 2,250 TFLOP/s (78.6 %, "same as B200, newer torch/cuda"),
// FP8 3,353.3 of 4,500 (74.5 %). In-step fractions by GB200's rule: bf16
// 0.464 x 78.6/77.6 = 0.470; FP8 0.558 x 74.5/70.9 = 0.586.
constexpr Efficiency kB300Eff{blackwell_bf16(78.6), 0.76, 0.75, 0.432,
    "B300: B200's in-step fractions scaled by the MAMF rows (no B300 step measured by kernel): "
    "bf16 GEMMs 0.464 x 78.6/77.6 = 0.470 of the peak inside training steps, FP8 GEMMs Hopper's "
    "0.558 x 74.5/70.9 = 0.586 (ml-engineering MAMF tables: B300 1,769.0 of 2,250 TFLOP/s bf16, "
    "3,353.3 of 4,500 FP8), fused attention 0.432 (FlashAttention-4), NVLink 5 at 0.76; the "
    "ceiling is B300's own MAMF, 78.6 %",
    blackwell_fp8(74.5), 0.786};
// MI300X attention: AMD's asm FlashAttention kernels (ROCm/aiter,
// op_tests/cpp/mha/README.md, bf16, batch 8, 64 query and 8 KV heads of 128,
// causal, 8K): forward 550.7 and backward 474.0 TFLOP/s (bf16 atomics), so
// forward + backward (the backward 2.5x the forward's FLOPs) 3.5 / (1/550.7 +
// 2.5/474.0) = 494 of 1,307.4: 0.38, a standalone kernel's rate. No MI300X
// step has been published by kernel, so the in-step rate takes Hopper's
// in-step share of its kernels' rate, as the GEMMs below take Hopper's share
// of the MAMF: FlashAttention-3 ran at 521 TFLOP/s (Napkin's count) inside
// the H200 steps against ~560 alone (kH100Eff's comment), 0.93; 0.38 x 0.93
// = 0.353. Collectives: RCCL all_reduce_perf on 8 MI300X (RCCL 2.22.3,
// ROCm 6.3) 310-319 GB/s bus bandwidth from 512 MB to 16 GB, "capped at
// 310-330 GB/s" (ROCm blogs, mi300x-rccl-xgmi, March 2025): 0.70 of 448.
// GEMMs: the MAMF table's current MI300X row, 668.4 of 1,300 TFLOP/s (51.4 %,
// a mean of 100 iterations, torch 2.5.1 + ROCm 6.3 with TunableOp), is the
// ceiling (matmul_best). No training step on MI300X has been published by
// kernel, so the in-step fraction is an assumption, stated as one: the
// H100's in-step-to-MAMF ratio, 0.63/0.801, × 0.514 = 0.40. Pricing the step
// at the MAMF would assume what no chip measured inside a step does (H100
// 0.79 of its MAMF, B200 0.50). A published single-GPU comparison has H200
// ahead ("Training, 8B, BF16: H200 1.32x to 1.40x"; alpharomercoma/
// MI300X-vs-H200, REPORT.md), where at the MAMF Napkin's GEMMs had MI300X
// 1.07x faster; at 0.40 H200's are 1.19x faster. FP8 at Hopper's FP8-to-bf16
// ratio (0.558/0.801) × 0.514 = 0.36.
constexpr Efficiency kMi300xEff{rounded_to(kH100Bf16InStep / kH100Bf16Mamf * 0.514, 100), 0.70, 0.65, 0.353,
    "MI300X: GEMMs inside a training step assumed at the H100's in-step/MAMF ratio (0.63/0.801) "
    "x the MAMF 668.4/1,300 TFLOP/s (torch 2.5.1 + ROCm 6.3, TunableOp; ml-engineering): "
    "no MI300X step measured by kernel; HBM copy ~4.1 of 5.3 TB/s "
    "(Chips and Cheese); RCCL all_reduce bus bandwidth 310-319 of 448 GB/s on 8 GPUs (ROCm "
    "blogs, mi300x-rccl-xgmi) and 47.7 of 64 over 2 (ml-engineering network tables); fused "
    "attention forward + backward 494 of 1,307 TFLOP/s, causal 8K, aiter's asm kernels "
    "standalone (ROCm/aiter mha README), x Hopper's in-step/standalone 0.93 (assumed); FP8 "
    "GEMMs at Hopper's FP8-to-bf16 ratio (0.558/0.801) "
    "x the MAMF",
    rounded_to(kHopperFp8InStep / kH100Bf16Mamf * 0.514, 100), 0.514};
constexpr Efficiency kTpuEff{0.80, 0.80, 0.75, 0.50,
    "TPU: estimates (no public per-kernel sweep); XLA matmuls of transformer sizes ~80 % of peak"};

// Streaming-read fractions of the HBM datasheet bandwidth (the row's last two
// fields): what a large device-to-device copy sustains, the ceiling for a
// decode step that streams weights and KV cache once. Never fitted to serving
// measurements.
constexpr double kH100Stream = 0.90;
constexpr std::string_view kH100StreamSource =
    "H100 SXM: large device-to-device copies reach ~3.0 of 3.35 TB/s, the copy figure behind "
    "efficiency.hbm";
constexpr double kA100Stream = 0.88;
constexpr std::string_view kA100StreamSource =
    "A100 SXM: large device-to-device copies reach ~1.8 of 2.04 TB/s, the copy figure behind "
    "efficiency.hbm";
constexpr double kH200Stream = rounded_to(kH100Stream * kH200OverH100Copy, 1000);
constexpr std::string_view kH200StreamSource =
    "H200: the H100's copy fraction x 0.965, the two chips' BabelStream copies in one suite "
    "(2.90 of 3.35 TB/s on H100, 4.01 of 4.8 on H200; Azure AI-benchmarking-guide, ND H100 v5 "
    "and ND H200 v5 results)";
constexpr std::string_view kHopperStreamSource =
    "assumed as H100, whose copies reach ~3.0 of 3.35 TB/s: same Hopper memory system, no copy "
    "figure cited";
constexpr std::string_view kA100_40StreamSource =
    "assumed as A100 80GB, whose copies reach ~1.8 of 2.04 TB/s: same memory controller, no "
    "copy figure cited";
constexpr std::string_view kB200StreamSource =
    "assumed as H100, a 0.90 copy fraction: no public B200 copy benchmark";
constexpr double kMi300xStream = 0.77;
constexpr std::string_view kMi300xStreamSource =
    "MI300X: HBM copies reach ~4.1 of 5.3 TB/s, Chips and Cheese";
constexpr double kTpuStream = 0.85;
constexpr std::string_view kTpuStreamSource =
    "TPU: an estimate, no public copy microbenchmark; between the GPUs' measured copy "
    "fractions, 0.77 on MI300X to 0.90 on H100";
// clang-format on

}  // namespace napkin::chip_efficiency
