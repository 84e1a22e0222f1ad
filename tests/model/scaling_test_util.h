// Helpers of the scaling-law tests (test_scaling.cpp, test_scaling_fit.cpp).
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "expect_throw.h"
#include "scaling.h"

namespace napkin::test {

// Expects `f` to throw std::invalid_argument whose message contains `needle`.
inline bool same_bytes(double x, double y) { return std::memcmp(&x, &y, sizeof x) == 0; }

inline bool same_law(const LossLaw& p, const LossLaw& q) {
  return same_bytes(p.E, q.E) && same_bytes(p.A, q.A) && same_bytes(p.alpha, q.alpha) &&
         same_bytes(p.B, q.B) && same_bytes(p.beta, q.beta);
}

inline std::vector<LadderPoint> seed_ladder_points(const LossLaw& law,
                                                   std::vector<std::pair<double, double>> nd) {
  std::vector<LadderPoint> out;
  for (auto [n, d] : nd) out.push_back({n, d, law.loss(n, d), 0, false});
  return out;
}

// A ladder the size of Chinchilla's (9 budgets × 27 sizes over 2 decades).
inline SyntheticLadderSpec chinchilla_sized_spec(std::uint64_t seed) {
  SyntheticLadderSpec s;
  s.budgets_flops.clear();
  for (int i = 0; i < 9; ++i) s.budgets_flops.push_back(std::pow(10.0, 18 + 0.5 * i));
  s.sizes_per_budget = 27;
  s.size_span_decades = 2.0;
  s.noise = 0.005;
  s.seed = seed;
  return s;
}

}  // namespace napkin::test
