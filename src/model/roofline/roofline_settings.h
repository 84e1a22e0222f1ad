// The Roofline panel's inputs as part of the scenario document: overlays,
// the napkin's assumptions and the serving layout's choices.
//
// Plain structs with in-class defaults (each the panel's default on first
// launch) and a validate() that throws std::invalid_argument naming the field,
// its unit and the accepted range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofline.h"
#include "serving_modes.h"

namespace napkin {

// The "Serving layout" view's own inputs (serving.h; JSON
// roofline.serving_layout): the chosen split of the serving chips (0, 0, 0:
// the fastest split), collectives counted or not, the TTFT and TPOT bounds
// added to the turn budget (0: not bounded), the largest slice the search
// tries, the traffic disaggregation is sized for, and the serving run's
// scheduler as the latency-throughput frontier runs it: the tokens one
// iteration runs (TensorRT-LLM's max_num_tokens, vLLM's
// max_num_batched_tokens; 0: the engine's default) and whether a prompt
// larger than what is left of it is split (chunked prefill; unset: the
// engine's default; napkin-cli serve --max-num-tokens, --chunked-prefill),
// and a benchmark run of the layout.
// The view reruns its search when this, the served model, the chip, the
// serving set-up or the cost inputs change: a new input goes here.
// What a benchmark run accepts, one range for the scenario file, the Serving
// layout tab and napkin-cli serve --mode: requests per second (server runs),
// requests simulated, the lengths' spread either side of the turn's, and
// requests in flight.
inline constexpr double kMinRunRequestRatePerSecond = 1e-6;
inline constexpr double kMaxRunRequestRatePerSecond = 1e9;
inline constexpr std::int64_t kMaxRunRequests = 100'000;
inline constexpr std::int64_t kMaxRunSpreadTokens = std::int64_t{1} << 24;
inline constexpr std::int64_t kMaxRunConcurrency = 1'000'000;

struct ServingLayoutSettings {
  std::int64_t tp = 0;
  std::int64_t pp = 0;
  std::int64_t ep = 0;
  bool communication = true;
  double ttft_budget_seconds = 0.5;
  double tpot_budget_seconds = 0.05;
  std::int64_t search_max_chips = 4096;
  double generated_tokens_per_day = 1e9;
  std::int64_t max_tokens_per_step = 0;
  std::optional<bool> chunked_prefill;
  // The engine's memory setting as its flag takes it (ServingAssumptions::
  // engine_memory_fraction: TensorRT-LLM's kv_cache_free_gpu_mem_fraction,
  // vLLM's gpu_memory_utilization, SGLang's mem_fraction_static); 0: the
  // engine's.
  double engine_memory_fraction = 0;
  // The benchmark run the tab simulates on that layout with the serving
  // turn's lengths (serving_modes.h; napkin-cli serve --mode): static (one
  // batch of run_concurrency requests, else the turn's batch), offline
  // (every request queued at once) or server (Poisson arrivals at
  // run_request_rate_per_second); run_concurrency caps the requests in
  // flight (0: what memory and the engine allow); run_requests are simulated,
  // their prompt and output lengths uniform within the spreads either side
  // of the turn's (0: fixed lengths).
  BatchingMode run_mode = BatchingMode::offline;
  std::int64_t run_concurrency = 0;
  double run_request_rate_per_second = 1.0;
  std::int64_t run_requests = 1000;
  std::int64_t run_prompt_spread_tokens = 0;
  std::int64_t run_output_spread_tokens = 0;

  void validate() const;
  bool operator==(const ServingLayoutSettings&) const = default;
};

struct RooflineSettings {
  std::vector<std::string> overlays;  // other chips' rooflines, in the order ticked
  std::int64_t matmul_dim = 8192;     // the "large matmul" point
  MfuBudgetInputs mfu;                // step seconds by busy unit (the seed's 100/45/60/50/25)
  double recompute = 8.0 / 6.0;       // HFU ÷ MFU (full activation checkpointing)
  double prefill_mfu = 1.0;           // the talk: "assume fully compute bound"
  double bandwidth_efficiency = 1.0;  // fraction of HBM bandwidth decode achieves
  double step_floor_seconds = 0.0;    // serial time per decode step more chips cannot shrink
  std::int64_t max_chips = 65536;     // the largest slice considered
  std::int64_t tile = 128;            // matmul tile side
  double per_layer_serial_seconds = 0.0;
  ServingLayoutSettings serving_layout;  // the "Serving layout" view's own inputs

  void validate() const;
  bool operator==(const RooflineSettings&) const = default;
};

}  // namespace napkin
