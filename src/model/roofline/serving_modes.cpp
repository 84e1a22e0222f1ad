#include "serving_modes.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "rng.h"
#include "serving_eval.h"
#include "validate.h"

namespace napkin {

namespace {

// Requests × output tokens simulated at most (a few seconds of work).
constexpr double kMaxRequestSteps = 20e6;
constexpr std::int64_t kMaxRequests = 100'000;
constexpr std::int64_t kMaxBatch = 1'000'000;
constexpr std::int64_t kMaxTokensPerStep = 1'048'576;

LatencyStats stats(std::vector<double> v) {
  LatencyStats s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(v.size());
  // Nearest rank: the smallest value with at least q of the values at or below it.
  auto q = [&](double f) {
    const auto rank = static_cast<std::size_t>(std::ceil(f * static_cast<double>(v.size())));
    return v[std::min(v.size() - 1, rank == 0 ? 0 : rank - 1)];
  };
  s.p50 = q(0.50);
  s.p90 = q(0.90);
  s.p99 = q(0.99);
  return s;
}

std::int64_t draw(Rng& rng, std::int64_t mean, std::int64_t spread) {
  if (spread == 0) return mean;
  const std::uint64_t width = static_cast<std::uint64_t>(2 * spread + 1);
  return std::max<std::int64_t>(1, mean - spread + static_cast<std::int64_t>(rng.below(width)));
}

// The inputs at the longest lengths, for the memory cap.
ServingInputs longest(const ModeInputs& in) {
  ServingInputs s = in.serving;
  s.prompt_tokens += in.prompt_spread;
  s.decode_tokens += in.output_spread;
  return s;
}

struct Request {
  double arrival = 0;
  std::int64_t prompt = 1, output = 1, generated = 0;
  double first_token = 0;
};

// One static batch: prefilled together, then decoded together.
ModeResult static_batch_mode(const ServingModel& model, const ModeInputs& in, ModeResult r) {
  const StaticBatchResult s = evaluate_static_batch(model, in.serving);
  if (!s.fits)
    throw std::invalid_argument("batch " + std::to_string(in.serving.batch) +
                                " requests does not fit in memory at these lengths (at most " +
                                std::to_string(r.max_concurrency) + ")");
  r.chips = s.chips;
  r.concurrency = in.serving.batch;
  r.requests = in.serving.batch;
  r.steps = s.decode_steps;
  r.makespan_seconds = s.total_seconds;
  const double ttft = s.overhead_seconds + s.prefill_seconds;
  r.ttft_seconds = {ttft, ttft, ttft, ttft};
  r.tpot_seconds = {s.decode_step_seconds, s.decode_step_seconds, s.decode_step_seconds,
                    s.decode_step_seconds};
  r.decode_step_seconds = s.decode_step_seconds;
  r.output_tokens_per_second = s.tokens_per_second_per_chip * static_cast<double>(s.chips);
  r.output_tokens_per_second_per_chip = s.tokens_per_second_per_chip;
  return r;
}

// The requests: lengths and arrival times from one seeded stream.
std::vector<Request> draw_requests(const ModeInputs& in) {
  Rng rng(in.seed);
  std::vector<Request> reqs(static_cast<std::size_t>(in.requests));
  double t_arrive = 0;
  for (Request& q : reqs) {
    q.prompt = draw(rng, in.serving.prompt_tokens, in.prompt_spread);
    q.output = draw(rng, in.serving.decode_tokens, in.output_spread);
    if (in.mode == BatchingMode::server) {
      t_arrive += -std::log(1.0 - rng.uniform()) / in.request_rate_per_second;
      q.arrival = t_arrive;
    }
  }
  return reqs;
}

// The engine's scheduler over the requests: admit what has arrived up to the
// cap (one context phase for them all), then one decode step of every running
// request; fills the result's steps, latencies and throughput.
void run_requests(const detail::LayoutEval& eval, const ServingEngine& engine,
                  const SchedulerLimits& limits, const ModeInputs& in, std::int64_t cap,
                  std::vector<Request>& reqs, ModeResult& r) {
  std::vector<std::size_t> running;
  std::vector<double> ttft, tpot;
  ttft.reserve(reqs.size());
  tpot.reserve(reqs.size());
  std::size_t next = 0;
  double t = 0, step_sum = 0, tokens = 0;
  const double per_request = in.serving.overhead_seconds + engine.per_call_seconds;
  auto finish = [&](const Request& q) {
    tokens += static_cast<double>(q.output);
    if (q.output > 1) tpot.push_back((t - q.first_token) / static_cast<double>(q.output - 1));
  };
  // The iteration's token budget (0: none) and whether a prompt may be split.
  const std::int64_t limit = limits.tokens_per_step;
  const bool chunks = in.chunked_prefill.value_or(engine.scheduler == EngineScheduler::chunked);
  while (next < reqs.size() || !running.empty()) {
    if (running.empty() && next < reqs.size()) t = std::max(t, reqs[next].arrival);
    // Admit what has arrived, up to the cap; one context phase for them all.
    // The iteration's token budget bounds the admissions: what the running
    // requests' decode tokens leave of it where the engine counts them. A
    // prompt larger than what is left waits; the first admission proceeds
    // anyway under a chunking scheduler (the prompt split over iterations,
    // priced as one context phase) or when nothing else runs (it could never
    // fit otherwise).
    std::vector<std::size_t> admitted;
    std::int64_t budget = limit;
    if (limit > 0 && engine.budget_counts_decode_tokens)
      budget -= static_cast<std::int64_t>(running.size());
    while (next < reqs.size() && reqs[next].arrival <= t &&
           static_cast<std::int64_t>(running.size() + admitted.size()) < cap) {
      if (limit > 0 && reqs[next].prompt > budget &&
          !(admitted.empty() && (running.empty() || (chunks && budget > 0))))
        break;
      budget -= reqs[next].prompt;
      admitted.push_back(next++);
    }
    if (!admitted.empty()) {
      double prompt_sum = 0;
      for (std::size_t i : admitted) prompt_sum += static_cast<double>(reqs[i].prompt);
      const auto mean_prompt = static_cast<std::int64_t>(
          std::llround(prompt_sum / static_cast<double>(admitted.size())));
      t += eval.context_phase_seconds(static_cast<std::int64_t>(admitted.size()),
                                      std::max<std::int64_t>(1, mean_prompt));
      for (std::size_t i : admitted) {
        Request& q = reqs[i];
        q.generated = 1;
        q.first_token = t;
        ttft.push_back(t + per_request - q.arrival);
        if (q.output == 1)
          finish(q);
        else
          running.push_back(i);
      }
    }
    if (running.empty()) continue;
    // One decode step of every running request at their mean context.
    double context = 0;
    for (std::size_t i : running)
      context += static_cast<double>(reqs[i].prompt + reqs[i].generated);
    context /= static_cast<double>(running.size());
    const double dt = eval.step_seconds(static_cast<std::int64_t>(running.size()), context);
    t += dt;
    step_sum += dt;
    ++r.steps;
    std::erase_if(running, [&](std::size_t i) {
      Request& q = reqs[i];
      if (++q.generated < q.output) return false;
      finish(q);
      return true;
    });
  }
  r.requests = in.requests;
  r.makespan_seconds = t - reqs.front().arrival;
  r.ttft_seconds = stats(ttft);
  r.tpot_seconds = stats(tpot);
  r.decode_step_seconds = r.steps > 0 ? step_sum / static_cast<double>(r.steps) : 0;
  r.output_tokens_per_second = tokens / r.makespan_seconds;
  r.output_tokens_per_second_per_chip = r.output_tokens_per_second / static_cast<double>(r.chips);
}

}  // namespace

std::string_view to_string(BatchingMode mode) {
  switch (mode) {
    case BatchingMode::static_batch: return "static";
    case BatchingMode::offline: return "offline";
    case BatchingMode::server: return "server";
  }
  return "static";
}

BatchingMode parse_batching_mode(std::string_view text, std::string_view parameter) {
  if (text == "static") return BatchingMode::static_batch;
  if (text == "offline") return BatchingMode::offline;
  if (text == "server") return BatchingMode::server;
  throw std::invalid_argument(std::string(parameter) + " '" + std::string(text) +
                              "' is not a mode; one of static, offline, server");
}

void ModeInputs::validate() const {
  serving.validate();
  require_count(prompt_spread, "prompt_spread", "tokens", 0, serving.prompt_tokens - 1);
  require_count(output_spread, "output_spread", "tokens", 0, serving.decode_tokens - 1);
  if (concurrency) require_count(*concurrency, "concurrency", "requests", 1, kMaxBatch);
  if (max_tokens_per_step)
    require_count(*max_tokens_per_step, "max_tokens_per_step", "tokens", 1, kMaxTokensPerStep);
  require_real(request_rate_per_second, "request_rate", "requests/s", 0.0, 1e9, true);
  require_count(requests, "requests", "requests", 1, kMaxRequests);
  if (mode != BatchingMode::static_batch &&
      static_cast<double>(requests) * static_cast<double>(serving.decode_tokens + output_spread) >
          kMaxRequestSteps)
    throw std::invalid_argument(
        "requests × output tokens must be at most 2e7 for the "
        "simulation; got " +
        std::to_string(requests) + " × " + std::to_string(serving.decode_tokens + output_spread));
}

std::int64_t max_concurrency(const ServingModel& model, const ModeInputs& in) {
  const ServingInputs s = longest(in);
  const detail::LayoutEval eval(model, s);
  if (!eval.memory(1).fits) return 0;
  std::int64_t lo = 1, hi = 2;
  while (hi < kMaxBatch && eval.memory(hi).fits) {
    lo = hi;
    hi = std::min(kMaxBatch, 2 * hi);
  }
  if (eval.memory(hi).fits) return hi;
  while (hi - lo > 1) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    (eval.memory(mid).fits ? lo : hi) = mid;
  }
  return lo;
}

