#include "hardware.h"

#include <array>
#include <cmath>
#include <deque>
#include <stdexcept>

#include "chip_efficiency.h"
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
constexpr Network kTpuV5eNet{256, 100e9, 3.125e9, 2e-6, 10e-6,
    "ICI 1,600 Gb/s per chip (halved per direction), 256-chip pod; DCN 6.4 Tb/s per pod, 25 "
    "Gb/s per chip (two 100 Gb/s NICs per 8-chip host) (Google Cloud TPU v5e system "
    "architecture page)"};
constexpr Network kTpuV5pNet{8960, 300e9, 6.25e9, 2e-6, 10e-6,
    "ICI 4,800 Gb/s per chip (halved per direction), 8,960-chip pod, 3D torus; DCN 50 Gb/s per "
    "chip (Google Cloud TPU v5p system architecture page)"};
constexpr Network kTpuV6eNet{256, 224e9, 12.5e9, 2e-6, 10e-6,
    "ICI 3,584 Gb/s per chip (halved per direction), 256-chip pod; DCN per chip is an estimate "
    "(Google Cloud TPU v6e system architecture page)"};

using namespace chip_efficiency;  // the fractions and their sources

// A row with a dense FP4 (NVFP4) peak: Blackwell's tensor cores.
constexpr Chip with_fp4(Chip c, double fp4_peak_flops_per_s) {
  c.fp4_peak_flops_per_s = fp4_peak_flops_per_s;
  return c;
}

