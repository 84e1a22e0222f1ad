// The distillation scaling law of Busbridge et al. 2025, "Distillation
// Scaling Laws" (ICML 2025, arXiv 2502.08606, https://arxiv.org/abs/2502.08606),
// Eq. 8: a student of N_S parameters distilled on D_S tokens from a teacher of
// cross-entropy L_T reaches
//   L_S = L_T + L_T^(−c0) · (1 + (L_T / (L̃_S·d1))^(1/f1))^(−c1·f1)
//               · (A'·N_S^(−α') + B'·D_S^(−β'))^γ'
// (the paper's Eq. 8 and its restatement Eq. 46 in Appendix F.2 have exactly
// this form) where L̃_S = L(N_S, D_S) is the loss the student would reach
// trained on the same tokens without a teacher. The broken power law in
// L_T ÷ L̃_S is the capacity gap: a teacher much stronger than what the student
// can learn helps less, and past a point hurts.
//
// The paper's supervised law (Eq. 1, restated as Eq. 40) is not Chinchilla's
// sum: L(N, D) = E + (A·N^(−α) + B·D^(−β))^γ. Both laws' constants are built
// in from the paper's Appendix F.3, Table 6 ("Scaling law parameter
// estimates", 90 % bootstrap intervals): supervised A 3355, B 18186, E 1.220,
// α 0.408, β 0.431, γ 0.452 (73 runs); distillation A' 2243, B' 24181,
// α' 0.321, β' 0.637, γ' 0.764, c0 2.549, c1 522.6, f1 0.090, d1 1.315 (697
// runs). They were fitted together, on C4 (English) with the paper's models
// and tokenizer, students of 143M–12.6B parameters on up to 512B distillation
// tokens; beyond that the law extrapolates, and with another supervised law
// (the plan's) L_T and L̃_S are losses the constants were not fitted on.
//
// The compute of distilling (the paper's accounting, with Kaplan et al.
// 2020's 2N FLOPs per token forward and 6N per token trained): teacher
// pre-training 6·N_T·D_T, the teacher's forward pass over the distillation
// data 2·N_T·D_S, and the student 6·N_S·D_S; training the student alone
// spends all of it on 6·N_S·D.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "loss_law.h"

namespace napkin {

// Busbridge et al. 2025's supervised law, Eq. 1: E + (A/N^α + B/D^β)^γ.
struct DistillSupervisedLaw {
  double E = 0, A = 0, B = 0, alpha = 0, beta = 0, gamma = 0;
  // Throws std::invalid_argument naming the field unless every constant is
  // finite and > 0.
  void validate() const;
  double loss(double n_params, double tokens) const;
};
// Table 6's supervised column.
DistillSupervisedLaw busbridge2025_supervised_law();

struct DistillLaw {
  double c0 = 0, c1 = 0, d1 = 0, f1 = 0;
  double a = 0, b = 0;  // A', B'
  double alpha = 0, beta = 0, gamma = 0;
  // Throws std::invalid_argument naming distill_law's field when not finite
  // or out of range (exponents in [0, 5], c1 in [0, 1e4], d1 and f1 > 0, A'
  // and B' ≥ 0).
  void validate() const;
  // L_S for a teacher of loss `teacher_loss` and a student whose supervised
  // loss on the same tokens is `student_supervised_loss`, nats/token.
  double student_loss(double teacher_loss, double student_supervised_loss, double student_params,
                      double distill_tokens) const;
};

// Table 6's distillation column.
DistillLaw busbridge2025_distill_law();

// "c0,c1,d1,f1,A,B,alpha,beta,gamma" (nine numbers), as napkin-cli reads
// --distill-law; throws std::invalid_argument naming `param`.
DistillLaw parse_distill_law(const std::string& text, const std::string& param = "distill_law");

struct DistillCompute {
  double teacher_train_flops = 0;      // 6·N_T·D_T
  double teacher_inference_flops = 0;  // 2·N_T·D_S: the teacher's logits over the student's data
  double student_flops = 0;            // 6·N_S·D_S
  double total_flops() const {
    return teacher_train_flops + teacher_inference_flops + student_flops;
  }
};
DistillCompute distill_compute(double teacher_params, double teacher_tokens, double student_params,
                               double distill_tokens);

// A split of `compute_flops` between training a teacher of `teacher_params`
// and distilling a student of `student_params` on `distill_tokens`: the
// teacher gets what the logits and the student leave.
struct DistillSplit {
  double distill_tokens = 0;  // D_S
  double teacher_tokens = 0;  // D_T
  DistillCompute compute;
  double teacher_loss = 0;             // L(N_T, D_T) under the plan's law
  double student_supervised_loss = 0;  // L̃_S = L(N_S, D_S)
  std::optional<double> student_loss;  // Eq. 8; nullopt without the law's constants
};
// Throws std::invalid_argument naming the input when the logits and the
// student alone spend the compute (no tokens left for the teacher).
// The supervised law gives L(N, D) for the teacher's loss, L̃_S and the
// student alone: the plan's (LossLaw) or the paper's own.
using SupervisedLoss = std::function<double(double n_params, double tokens)>;
SupervisedLoss supervised_loss(const LossLaw& law);
SupervisedLoss supervised_loss(const DistillSupervisedLaw& law);
DistillSplit distill_split(const SupervisedLoss& supervised, const std::optional<DistillLaw>& law,
                           double compute_flops, double teacher_params, double student_params,
                           double distill_tokens);

struct DistillPlan {
  double compute_flops = 0;
  double teacher_params = 0;
  double student_params = 0;
  DistillSplit split;               // at the given D_S, or the best one found
  bool searched = false;            // D_S chosen to minimise L_S (needs the constants)
  double student_alone_tokens = 0;  // C ÷ 6·N_S
  double student_alone_loss = 0;    // L(N_S, C ÷ 6N_S): the student trained alone
  std::optional<double> gain_nats;  // student_alone_loss − L_S (> 0: distilling wins)
};
// With `distill_tokens`, the split at those tokens; without, the D_S (on a
// log grid refined by golden section) that minimises L_S under `law`, or,
// without the law's constants, the student's own tokens per parameter
// (`default_tokens_per_param` × N_S) with the student's loss unpriced.
DistillPlan plan_distillation(const SupervisedLoss& supervised,
                              const std::optional<DistillLaw>& law, double compute_flops,
                              double teacher_params, double student_params,
                              std::optional<double> distill_tokens,
                              double default_tokens_per_param = 20.0);

}  // namespace napkin
