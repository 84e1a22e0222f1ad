// Input validation shared by every model module: each check throws
// std::invalid_argument whose message names the parameter, its unit and the
// accepted range, so a user can act on it.
#pragma once

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>

namespace napkin {

inline constexpr std::int64_t kMaxCount = std::numeric_limits<std::int64_t>::max();

// The most training tokens any input or model function accepts (tokens to
// train on, tokens available): 10^18, five orders of magnitude past the
// largest published runs (Llama 3: 15.6e12 tokens, Grattafiori et al. 2024),
// and where the data-constrained law's fit range ends (data_constrained.h).
inline constexpr double kMaxTrainTokens = 1e18;

[[noreturn]] void throw_out_of_range(std::string_view name, std::string_view unit,
                                     std::string_view accepted, std::string_view found);

// The throwing halves of require_count and require_real (the checks are
// inline: they run in the planner's search loops).
[[noreturn]] void count_out_of_range(std::int64_t value, std::string_view name,
                                     std::string_view unit, std::int64_t lo, std::int64_t hi);
[[noreturn]] void real_out_of_range(double value, std::string_view name, std::string_view unit,
                                    double lo, double hi, bool lo_exclusive);

// An integer count (layers, chips, tokens, ...) in [lo, hi].
inline void require_count(std::int64_t value, std::string_view name, std::string_view unit,
                          std::int64_t lo = 1, std::int64_t hi = kMaxCount) {
  if (value >= lo && value <= hi) return;
  count_out_of_range(value, name, unit, lo, hi);
}

// A finite real number in [lo, hi] (or (lo, hi] with lo_exclusive).
inline void require_real(double value, std::string_view name, std::string_view unit, double lo,
                         double hi = std::numeric_limits<double>::max(),
                         bool lo_exclusive = false) {
  // NaN fails every comparison; ±inf fail the bounds or the finiteness of hi.
  if ((lo_exclusive ? value > lo : value >= lo) && value <= hi &&
      value < std::numeric_limits<double>::infinity())
    return;
  real_out_of_range(value, name, unit, lo, hi, lo_exclusive);
}

// A finite real number > 0.
void require_positive(double value, std::string_view name, std::string_view unit);

// Exact 64-bit products and sums; an overflow is reported against `what`.
std::int64_t checked_mul(std::int64_t a, std::int64_t b, std::string_view what);
std::int64_t checked_add(std::int64_t a, std::int64_t b, std::string_view what);
std::int64_t checked_mul(std::initializer_list<std::int64_t> factors, std::string_view what);

// Formats a double for an error message ("nan", "inf", "1.5e+24").
std::string format_value(double value);

// Whether two names differ only in letter case, spaces, hyphens, underscores
// and dots: "h100" and "H100", "tpu-v5e" and "TPU v5e", "llama3-8b" and
// "Llama-3-8B". Names stay exact (a scenario stores the one spelling); a
// refusal uses this to say which name was meant.
bool same_name_loosely(std::string_view a, std::string_view b);

// The refusal of a name that is none of `names`: "<what> must be one of A, B,
// C; got "x"", and "; did you mean "B"?" where x is B but for its spelling.
// unknown_name_text is the message (for callers with their own error type);
// throw_unknown_name throws it as std::invalid_argument.
std::string unknown_name_message(std::string_view what, std::string_view got, std::string_view list,
                                 std::string_view meant, std::string_view after_list);

template <class Names, class NameOf>
std::string unknown_name_text(std::string_view what, std::string_view got, const Names& names,
                              NameOf name_of, std::string_view after_list = {}) {
  std::string list, meant;
  for (const auto& n : names) {
    const std::string_view name = name_of(n);
    if (!list.empty()) list += ", ";
    list += name;
    if (meant.empty() && same_name_loosely(got, name)) meant = std::string(name);
  }
  return unknown_name_message(what, got, list, meant, after_list);
}

template <class Names, class NameOf>
[[noreturn]] void throw_unknown_name(std::string_view what, std::string_view got,
                                     const Names& names, NameOf name_of,
                                     std::string_view after_list = {}) {
  throw std::invalid_argument(unknown_name_text(what, got, names, name_of, after_list));
}

// The entry of a registry table whose `.key` is `key`; otherwise throws
// naming the known keys ("<what> must be one of …").
template <class Table>
const auto& entry_with_key(const Table& table, std::string_view what, std::string_view key) {
  for (const auto& e : table)
    if (e.key == key) return e;
  throw_unknown_name(what, key, table, [](const auto& e) { return std::string_view(e.key); });
}

}  // namespace napkin
