// The model library speaks std::string (UTF-8); widgets speak QString.
#pragma once

#include <QString>
#include <cstdint>
#include <string_view>

#include "format.h"

namespace napkin {

inline QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

// A number with a fixed count of decimals ("0.34").
inline QString fixed(double v, int decimals) { return QString::number(v, 'f', decimals); }

// A quantity with thousands separators, one decimal below 100 ("7.5", "1,234").
inline QString groupedAuto(double v) { return qs(format_grouped(v, v < 100 ? 1 : 0)); }

// A count with thousands separators ("12,345").
inline QString groupedCount(std::int64_t v) {
  return qs(format_grouped(static_cast<double>(v), 0));
}

// A layout's text with a line break allowed after each comma (a zero-width
// space): a narrow column or the report's page wraps it between entries, not
// inside "zero=1".
inline QString breakableLayout(std::string_view layout) {
  return qs(layout).replace(QLatin1Char(','), QStringLiteral(",\u200B"));
}

}  // namespace napkin
