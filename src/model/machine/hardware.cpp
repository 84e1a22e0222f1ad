#include "hardware.h"

#include <array>
#include <cmath>
#include <deque>
#include <stdexcept>

#include "validate.h"

namespace napkin {

namespace {

// clang-format off
// Networks. Bandwidths are per chip per direction (datasheets quote NVLink as a
// bidirectional total; it is halved here). Latencies are the fixed cost of one
// step of a ring collective: NCCL's measured small-message all-reduce times are
// ~10 µs inside an NVLink node and ~20 µs across InfiniBand for 8-16 GPUs
// (nccl-tests on DGX A100/H100), i.e. a few µs per step.
constexpr Network kHgxH100Net{8, 450e9, 50e9, 3e-6, 6e-6,
    "NVLink 4: 900 GB/s bidirectional per GPU; one 400 Gb/s NDR InfiniBand NIC per GPU "
    "(NVIDIA DGX H100 / HGX H100 datasheets)"};
constexpr Network kH800Net{8, 200e9, 50e9, 3e-6, 6e-6,
    "NVLink 400 GB/s bidirectional per GPU (export-limited H800); 400 Gb/s InfiniBand per GPU "
    "(DeepSeek-V3 technical report §3.2: NVLink ~160 GB/s achieved, IB 50 GB/s)"};
constexpr Network kDgxA100Net{8, 300e9, 25e9, 3e-6, 6e-6,
    "NVLink 3: 600 GB/s bidirectional per GPU; one 200 Gb/s HDR InfiniBand NIC per GPU "
    "(NVIDIA DGX A100 datasheet)"};
constexpr Network kHgxB200Net{8, 900e9, 50e9, 3e-6, 6e-6,
    "NVLink 5: 1.8 TB/s bidirectional per GPU; one 400 Gb/s ConnectX-7 NIC per GPU "
    "(NVIDIA DGX B200 datasheet)"};
// GB200 NVL72: 72 Blackwell GPUs behind one NVLink switch fabric.
constexpr Network kGb200Nvl72Net{72, 900e9, 50e9, 3e-6, 6e-6,
    "NVLink 5: 1.8 TB/s bidirectional per GPU across a 72-GPU NVL72 rack; one 400 Gb/s "
    "ConnectX-7 NIC per GPU between racks (NVIDIA GB200 NVL72 datasheet)"};
// Blackwell Ultra systems: the same NVLink 5 fabric, one 800 Gb/s ConnectX-8
// SuperNIC per GPU between nodes and racks.
constexpr Network kHgxB300Net{8, 900e9, 100e9, 3e-6, 6e-6,
    "NVLink 5: 1.8 TB/s bidirectional per GPU; one 800 Gb/s ConnectX-8 NIC per GPU "
    "(NVIDIA DGX B300 datasheet)"};
constexpr Network kGb300Nvl72Net{72, 900e9, 100e9, 3e-6, 6e-6,
    "NVLink 5: 1.8 TB/s bidirectional per GPU across a 72-GPU NVL72 rack; one 800 Gb/s "
    "ConnectX-8 NIC per GPU between racks (NVIDIA GB300 NVL72 datasheet: 72 ConnectX-8)"};
// MI300X: a full mesh, no switch. all_reduce_bench of 4 GiB on an 8x MI300X
// node: 312.9 GB/s bus bandwidth over 8 GPUs, 47.7 over 2, "6.5x slower"
// (ml-engineering, network/README, "Peer-to-peer bandwidth").
constexpr Network kMi300xNet{8, 448e9, 50e9, 4e-6, 6e-6,
    "7 Infinity Fabric links x 64 GB/s per direction per GPU, fully connected 8-GPU platform "
    "(a group of r GPUs uses the r - 1 links between them); 400 Gb/s NIC per GPU (AMD Instinct "
    "MI300X platform datasheet)",
    true};
// TPU slices: the fast domain is the ICI torus of one pod; DCN links pods.
constexpr Network kTpuV5eNet{256, 100e9, 6.25e9, 2e-6, 10e-6,
    "ICI 1,600 Gb/s per chip (halved per direction), 256-chip pod; DCN ~50 Gb/s per chip is an "
    "estimate (Google Cloud TPU v5e system architecture page)"};
constexpr Network kTpuV5pNet{8960, 300e9, 6.25e9, 2e-6, 10e-6,
    "ICI 4,800 Gb/s per chip (halved per direction), 8,960-chip pod, 3D torus; DCN per chip is "
    "an estimate (Google Cloud TPU v5p system architecture page)"};
constexpr Network kTpuV6eNet{256, 224e9, 12.5e9, 2e-6, 10e-6,
    "ICI 3,584 Gb/s per chip (halved per direction), 256-chip pod; DCN per chip is an estimate "
    "(Google Cloud TPU v6e system architecture page)"};

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
//    MAMF (below). B200's 0.39 has no such row and stays the
//    decomposition's (which gave H100 0.53 against 0.63).
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
// The H100 SXM's peak at a 500 W limit: (500/700)^b with b = ln(989/835) /
// ln(700/400), the datasheets' SXM and NVL (H100-HBM2e's row below).
constexpr double kPowerLimitedShare500W = 0.9032;
constexpr double kH100Bf16InStep = 0.63, kH100Bf16Mamf = 0.801, kB200Bf16InStep = 0.39;
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
    0, 0.859};
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
// count (834 x 3.5/3 of 2,250). Its bf16 GEMMs in that step: 0.39 (Hopper's
// comment above). NVLink 5:
// nccl-tests all_reduce of 8 GiB on 8 B200 (p6-b200, NCCL 2.27.7) 682.2 of
// 900 GB/s bus bandwidth with NVLink SHARP off, the ring H100's 370 of 450
// counts (ml-engineering, network/README): 0.76. HBM: no public B200 copy
// measurement cited, Hopper's fraction.
constexpr Efficiency kB200Eff{kB200Bf16InStep, 0.76, 0.75, 0.432,
    "B200: bf16 GEMMs 0.39 of 2,250 TFLOP/s inside Llama-3.1-8B training steps, below the MAMF "
    "1,745 (ml-engineering, when to upgrade GPUs: the step by kernel; MAMF tables); FP8 MAMF "
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
// and H100's FP8 70.9 %: bf16 0.39 x 72.9/77.6 = 0.366, FP8 0.558 x
// 72.3/70.9 = 0.569. The bf16 MAMF is the ceiling.
constexpr Efficiency kGb200Eff{blackwell_bf16(72.9), 0.76, 0.75, 0.432,
    "GB200: B200's in-step fractions scaled by the MAMF rows (no GB200 step measured by "
    "kernel): bf16 GEMMs 0.39 x 72.9/77.6 = 0.366 of the peak inside training steps, FP8 GEMMs "
    "Hopper's 0.558 x 72.3/70.9 = 0.569 (ml-engineering MAMF tables: GB200 1,822 of 2,500 "
    "TFLOP/s bf16, 3,615.6 of 5,000 FP8), fused attention 0.432 (FlashAttention-4), NVLink 5 at "
    "0.76; the ceiling is GB200's own MAMF, 72.9 %",
    blackwell_fp8(72.3), 0.729};
// B300: the MAMF tables' B300 rows (ml-engineering, torch 2.9.1 + CUDA 13.0):
// bf16 1,769.0 of 2,250 TFLOP/s (78.6 %, "same as B200, newer torch/cuda"),
// FP8 3,353.3 of 4,500 (74.5 %). In-step fractions by GB200's rule: bf16
// 0.39 x 78.6/77.6 = 0.395; FP8 0.558 x 74.5/70.9 = 0.586.
constexpr Efficiency kB300Eff{blackwell_bf16(78.6), 0.76, 0.75, 0.432,
    "B300: B200's in-step fractions scaled by the MAMF rows (no B300 step measured by kernel): "
    "bf16 GEMMs 0.39 x 78.6/77.6 = 0.395 of the peak inside training steps, FP8 GEMMs Hopper's "
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

// The last fields of each row: the SMs / CUs a GEMM's tiles spread over (A100
// 108 and H100/H200/H800 132 SMs, NVIDIA A100 and H100 whitepapers; B200 148;
// MI300X 304 CUs, AMD CDNA 3 whitepaper; 0 for TPUs) and the output tile of
// the large GEMM kernels: 256×128 on NVIDIA ("the most efficient" cuBLAS
// tiles, NVIDIA Matrix Multiplication Background guide §2.3; the A100's MAMF
// best shape 6912×16384 is exactly 32 waves of them), 256×256 on MI300X
// (hipBLASLt macro tiles), the MXU edge on TPUs (128, 256 on v6e).
constexpr std::array kChips{
    // Seed Phase 00 ch. 10 table (NVIDIA H100 SXM5 datasheet: 989 TFLOP/s dense
    // bf16, 80 GB HBM3, 3.35 TB/s, 700 W; the seed rounds the peak to 990).
    Chip{"H100", 990e12, 80'000'000'000, 3.35e12, 700,
         "NVIDIA H100 SXM5 datasheet (seed Phase 00 ch. 10 rounding)",
         1979e12, kHgxH100Net, kH100Eff, 132, 256, 128, kH100Stream, kH100StreamSource},
    // NVIDIA A100 80GB SXM datasheet: 312 TFLOP/s bf16, 2,039 GB/s, 400 W.
    Chip{"A100-80", 312e12, 80'000'000'000, 2.03e12, 400,
         "NVIDIA A100 80GB SXM datasheet (seed Phase 00 ch. 10 rounding)",
         0, kDgxA100Net, kA100Eff, 108, 256, 128, kA100Stream, kA100StreamSource},
    // Google Cloud TPU v5e docs: 197 TFLOP/s bf16, 16 GiB HBM2, 819 GB/s.
    Chip{"TPU v5e", 197e12, 16'000'000'000, 0.819e12, 170,
         "Google Cloud TPU v5e system architecture page (seed Phase 00 ch. 10)",
         0, kTpuV5eNet, kTpuEff, 0, 128, 128, kTpuStream, kTpuStreamSource},
    // Google Cloud TPU v5p docs: 459 TFLOP/s bf16, 95 GB HBM2e, 2,765 GB/s.
    Chip{"TPU v5p", 459e12, 95'000'000'000, 2.77e12, 600,
         "Google Cloud TPU v5p system architecture page (seed Phase 00 ch. 10)",
         0, kTpuV5pNet, kTpuEff, 0, 128, 128, kTpuStream, kTpuStreamSource},
    // NVIDIA H200 SXM datasheet: 989 TFLOP/s dense bf16, 141 GB HBM3e, 4.8 TB/s, 700 W.
    Chip{"H200", 989e12, 141'000'000'000, 4.8e12, 700,
         "NVIDIA H200 Tensor Core GPU datasheet (SXM)",
         1979e12, kHgxH100Net, kH100Eff, 132, 256, 128, kH100Stream, kHopperStreamSource},
    // NVIDIA DGX/HGX B200 datasheet: 2.25 PFLOP/s dense bf16 per GPU, 192 GB HBM3e,
    // 8 TB/s, 1,000 W.
    Chip{"B200", 2250e12, 192'000'000'000, 8.0e12, 1000,
         "NVIDIA HGX B200 datasheet (per GPU, dense)",
         4500e12, kHgxB200Net, kB200Eff, 148, 256, 128, kH100Stream, kB200StreamSource},
    // NVIDIA GB200 NVL72 datasheet, per GPU (the rack's figures over 72, the
    // datasheet's "with sparsity" halved): 360 PFLOP/s bf16 → 2.5 PFLOP/s
    // dense, 720 FP8 → 5 PFLOP/s, up to 13.4 TB HBM3e → 186 GB, 576 TB/s →
    // 8 TB/s; 1,200 W per GPU (NVIDIA Blackwell architecture technical brief:
    // the GB200 configuration, where HGX B200 runs at 1,000 W and 2.25
    // PFLOP/s). The same Blackwell die and kernels as B200: B200's SM count,
    // its in-step fractions scaled by GB200's MAMF rows (kGb200Eff).
    Chip{"GB200", 2500e12, 186'000'000'000, 8.0e12, 1200,
         "NVIDIA GB200 NVL72 datasheet (per GPU, dense); 1,200 W per the Blackwell technical "
         "brief; B200's in-step efficiencies scaled by GB200's MAMF rows (same die and kernels)",
         5000e12, kGb200Nvl72Net, kGb200Eff, 148, 256, 128, kH100Stream, kB200StreamSource},
    // Blackwell Ultra (B300 die: 160 SMs, 288 GB of 12-high HBM3e at 8 TB/s).
    // HGX/DGX B300, per GPU, dense: 2.25 PFLOP/s bf16 and 4.5 FP8, as B200
    // (DGX B300 datasheet's 72 PFLOP/s FP8 training over 8 GPUs with
    // sparsity); 1,000 W maximum TGP (DGX B300 power-capping guide). GB300
    // NVL72, per GPU: 360 PFLOP/s bf16 and 720 FP8 with sparsity over 72
    // GPUs, 2.5 and 5 dense, as GB200; up to 20 TB of HBM3e, 279 GB per GPU;
    // 576 TB/s, 8 TB/s; 1,400 W per GPU. No Blackwell Ultra step has been
    // published by kernel: the same kernels as Blackwell's, so B200's in-step
    // fractions scaled by B300's MAMF rows (kB300Eff), and GB200's for GB300
    // (no GB300 MAMF published). Blackwell Ultra doubles the exponentials per
    // clock that attention's softmax needs (10.7 against 5 tera-exponentials
    // per second); a FlashAttention step measured on it would replace B200's
    // attention fraction, which leaves that unpriced.
    Chip{"B300", 2250e12, 288'000'000'000, 8.0e12, 1000,
         "NVIDIA DGX B300 datasheet (per GPU, dense; 288 GB HBM3e); 1,000 W maximum TGP; "
         "B200's in-step efficiencies scaled by B300's MAMF rows (same kernels)",
         4500e12, kHgxB300Net, kB300Eff, 160, 256, 128, kH100Stream, kB200StreamSource},
    Chip{"GB300", 2500e12, 279'000'000'000, 8.0e12, 1400,
         "NVIDIA GB300 NVL72 datasheet (per GPU, dense; 20 TB and 576 TB/s of HBM3e over 72 "
         "GPUs); 1,400 W per GPU; efficiencies as GB200's (same kernels and peak; no GB300 MAMF "
         "published)",
         5000e12, kGb300Nvl72Net, kGb200Eff, 160, 256, 128, kH100Stream, kB200StreamSource},
    // AMD Instinct MI300X datasheet: 1,307.4 TFLOP/s dense bf16, 192 GB HBM3,
    // 5.3 TB/s, 750 W.
    Chip{"MI300X", 1307.4e12, 192'000'000'000, 5.3e12, 750,
         "AMD Instinct MI300X accelerator datasheet",
         2614.9e12, kMi300xNet, kMi300xEff, 304, 256, 256, kMi300xStream, kMi300xStreamSource},
    // Google Cloud TPU v6e (Trillium) docs: 918 TFLOP/s bf16, 32 GB HBM, 1,640 GB/s.
    // Google publishes no per-chip power; 300 W is an estimate, marked as such.
    Chip{"TPU v6e", 918e12, 32'000'000'000, 1.64e12, 300,
         "Google Cloud TPU v6e (Trillium) docs; power is an estimate (unpublished)",
         0, kTpuV6eNet, kTpuEff, 0, 256, 256, kTpuStream, kTpuStreamSource},
    // NVIDIA H800 SXM5 (the export variant DeepSeek trained on): H100 compute and
    // memory, NVLink cut to 400 GB/s.
    Chip{"H800", 989e12, 80'000'000'000, 3.35e12, 700,
         "NVIDIA H800 SXM5 (H100 silicon; NVLink 400 GB/s); DeepSeek-V3 technical report",
         1979e12, kH800Net, kH100Eff, 132, 256, 128, kH100Stream, kHopperStreamSource},
    // The H100 SXM with 96 GB of HBM2e at 2.4 TB/s that Meta's Grand Teton
    // hosts carry, at their default 500 W limit (torchtitan's December 2024
    // benchmark page, "Hardware"); the page puts its peak "between SXM and
    // NVL" without a value. A power limit sets the clock the tensor cores
    // hold, and NVIDIA's datasheets give the same 132-SM die's peak at two
    // limits: the SXM's 989 TFLOP/s dense bf16 at 700 W (1,830 MHz) and the
    // NVL's 835 at 400 W (1,545 MHz). Peak ∝ limit^b through those two points
    // (b = ln(989/835) / ln(700/400) = 0.302, about the cube root that dynamic
    // power ∝ f·V² with V rising with f gives) puts 500 W at 0.903 of the
    // SXM: kPowerLimitedShare500W, bf16 and FP8 alike; the fractions are the
    // SXM's (shares of the peak, which moves with the clock).
    Chip{"H100-HBM2e", 990e12 * kPowerLimitedShare500W, 96'000'000'000, 2.4e12, 500,
         "H100 SXM, 96 GB HBM2e at 2.4 TB/s, 500 W default limit (Grand Teton; torchtitan "
         "benchmarks/llama3_h100_202412_torchtitan.md); peaks at 500 W by the datasheets' SXM "
         "(700 W, 989 TFLOP/s) and NVL (400 W, 835): x (500/700)^0.302 = 0.903",
         1979e12 * kPowerLimitedShare500W, kHgxH100Net, kH100Eff, 132, 256, 128, kH100Stream,
         kHopperStreamSource},
    // NVIDIA A100 40GB SXM datasheet: 312 TFLOP/s bf16, 40 GB HBM2, 1,555 GB/s, 400 W.
    Chip{"A100-40", 312e12, 40'000'000'000, 1.555e12, 400,
         "NVIDIA A100 40GB SXM datasheet",
         0, kDgxA100Net, kA100Eff, 108, 256, 128, kA100Stream, kA100_40StreamSource},
};

// Clusters: each chip's usual node, plus the rack-scale and TPU domains.
constexpr std::array kClusters{
    ClusterPreset{"dgx-a100", kDgxA100Net, "DGX A100: 8 GPUs, NVLink 3, 8 x 200 Gb/s HDR"},
    ClusterPreset{"dgx-h100", kHgxH100Net, "DGX H100: 8 GPUs, NVLink 4, 8 x 400 Gb/s NDR"},
    ClusterPreset{"hgx-h200", kHgxH100Net, "HGX H200: as DGX H100 (NVLink 4, 8 x 400 Gb/s)"},
    ClusterPreset{"dgx-b200", kHgxB200Net, "DGX B200: 8 GPUs, NVLink 5, 8 x 400 Gb/s"},
    ClusterPreset{"gb200-nvl72", kGb200Nvl72Net,
                  "GB200 NVL72: 72 GPUs in one NVLink domain, 400 Gb/s per GPU out"},
    ClusterPreset{"dgx-b300", kHgxB300Net, "DGX B300: 8 GPUs, NVLink 5, 8 x 800 Gb/s"},
    ClusterPreset{"gb300-nvl72", kGb300Nvl72Net,
                  "GB300 NVL72: 72 GPUs in one NVLink domain, 800 Gb/s per GPU out"},
    ClusterPreset{"mi300x-platform", kMi300xNet, "MI300X platform: 8 GPUs, Infinity Fabric"},
    ClusterPreset{"tpu-v5e-pod", kTpuV5eNet, "TPU v5e: 256-chip ICI pod, DCN between pods"},
    ClusterPreset{"tpu-v5p-pod", kTpuV5pNet, "TPU v5p: 8,960-chip ICI pod, DCN between pods"},
};
// clang-format on

}  // namespace

std::span<const ClusterPreset> cluster_presets() { return kClusters; }

namespace {

// The user's chips and clusters: text owned here, views in the rows point at
// it (a deque never moves its elements).
struct UserChipRow {
  std::string name, source, network_source, efficiency_source, stream_source;
  Chip chip;
};
struct UserClusterRow {
  std::string name, description, source;
  ClusterPreset preset;
};
std::deque<UserChipRow>& user_chips() {
  static std::deque<UserChipRow> rows;
  return rows;
}
std::deque<UserClusterRow>& user_clusters() {
  static std::deque<UserClusterRow> rows;
  return rows;
}

const Chip* find_chip(std::string_view name) {
  for (const Chip& c : kChips)
    if (c.name == name) return &c;
  for (const UserChipRow& r : user_chips())
    if (r.chip.name == name) return &r.chip;
  return nullptr;
}

const ClusterPreset* find_cluster(std::string_view name) {
  for (const ClusterPreset& c : kClusters)
    if (c.name == name) return &c;
  for (const UserClusterRow& r : user_clusters())
    if (r.preset.name == name) return &r.preset;
  return nullptr;
}

bool positive(double x) { return std::isfinite(x) && x > 0; }

}  // namespace

std::vector<const ClusterPreset*> cluster_list() {
  std::vector<const ClusterPreset*> out;
  for (const ClusterPreset& c : kClusters) out.push_back(&c);
  for (const UserClusterRow& r : user_clusters()) out.push_back(&r.preset);
  return out;
}

const ClusterPreset& add_user_cluster(const ClusterPreset& cluster) {
  if (cluster.name.empty()) throw std::invalid_argument("a cluster needs a name");
  if (find_cluster(cluster.name))
    throw std::invalid_argument("cluster name \"" + std::string(cluster.name) +
                                "\" is already taken (" + cluster_names() + ")");
  const Network& n = cluster.network;
  if (n.chips_per_node < 1 || !positive(n.intra_node_bytes_per_s) ||
      !positive(n.inter_node_bytes_per_s) || !(n.intra_node_latency_seconds >= 0) ||
      !(n.inter_node_latency_seconds >= 0))
    throw std::invalid_argument("cluster \"" + std::string(cluster.name) +
                                "\": GPUs per node ≥ 1, bandwidths > 0, latencies ≥ 0");
  UserClusterRow& r = user_clusters().emplace_back();
  r.name = cluster.name;
  r.description = cluster.description;
  r.source = n.source;
  r.preset = cluster;
  r.preset.name = r.name;
  r.preset.description = r.description;
  r.preset.network.source = r.source;
  return r.preset;
}

std::vector<const Chip*> chip_list() {
  std::vector<const Chip*> out;
  for (const Chip& c : kChips) out.push_back(&c);
  for (const UserChipRow& r : user_chips()) out.push_back(&r.chip);
  return out;
}

const Chip& add_user_chip(const Chip& chip) {
  if (chip.name.empty()) throw std::invalid_argument("a chip needs a name");
  if (find_chip(chip.name))
    throw std::invalid_argument("chip name \"" + std::string(chip.name) + "\" is already taken (" +
                                chip_names() + ")");
  if (!positive(chip.peak_flops_per_s) || chip.hbm_bytes <= 0 || !positive(chip.hbm_bytes_per_s) ||
      !positive(chip.watts) || !(chip.fp8_peak_flops_per_s >= 0) ||
      chip.network.chips_per_node < 1 || !positive(chip.network.intra_node_bytes_per_s) ||
      !positive(chip.network.inter_node_bytes_per_s))
    throw std::invalid_argument("chip \"" + std::string(chip.name) +
                                "\": peaks, memory, bandwidths and power must be > 0");
  UserChipRow& r = user_chips().emplace_back();
  r.name = chip.name;
  r.source = chip.source;
  r.network_source = chip.network.source;
  r.efficiency_source = chip.efficiency.source;
  r.stream_source = chip.hbm_stream_source;
  r.chip = chip;
  r.chip.name = r.name;
  r.chip.source = r.source;
  r.chip.network.source = r.network_source;
  r.chip.efficiency.source = r.efficiency_source;
  r.chip.hbm_stream_source = r.stream_source;
  return r.chip;
}

const ClusterPreset& cluster_by_name(std::string_view name) {
  if (const ClusterPreset* c = find_cluster(name)) return *c;
  throw_unknown_name(
      "cluster", name, cluster_list(), [](const ClusterPreset* c) { return c->name; },
      " or a JSON file");
}

std::string cluster_names() {
  std::string out;
  for (const ClusterPreset* c : cluster_list()) {
    if (!out.empty()) out += ", ";
    out += c->name;
  }
  return out;
}

Network custom_network(std::int64_t gpus_per_node, double scale_up_gb_per_s,
                       double scale_out_gb_per_s, const Network& like) {
  require_count(gpus_per_node, "gpus_per_node", "GPUs", 1, 100'000);
  require_real(scale_up_gb_per_s, "scale_up_gb_per_s", "GB/s", 0.1, 100'000);
  require_real(scale_out_gb_per_s, "scale_out_gb_per_s", "GB/s", 0.1, 100'000);
  Network n = like;
  n.chips_per_node = gpus_per_node;
  n.intra_node_bytes_per_s = scale_up_gb_per_s * 1e9;
  n.inter_node_bytes_per_s = scale_out_gb_per_s * 1e9;
  n.source = "custom: the user's GPUs per node and per-GPU bandwidths";
  return n;
}

std::span<const Chip> hardware_table() { return kChips; }

const Chip& chip_by_name(std::string_view name) {
  if (const Chip* c = find_chip(name)) return *c;
  throw_unknown_name("chip", name, chip_list(), [](const Chip* c) { return c->name; });
}

DeviceMemory device_memory(const Chip& chip) {
  // Totals as the CUDA runtime reports them (cudaMemGetInfo's total, PyTorch's
  // total_memory; MiB = 2^20 bytes), read from published output: the memory a
  // process can allocate from, which PyTorch's allocator, vLLM's
  // gpu_memory_utilization and TensorRT-LLM's free-memory fraction all start
  // from. nvidia-smi prints a larger "Total" (81,559 MiB on an H100, 143,771
  // on an H200, 183,359 on a B200) that includes what the driver keeps for
  // itself. Each is below the binary capacity of the part's HBM stacks (80
  // GiB on H100/H800, 144 GiB on H200, 192 GiB on B200, 80 GiB on A100).
  constexpr std::int64_t MiB = 1 << 20;
  struct Reading {
    std::string_view chip;
    std::int64_t bytes;
    std::string_view source;
  };
  static constexpr std::array<Reading, 5> kReadings{{
      {"H100", 81'089 * MiB,
       "CUDA total_memory on H100 80GB HBM3 (SXM5): 81,089 MiB (torch 2.7, CUDA 12.8; "
       "ml-engineering's all_reduce benchmark header); vLLM logs 79.18 GiB on H100 "
       "(llm-d-benchmark)"},
      {"H800", 81'089 * MiB,
       "as H100 (the same 80 GB HBM3 part; nvidia-smi prints the same 81,559 MiB for both)"},
      {"H200", 143'156 * MiB, "CUDA total_memory on H200: 143,156 MiB (torch, on Modal)"},
      {"B200", 182'642 * MiB, "CUDA total_memory on B200: 182,642 MiB (torch, on Modal)"},
      {"A100-80", 85'056'798'720, "CUDA total_memory on A100-SXM4-80GB: 85,056,798,720 bytes"},
  }};
  for (const Reading& r : kReadings)
    if (r.chip == chip.name) return {r.bytes, r.source};
  return {chip.hbm_bytes, "the datasheet capacity (no published device total)"};
}

std::string chip_names() {
  std::string out;
  for (const Chip* c : chip_list()) {
    if (!out.empty()) out += ", ";
    out += c->name;
  }
  return out;
}

double ridge_point_flops_per_byte(const Chip& chip) {
  return chip.peak_flops_per_s / chip.hbm_bytes_per_s;
}

}  // namespace napkin
