#include "nice_numbers.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace napkin {

namespace {

// Ladder values of a geometric ladder (mantissas × base^k) in [lo, hi].
std::vector<double> geometric(double lo, double hi, std::initializer_list<double> mantissas,
                              double base, std::size_t limit) {
  std::vector<double> out;
  if (!(hi > 0)) return out;
  const double start = std::max(lo, std::min(hi, 1e-300));
  double scale = std::pow(base, std::floor(std::log(start) / std::log(base)) - 1);
  while (scale <= hi * base && out.size() <= limit) {
    for (double m : mantissas) {
      const double v = m * scale;
      if (v >= lo * (1 - 1e-12) && v <= hi * (1 + 1e-12)) out.push_back(v);
    }
    scale *= base;
  }
  return out;
}

}  // namespace

double Ladder::snap(double v, double lo, double hi) const {
  if (!std::isfinite(v)) return lo;
  v = std::clamp(v, lo, hi);
  std::vector<double> c{lo, hi};
  bool log = lo > 0;
  switch (kind) {
    case Kind::any: return v;
    case Kind::one_two_five:
    case Kind::powers_of_two: {
      if (v <= 0) return lo;
      const double base = kind == Kind::one_two_five ? 10.0 : 2.0;
      const double e = std::floor(std::log(v) / std::log(base));
      for (double k = e - 1; k <= e + 1; ++k) {
        const double s = std::pow(base, k);
        if (kind == Kind::one_two_five)
          for (double m : {1.0, 2.0, 5.0}) c.push_back(m * s);
        else
          c.push_back(s);
      }
      break;
    }
    case Kind::multiple:
      if (step > 0) c.push_back(std::round(v / step) * step);
      log = false;
      break;
    case Kind::significant: {
      if (v == 0) return v;
      const int digits = std::max(1, static_cast<int>(step));
      const double e = std::floor(std::log10(std::fabs(v))) - (digits - 1);
      const double s = std::pow(10.0, e);
      c.push_back(std::round(v / s) * s);
      log = false;
      break;
    }
  }
  std::vector<double> inside;
  for (double x : c)
    if (x >= lo && x <= hi) inside.push_back(x);
  return nearest_value(v, inside, log);
}

std::vector<double> Ladder::values(double lo, double hi, std::size_t limit) const {
  std::vector<double> out;
  switch (kind) {
    case Kind::any:
    case Kind::significant: return {};
    case Kind::one_two_five: out = geometric(lo, hi, {1, 2, 5}, 10, limit); break;
    case Kind::powers_of_two: out = geometric(lo, hi, {1}, 2, limit); break;
    case Kind::multiple: {
      if (!(step > 0) || (hi - lo) / step > static_cast<double>(limit)) return {};
      for (double k = std::ceil(lo / step); k * step <= hi * (1 + 1e-12); ++k)
        out.push_back(k * step);
      break;
    }
  }
  out.push_back(lo);
  out.push_back(hi);
  std::sort(out.begin(), out.end());
  out.erase(
      std::unique(out.begin(), out.end(),
                  [](double a, double b) { return std::fabs(a - b) <= 1e-12 * std::fabs(b); }),
      out.end());
  if (out.size() > limit) return {};
  return out;
}

double nearest_value(double v, const std::vector<double>& candidates, bool log) {
  double best = candidates.front(), best_d = INFINITY;
  for (double c : candidates) {
    const double d =
        log && c > 0 && v > 0 ? std::fabs(std::log(c) - std::log(v)) : std::fabs(c - v);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

double scale_fraction(double v, double lo, double hi, bool log) {
  if (!(hi > lo)) return 0;
  if (log && lo > 0)
    return (std::log(std::max(v, lo)) - std::log(lo)) / (std::log(hi) - std::log(lo));
  return (v - lo) / (hi - lo);
}

double scale_value(double t, double lo, double hi, bool log) {
  if (log && lo > 0) return std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo)));
  return lo + t * (hi - lo);
}

double tenth_decades(int steps) { return std::pow(10.0, 0.1 * steps); }

double last_digit(int decimals) { return std::pow(10.0, -decimals); }

int decade_exponent(double v) {
  // The 1e-9 keeps exact powers of ten (1e3 → 3) from landing a decade low.
  return static_cast<int>(std::floor(std::log10(std::fabs(v)) + 1e-9));
}

double decade_floor(double v) { return std::pow(10.0, decade_exponent(v)); }

double decade_mantissa(double v) { return v / decade_floor(v); }

double nice_ceil(double v) {
  if (!(v > 0) || !std::isfinite(v)) return 1;
  const double e = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (m * e >= v) return m * e;
  return 10 * e;
}

}  // namespace napkin
