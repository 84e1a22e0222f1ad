// The loss the lifetime trades hold equal: a model's forecast loss as it will
// be served. The plan's law (data-constrained within the unique tokens), and,
// when the weights are served below 16 bits, the post-training quantization
// penalty of Kumar et al. 2024 (Eq. 2, precision_law.h), which grows with the
// tokens per parameter. Overtraining a small model for cheap serving is what
// that penalty punishes, so a same-loss trade that left it out would
// recommend a model that is worse as served than the one it replaces.
#pragma once

#include <optional>

#include "data_constrained.h"
#include "precision_law.h"

namespace napkin {

struct ServedLoss {
  explicit ServedLoss(DataConstrainedLaw law_, std::optional<double> unique_tokens_ = {})
      : law(law_), unique_tokens(unique_tokens_) {}
  DataConstrainedLaw law;
  std::optional<double> unique_tokens;  // the data limit, if any
  std::optional<PtqLaw> ptq;            // with weights served below 16 bits
  double weight_bits = 16;              // the served weights' bits (with ptq)

  // Nats/token of N parameters trained on D tokens, as served. Past the
  // data-constrained law's range (kMaxTrainTokens) the base law: repetition no
  // longer changes the answer's order of magnitude.
  double loss(double n_params, double tokens) const;
  // The fewest tokens with which N parameters reach `target` as served;
  // nullopt when no token count does (with a PTQ penalty, more tokens
  // eventually make the served model worse, so a small model may never get
  // there).
  std::optional<double> tokens_for(double n_params, double target) const;
};

}  // namespace napkin
