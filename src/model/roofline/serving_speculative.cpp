#include "serving_speculative.h"

#include <cmath>

#include "serving_eval.h"
#include "validate.h"

namespace napkin {

void SpeculativeInputs::validate() const {
  serving.validate();
  draft.validate();
  require_count(draft_tokens, "draft_tokens", "tokens per round", 1, 64);
  require_real(acceptance, "acceptance", "probability", 0.0, 1.0);
}

double speculative_expected_tokens(std::int64_t k, double a) {
  require_count(k, "draft_tokens", "tokens per round", 1, 64);
  require_real(a, "acceptance", "probability", 0.0, 1.0);
  if (a >= 1.0) return static_cast<double>(k + 1);
  return (1.0 - std::pow(a, static_cast<double>(k + 1))) / (1.0 - a);
}

SpeculativeResult evaluate_speculative(const ServingModel& target, const SpeculativeInputs& in) {
  in.validate();
  const ServingInputs& s = in.serving;
  const double context = static_cast<double>(s.cached_tokens + s.prompt_tokens) +
                         static_cast<double>(s.decode_tokens - 1) / 2.0;
  const detail::LayoutEval t(target, s);
  // The draft shares the slice: its heads must split over the same TP ranks.
  const detail::LayoutEval d(in.draft, s);
  SpeculativeResult r;
  r.expected_tokens_per_step = speculative_expected_tokens(in.draft_tokens, in.acceptance);
  r.target_step_seconds = t.step_seconds(s.batch, context);
  r.draft_step_seconds = d.step_seconds(s.batch, context);
  r.verify_step_seconds =
      t.step_seconds(s.batch, context, static_cast<double>(in.draft_tokens + 1));
  r.round_seconds =
      static_cast<double>(in.draft_tokens) * r.draft_step_seconds + r.verify_step_seconds;
  r.tpot_seconds = r.round_seconds / r.expected_tokens_per_step;
  r.speedup = r.target_step_seconds / r.tpot_seconds;
  return r;
}

}  // namespace napkin
