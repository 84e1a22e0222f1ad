#include "serving_limit.h"

#include <cmath>

#include "format.h"
#include "hardware.h"
#include "validate.h"

namespace napkin {

namespace {

constexpr double kMinParams = 1e6;
constexpr double kMaxParams = 1e14;

bool servable(const TurnInputs& turn, double n, std::int64_t chips) {
  const ModelSizePoint p = model_size_sweep(turn, {n}).front();
  return p.chips_for_budget.has_value() && *p.chips_for_budget <= chips &&
         p.chips_to_hold_weights <= chips;
}

}  // namespace

void ServingLatency::validate() const {
  require_count(prompt_tokens, "prompt_tokens", "tokens", 1, 1'000'000'000);
  require_count(decode_tokens, "decode_tokens", "tokens", 0, 1'000'000'000);
  require_count(batch, "serving_batch", "requests", 1, 1'000'000'000);
  require_real(latency_budget_seconds, "latency_budget", "seconds", 0.0, 1e6, true);
  require_real(overhead_seconds, "overhead", "seconds", 0.0, 1e6);
  require_real(bytes_per_param, "bytes_per_param", "bytes", 0.0, 8.0, true);
}

ServingLimit largest_servable_model(const std::string& chip, std::int64_t serving_chips,
                                    const ServingLatency& latency) {
  latency.validate();
  require_count(serving_chips, "serving_chips", "chips", 1, 1'000'000);
  (void)chip_by_name(chip);
  ServingLimit out;
  out.chip = chip;
  out.serving_chips = serving_chips;
  const std::string where = std::to_string(serving_chips) + " " + chip;
  if (!latency.enabled) {
    out.detail = "serving latency not applied";
    return out;
  }
  if (latency.latency_budget_seconds <= latency.overhead_seconds) {
    out.detail = "the " + format_seconds(latency.latency_budget_seconds) +
                 " latency budget is used up by the " + format_seconds(latency.overhead_seconds) +
                 " overhead: no model can meet it";
    return out;
  }
  out.applied = true;
  TurnInputs turn;
  turn.chip = chip;
  turn.n_chips = serving_chips;
  turn.max_chips = serving_chips;
  turn.prefill_tokens = latency.prompt_tokens;
  turn.decode_tokens = latency.decode_tokens;
  turn.batch = latency.batch;
  turn.bytes_per_param = latency.bytes_per_param;
  turn.overhead_seconds = latency.overhead_seconds;
  turn.budget_seconds = latency.latency_budget_seconds;

  // Latency and weight bytes grow with N: a coarse log grid, then bisection.
  constexpr int kGrid = 81;  // 10 points per decade
  std::vector<double> grid;
  for (int i = 0; i < kGrid; ++i)
    grid.push_back(kMinParams *
                   std::pow(kMaxParams / kMinParams, static_cast<double>(i) / (kGrid - 1)));
  const std::vector<ModelSizePoint> sweep = model_size_sweep(turn, grid);
  int last = -1;
  for (int i = 0; i < kGrid; ++i) {
    const ModelSizePoint& p = sweep[static_cast<std::size_t>(i)];
    const bool ok = p.chips_for_budget && *p.chips_for_budget <= serving_chips &&
                    p.chips_to_hold_weights <= serving_chips;
    if (!ok) break;
    last = i;
  }
  const std::string turn_text =
      format_grouped(static_cast<double>(latency.prompt_tokens)) + "-token prefill + " +
      format_grouped(static_cast<double>(latency.decode_tokens)) + " decoded tokens + " +
      format_seconds(latency.overhead_seconds) + " overhead within " +
      format_seconds(latency.latency_budget_seconds);
  if (last < 0) {
    out.detail = "no model of 1M parameters or more meets " + turn_text + " on " + where;
    return out;
  }
  double n = grid[static_cast<std::size_t>(last)];
  if (last + 1 < kGrid) {
    double lo = std::log(n), hi = std::log(grid[static_cast<std::size_t>(last + 1)]);
    for (int it = 0; it < 40 && hi - lo > 1e-3; ++it) {
      const double mid = 0.5 * (lo + hi);
      (servable(turn, std::exp(mid), serving_chips) ? lo : hi) = mid;
    }
    n = std::exp(lo);
  }
  out.max_params = n;
  turn.n_params = n;
  out.turn_seconds_at_max = interactive_latency(turn, serving_chips).total_seconds;
  out.detail = "largest model meeting " + turn_text + " on " + where + ": " + format_count(n) +
               " parameters (prefill at peak, decode at full HBM bandwidth, KV cache not "
               "counted: an upper bound)";
  return out;
}

}  // namespace napkin
