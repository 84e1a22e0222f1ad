// Distillation arithmetic (seed Claim 17, Phase 07): the Hinton loss with a
// temperature, what temperature does to a teacher's perplexity, and the
// storage a teacher's logits need, in full and as a top-k store.
//
// Not here yet: a distillation scaling law (student loss from teacher loss,
// student size and distillation tokens, e.g. Busbridge et al. 2025).
#pragma once

#include <cstdint>
#include <vector>

namespace napkin {

// KL(teacher_T ‖ student_T)·T² (Hinton et al. 2015), softmax with
// max-subtraction so that large logits do not overflow; teacher
// probabilities below 1e-12 are skipped (log 0 guarded). Throws
// std::invalid_argument when the two are empty or differ in length, or T ≤ 0.
double kl_distillation_loss(const std::vector<double>& student_logits,
                            const std::vector<double>& teacher_logits, double temperature = 2.0);

// exp(entropy) of softmax(logits / T), nats: raising T flattens the
// distribution and raises the perplexity without the teacher knowing less.
double perplexity_at_temperature(const std::vector<double>& logits, double temperature = 1.0);

struct LogitStorage {
  double full_bytes = 0;   // tokens × vocabulary × bytes per logit
  double top_k_bytes = 0;  // tokens × (k × (value + index) + one tail-mass value); 0 without k
  double reduction = 0;    // full ÷ top-k (0 without k)
};
// The teacher's logits over `tokens` tokens (seed: 10T × 256k × 2 bytes =
// 5.12e18 bytes, "5 EB"). A top-k store keeps the k largest logits with
// their token ids and the renormalized tail mass. Throws naming the
// parameter when out of range (top_k must be below the vocabulary).
LogitStorage logit_storage(double tokens, std::int64_t vocab, double bytes_per_logit = 2.0,
                           std::int64_t top_k = 0, double index_bytes = 4.0);

}  // namespace napkin
