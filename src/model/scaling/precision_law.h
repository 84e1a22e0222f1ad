// Precision in the loss law: Kumar et al. 2024, "Scaling Laws for
// Precision" (arXiv 2411.04330). Two forms:
//   - post-training quantization of the weights to P_post bits adds
//       δ_PTQ(N, D, P_post) = C_T · D^γ_D / N^γ_N · exp(−P_post / γ_post)
//     nats to the loss: it grows with the tokens trained on (an overtrained
//     model degrades more) and shrinks with the parameters;
//   - training with weights, activations and KV cache in P_w, P_a, P_kv bits
//     leaves an effective parameter count
//       N_eff = N · (1 − e^(−P_w/γ_w)) · (1 − e^(−P_a/γ_a)) · (1 − e^(−P_kv/γ_kv))
//     that replaces N in L = A·N_eff^(−α) + B·D^(−β) + E.
// The paper fitted the constants on OLMo-style models of 30M–220M
// parameters trained on up to 26B tokens (validated to 1.7B) with integer
// quantization. No source this project can cite gives their fitted values,
// so none are built in: the constants are inputs (napkin-cli budget
// --ptq-law C_T,gamma_D,gamma_N,gamma_post), and without them a read-out
// says the penalty is not priced rather than showing zero.
#pragma once

#include <optional>
#include <string>

#include "loss_law.h"

namespace napkin {

struct PtqLaw {
  double c_t = 0;         // scale of the degradation, nats
  double gamma_d = 0;     // exponent of the training tokens
  double gamma_n = 0;     // exponent of the parameters
  double gamma_post = 0;  // bits: the degradation falls e-fold per γ_post bits
  // Throws std::invalid_argument naming ptq_law's field when not finite or
  // out of range (C_T ≥ 0, exponents in [0, 5], γ_post > 0).
  void validate() const;
  // δ_PTQ in nats for N parameters trained on D tokens, served at `bits`
  // (throws for bits outside (0, 64]).
  double degradation_nats(double n_params, double tokens, double bits) const;
};

struct TrainPrecisionLaw {
  double gamma_w = 0;   // bits: weights
  double gamma_a = 0;   // bits: activations
  double gamma_kv = 0;  // bits: attention's keys and values
  void validate() const;
  // N_eff ≤ N for training precisions in bits (throws outside (0, 64]).
  double effective_params(double n_params, double weight_bits, double activation_bits,
                          double kv_bits) const;
  // The loss of N parameters trained on D tokens at those precisions under
  // `law`'s A, α, B, β and E with N_eff for N.
  double loss(const LossLaw& law, double n_params, double tokens, double weight_bits,
              double activation_bits, double kv_bits) const;
};

// "C_T,gamma_D,gamma_N,gamma_post" (four numbers, comma-separated), as
// napkin-cli reads --ptq-law; throws std::invalid_argument naming `param`.
PtqLaw parse_ptq_law(const std::string& text, const std::string& param = "ptq_law");

}  // namespace napkin
