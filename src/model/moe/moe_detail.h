// What moe.cpp and moe_collapse.cpp share and nobody else needs: the top-k
// choice of a router.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

namespace napkin::detail {

// Descending logit, then ascending index: a strict total order, so the chosen
// set never depends on the sort algorithm (seed ch. 4, ties by expert index).
template <typename Real>
struct ByLogit {
  const Real* z;
  bool operator()(std::int64_t a, std::int64_t b) const {
    return z[a] != z[b] ? z[a] > z[b] : a < b;
  }
};

// Writes the top-k indices of z[0..n) into out[0..k), best first.
template <typename Real>
void top_k_indices(const Real* z, std::int64_t n, std::int64_t k, std::int64_t* out,
                   std::vector<std::int64_t>& scratch) {
  if (k <= 4) {
    // k passes of a linear scan beat sorting for the usual k ≤ 4; the strict
    // ">" keeps the lowest index among equals.
    for (std::int64_t r = 0; r < k; ++r) {
      std::int64_t best = -1;
      for (std::int64_t i = 0; i < n; ++i) {
        bool taken = false;
        for (std::int64_t q = 0; q < r; ++q) taken |= out[q] == i;
        if (taken) continue;
        if (best < 0 || z[i] > z[best]) best = i;
      }
      out[r] = best;
    }
    return;
  }
  scratch.resize(static_cast<std::size_t>(n));
  std::iota(scratch.begin(), scratch.end(), std::int64_t{0});
  std::partial_sort(scratch.begin(), scratch.begin() + k, scratch.end(), ByLogit<Real>{z});
  std::copy(scratch.begin(), scratch.begin() + k, out);
}

}  // namespace napkin::detail
