#include "hardware.h"

#include <array>
#include <stdexcept>

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
constexpr Network kMi300xNet{8, 448e9, 50e9, 4e-6, 6e-6,
    "7 Infinity Fabric links x 64 GB/s per direction per GPU, fully connected 8-GPU platform; "
    "400 Gb/s NIC per GPU (AMD Instinct MI300X platform datasheet)"};
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
// measurements (not from the runs Napkin's tests predict).
constexpr Efficiency kA100Eff{0.80, 0.78,
    "A100: cuBLAS bf16 GEMMs of transformer sizes reach ~250 of 312 TFLOP/s; nccl-tests "
    "all-reduce bus bandwidth ~230 of 300 GB/s on NVLink 3"};
constexpr Efficiency kH100Eff{0.72, 0.80,
    "H100: cuBLAS bf16 GEMMs reach ~700-750 of 989 TFLOP/s; nccl-tests all-reduce bus "
    "bandwidth ~360 of 450 GB/s on NVLink 4"};
constexpr Efficiency kB200Eff{0.70, 0.80, "B200: assumed as H100 (no public GEMM sweep)"};
constexpr Efficiency kMi300xEff{0.60, 0.70,
    "MI300X: hipBLASLt bf16 GEMMs reach ~750-800 of 1,307 TFLOP/s (public benchmarks)"};
constexpr Efficiency kTpuEff{0.80, 0.80,
    "TPU: XLA matmuls of transformer sizes reach ~80 % of peak (Google's MaxText MFU reports)"};

constexpr std::array kChips{
    // Seed Phase 00 ch. 10 table (NVIDIA H100 SXM5 datasheet: 989 TFLOP/s dense
    // bf16, 80 GB HBM3, 3.35 TB/s, 700 W; the seed rounds the peak to 990).
    Chip{"H100", 990e12, 80'000'000'000, 3.35e12, 700,
         "NVIDIA H100 SXM5 datasheet (seed Phase 00 ch. 10 rounding)",
         1979e12, kHgxH100Net, kH100Eff},
    // NVIDIA A100 80GB SXM datasheet: 312 TFLOP/s bf16, 2,039 GB/s, 400 W.
    Chip{"A100-80", 312e12, 80'000'000'000, 2.03e12, 400,
         "NVIDIA A100 80GB SXM datasheet (seed Phase 00 ch. 10 rounding)",
         0, kDgxA100Net, kA100Eff},
    // Google Cloud TPU v5e docs: 197 TFLOP/s bf16, 16 GiB HBM2, 819 GB/s.
    Chip{"TPU v5e", 197e12, 16'000'000'000, 0.819e12, 170,
         "Google Cloud TPU v5e system architecture page (seed Phase 00 ch. 10)",
         0, kTpuV5eNet, kTpuEff},
    // Google Cloud TPU v5p docs: 459 TFLOP/s bf16, 95 GB HBM2e, 2,765 GB/s.
    Chip{"TPU v5p", 459e12, 95'000'000'000, 2.77e12, 600,
         "Google Cloud TPU v5p system architecture page (seed Phase 00 ch. 10)",
         0, kTpuV5pNet, kTpuEff},
    // NVIDIA H200 SXM datasheet: 989 TFLOP/s dense bf16, 141 GB HBM3e, 4.8 TB/s, 700 W.
    Chip{"H200", 989e12, 141'000'000'000, 4.8e12, 700,
         "NVIDIA H200 Tensor Core GPU datasheet (SXM)",
         1979e12, kHgxH100Net, kH100Eff},
    // NVIDIA DGX/HGX B200 datasheet: 2.25 PFLOP/s dense bf16 per GPU, 192 GB HBM3e,
    // 8 TB/s, 1,000 W.
    Chip{"B200", 2250e12, 192'000'000'000, 8.0e12, 1000,
         "NVIDIA HGX B200 datasheet (per GPU, dense)",
         4500e12, kHgxB200Net, kB200Eff},
    // AMD Instinct MI300X datasheet: 1,307.4 TFLOP/s dense bf16, 192 GB HBM3,
    // 5.3 TB/s, 750 W.
    Chip{"MI300X", 1307.4e12, 192'000'000'000, 5.3e12, 750,
         "AMD Instinct MI300X accelerator datasheet",
         2614.9e12, kMi300xNet, kMi300xEff},
    // Google Cloud TPU v6e (Trillium) docs: 918 TFLOP/s bf16, 32 GB HBM, 1,640 GB/s.
    // Google publishes no per-chip power; 300 W is an estimate, marked as such.
    Chip{"TPU v6e", 918e12, 32'000'000'000, 1.64e12, 300,
         "Google Cloud TPU v6e (Trillium) docs; power is an estimate (unpublished)",
         0, kTpuV6eNet, kTpuEff},
    // NVIDIA H800 SXM5 (the export variant DeepSeek trained on): H100 compute and
    // memory, NVLink cut to 400 GB/s.
    Chip{"H800", 989e12, 80'000'000'000, 3.35e12, 700,
         "NVIDIA H800 SXM5 (H100 silicon; NVLink 400 GB/s); DeepSeek-V3 technical report",
         1979e12, kH800Net, kH100Eff},
    // NVIDIA A100 40GB SXM datasheet: 312 TFLOP/s bf16, 40 GB HBM2, 1,555 GB/s, 400 W.
    Chip{"A100-40", 312e12, 40'000'000'000, 1.555e12, 400,
         "NVIDIA A100 40GB SXM datasheet",
         0, kDgxA100Net, kA100Eff},
};
// clang-format on

}  // namespace

std::span<const Chip> hardware_table() { return kChips; }

const Chip& chip_by_name(std::string_view name) {
  for (const Chip& c : kChips)
    if (c.name == name) return c;
  throw std::invalid_argument("chip must be one of " + chip_names() + "; got \"" +
                              std::string(name) + "\"");
}

std::string chip_names() {
  std::string out;
  for (const Chip& c : kChips) {
    if (!out.empty()) out += ", ";
    out += c.name;
  }
  return out;
}

double ridge_point_flops_per_byte(const Chip& chip) {
  return chip.peak_flops_per_s / chip.hbm_bytes_per_s;
}

}  // namespace napkin
