// The one hardware table. Every hardware number in Napkin comes from here.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace napkin {

struct Chip {
  std::string_view name;
  double peak_flops_per_s;  // dense bf16 matmul peak (no 2:4 sparsity)
  std::int64_t hbm_bytes;   // on-package HBM capacity
  double hbm_bytes_per_s;   // HBM bandwidth
  double watts;             // board / chip power at load (TDP)
  std::string_view source;  // where the row comes from
};

// All chips, in display order. The first four are the seed's table (Phase 00
// ch. 10), kept to the seed's rounding so its worked numbers reproduce.
std::span<const Chip> hardware_table();

// Looks a chip up by name (exact, case-sensitive, as in hardware_table()).
// Throws std::invalid_argument naming the accepted chips for an unknown name.
const Chip& chip_by_name(std::string_view name);

// Comma-separated list of chip names, for messages and help text.
std::string chip_names();

// Ridge point: peak FLOP/s ÷ HBM bytes/s, in FLOP/byte (seed Phase 00 ch. 9,
// Phase 03 ch. 2). Below it an operation is memory-bound.
double ridge_point_flops_per_byte(const Chip& chip);

}  // namespace napkin
