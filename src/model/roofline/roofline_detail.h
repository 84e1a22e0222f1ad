// What roofline.cpp and roofline_levers.cpp share and nobody else needs.
#pragma once

#include <cstdint>
#include <string_view>

#include "hardware.h"
#include "roofline.h"
#include "validate.h"

namespace napkin::detail {

// Largest parameter count any napkin here accepts: keeps every derived count
// (chips, bytes) far inside a 64-bit integer.
constexpr double kMaxParams = 1e18;
// Largest chip count a slice, sweep or search may name (2^40).
constexpr std::int64_t kMaxChips = std::int64_t{1} << 40;

inline void require_params(double n, std::string_view name = "n_params") {
  require_real(n, name, "parameters", 0.0, kMaxParams, true);
}

inline void require_bytes_per_param(double b) {
  require_real(b, "bytes_per_param", "bytes", 0.0, 8.0, true);
}

inline Bound bound_at(const Chip& chip, double intensity) {
  // The same product attainable_flops_per_s() compares, so the verdict and
  // the roof can never disagree at the ridge.
  return chip.hbm_bytes_per_s * intensity < chip.peak_flops_per_s ? Bound::memory : Bound::compute;
}

}  // namespace napkin::detail
