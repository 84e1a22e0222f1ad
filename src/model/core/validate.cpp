#include "validate.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace napkin {

void throw_out_of_range(std::string_view name, std::string_view unit, std::string_view accepted,
                        std::string_view found) {
  std::string msg;
  msg.append(name).append(" (").append(unit).append(") must be ").append(accepted);
  msg.append("; got ").append(found);
  throw std::invalid_argument(msg);
}

bool same_name_loosely(std::string_view a, std::string_view b) {
  const auto skipped = [](char c) { return c == ' ' || c == '-' || c == '_' || c == '.'; };
  const auto lower = [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  };
  std::size_t i = 0, j = 0;
  for (;;) {
    while (i < a.size() && skipped(a[i])) ++i;
    while (j < b.size() && skipped(b[j])) ++j;
    if (i == a.size() || j == b.size()) return i == a.size() && j == b.size();
    if (lower(a[i++]) != lower(b[j++])) return false;
  }
}

std::string unknown_name_message(std::string_view what, std::string_view got, std::string_view list,
                                 std::string_view meant, std::string_view after_list) {
  std::string msg(what);
  msg.append(" must be one of ").append(list).append(after_list);
  msg.append("; got \"").append(got).append("\"");
  if (!meant.empty()) msg.append("; did you mean \"").append(meant).append("\"?");
  return msg;
}

std::string format_value(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", value);
  return buf;
}

// 1,000,000,000, as every other number the user reads (core has no format.h).
static std::string grouped(std::int64_t v) {
  const std::string digits = std::to_string(v);
  const std::size_t first = v < 0 ? 1 : 0;  // the sign
  std::string out = digits.substr(0, first);
  for (std::size_t i = first; i < digits.size(); ++i) {
    if (i > first && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void count_out_of_range(std::int64_t value, std::string_view name, std::string_view unit,
                        std::int64_t lo, std::int64_t hi) {
  std::string accepted = "an integer";
  if (hi == kMaxCount)
    accepted += " >= " + grouped(lo);
  else
    accepted += " in [" + grouped(lo) + ", " + grouped(hi) + "]";
  throw_out_of_range(name, unit, accepted, std::to_string(value));
}

void real_out_of_range(double value, std::string_view name, std::string_view unit, double lo,
                       double hi, bool lo_exclusive) {
  std::string accepted = "a finite number ";
  if (hi == std::numeric_limits<double>::max())
    accepted += (lo_exclusive ? "> " : ">= ") + format_value(lo);
  else
    accepted += std::string(lo_exclusive ? "in (" : "in [") + format_value(lo) + ", " +
                format_value(hi) + "]";
  throw_out_of_range(name, unit, accepted, format_value(value));
}

void require_positive(double value, std::string_view name, std::string_view unit) {
  require_real(value, name, unit, 0.0, std::numeric_limits<double>::max(), true);
}

std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    throw std::invalid_argument(std::string(what) +
                                " overflows a 64-bit integer; reduce the shape parameters");
  return out;
}

std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view what) {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out))
    throw std::invalid_argument(std::string(what) +
                                " overflows a 64-bit integer; reduce the shape parameters");
  return out;
}

std::int64_t checked_mul(std::initializer_list<std::int64_t> factors, std::string_view what) {
  std::int64_t out = 1;
  for (std::int64_t f : factors) out = checked_mul(out, f, what);
  return out;
}

}  // namespace napkin
