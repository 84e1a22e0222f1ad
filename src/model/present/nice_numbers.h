// Nice numbers: the values a control lands on (a ladder: 1-2-5, powers of
// two, multiples of a step, significant digits), the position of a value on a
// linear or logarithmic scale, and the decade arithmetic of axis tops and
// scientific labels. No Qt: the kit's controls and plots call these.
#pragma once

#include <cstddef>
#include <vector>

namespace napkin {

// The values a slider may land on.
struct Ladder {
  enum class Kind { any, one_two_five, powers_of_two, multiple, significant };
  Kind kind = Kind::any;
  double step = 0;  // multiple: k·step; significant: the number of digits

  static Ladder any() { return {}; }
  // 1, 2, 5, 10, 20, 50 … (chip counts, served tokens).
  static Ladder oneTwoFive() { return {Kind::one_two_five, 0}; }
  // 1, 2, 4, 8 … (sequence lengths, batch sizes, data-parallel degrees).
  static Ladder powersOfTwo() { return {Kind::powers_of_two, 0}; }
  // k·step (d_model in 128s, whole percent as 0.01, whole days as 1).
  static Ladder multipleOf(double step) { return {Kind::multiple, step}; }
  // Values with `digits` significant digits (prices, ratios): 2.5, 12, 0.15.
  static Ladder significant(int digits) { return {Kind::significant, static_cast<double>(digits)}; }

  // The nearest ladder value to v within [lo, hi] (lo and hi are on every ladder).
  double snap(double v, double lo, double hi) const;
  // The discrete ladder values in [lo, hi], ascending, when there are at most
  // `limit` of them; empty when the ladder is continuous or too fine.
  std::vector<double> values(double lo, double hi, std::size_t limit) const;
};

// The nearest of `candidates` (not empty) to v, in log distance when `log`
// and both are positive.
double nearest_value(double v, const std::vector<double>& candidates, bool log);

// Where v sits on [lo, hi] as a fraction 0…1: linear, or logarithmic (lo > 0).
double scale_fraction(double v, double lo, double hi, bool log);
// The inverse: the value at fraction t of [lo, hi].
double scale_value(double t, double lo, double hi, bool log);
// 10^(steps/10): a tenth of a decade per step of a logarithmic control.
double tenth_decades(int steps);
// The value of the last shown digit with `decimals` digits after the point (10^−decimals).
double last_digit(int decimals);

// The exponent e with 10^e ≤ |v| < 10^(e+1) (v ≠ 0, finite).
int decade_exponent(double v);
// 10^decade_exponent(v): the decade v is in.
double decade_floor(double v);
// The mantissa of v in scientific notation: v ÷ decade_floor(v), in [1, 10).
double decade_mantissa(double v);
// The next "nice" value at or above v (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 × 10ⁿ);
// 1 for v ≤ 0 or not finite (an axis top).
double nice_ceil(double v);

}  // namespace napkin
