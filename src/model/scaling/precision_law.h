// Precision in the loss law: Kumar et al. 2024, "Scaling Laws for
// Precision" (ICLR 2025, arXiv 2411.04330,
// https://arxiv.org/abs/2411.04330). Two forms:
//   - post-training quantization of the weights to P_post bits adds
//       δ_PTQ(N, D, P_post) = C_T · D^γ_D / N^γ_N · exp(b − P_post / γ_post)
//     nats to the loss (Eq. 2): it grows with the tokens trained on (an
//     overtrained model degrades more) and shrinks with the parameters;
//   - training with weights, activations and KV cache in P_w, P_a, P_kv bits
//     leaves an effective parameter count (Eq. 4)
//       N_eff = N · Π_x (1 − exp(n_x − P_x / γ_x)),  x ∈ {w, a, kv}
//     that replaces N in L = A·N_eff^(−α) + B·D^(−β) + E.
// The constants built in (kumar2024_*) are the paper's Appendix K "Numerical
// fits", Table 2 ("Fitted constants and their values"). Appendix K says each
// saturating exponential is computed with an offset, e^(x/γ_x + n) for the
// e^(x/γ_x) written in the main text: those offsets are the table's n_w, n_a
// (printed n_i), n_kv and b (the row after γ_post). Read with x = −P, the
// KV-cache factor 1 − e^(2.4185 − P/0.9578) is 0.51 at 3 bits, 0.83 at 4 and
// 0.94 at 5, matching Appendix M ("not sensitive at higher bit value, but very
// quickly becomes sensitive around 4-5 bit") and Appendix L (KV or activation
// runs at ≤ 3 bits diverged). Validity: fitted on OLMo-style models of
// 30M–220M non-embedding parameters trained on 1.5B–26B Dolma V1.7 tokens
// (validated to 1.7B parameters), integer quantization, GPTQ for the
// post-training form; the paper warns its numerical constants depend on the
// architecture and data set. Napkin's plans are far outside that range: the
// penalties are the paper's law extrapolated, said so where they are shown.
// Other constants can be given (napkin-cli budget --ptq-law).
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
  double bias = 0;        // b: the fit's offset in the exponent, exp(b − P/γ_post)
  // Throws std::invalid_argument naming ptq_law's field when not finite or
  // out of range (C_T ≥ 0, exponents in [0, 5], γ_post > 0, |b| ≤ 20).
  void validate() const;
  // δ_PTQ in nats for N parameters trained on D tokens, served at `bits`
  // (throws for bits outside (0, 64]).
  double degradation_nats(double n_params, double tokens, double bits) const;
};

struct TrainPrecisionLaw {
  double gamma_w = 0;                          // bits: weights
  double gamma_a = 0;                          // bits: activations
  double gamma_kv = 0;                         // bits: attention's keys and values
  double bias_w = 0, bias_a = 0, bias_kv = 0;  // n_x: offsets in the exponents
  void validate() const;
  // N_eff ≤ N for training precisions in bits. Throws for bits outside
  // (0, 64], and for bits so low that a factor 1 − e^(n − P/γ) is not
  // positive (below the precisions the law was fitted on), naming the input.
  double effective_params(double n_params, double weight_bits, double activation_bits,
                          double kv_bits) const;
  // The loss of N parameters trained on D tokens at those precisions under
  // `law`'s A, α, B, β and E with N_eff for N.
  double loss(const LossLaw& law, double n_params, double tokens, double weight_bits,
              double activation_bits, double kv_bits) const;
  // N_eff(bits) / N_eff(16) with every part at `bits`: the share of a bf16
  // run's effective parameters a run trained at `bits` keeps (≤ 1 below 16).
  double share_vs_bf16(double bits) const;
  // `law` (fitted on bf16 runs, whose N already stands for N_eff(16)) for a
  // model trained with every part at `bits`: N·share_vs_bf16(bits) replaces
  // N, i.e. A becomes A·share^(−α). Every forecast of an FP8-trained plan
  // uses it, so its optimum and its same-loss trades move as the law says.
  LossLaw trained_at(const LossLaw& law, double bits) const;
  // What training every part at `bits` costs against bf16 training, in nats
  // under `law`: trained_at(law, bits).loss − law.loss. > 0 below 16.
  double penalty_vs_bf16_nats(const LossLaw& law, double n_params, double tokens,
                              double bits) const;
};

// Kumar et al. 2024, Appendix K, Table 2: C_T 0.0598, γ_D 0.5068, γ_N 0.3439,
// γ_post 0.5907, b 1.1277.
PtqLaw kumar2024_ptq_law();
// Kumar et al. 2024, Appendix K, Table 2: γ_w 2.6745 (n_w 0.3037), γ_a
// 2.2102 (n_a 1.4072), γ_kv 0.9578 (n_kv 2.4185). Integer quantization of the
// forward pass; the paper's floating-point fit of the weights alone (Appendix
// N: γ_w 2.8111, offset 0.1240) gives the same factor at 8 bits within 0.3 %.
TrainPrecisionLaw kumar2024_train_precision_law();
// One sentence on where the built-in constants come from and what they were
// fitted on, for the read-outs that show a penalty from them.
std::string kumar2024_validity_text();

// "C_T,gamma_D,gamma_N,gamma_post[,b]" (four or five numbers, comma-separated;
// b = 0 when left out), as napkin-cli reads --ptq-law; throws
// std::invalid_argument naming `param`.
PtqLaw parse_ptq_law(const std::string& text, const std::string& param = "ptq_law");

}  // namespace napkin
