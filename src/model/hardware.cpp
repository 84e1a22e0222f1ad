#include "hardware.h"

#include <array>
#include <stdexcept>

namespace napkin {

namespace {

// clang-format off
constexpr std::array kChips{
    // Seed Phase 00 ch. 10 table (NVIDIA H100 SXM5 datasheet: 989 TFLOP/s dense
    // bf16, 80 GB HBM3, 3.35 TB/s, 700 W; the seed rounds the peak to 990).
    Chip{"H100", 990e12, 80'000'000'000, 3.35e12, 700,
         "NVIDIA H100 SXM5 datasheet (seed Phase 00 ch. 10 rounding)"},
    // NVIDIA A100 80GB SXM datasheet: 312 TFLOP/s bf16, 2,039 GB/s, 400 W.
    Chip{"A100-80", 312e12, 80'000'000'000, 2.03e12, 400,
         "NVIDIA A100 80GB SXM datasheet (seed Phase 00 ch. 10 rounding)"},
    // Google Cloud TPU v5e docs: 197 TFLOP/s bf16, 16 GiB HBM2, 819 GB/s.
    Chip{"TPU v5e", 197e12, 16'000'000'000, 0.819e12, 170,
         "Google Cloud TPU v5e system architecture page (seed Phase 00 ch. 10)"},
    // Google Cloud TPU v5p docs: 459 TFLOP/s bf16, 95 GB HBM2e, 2,765 GB/s.
    Chip{"TPU v5p", 459e12, 95'000'000'000, 2.77e12, 600,
         "Google Cloud TPU v5p system architecture page (seed Phase 00 ch. 10)"},
    // NVIDIA H200 SXM datasheet: 989 TFLOP/s dense bf16, 141 GB HBM3e, 4.8 TB/s, 700 W.
    Chip{"H200", 989e12, 141'000'000'000, 4.8e12, 700,
         "NVIDIA H200 Tensor Core GPU datasheet (SXM)"},
    // NVIDIA DGX/HGX B200 datasheet: 2.25 PFLOP/s dense bf16 per GPU, 192 GB HBM3e,
    // 8 TB/s, 1,000 W.
    Chip{"B200", 2250e12, 192'000'000'000, 8.0e12, 1000,
         "NVIDIA HGX B200 datasheet (per GPU, dense)"},
    // AMD Instinct MI300X datasheet: 1,307.4 TFLOP/s dense bf16, 192 GB HBM3,
    // 5.3 TB/s, 750 W.
    Chip{"MI300X", 1307.4e12, 192'000'000'000, 5.3e12, 750,
         "AMD Instinct MI300X accelerator datasheet"},
    // Google Cloud TPU v6e (Trillium) docs: 918 TFLOP/s bf16, 32 GB HBM, 1,640 GB/s.
    // Google publishes no per-chip power; 300 W is an estimate, marked as such.
    Chip{"TPU v6e", 918e12, 32'000'000'000, 1.64e12, 300,
         "Google Cloud TPU v6e (Trillium) docs; power is an estimate (unpublished)"},
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