// The H100 SXM's peak at a 500 W limit: (500/700)^b with b = ln(989/835) /
// ln(700/400), the datasheets' SXM and NVL (power_law_of; H100-HBM2e's row).
constexpr double kPowerLimitedShare500W = 0.9032;

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
         1979e12, kHgxH100Net, kH100Eff, 132, 256, 128, kH100Stream, kH100StreamSource, {}},
    // NVIDIA A100 80GB SXM datasheet: 312 TFLOP/s bf16, 2,039 GB/s, 400 W.
    Chip{"A100-80", 312e12, 80'000'000'000, 2.03e12, 400,
         "NVIDIA A100 80GB SXM datasheet (seed Phase 00 ch. 10 rounding)",
         0, kDgxA100Net, kA100Eff, 108, 256, 128, kA100Stream, kA100StreamSource, {}},
    // Google Cloud TPU v5e docs: 197 TFLOP/s bf16, 16 GiB HBM2, 819 GB/s.
    Chip{"TPU v5e", 197e12, 16'000'000'000, 0.819e12, 170,
         "Google Cloud TPU v5e system architecture page (seed Phase 00 ch. 10)",
         0, kTpuV5eNet, kTpuEff, 0, 128, 128, kTpuStream, kTpuStreamSource, {}, true},
    // Google Cloud TPU v5p docs: 459 TFLOP/s bf16, 95 GB HBM2e, 2,765 GB/s.
    Chip{"TPU v5p", 459e12, 95'000'000'000, 2.77e12, 600,
         "Google Cloud TPU v5p system architecture page (seed Phase 00 ch. 10)",
         0, kTpuV5pNet, kTpuEff, 0, 128, 128, kTpuStream, kTpuStreamSource, {}, true},
    // NVIDIA H200 SXM datasheet: 989 TFLOP/s dense bf16, 141 GB HBM3e, 4.8 TB/s, 700 W.
    Chip{"H200", 989e12, 141'000'000'000, 4.8e12, 700,
         "NVIDIA H200 Tensor Core GPU datasheet (SXM)",
         1979e12, kHgxH100Net, kH200Eff, 132, 256, 128, kH200Stream, kH200StreamSource, {}},
    // NVIDIA DGX/HGX B200 datasheet: 2.25 PFLOP/s dense bf16 per GPU, 192 GB HBM3e,
    // 8 TB/s, 1,000 W.
    // FP4: the DGX B200 datasheet's 144 PFLOP/s with sparsity over 8 GPUs, 9 dense.
    with_fp4(Chip{"B200", 2250e12, 192'000'000'000, 8.0e12, 1000,
                  "NVIDIA HGX B200 datasheet (per GPU, dense; FP4 9 PFLOP/s)", 4500e12,
                  kHgxB200Net, kB200Eff, 148, 256, 128, kH100Stream, kB200StreamSource, {}},
             9000e12),
    // NVIDIA GB200 NVL72 datasheet, per GPU (the rack's figures over 72, the
    // datasheet's "with sparsity" halved): 360 PFLOP/s bf16 → 2.5 PFLOP/s
    // dense, 720 FP8 → 5 PFLOP/s, up to 13.4 TB HBM3e → 186 GB, 576 TB/s →
    // 8 TB/s; 1,200 W per GPU (NVIDIA Blackwell architecture technical brief:
    // the GB200 configuration, where HGX B200 runs at 1,000 W and 2.25
    // PFLOP/s). The same Blackwell die and kernels as B200: B200's SM count,
    // its in-step fractions scaled by GB200's MAMF rows (kGb200Eff).
    // FP4: 1,440 PFLOP/s with sparsity over 72 GPUs, 10 dense.
    with_fp4(
        Chip{"GB200", 2500e12, 186'000'000'000, 8.0e12, 1200,
             "NVIDIA GB200 NVL72 datasheet (per GPU, dense; FP4 10 PFLOP/s); 1,200 W per the "
             "Blackwell technical brief; B200's in-step efficiencies scaled by GB200's MAMF rows "
             "(same die and kernels)",
             5000e12, kGb200Nvl72Net, kGb200Eff, 148, 256, 128, kH100Stream, kB200StreamSource, {}},
        10000e12),
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
    // FP4, Blackwell Ultra's raised dense rate: the DGX B300 datasheet's 144
    // PFLOP/s with sparsity and 108 dense over 8 GPUs (13.5 each); the GB300
    // NVL72's 1,440 and 1,080 over 72 (15 each, at 1,400 W).
    with_fp4(Chip{"B300", 2250e12, 288'000'000'000, 8.0e12, 1000,
                  "NVIDIA DGX B300 datasheet (per GPU, dense; 288 GB HBM3e; FP4 13.5 PFLOP/s); "
                  "1,000 W maximum TGP; B200's in-step efficiencies scaled by B300's MAMF rows "
                  "(same kernels)",
                  4500e12, kHgxB300Net, kB300Eff, 160, 256, 128, kH100Stream, kB200StreamSource,
                  {}},
             13500e12),
    with_fp4(Chip{"GB300", 2500e12, 279'000'000'000, 8.0e12, 1400,
                  "NVIDIA GB300 NVL72 datasheet (per GPU, dense; 20 TB and 576 TB/s of HBM3e "
                  "over 72 GPUs; FP4 15 PFLOP/s); 1,400 W per GPU; efficiencies as GB200's (same "
                  "kernels and peak; no GB300 MAMF published)",
                  5000e12, kGb300Nvl72Net, kGb200Eff, 160, 256, 128, kH100Stream,
                  kB200StreamSource, {}},
             15000e12),
    // AMD Instinct MI300X datasheet: 1,307.4 TFLOP/s dense bf16, 192 GB HBM3,
    // 5.3 TB/s, 750 W.
    Chip{"MI300X", 1307.4e12, 192'000'000'000, 5.3e12, 750,
         "AMD Instinct MI300X accelerator datasheet",
         2614.9e12, kMi300xNet, kMi300xEff, 304, 256, 256, kMi300xStream, kMi300xStreamSource, {},
         false, true},
    // Google Cloud TPU v6e (Trillium) docs: 918 TFLOP/s bf16, 32 GB HBM, 1,640 GB/s.
    // Google publishes no per-chip power; 300 W is an estimate, marked as such.
    Chip{"TPU v6e", 918e12, 32'000'000'000, 1.64e12, 300,
         "Google Cloud TPU v6e (Trillium) docs; power is an estimate (unpublished)",
         0, kTpuV6eNet, kTpuEff, 0, 256, 256, kTpuStream, kTpuStreamSource, {}, true},
    // NVIDIA H800 SXM5 (the export variant DeepSeek trained on): H100 compute and
    // memory, NVLink cut to 400 GB/s.
    Chip{"H800", 989e12, 80'000'000'000, 3.35e12, 700,
         "NVIDIA H800 SXM5 (H100 silicon; NVLink 400 GB/s); DeepSeek-V3 technical report",
         1979e12, kH800Net, kH100Eff, 132, 256, 128, kH100Stream, kHopperStreamSource, {}},
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
         kHopperStreamSource, {}},
    // NVIDIA A100 40GB SXM datasheet: 312 TFLOP/s bf16, 40 GB HBM2, 1,555 GB/s, 400 W.
    Chip{"A100-40", 312e12, 40'000'000'000, 1.555e12, 400,
         "NVIDIA A100 40GB SXM datasheet",
         0, kDgxA100Net, kA100Eff, 108, 256, 128, kA100Stream, kA100_40StreamSource, {}},
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
  constexpr std::int64_t GiB = std::int64_t{1} << 30;
  static constexpr std::array<Reading, 8> kReadings{{
      {"H100", 81'089 * MiB,
       "CUDA total_memory on H100 80GB HBM3 (SXM5): 81,089 MiB (torch 2.7, CUDA 12.8; "
       "ml-engineering's all_reduce benchmark header); vLLM logs 79.18 GiB on H100 "
       "(llm-d-benchmark)"},
      {"H800", 81'089 * MiB,
       "as H100 (the same 80 GB HBM3 part; nvidia-smi prints the same 81,559 MiB for both)"},
      {"H200", 143'156 * MiB, "CUDA total_memory on H200: 143,156 MiB (torch, on Modal)"},
      {"B200", 182'642 * MiB, "CUDA total_memory on B200: 182,642 MiB (torch, on Modal)"},
      {"A100-80", 85'056'798'720, "CUDA total_memory on A100-SXM4-80GB: 85,056,798,720 bytes"},
      // TPUs: the capacity in binary units, as Google's pages state it and
      // JAX reports it (a v6e's memory_stats bytes_limit is 34,359,738,368
      // bytes, 32 GiB: tpu-inference's usage report, its pull request 925).
      {"TPU v5e", 16 * GiB,
       "16 GiB: Google Cloud's TPU v5e page (\"HBM capacity per chip 16 GiB\") and the scaling "
       "book's TPU chapter"},
      {"TPU v5p", 95 * GiB,
       "95 GiB: Google Cloud's TPU v5p page (\"HBM capacity per chip (GiB)\")"},
      {"TPU v6e", 32 * GiB,
       "32 GiB: JAX's bytes_limit on a v6e, 34,359,738,368 bytes (tpu-inference pull request "
       "925's usage report)"},
  }};
  const std::string_view as = chip.device_memory_as.empty() ? chip.name : chip.device_memory_as;
  for (const Reading& r : kReadings)
    if (r.chip == as) return {r.bytes, r.source};
  return {chip.hbm_bytes, "the datasheet capacity (no published device total)"};
}

DomainNames domain_names(const Chip& chip) {
  if (chip.xla_compiled) return {"chips per ICI slice", "chip", "pod"};
  return {"GPUs per node", "GPU", "node"};
}

std::string chip_names() {
  std::string out;
  for (const Chip* c : chip_list()) {
    if (!out.empty()) out += ", ";
    out += c->name;
  }
  return out;
}

std::optional<PowerLaw> power_law_of(const Chip& chip) {
  // NVIDIA's datasheets, dense (half the sparse figures they print).
  static constexpr std::string_view kHopper[] = {"H100", "H200", "H800", "H100-HBM2e"};
  static constexpr std::string_view kBlackwell[] = {"B200", "GB200", "B300", "GB300"};
  for (std::string_view n : kHopper)
    if (chip.name == n)
      return PowerLaw{std::log(989.0 / 835.0) / std::log(700.0 / 400.0), 400,
                      "Hopper: H100 SXM 989 TFLOP/s at 700 W, H100 NVL 835 at 400 W (NVIDIA "
                      "datasheets, dense bf16)"};
  for (std::string_view n : kBlackwell)
    if (chip.name == n)
      return PowerLaw{std::log(2500.0 / 2250.0) / std::log(1200.0 / 1000.0), 1000,
                      "Blackwell: B200 2,250 TFLOP/s at 1,000 W (HGX B200), GB200 2,500 at "
                      "1,200 W (GB200 NVL72) (NVIDIA datasheets, dense bf16)"};
  return std::nullopt;
}

double power_limited_share(const Chip& chip, double limit_watts) {
  const std::optional<PowerLaw> law = power_law_of(chip);
  if (!law)
    throw std::invalid_argument("power_limit_watts: " + std::string(chip.name) +
                                " has no two datasheet rows of its die at two power limits, so "
                                "how its peak follows a limit is not known; give its peaks "
                                "instead");
  const double lo = law->lowest_watts, hi = chip.watts;
  if (!std::isfinite(limit_watts) || limit_watts < lo || limit_watts > hi)
    throw std::invalid_argument("power_limit_watts: expected " + format_value(lo) + " to " +
                                format_value(hi) + " W for " + std::string(chip.name) +
                                " (from the lower datasheet row's limit to the " +
                                "chip's own), got " + format_value(limit_watts) + " W");
  return std::pow(limit_watts / chip.watts, law->exponent);
}

double ridge_point_flops_per_byte(const Chip& chip) {
  return chip.peak_flops_per_s / chip.hbm_bytes_per_s;
}

}  // namespace napkin