ModeResult evaluate_mode(const ServingModel& model, const ModeInputs& in) {
  in.validate();
  ModeResult r;
  r.mode = in.mode;
  r.max_concurrency = max_concurrency(model, in);
  const ServingEngine& engine = engine_by_name(in.serving.engine);
  if (in.mode == BatchingMode::static_batch) return static_batch_mode(model, in, r);

  if (r.max_concurrency == 0)
    throw std::invalid_argument("the weights and one request's KV cache do not fit in memory");
  // The run's own cap, else the engine's (its max batch size on this chip
  // and entry point), else memory.
  // With expert parallelism each EP rank group is an attention data-parallel
  // replica running its own scheduler: the engine's max batch size and token
  // budget are per replica (TensorRT-LLM's per-rank executor under
  // enable_attention_dp, SGLang's and vLLM's data-parallel schedulers).
  const detail::LayoutEval eval(model, in.serving);
  SchedulerLimits limits =
      scheduler_limits(engine, chip_by_name(in.serving.chip), in.mode == BatchingMode::offline);
  if (in.max_tokens_per_step) limits.tokens_per_step = *in.max_tokens_per_step;  // the run's
  limits.max_batch_size *= eval.replicas();
  limits.tokens_per_step *= eval.replicas();
  const std::int64_t engine_cap = limits.max_batch_size > 0 ? limits.max_batch_size : kMaxBatch;
  const std::int64_t cap = std::min(r.max_concurrency, in.concurrency.value_or(engine_cap));
  r.concurrency = cap;
  r.chips = eval.chips();
  std::vector<Request> reqs = draw_requests(in);
  run_requests(eval, engine, limits, in, cap, reqs, r);
  // Saturated: the slice served under 90 % of the offered tokens per second.
  if (in.mode == BatchingMode::server)
    r.saturated = r.output_tokens_per_second <
                  0.9 * in.request_rate_per_second * static_cast<double>(in.serving.decode_tokens);
  return r;
}

