// Scenario documents: any bytes either load into a valid scenario that
// round-trips exactly, or throw std::invalid_argument. Nothing else. The same
// bytes as a user's chip or cluster file (JSON too): a chip with finite
// positive numbers, or std::invalid_argument.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "hardware_json.h"
#include "scenario_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const napkin::Scenario s = napkin::scenario_from_json(text, "fuzz");
    s.validate();
    if (!(napkin::scenario_from_json(napkin::scenario_to_json(s), "round trip") == s)) std::abort();
  } catch (const std::invalid_argument&) {
  }
  try {
    const napkin::Chip c = napkin::parse_chip_json(std::string(text), "fuzz").chip();
    if (!(std::isfinite(c.peak_flops_per_s) && c.peak_flops_per_s > 0 && c.hbm_bytes > 0 &&
          std::isfinite(c.hbm_bytes_per_s) && c.hbm_bytes_per_s > 0 && c.watts > 0 &&
          c.network.chips_per_node >= 1))
      std::abort();
  } catch (const std::invalid_argument&) {
  }
  try {
    const napkin::ClusterPreset p =
        napkin::parse_cluster_preset_json(std::string(text), "fuzz").preset();
    if (!(p.network.chips_per_node >= 1 && p.network.intra_node_bytes_per_s > 0 &&
          p.network.inter_node_bytes_per_s > 0))
      std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
