// The joint dense/MoE scaling law of Ludziejewski et al. 2025, "Joint MoE
// Scaling Laws: Mixture of Experts Can Be Memory Efficient" (ICML 2025,
// arXiv 2502.05172), Eq. 6 with the fitted constants of their Table 3:
//
//   L(N_act, D, Ê) = a·Ê^δ·N_act^(α + γ ln Ê) + b·Ê^ω·D^(β + ζ ln Ê) + c
//   1/Ê = 1/(E − 1 + (1/E_start − 1/E_max)^−1) + 1/E_max          (Eq. 4)
//
// E is the expansion of the expert layers (experts of FFN size, top-1: the
// number of experts); E = 1 is the dense model. Fitted on FineWeb with the
// GPT-2 tokenizer, so its nats are not those of the Chinchilla laws: Napkin
// uses it for what MoE changes at one compute (the loss ratio to dense, the
// compute-optimal tokens per active parameter), and converts the loss into
// the plan's law through the compute a dense model needs to match it.
//
// Validity (Section 5): runs up to 2.7B active and 5B total parameters and
// E ≤ 32 experts; anything bigger extrapolates.
#pragma once

#include <cstdint>

#include "loss_law.h"
#include "scaling.h"

namespace napkin {

// The range the joint law was fitted on: at most 32 experts (expansion).
inline constexpr double kJointMoeMaxExpansion = 32.0;

struct JointMoeLaw {
  double a = 35.91;
  double alpha = -0.1889;
  double delta = -0.2285;
  double gamma = 0.0098;
  double b = 35.98;
  double beta = -0.1775;
  double omega = 0.5529;
  double zeta = -0.0259;
  double e_start = 2.0732;
  double e_max = 290.4521;
  double c = 1.3637;

  // Ê of Eq. 4 (E = 1 gives E_start).
  double e_hat(double expansion) const;
  // The law at a fixed E in the Chinchilla form m·N^μ + n·D^ν + c (their
  // Table 4), as a LossLaw {c, m, −μ, n, −ν}.
  LossLaw at_expansion(double expansion) const;
  // Eq. 6, nats/token.
  double loss(double active_params, double tokens, double expansion) const;
  // Eq. 7: the compute-optimal N_act and D at `flops` (6·N_act·D = F).
  ComputeOptimum optimum(double flops, double expansion) const;
  // The compute a dense model (E = 1) needs to reach `loss` at its own
  // optimum, FLOPs; +inf when the dense law cannot reach it.
  double dense_equivalent_flops(double loss) const;
  // The largest compute of the fitted range: where the dense optimum has
  // kJointMoeMaxActiveParams active parameters (≈ 3e20 FLOPs).
  double max_fitted_flops() const;
};

// The largest run Ludziejewski et al. 2025 fitted on: 2.7B active parameters.
inline constexpr double kJointMoeMaxActiveParams = 2.7e9;

// An MoE shape for the planner: routed experts, experts per token, the
// granularity (each expert 1/G of the dense FFN) and shared experts.
struct MoeShape {
  std::int64_t experts = 1;
  std::int64_t top_k = 1;
  std::int64_t granularity = 1;
  std::int64_t shared_experts = 0;
  // (E + S) / (K + S): expert parameters stored per expert parameter used.
  double expansion() const;
  bool dense() const { return experts <= 1; }
  // Throws std::invalid_argument naming the flag (top-k must be at most
  // experts, …); one expert is dense and ignores top-k and shared experts.
  // An expansion beyond kJointMoeMaxExpansion is a valid shape that the
  // joint law cannot forecast: compare_dense_moe() refuses it.
  void validate() const;
  bool operator==(const MoeShape&) const = default;
};

// Total parameters of an MoE with `active_params` active: Ludziejewski et
// al.'s Eq. 9–10, N_total/N_act = (4 + 9E)/13 (attention 4d², each FFN-size
// expert 9d² per block; embeddings left out).
double moe_total_params(double active_params, double expansion);
// What one decode step of `batch` tokens reads of an MoE's parameters, as a
// fraction of its total: the non-expert part, the shared experts, and the
// routed experts at least one token picks (1 − (1 − K/E)^batch of them, each
// token's top-k taken as uniform and independent), in the same 4 : 9 split.
double moe_decode_read_fraction(const MoeShape& shape, std::int64_t batch);
double moe_active_params(double total_params, double expansion);

}  // namespace napkin