std::vector<FrontierPoint> serving_frontier(const ServingModel& model, const ModeInputs& in) {
  ModeInputs o = in;
  o.mode = BatchingMode::offline;
  o.validate();
  const std::int64_t most = max_concurrency(model, o);
  std::vector<FrontierPoint> out;
  for (std::int64_t c = 1; c <= most; c = (c == most ? most + 1 : std::min(most, 2 * c))) {
    o.concurrency = c;
    // Enough requests to keep c in flight for most of the run (within the
    // simulation's bound).
    const auto by_steps = static_cast<std::int64_t>(
        kMaxRequestSteps / static_cast<double>(in.serving.decode_tokens + in.output_spread));
    o.requests = std::min({kMaxRequests, by_steps, std::max(in.requests, 4 * c)});
    const ModeResult r = evaluate_mode(model, o);
    out.push_back({c, r.tpot_seconds.p50, r.output_tokens_per_second_per_chip});
  }
  return out;
}

double max_request_rate_for_ttft(const ServingModel& model, const ModeInputs& in,
                                 double p99_ttft_seconds) {
  require_real(p99_ttft_seconds, "ttft_p99", "s", 0.0, 1e6, true);
  ModeInputs s = in;
  s.mode = BatchingMode::server;
  auto meets = [&](double rate) {
    s.request_rate_per_second = rate;
    return evaluate_mode(model, s).ttft_seconds.p99 <= p99_ttft_seconds;
  };
  // Bracket: start from the offline throughput's request rate (an upper bound
  // on what the slice sustains) and halve until a rate meets the target.
  ModeInputs o = in;
  o.mode = BatchingMode::offline;
  double hi = evaluate_mode(model, o).output_tokens_per_second /
              static_cast<double>(in.serving.decode_tokens);
  double lo = hi;
  int halvings = 0;
  while (!meets(lo)) {
    hi = lo;
    lo /= 2;
    if (++halvings > 30) return 0;
  }
  if (lo == hi) return hi;  // the sustainable rate itself meets the target
  while (hi - lo > 0.01 * lo) {
    const double mid = 0.5 * (lo + hi);
    (meets(mid) ? lo : hi) = mid;
  }
  return lo;
}

}  // namespace napkin
