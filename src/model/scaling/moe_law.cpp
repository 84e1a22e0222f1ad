#include "moe_law.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "format.h"
#include "validate.h"

namespace napkin {

double JointMoeLaw::e_hat(double expansion) const {
  require_real(expansion, "expansion", "experts", 1.0, 1e6);
  const double offset = 1.0 / (1.0 / e_start - 1.0 / e_max);
  return 1.0 / (1.0 / (expansion - 1.0 + offset) + 1.0 / e_max);
}

LossLaw JointMoeLaw::at_expansion(double expansion) const {
  const double eh = e_hat(expansion);
  const double ln = std::log(eh);
  return LossLaw{c, a * std::pow(eh, delta), -(alpha + gamma * ln), b * std::pow(eh, omega),
                 -(beta + zeta * ln)};
}

double JointMoeLaw::loss(double active_params, double tokens, double expansion) const {
  return at_expansion(expansion).loss(active_params, tokens);
}

ComputeOptimum JointMoeLaw::optimum(double flops, double expansion) const {
  return analytic_optimum(at_expansion(expansion), flops);
}

double JointMoeLaw::dense_equivalent_flops(double target) const {
  const LossLaw dense = at_expansion(1.0);
  if (!(target > dense.E)) return std::numeric_limits<double>::infinity();
  // The optimal loss falls monotonically with compute: bisect in log C.
  double lo = std::log(1e6), hi = std::log(1e40);
  if (optimal_loss(dense, std::exp(hi)) > target) return std::numeric_limits<double>::infinity();
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (optimal_loss(dense, std::exp(mid)) > target ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

double JointMoeLaw::max_fitted_flops() const {
  const LossLaw dense = at_expansion(1.0);
  double lo = std::log(1e15), hi = std::log(1e30);
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (analytic_optimum(dense, std::exp(mid)).n_params < kJointMoeMaxActiveParams ? lo : hi) = mid;
  }
  return std::exp(0.5 * (lo + hi));
}

double MoeShape::expansion() const {
  if (dense()) return 1.0;
  return static_cast<double>(experts + shared_experts) /
         static_cast<double>(top_k + shared_experts);
}

void MoeShape::validate() const {
  require_count(experts, "experts", "routed experts", 1, 4096);
  require_count(top_k, "top-k", "experts per token", 1, 4096);
  require_count(granularity, "granularity", "experts per dense FFN", 1, 64);
  require_count(shared_experts, "shared-experts", "experts", 0, 64);
  // One expert is the dense model: its top-k and shared experts are unused.
  if (!dense() && top_k > experts)
    throw std::invalid_argument("top-k (experts per token) must be at most experts: got top-k " +
                                std::to_string(top_k) + " of " + std::to_string(experts) +
                                " experts");
  // An expansion beyond the fitted range is a valid shape the joint law
  // cannot forecast: compare_dense_moe() refuses it (budget.cpp).
}

double moe_total_params(double active_params, double expansion) {
  return active_params * (4.0 + 9.0 * expansion) / 13.0;
}

double moe_decode_read_fraction(const MoeShape& sh, std::int64_t batch) {
  sh.validate();
  require_count(batch, "batch", "requests", 1, 1'000'000'000);
  if (sh.dense()) return 1.0;
  const auto e = static_cast<double>(sh.experts), k = static_cast<double>(sh.top_k),
             s = static_cast<double>(sh.shared_experts);
  const double touched = 1.0 - std::pow(1.0 - k / e, static_cast<double>(batch));
  const double unit = 9.0 / (k + s);  // one expert, in the 4 : 9 split's units
  return (4.0 + (s + e * touched) * unit) / (4.0 + (e + s) * unit);
}

double moe_active_params(double total_params, double expansion) {
  return total_params * 13.0 / (4.0 + 9.0 * expansion);
}

}  // namespace napkin
