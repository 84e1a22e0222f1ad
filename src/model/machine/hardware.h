// The one hardware table. Every hardware number in Napkin comes from here.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

// How chips talk to each other: a fast domain (NVLink / xGMI / TPU ICI) of
// `chips_per_node` chips, and a slower network (InfiniBand / RoCE / DCN)
// between domains. Bandwidths are per chip and per direction, the figure a
// ring collective moves data at (a datasheet's "bidirectional" total is
// halved).
struct Network {
  std::int64_t chips_per_node = 8;        // chips in one fast domain (node or ICI slice)
  double intra_node_bytes_per_s = 0;      // per chip, per direction
  double inter_node_bytes_per_s = 0;      // per chip, per direction
  double intra_node_latency_seconds = 0;  // fixed cost per collective step in the domain
  double inter_node_latency_seconds = 0;  // fixed cost per collective step across domains
  std::string_view source;
  // The node's chips are linked pairwise, without a switch (AMD's Infinity
  // Fabric platforms): intra_node_bytes_per_s is the sum of chips_per_node − 1
  // equal links, and a group of r chips of the node reaches only the r − 1
  // links between them (collectives.h, Link::bytes_per_s_among). false: a
  // switch (NVSwitch) gives any group the chip's whole bandwidth.
  bool full_mesh = false;
  bool operator==(const Network&) const = default;
};

// What a chip sustains in practice, as fractions of its datasheet peaks. These
// are calibrations, not datasheet numbers; each row names where its come from.
struct Efficiency {
  double matmul = 0.8;     // large bf16 GEMMs that fill whole waves: achieved FLOP/s ÷ peak
  double link = 0.8;       // collective bus bandwidth ÷ link bandwidth
  double hbm = 0.85;       // streaming kernels (copies, element-wise): achieved ÷ HBM bandwidth
  double attention = 0.5;  // fused (Flash) attention, forward + backward: achieved ÷ peak
  std::string_view source;
  // FP8 GEMMs of training shapes: achieved ÷ the FP8 peak; 0 on chips
  // without an FP8 peak. Lower than the bf16 fraction: the scaling and the
  // narrower K loop per byte leave the tensor cores idle more often.
  double matmul_fp8 = 0;
  // The best bf16 GEMM of any shape published for the chip (a "Maximum
  // Achievable Matmul FLOPS" sweep) ÷ peak, at the clock it was measured at:
  // no GEMM of a training step beats it, so it is a calibration's ceiling for
  // `matmul`. 0 where no sweep is cited (the ceiling is then 1).
  double matmul_best = 0;
  // FlashAttention-2 (PyTorch SDPA's flash backend), forward + backward,
  // where the chip's best attention kernel (`attention`) is another one
  // (FlashAttention-3 or cuDNN on Hopper): achieved ÷ peak; 0 where
  // FlashAttention-2 is the chip's best or no figure is cited (`attention`).
  double attention_fa2 = 0;
  // FlashAttention-2 is the chip's best attention kernel (Ampere), so its
  // rate follows FlashAttention-2's sequence-length curve
  // (attention_length_factor in kernel_time.h), not FlashAttention-3's.
  bool attention_best_is_fa2 = false;
};

struct Chip {
  std::string_view name;
  double peak_flops_per_s;          // dense bf16 matmul peak (no 2:4 sparsity)
  std::int64_t hbm_bytes;           // on-package HBM capacity
  double hbm_bytes_per_s;           // HBM bandwidth
  double watts;                     // board / chip power at load (TDP)
  std::string_view source;          // where the row comes from
  double fp8_peak_flops_per_s = 0;  // dense FP8 matmul peak; 0 where the chip has none
  Network network{};
  Efficiency efficiency{};
  // Streaming multiprocessors (NVIDIA) or compute units (AMD) that a GEMM's
  // output tiles are spread over, for wave quantization; 0 where the matmul
  // units are not scheduled in tiles per core (TPU MXUs): padding only.
  std::int64_t compute_units = 0;
  // The output tile of the vendor GEMM library's large kernels, long × short
  // elements (either orientation); on a TPU the MXU edge (padding only).
  std::int64_t gemm_tile_long = 128;
  std::int64_t gemm_tile_short = 128;
  // Large streaming reads (a device-to-device copy, STREAM-style): achieved ÷
  // hbm_bytes_per_s. Serving's decode streams the weights and the KV cache at
  // this fraction by default; efficiency.hbm is the lower fraction of fused
  // element-wise kernels. A measured copy figure where one is published,
  // otherwise a documented default; `hbm_stream_source` says which.
  double hbm_stream_efficiency = 0.85;
  std::string_view hbm_stream_source = "default: no published copy figure";
  // A chip whose device-memory reading (device_memory) this one shares: a
  // user chip `like` a built-in one with the same HBM. Empty: its own name's.
  std::string_view device_memory_as;
  // The step runs as one XLA program (TPUs): its buffers are planned when it
  // compiles, so there is no CUDA context, no collective library's buffers
  // and no caching allocator beside the tensors.
  bool xla_compiled = false;
  // The chip runs AMD's ROCm stack: the HIP runtime and RCCL stand where the
  // CUDA context and NCCL do (the memory outside the tensors is named so).
  bool rocm = false;
  // Dense FP4 (NVFP4) matmul peak; 0 where the chip has no FP4 tensor cores.
  double fp4_peak_flops_per_s = 0;
};

