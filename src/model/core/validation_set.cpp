#include "validation_set.h"

#include <cmath>
#include <stdexcept>

namespace napkin {

ValidationSummary summarize(const ValidationSet& set) {
  ValidationSummary s;
  s.rows = set.rows.size();
  if (set.rows.empty()) return s;
  double abs_sum = 0.0, signed_sum = 0.0;
  for (std::size_t i = 0; i < set.rows.size(); ++i) {
    const ValidationRow& r = set.rows[i];
    if (!std::isfinite(r.predicted) || !std::isfinite(r.measured) || r.measured == 0.0)
      throw std::invalid_argument("validation set '" + set.key + "', row '" + r.label +
                                  "': predicted and measured must be finite and measured nonzero");
    const double e = r.predicted / r.measured - 1.0;
    abs_sum += std::abs(e);
    signed_sum += e;
    if (set.lower_is_optimistic ? e < 0 : e > 0) ++s.optimistic_rows;
    if (i == 0 || std::abs(e) > std::abs(s.worst_error)) {
      s.worst_row = i;
      s.worst_error = e;
    }
  }
  s.mean_abs_error = abs_sum / static_cast<double>(s.rows);
  s.mean_signed_error = signed_sum / static_cast<double>(s.rows);
  return s;
}

}  // namespace napkin
