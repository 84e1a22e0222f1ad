// CSV ladders: any bytes either give points with finite positive N, D and
// loss, or throw std::invalid_argument — strictly, and through the import
// dialog's preview and tolerant import.
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
  try {
    const napkin::CsvPreview preview = napkin::preview_csv_ladder(text, "fuzz", 5);
    if (preview.complete()) {
      const napkin::CsvImport imp = napkin::import_csv_ladder(text, "fuzz", preview.guess);
      for (const auto& p : imp.ladder.points)
        if (!(std::isfinite(p.n_params) && p.n_params > 0 && std::isfinite(p.n_tokens) &&
              p.n_tokens > 0 && std::isfinite(p.loss) && p.loss > 0))
          std::abort();
      if (imp.kept() < 0 || imp.usable() != imp.problem().empty()) std::abort();
    }
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
