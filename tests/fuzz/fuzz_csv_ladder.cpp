// CSV ladders: any bytes either give points with finite positive N, D and
// loss, or throw std::invalid_argument.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "csv_ladder.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const napkin::CsvLadder ladder = napkin::parse_csv_ladder(text, "fuzz");
    for (const auto& p : ladder.points)
      if (!(std::isfinite(p.n_params) && p.n_params > 0 && std::isfinite(p.n_tokens) &&
            p.n_tokens > 0 && std::isfinite(p.loss)))
        std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
