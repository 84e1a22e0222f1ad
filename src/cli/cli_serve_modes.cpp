#include "cli_serve_modes.h"

#include <cstdio>

#include "cli_common.h"
#include "cli_track_record.h"
#include "config_import.h"
#include "format.h"
#include "roofline_view.h"
#include "serving_search.h"

namespace napkin::cli {

namespace {

QJsonObject stats_json(const LatencyStats& s) {
  return QJsonObject{{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90}, {"p99", s.p99}};
}

std::string stats_text(const LatencyStats& s) {
  return "mean " + format_seconds(s.mean) + ", P50 " + format_seconds(s.p50) + ", P90 " +
         format_seconds(s.p90) + ", P99 " + format_seconds(s.p99);
}

// "<band> measured where Napkin predicted<what> (10th–90th percentile of
// <scope>: N runs; mean error …, signed …<more>; <fallback>)".
std::string runs_like_it(const TrackRecord& t, const std::string& band, const std::string& what,
                         const std::string& more) {
  return band + " measured where Napkin predicted" + what + " (10th–90th percentile of " + t.scope +
         ": " + format_grouped(static_cast<double>(t.rows)) + " runs; mean error " +
         format_percent(t.mean_abs_error) + ", signed " + signed_percent(t.mean_signed_error) +
         more + (t.fallback.empty() ? "" : "; " + t.fallback) + ")";
}

}  // namespace

SpeculativeFlags speculative_flags(Args& a) {
  SpeculativeFlags f;
  const auto params = a.optional_real("--draft-params", 1e6, 1e14, "parameters");
  const auto config = a.value("--draft-config");
  if (params && config) throw UsageError("give --draft-params or --draft-config, not both");
  if (config) f.draft = serving_model(import_hf_config_file(*config).shape);
  if (params) f.draft = serving_model(*params);
  f.draft_tokens = a.integer("--draft-k", 4, 1, 64, "tokens proposed per round");
  f.acceptance = a.real("--acceptance", 0.7, 0, 1, "probability per token");
  return f;
}

QJsonObject speculative_json(const SpeculativeResult& r, const SpeculativeFlags& f) {
  return QJsonObject{{"draft_params", f.draft ? f.draft->total_params() : 0.0},
                     {"draft_tokens", json_int(f.draft_tokens)},
                     {"acceptance", f.acceptance},
                     {"expected_tokens_per_step", r.expected_tokens_per_step},
                     {"draft_step_seconds", r.draft_step_seconds},
                     {"verify_step_seconds", r.verify_step_seconds},
                     {"round_seconds", r.round_seconds},
                     {"target_step_seconds", r.target_step_seconds},
                     {"tpot_seconds", r.tpot_seconds},
                     {"speedup", r.speedup}};
}

void print_speculative(const SpeculativeResult& r, const SpeculativeFlags& f) {
  row("speculative decoding",
      "k " + std::to_string(f.draft_tokens) + ", acceptance " + format_grouped(f.acceptance, 2) +
          ": " + format_grouped(r.expected_tokens_per_step, 2) + " tokens per round of " +
          format_seconds(r.round_seconds) + " (" + std::to_string(f.draft_tokens) + " x draft " +
          format_seconds(r.draft_step_seconds) + " + verify " +
          format_seconds(r.verify_step_seconds) + ")");
  row("  TPOT", format_seconds(r.tpot_seconds) + " vs " + format_seconds(r.target_step_seconds) +
                    " without: " + format_grouped(r.speedup, 2) + "x" +
                    (r.speedup < 1 ? " (a slow-down at this batch)" : ""));
}

std::string serve_help_text() {
  std::string s =
      "\nEngines (--engine NAME, default ideal): each preset sets how a step is timed and the "
      "engine's fixed costs\n";
  for (const ServingEngine& e : serving_engines())
    s += "  " + engine_description(e) + "\n    source: " + std::string(e.source) + "\n";
  s += "  --memory-fraction F overrides the engine's memory setting, read as that engine reads "
       "it: tensorrt-llm the KV cache's share of the memory free after the weights "
       "(kv_cache_free_gpu_mem_fraction), vllm and sglang the share of the device's memory for "
       "weights + KV cache (gpu_memory_utilization, mem_fraction_static), ideal and jetstream "
       "the share of HBM for weights + KV\n";
  s += "\nModes (--mode):\n"
       "  static --batch B             one batch prefilled together, then decoded together "
       "(TensorRT-LLM static tables)\n"
       "  offline [--concurrency C]    continuous batching, every request queued at t = 0, as "
       "many in flight as memory holds or C (MLPerf Offline)\n"
       "  server --request-rate R      Poisson arrivals at R requests/s (MLPerf Server); TTFT "
       "and TPOT percentiles\n"
       "  --max-num-tokens T           the tokens one iteration runs (TensorRT-LLM max_num_tokens, "
       "vLLM max_num_batched_tokens; default the engine's; per EP replica, as the engine's max "
       "batch size: each runs its own scheduler); --chunked-prefill on|off whether a prompt "
       "larger than what is left of it is split (default the engine's)\n"
       "  --frontier adds the latency-throughput frontier (TPOT P50 against output tokens/s "
       "per chip as concurrency doubles); --ttft-p99-s T the highest request rate whose P99 "
       "TTFT stays within T\n"
       "  lengths: --prompt-tokens/--decode-tokens are means; --prompt-spread/--output-spread "
       "draw uniformly within +-spread; --requests N (1000) simulated; --seed S\n"
       "  --shard-kv shards the KV cache over TP ranks beyond the KV heads (attention data "
       "parallelism)\n"
       "\nSpeculative decoding: --draft-params N | --draft-config FILE [--draft-k 4] "
       "[--acceptance 0.7] (the draft runs on the same layout; expected tokens per round "
       "(1 - a^(k+1)) / (1 - a), Leviathan et al. 2023)\n";
  return s;
}

int print_serve_mode(const ServingModel& model, const ModeInputs& in, bool json,
                     const std::string& model_name, bool frontier,
                     std::optional<double> ttft_p99_seconds, const ModeEmit* launch,
                     const QJsonObject& extra) {
  const ModeResult r = evaluate_mode(model, in);
  const ServingRunRecords records = serving_run_records(model, in);
  const TrackRecord& record = records.throughput;
  const TrackRecord& first_token = records.first_token;
  const double overhead = in.serving.overhead_seconds;  // the user's, outside the band
  std::optional<EmittedFlags> flags;
  if (launch) flags = launch->flags(r.concurrency);
  const ServingInputs& s = in.serving;
  std::vector<FrontierPoint> points;
  if (frontier) points = serving_frontier(model, in);
  std::optional<double> max_rate;
  if (ttft_p99_seconds) max_rate = max_request_rate_for_ttft(model, in, *ttft_p99_seconds);
  if (json) {
    QJsonObject o{
        {"mode", qs(to_string(r.mode))},
        {"engine", qs(s.engine)},
        {"chip", qs(chip_by_name(s.chip).name)},
        {"layout", QJsonObject{{"chips", json_int(r.chips)},
                               {"tp", json_int(s.layout.tp)},
                               {"pp", json_int(s.layout.pp)},
                               {"ep", json_int(s.layout.ep)}}},
        {"weight_precision", qs(to_string(s.weights))},
        {"kv_precision", qs(to_string(s.kv))},
        {"output_tokens_per_second", r.output_tokens_per_second},
        {"output_tokens_per_second_per_chip", r.output_tokens_per_second_per_chip},
        {"ttft_seconds", stats_json(r.ttft_seconds)},
        {"tpot_seconds", stats_json(r.tpot_seconds)},
        {"decode_step_seconds", r.decode_step_seconds},
        {"max_concurrency", json_int(r.max_concurrency)},
        {"concurrency", json_int(r.concurrency)},
        {"requests", json_int(r.requests)},
        {"steps", json_int(r.steps)},
        {"makespan_seconds", r.makespan_seconds},
        {"request_rate_per_second",
         in.mode == BatchingMode::server ? QJsonValue(in.request_rate_per_second) : QJsonValue()},
        {"saturated", r.saturated}};
    if (!record.empty())
      o["track_record"] =
          track_record_json(record, QStringLiteral("output_tokens_per_second_per_chip"),
                            r.output_tokens_per_second_per_chip);
    if (!first_token.empty())
      o["ttft_track_record"] =
          track_record_json(first_token, QStringLiteral("ttft_p50_seconds"), r.ttft_seconds.p50,
                            first_token.measured_time_low(r.ttft_seconds.p50, overhead),
                            first_token.measured_time_high(r.ttft_seconds.p50, overhead));
    if (frontier) {
      QJsonArray a;
      for (const FrontierPoint& p : points)
        a.append(QJsonObject{
            {"concurrency", json_int(p.concurrency)},
            {"tpot_p50_seconds", p.tpot_p50_seconds},
            {"output_tokens_per_second_per_chip", p.output_tokens_per_second_per_chip}});
      o["frontier"] = a;
    }
    if (max_rate)
      o["max_request_rate_for_ttft"] =
          QJsonObject{{"ttft_p99_seconds", *ttft_p99_seconds}, {"requests_per_second", *max_rate}};
    if (flags) o["emit"] = emit_json(launch->framework, flags->text, flags->caveats);
    for (auto it = extra.begin(); it != extra.end(); ++it) o[it.key()] = it.value();
    print_json(o);
    return 0;
  }
  std::printf("Serving %s, %s mode\n", model_name.c_str(), std::string(to_string(r.mode)).c_str());
  const ServingEngine& engine = engine_by_name(s.engine);
  row("engine", std::string(engine.name) + ": " + std::string(engine.summary));
  row("layout", format_grouped(r.chips) + " x " + std::string(chip_by_name(s.chip).name) + ", TP " +
                    std::to_string(s.layout.tp) + " PP " + std::to_string(s.layout.pp) + " EP " +
                    std::to_string(s.layout.ep) + "; " + describe_precision(s.weights, s.kv));
  row("lengths", "prompt " + format_grouped(s.prompt_tokens) +
                     (in.prompt_spread ? " +- " + format_grouped(in.prompt_spread) : "") +
                     ", output " + format_grouped(s.decode_tokens) +
                     (in.output_spread ? " +- " + format_grouped(in.output_spread) : "") +
                     " tokens");
  row("concurrency", format_grouped(r.concurrency) + " in flight (memory holds " +
                         format_grouped(r.max_concurrency) + ")");
  if (in.mode == BatchingMode::server)
    row("request rate", format_grouped(in.request_rate_per_second, 2) + " requests/s" +
                            (r.saturated ? ": SATURATED (the queue grows)" : ""));
  row("throughput", format_grouped(r.output_tokens_per_second, 1) + " output tokens/s = " +
                        format_grouped(r.output_tokens_per_second_per_chip, 1) + " per chip");
  if (!record.empty())
    row("runs like it",
        runs_like_it(
            record,
            format_grouped(record.measured_low(r.output_tokens_per_second_per_chip), 1) + " – " +
                format_grouped(record.measured_high(r.output_tokens_per_second_per_chip), 1) +
                " per chip",
            "", ""));
  row("TTFT", stats_text(r.ttft_seconds));
  if (!first_token.empty())
    row("TTFT runs like it",
        runs_like_it(
            first_token,
            format_seconds(first_token.measured_time_low(r.ttft_seconds.p50, overhead)) + " – " +
                format_seconds(first_token.measured_time_high(r.ttft_seconds.p50, overhead)),
            " the P50",
            " of the latency's inverse" +
                (overhead > 0 ? "; the " + format_seconds(overhead) + " overhead outside it"
                              : std::string())));
  row("TPOT", stats_text(r.tpot_seconds));
  row("decode step",
      format_seconds(r.decode_step_seconds) + " mean over " + format_grouped(r.steps) + " steps");
  if (max_rate)
    row("P99 TTFT target",
        format_seconds(*ttft_p99_seconds) +
            (*max_rate > 0 ? " holds up to " + format_grouped(*max_rate, 2) + " requests/s"
                           : " missed at any rate (overhead and one prefill exceed it)"));
  if (frontier) {
    std::printf("\nLatency-throughput frontier (offline, by concurrency)\n");
    std::printf("  %12s  %12s  %22s\n", "concurrency", "TPOT P50", "output tok/s per chip");
    for (const FrontierPoint& p : points)
      std::printf("  %12s  %12s  %22s\n", format_grouped(p.concurrency).c_str(),
                  format_seconds(p.tpot_p50_seconds).c_str(),
                  format_grouped(p.output_tokens_per_second_per_chip, 1).c_str());
  }
  if (flags) {
    std::printf("\nLaunch flags (%s):\n%s", launch->framework.c_str(), flags->text.c_str());
    for (const std::string& c : flags->caveats) std::printf("  note: %s\n", c.c_str());
  }
  return 0;
}

}  // namespace napkin::cli
