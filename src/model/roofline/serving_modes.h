// Serving as benchmarks run it (issue: "modes that match how benchmarks are
// run"):
//   - static: one batch of B requests prefilled together, then decoded
//     together until every request has all its tokens (TensorRT-LLM's static
//     gptSessionBenchmark tables);
//   - offline: continuous batching with every request queued at time 0, as
//     many in flight as the KV cache holds or a concurrency cap (MLPerf
//     Inference Offline, throughput benchmarks);
//   - server: Poisson arrivals at a request rate (MLPerf Server, the vLLM and
//     SGLang serving benchmarks).
// Offline and server are a discrete-event simulation of the engine's
// scheduler (Orca-style iteration-level batching, Yu et al. 2022): every
// iteration admits waiting requests up to the cap (and the engine's token
// budget per iteration, less the running requests' decode tokens where the
// engine counts them, serving_engine.h), runs one context phase for
// the admitted prompts (which yields their first tokens), then one decode
// step of every running request at their mean context; finished requests
// leave. Step and context-phase times are the layout's (serving.h, with the
// engine preset's per-kernel times and fixed costs). Chunked prefill
// (vLLM, SGLang) is priced like a separate context phase: its hiding of
// prefill work behind decode's weight reads is not modelled (conservative).
//
// Lengths are fixed or uniform in [mean − spread, mean + spread]. The
// simulation is seeded (rng.h) and bounded (requests × output tokens).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "serving.h"

namespace napkin {

enum class BatchingMode { static_batch, offline, server };
std::string_view to_string(BatchingMode mode);
// "static", "offline" or "server"; throws naming `parameter` otherwise.
BatchingMode parse_batching_mode(std::string_view text, std::string_view parameter = "mode");

struct ModeInputs {
  // Chip, layout, engine, precisions, overhead; prompt_tokens and
  // decode_tokens are the lengths' means; batch is the static batch.
  ServingInputs serving;
  BatchingMode mode = BatchingMode::offline;
  std::int64_t prompt_spread = 0;  // tokens either side of the mean (uniform)
  std::int64_t output_spread = 0;
  std::optional<std::int64_t> concurrency;  // offline/server cap; unset: what memory holds
  // The run's token budget per scheduler iteration (TensorRT-LLM's
  // max_num_tokens, vLLM's max_num_batched_tokens); unset: the engine's.
  std::optional<std::int64_t> max_tokens_per_step;
  // Whether a prompt larger than the iteration's budget may be split over
  // iterations (chunked prefill / context chunking); unset: the engine's
  // scheduler says (EngineScheduler::chunked).
  std::optional<bool> chunked_prefill;
  double request_rate_per_second = 1;  // server: Poisson arrivals
  std::int64_t requests = 1000;        // offline/server: requests simulated
  std::uint64_t seed = 1;
  void validate() const;
};

struct LatencyStats {
  double mean = 0, p50 = 0, p90 = 0, p99 = 0;
};

struct ModeResult {
  BatchingMode mode = BatchingMode::offline;
  std::int64_t chips = 0;
  double output_tokens_per_second = 0;  // all chips of the slice
  double output_tokens_per_second_per_chip = 0;
  LatencyStats ttft_seconds;       // arrival → first token (overhead and per-call work included)
  LatencyStats tpot_seconds;       // (last token − first token) ÷ (output − 1), per request
  double decode_step_seconds = 0;  // mean over the decode steps run
  // Requests whose whole KV cache (longest prompt + output) fits beside the
  // weights in the engine's share of HBM.
  std::int64_t max_concurrency = 0;
  std::int64_t concurrency = 0;  // the cap used: static batch, or min(cap, memory)
  std::int64_t requests = 0;
  std::int64_t steps = 0;  // decode steps simulated (static: output − 1)
  double makespan_seconds = 0;
  // Server: the slice served under 90 % of the offered output tokens per
  // second (rate × mean output): the queue grows, and the latencies with the
  // length of the run.
  bool saturated = false;
};

// Throws std::invalid_argument naming the parameter; a static batch or cap
// that does not fit throws naming "batch" or "concurrency".
ModeResult evaluate_mode(const ServingModel& model, const ModeInputs& in);

// The latency–throughput frontier: offline runs at concurrency 1, 2, 4, …
// up to what memory holds (and that maximum), each point the median TPOT
// against the output tokens per second per chip; each run simulates at least
// four times its concurrency in requests.
struct FrontierPoint {
  std::int64_t concurrency = 0;
  double tpot_p50_seconds = 0;
  double output_tokens_per_second_per_chip = 0;
};
std::vector<FrontierPoint> serving_frontier(const ServingModel& model, const ModeInputs& in);

// The highest Poisson request rate (server mode) whose P99 TTFT stays within
// `p99_ttft_seconds`, by bisection to 1 % (0 when even a trickle misses it),
// at most the offline throughput's request rate (beyond it the queue grows
// without bound however long the run).
double max_request_rate_for_ttft(const ServingModel& model, const ModeInputs& in,
                                 double p99_ttft_seconds);

// The largest number of requests whose caches fit at their longest lengths
// (0 when the weights alone do not fit).
std::int64_t max_concurrency(const ServingModel& model, const ModeInputs& in);

}  // namespace napkin
