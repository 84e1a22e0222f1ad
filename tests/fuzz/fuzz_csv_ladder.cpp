// CSV ladders: any bytes either give points with finite positive N, D and
// loss, or throw std::invalid_argument — strictly, and through the import
// dialog's preview and tolerant import. The one CSV reader underneath (csv.h)
// as the data sets use it, and with a progress callback that stops it.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "csv.h"
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
  try {
    const napkin::CsvText csv(text, "fuzz");
    for (std::size_t r = 0; r < csv.size(); ++r)
      if (csv.line(r) < 2) std::abort();
  } catch (const std::invalid_argument&) {
  }
  try {
    int reports = 0;
    (void)napkin::csv::read_table(text, "fuzz", 1 << 20, true,
                                  [&](std::int64_t done, std::int64_t total) {
                                    if (done < 0 || done > total) std::abort();
                                    return ++reports < 2;
                                  });
  } catch (const std::invalid_argument&) {
  } catch (const napkin::csv::Stopped&) {
  }
  return 0;
}
