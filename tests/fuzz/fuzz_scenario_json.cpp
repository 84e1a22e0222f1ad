// Scenario documents: any bytes either load into a valid scenario that
// round-trips exactly, or throw std::invalid_argument. Nothing else.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "scenario_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const napkin::Scenario s = napkin::scenario_from_json(text, "fuzz");
    s.validate();
    if (!(napkin::scenario_from_json(napkin::scenario_to_json(s), "round trip") == s)) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
