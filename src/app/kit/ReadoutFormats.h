// How a read-out shows its number (ReadoutSpec::format), from the model's one
// set of formatters (src/model/format.h): .format = shows::bytes(2).
#pragma once

#include <QString>
#include <functional>

#include "Text.h"
#include "format.h"

namespace napkin::shows {

using Format = std::function<QString(double)>;

inline Format grouped(int decimals) {
  return [decimals](double v) { return qs(format_grouped(v, decimals)); };
}
// A number with its unit after it: grouped(1, "min") shows 12.5 as "12.5 min".
inline Format grouped(int decimals, const QString& unit) {
  return [decimals, unit](double v) {
    return qs(format_grouped(v, decimals)) + QLatin1Char(' ') + unit;
  };
}
inline Format percent(int decimals = 1) {
  return [decimals](double f) { return qs(format_percent(f, decimals)); };
}
// The change of a fraction, in percentage points: 0.009 → "0.9 pp" (its
// relative change is the read-out's "−1.0 %" beside it).
inline Format points(int decimals = 1) {
  return [decimals](double f) {
    return qs(format_grouped(f * 100.0, decimals)) + QStringLiteral(" pp");
  };
}
inline Format bytes(int decimals) {
  return [decimals](double b) { return qs(format_bytes(b, decimals)); };
}
inline Format dollars(int decimals) {
  return [decimals](double d) { return qs(format_dollars(d, decimals)); };
}
inline Format seconds() {
  return [](double s) { return qs(format_seconds(s)); };
}

}  // namespace napkin::shows
