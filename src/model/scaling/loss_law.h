// The parametric loss law L(N, D) = E + A/N^α + B/D^β (Hoffmann et al. 2022,
// seed Phase 01) and the published constants Napkin ships with.
#pragma once

#include <optional>
#include <string_view>

namespace napkin {

struct LossLaw {
  double E = 1.69;      // irreducible loss, nats/token
  double A = 406.4;     // capacity term coefficient
  double alpha = 0.34;  // capacity exponent (parameters)
  double B = 410.7;     // data term coefficient
  double beta = 0.28;   // data exponent (tokens)

  // Throws std::invalid_argument unless every constant is finite and > 0.
  void validate() const;
  // Loss in nats per token at N parameters trained on D tokens.
  double loss(double n_params, double n_tokens) const;
  // Tokens that bring N parameters to `target_loss`; nullopt when N is too
  // small to ever reach it (A/N^α ≥ target − E).
  std::optional<double> tokens_for_loss(double n_params, double target_loss) const;
  // Smallest N that can reach `target_loss` with unlimited tokens.
  double min_params_for_loss(double target_loss) const;
  bool operator==(const LossLaw&) const = default;
};

// Hoffmann et al. 2022, Approach 3 (seed Phase 01).
LossLaw chinchilla_approach3_law();
// Besiroglu et al. 2024, "Chinchilla Scaling: A replication attempt", Table 1
// (E 1.8172, A 482.01, α 0.3478, B 2085.43, β 0.3658).
LossLaw besiroglu2024_law();

// The largest run of the ladder both laws were fitted on: the Chinchilla
// IsoFLOP runs as extracted by Besiroglu et al. 2024 (their svg_extracted_data,
// largest "Training FLOP" 1.2956e22). A forecast beyond it is an extrapolation.
inline constexpr double kChinchillaLadderMaxFlops = 1.3e22;

}  // namespace napkin
