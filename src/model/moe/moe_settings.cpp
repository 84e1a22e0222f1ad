#include "moe_settings.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "validate.h"

namespace napkin {

namespace {

// Seeds and counts stored as JSON numbers stay exact up to 2^53 − 1.
constexpr std::int64_t kMaxExactInteger = (std::int64_t{1} << 53) - 1;

}  // namespace

void MoeSettings::validate() const {
  // Bounds a replay of the run of record to what the panel records (5,000
  // steps) at the sizes its sliders reach, with room for the CLI's larger ones.
  require_count(n_experts, "experts", "routed experts", 1, 1024);
  require_count(top_k, "top_k", "experts per token", 1, n_experts);
  require_count(tokens_per_batch, "tokens_per_batch", "tokens per step", 1, 65'536);
  require_count(static_cast<std::int64_t>(seed), "seed", "seed", 0, kMaxExactInteger);
  require_real(aux_weight, "aux_weight", "× L_balance", 0.0, 100.0);
  require_real(z_weight, "z_weight", "× L_z", 0.0, 100.0);
  require_real(capacity_factor, "capacity_factor", "× the balanced load", 1.0, 1000.0);
  require_real(learning_rate, "learning_rate", "router step size", 1e-12, 1e4);
  require_count(steps, "steps", "router steps", 1, 5000);
  collapse_params().validate();
  // One work budget for the run of record, whoever replays it (moe.h).
  require_count(steps, "steps",
                "router steps at these experts and tokens_per_batch (steps × experts × "
                "(tokens_per_batch + 1,024) is at most 5e8)",
                1, max_recorded_collapse_steps(collapse_params()));
  require_count(shown_step, "shown_step", "step of the run of record shown, 0 for its last", 0,
                steps);
  require_count(prefill_tokens, "prefill_tokens", "tokens", 1, 1'000'000'000);
  require_real(link_gbps, "link_gbps", "Gbit/s", 1e-12, 1e9);
  require_real(latency_us, "latency_us", "µs per collective", 0.0, 1e9);
  require_real(compute_ms, "compute_ms", "ms per chunk per stage", 1e-12, 1e12);
  pipeline_inputs().validate();
}

CollapseParams MoeSettings::collapse_params() const {
  CollapseParams p;
  p.n_experts = n_experts;
  p.top_k = top_k;
  p.tokens_per_batch = tokens_per_batch;
  p.seed = seed;
  p.aux_weight = aux_on ? aux_weight : 0.0;
  p.z_weight = z_on ? z_weight : 0.0;
  p.capacity_factor = capacity_factor;
  p.learning_rate = learning_rate;
  p.shared_expert = shared_expert;
  p.renormalize = renormalize;
  return p;
}

PipelineInputs MoeSettings::pipeline_inputs() const {
  PipelineInputs p;
  p.chunks = pipeline_chunks;
  p.stages = pipeline_stages;
  p.compute_ms = compute_ms;
  p.transfer_ms = transfer_ms;
  return p;
}

}  // namespace napkin
