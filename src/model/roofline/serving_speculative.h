// Speculative decoding (Leviathan, Kalman & Matias 2023, "Fast Inference from
// Transformers via Speculative Decoding"; Chen et al. 2023): a small draft
// model proposes k tokens one step at a time, the target model verifies all
// k + 1 positions in one step, and with a per-token acceptance rate α the
// expected tokens per target step is (1 − α^(k+1)) ÷ (1 − α) (Leviathan
// eq. 1). One round costs k draft steps plus a target step that computes
// k + 1 positions per request while reading the weights and each cache once
// (serving.h's decode step with tokens_per_request = k + 1). At a small batch
// the verification costs about one plain step and speculation wins; at a
// large batch the target step is compute-bound, verification costs about
// k + 1 plain steps, and speculation loses.
#pragma once

#include <cstdint>

#include "serving.h"

namespace napkin {

struct SpeculativeInputs {
  ServingInputs serving;          // the target's layout, engine, precisions, batch, lengths
  ServingModel draft;             // runs on the same chips and layout as the target
  std::int64_t draft_tokens = 4;  // k: tokens proposed per round
  double acceptance = 0.7;        // α: probability each proposed token is accepted
  void validate() const;
};

struct SpeculativeResult {
  double expected_tokens_per_step = 1;  // (1 − α^(k+1)) ÷ (1 − α); k + 1 at α = 1
  double draft_step_seconds = 0;        // one draft decode step of the batch
  double verify_step_seconds = 0;       // the target's step over k + 1 positions
  double round_seconds = 0;             // k × draft + verify
  double target_step_seconds = 0;       // a plain decode step, for comparison
  double tpot_seconds = 0;              // round ÷ expected tokens
  double speedup = 1;                   // target step ÷ TPOT (< 1: speculation loses)
};

// Expected tokens per target step for k proposals at acceptance α ∈ [0, 1].
double speculative_expected_tokens(std::int64_t draft_tokens, double acceptance);

// At the turn's mean context (prompt + cached + half the output). Throws
// std::invalid_argument naming the parameter.
SpeculativeResult evaluate_speculative(const ServingModel& target, const SpeculativeInputs& in);

}  // namespace napkin