// All chips, in display order. The first four are the seed's table (Phase 00
// ch. 10), kept to the seed's rounding so its worked numbers reproduce.
std::span<const Chip> hardware_table();

// Looks a chip up by name (exact, case-sensitive, as in hardware_table()).
// Throws std::invalid_argument naming the accepted chips for an unknown name.
const Chip& chip_by_name(std::string_view name);

// The device memory a process can allocate from: the total the CUDA runtime
// reports for the device, not the marketed capacity. An "80 GB" H100 carries
// 80 GiB of HBM3 and CUDA reports 81,089 MiB (85.0e9 bytes; nvidia-smi's
// "Total" of 81,559 MiB includes what the driver keeps), more than the
// datasheet's decimal 80 GB the seed's tables use. Chips without a published
// reading use hbm_bytes (never more).
struct DeviceMemory {
  std::int64_t bytes = 0;
  std::string_view source;
};
DeviceMemory device_memory(const Chip& chip);

// What a chip's fast domain and its members are called in a read-out: "GPUs
// per node" and "GPU" in a "node", or on a TPU (xla_compiled) "chips per ICI
// slice" and "chip" in a "pod".
struct DomainNames {
  std::string_view per_domain;
  std::string_view member;
  std::string_view system;
};
DomainNames domain_names(const Chip& chip);

// Comma-separated list of chip names (built-in, then the user's), for
// messages and help text.
std::string chip_names();

// The built-in table, then the chips the user described (add_user_chip).
std::vector<const Chip*> chip_list();

// A chip the user described (a JSON file in the data folder's chips/, or
// --chip-file): listed after the built-in table and found by chip_by_name. Its
// text is copied and lives as long as the program. Register at start-up,
// before other threads read the table. Throws std::invalid_argument for a name
// already taken (built-in or user) and for a chip whose numbers are not
// finite and > 0.
const Chip& add_user_chip(const Chip& chip);

// How a chip's tensor-core peaks follow a lowered power limit: peak ∝
// limit^exponent, the exponent from two datasheet rows of the same die at two
// limits, and only between them. Hopper: the H100 SXM's 989 TFLOP/s dense
// bf16 at 700 W and the H100 NVL's 835 at 400 W (0.302); Blackwell: B200's
// 2,250 at 1,000 W and GB200's 2,500 at 1,200 W (0.578). Other chips have no
// such pair.
struct PowerLaw {
  double exponent = 0;
  double lowest_watts = 0;  // the lower datasheet row's limit: the law's floor
  std::string_view source;
};
// nullopt for a chip whose family has no datasheet pair.
std::optional<PowerLaw> power_law_of(const Chip& chip);
// The share of `chip`'s peaks it keeps at `limit_watts`: (limit /
// chip.watts)^exponent. Throws std::invalid_argument naming
// power_limit_watts, W and the range the law covers (its floor to the chip's
// own limit), or why the chip has none.
double power_limited_share(const Chip& chip, double limit_watts);

// A cluster as a named preset: the node a chip usually ships in (GPUs per
// node, scale-up and scale-out bandwidth per GPU and direction, latencies).
// The cluster is an input of a training plan: a site with a quarter of a
// DGX's InfiniBand per GPU is described by its own numbers ("custom").
struct ClusterPreset {
  std::string_view name;  // "dgx-a100", "dgx-h100", ...
  Network network;
  std::string_view description;
};
std::span<const ClusterPreset> cluster_presets();
// Throws std::invalid_argument naming the accepted names (the user's too).
const ClusterPreset& cluster_by_name(std::string_view name);
std::string cluster_names();
// The built-in presets, then the clusters the user described.
std::vector<const ClusterPreset*> cluster_list();
// A cluster the user described (a JSON file in the data folder's clusters/),
// as add_user_chip: copied, found by cluster_by_name, a taken name refused.
const ClusterPreset& add_user_cluster(const ClusterPreset& cluster);

// A network from a user's numbers, GB/s per GPU and direction (10^9 bytes/s),
// latencies from `like` (a preset or the chip's node). Throws naming the flag
// (--gpus-per-node 1–100,000; bandwidths 0.1–100,000 GB/s).
Network custom_network(std::int64_t gpus_per_node, double scale_up_gb_per_s,
                       double scale_out_gb_per_s, const Network& like);

// Ridge point: peak FLOP/s ÷ HBM bytes/s, in FLOP/byte (seed Phase 00 ch. 9,
// Phase 03 ch. 2). Below it an operation is memory-bound.
double ridge_point_flops_per_byte(const Chip& chip);

}  // namespace napkin
