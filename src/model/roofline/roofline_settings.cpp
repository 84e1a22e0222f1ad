#include "roofline_settings.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "hardware.h"
#include "validate.h"

namespace napkin {

void RooflineSettings::validate() const {
  require_count(static_cast<std::int64_t>(overlays.size()), "overlays", "chips", 0,
                static_cast<std::int64_t>(chip_list().size()));
  for (std::size_t i = 0; i < overlays.size(); ++i) {
    (void)chip_by_name(overlays[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (overlays[j] == overlays[i])
        throw std::invalid_argument("overlays (chips): \"" + overlays[i] + "\" is listed twice");
  }
  require_count(matmul_dim, "matmul_dim", "elements", 1, 1'000'000);
  mfu.validate();
  for (double v : {mfu.matmul_seconds, mfu.vector_seconds, mfu.memory_seconds, mfu.comms_seconds,
                   mfu.optimizer_seconds})
    require_real(v, "mfu step seconds", "s", 0.0, 1e9);
  require_real(recompute, "recompute", "hardware FLOPs per model FLOP", 1.0, 10.0);
  require_real(prefill_mfu, "prefill_mfu", "fraction of peak", 1e-12, 1.0);
  require_real(bandwidth_efficiency, "bandwidth_efficiency", "fraction of HBM bandwidth", 1e-12,
               1.0);
  require_real(step_floor_seconds, "step_floor_seconds", "s per decode step", 0.0, 1e3);
  require_count(max_chips, "max_chips", "chips", 1, std::int64_t{1} << 40);
  require_count(tile, "tile", "elements", 1, 65'536);
  require_real(per_layer_serial_seconds, "per_layer_serial_seconds", "s per layer per step", 0.0,
               1.0);
  serving_layout.validate();
}

void ServingLayoutSettings::validate() const {
  require_count(tp, "serving_layout.tp", "tensor-parallel ranks (0: fastest split)", 0, 1 << 20);
  require_count(pp, "serving_layout.pp", "pipeline stages (0: fastest split)", 0, 1 << 20);
  require_count(ep, "serving_layout.ep", "expert-parallel ranks (0: fastest split)", 0, 1 << 20);
  require_real(ttft_budget_seconds, "serving_layout.ttft_budget_seconds", "s (0: not bounded)", 0.0,
               1e6);
  require_real(tpot_budget_seconds, "serving_layout.tpot_budget_seconds", "s (0: not bounded)", 0.0,
               1e6);
  require_count(search_max_chips, "serving_layout.search_max_chips", "chips", 1,
                std::int64_t{1} << 20);
  require_real(generated_tokens_per_day, "serving_layout.generated_tokens_per_day",
               "tokens per day", 1.0, 1e18);
  require_count(max_tokens_per_step, "serving_layout.max_tokens_per_step",
                "tokens per iteration (0: the engine's)", 0, 1 << 20);
  require_real(engine_memory_fraction, "serving_layout.engine_memory_fraction",
               "fraction of memory (0: the engine's)", 0.0, 1.0);
  require_count(run_concurrency, "serving_layout.run_concurrency",
                "requests (0: what memory and the engine allow)", 0, kMaxRunConcurrency);
  require_real(run_request_rate_per_second, "serving_layout.run_request_rate_per_second",
               "requests/s", kMinRunRequestRatePerSecond, kMaxRunRequestRatePerSecond);
  require_count(run_requests, "serving_layout.run_requests", "requests", 1, kMaxRunRequests);
  require_count(run_prompt_spread_tokens, "serving_layout.run_prompt_spread_tokens", "tokens", 0,
                kMaxRunSpreadTokens);
  require_count(run_output_spread_tokens, "serving_layout.run_output_spread_tokens", "tokens", 0,
                kMaxRunSpreadTokens);
}

}  // namespace napkin
