// The largest model a serving deployment can answer within its latency
// budget (seed Claim 14 and Phase 03 ch. 6, "the answer is a smaller
// model"), found with the roofline module's model-size sweep.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "roofline.h"

namespace napkin {

// One interactive turn on the serving slice. The seed's napkin: prefill at
// peak FLOP/s, decode at full HBM bandwidth, the KV cache not counted, so the
// largest model found is an upper bound.
struct ServingLatency {
  bool enabled = true;                // false: "What I would train" ignores serving
  std::int64_t prompt_tokens = 8192;  // incremental prefill per turn
  std::int64_t decode_tokens = 128;   // generated tokens per turn
  std::int64_t batch = 8;             // concurrent requests (decode reads weights once)
  double latency_budget_seconds = 1.0;
  double overhead_seconds =
      0.25;                      // scaffolding, load balancing, KV retrieval (seed: "optimistic!")
  double bytes_per_param = 2.0;  // serving precision
  void validate() const;
  bool operator==(const ServingLatency&) const = default;
};

struct ServingLimit {
  bool applied = false;  // enabled and the budget exceeds the overhead
  std::string chip;
  std::int64_t serving_chips = 0;
  // Largest N (dense parameters) whose turn meets the budget on the serving
  // chips and whose weights fit them; nullopt when not even 1M does.
  std::optional<double> max_params;
  double turn_seconds_at_max = 0;  // the turn's total at max_params
  std::string detail;              // one line for the memo
};

// Largest N in [1e6, 1e14] parameters (1e14 means "no limit in range"),
// to 0.1 % (a log grid of model_size_sweep, then bisection). A slice of
// chips_for_latency_budget()'s powers of two no larger than `serving_chips`
// must meet the budget.
ServingLimit largest_servable_model(const std::string& chip, std::int64_t serving_chips,
                                    const ServingLatency& latency);

}  // namespace napkin
