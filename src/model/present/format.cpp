#include "format.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace napkin {

namespace {

constexpr const char* kDash = "\u2014";

std::string group_digits(const std::string& digits) {
  std::string out;
  const int n = static_cast<int>(digits.size());
  for (int i = 0; i < n; ++i) {
    out += digits[static_cast<std::size_t>(i)];
    const int left = n - 1 - i;
    if (left > 0 && left % 3 == 0) out += ',';
  }
  return out;
}

}  // namespace

std::string format_grouped(double value, int decimals) {
  if (!std::isfinite(value)) return kDash;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, std::fabs(value));
  std::string s = buf;
  const auto dot = s.find('.');
  std::string whole = dot == std::string::npos ? s : s.substr(0, dot);
  std::string frac = dot == std::string::npos ? "" : s.substr(dot);
  std::string out = group_digits(whole) + frac;
  const bool zero = std::strtod(buf, nullptr) == 0.0;
  return (value < 0 && !zero ? "-" : "") + out;
}

std::string format_grouped(std::int64_t value) {
  std::string digits = std::to_string(value);
  if (value >= 0) return group_digits(digits);
  // Appended, not "-" + string: GCC 12 warns falsely (-Wrestrict) on that (its bug 105329).
  std::string out = "-";
  out += group_digits(digits.substr(1));
  return out;
}

std::string format_signed(double value, int decimals) {
  const std::string magnitude = format_grouped(std::fabs(value), decimals);
  if (std::strtod(magnitude.c_str(), nullptr) == 0.0) return format_grouped(0.0, decimals);
  std::string out = value < 0 ? "\u2212" : "+";
  out += magnitude;
  return out;
}

std::string format_sci(double value, int decimals) {
  if (!std::isfinite(value)) return kDash;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*e", decimals, value);
  return buf;
}

std::string format_count(double value, int decimals) {
  if (!std::isfinite(value)) return kDash;
  const double a = std::fabs(value);
  struct Step {
    double scale;
    const char* suffix;
  };
  // Above 1e15 there is no prefix every reader knows: scientific notation.
  static constexpr Step steps[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
  char buf[64];
  if (a >= 999.95e12) return format_sci(value, 2);
  for (const Step& s : steps) {
    if (a >= s.scale * (1.0 - 0.5 * std::pow(10.0, -decimals) / 1000.0)) {
      std::snprintf(buf, sizeof buf, "%.*f%s", decimals, value / s.scale, s.suffix);
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%.*f", a == std::floor(a) ? 0 : decimals, value);
  return buf;
}

std::string format_bytes(double bytes, int decimals) {
  if (!std::isfinite(bytes)) return kDash;
  const double a = std::fabs(bytes);
  struct Step {
    double scale;
    const char* unit;
  };
  static constexpr Step steps[] = {
      {1e15, "PB"}, {1e12, "TB"}, {1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}};
  char buf[64];
  for (const Step& s : steps) {
    if (a >= s.scale) {
      std::snprintf(buf, sizeof buf, "%.*f %s", decimals, bytes / s.scale, s.unit);
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%.0f B", bytes);
  return buf;
}

std::string format_dollars(double dollars, int decimals) {
  if (!std::isfinite(dollars)) return kDash;
  std::string g = format_grouped(std::fabs(dollars), decimals);
  return (dollars < 0 ? "-$" : "$") + g;
}

std::string format_seconds(double s) {
  if (!std::isfinite(s)) return kDash;
  char buf[64];
  const double a = std::fabs(s);
  if (a == 0) return "0 s";  // an axis's origin or nothing spent: no unit to pick
  if (a >= 86400.0 * 2)
    std::snprintf(buf, sizeof buf, "%.1f days", s / 86400.0);
  else if (a >= 3600.0 * 2)
    std::snprintf(buf, sizeof buf, "%.1f h", s / 3600.0);
  else if (a >= 999.5)  // "4,123 s", not "4.12e+03 s"
    return format_grouped(static_cast<std::int64_t>(std::llround(s))) + " s";
  else if (a >= 1.0)
    std::snprintf(buf, sizeof buf, "%.3g s", s);
  else if (a >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.3g ms", s * 1e3);
  else if (a >= 1e-6)
    std::snprintf(buf, sizeof buf, "%.3g \u00b5s", s * 1e6);
  else
    std::snprintf(buf, sizeof buf, "%.3g ns", s * 1e9);
  return buf;
}

std::string format_percent(double fraction, int decimals) {
  if (!std::isfinite(fraction)) return kDash;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f %%", decimals, fraction * 100.0);
  return buf;
}

}  // namespace napkin
