// Serving commands: serve (a layout, or the search for a latency budget, with
// disaggregation and the cost of a token) and quantize (the affine quantizer
// and the decode-energy table).
#include <cstdio>
#include <string>

#include "cli_common.h"
#include "cli_scenario.h"
#include "cli_serve_modes.h"
#include "cli_serve_output.h"
#include "config_import.h"
#include "format.h"
#include "framework_config.h"
#include "inputs.h"
#include "quantize.h"
#include "roofline_settings.h"
#include "roofline_view.h"
#include "serving_search.h"
#include "validate.h"

namespace napkin::cli {

namespace {

constexpr std::int64_t kMaxChips = std::int64_t{1} << 20;

ServingModel model_from_flags(Args& a, std::string& name) {
  const auto params = a.optional_real("--params", 1e6, 1e14, "parameters");
  const auto config = a.value("--config");
  if (params && config) throw UsageError("give --params or --config, not both");
  if (config) {
    const ImportedConfig c = import_hf_config_file(*config);
    name = c.family + " from " + *config;
    return serving_model(c.shape);
  }
  if (!params) throw UsageError("--params N or --config FILE is required");
  const ServingModel m = serving_model(*params);
  name = format_count(*params) + " parameters (assumed shape: " + std::to_string(m.n_layers) +
         " layers, d_model " + std::to_string(m.d_model) + ", " + std::to_string(m.n_heads) +
         " heads of " + std::to_string(m.d_head) + ", " + std::to_string(m.n_kv_heads) +
         " KV heads)";
  return m;
}

ServeRequest read_serve_flags(Args& a) {
  ServeRequest r;
  r.json = a.flag("--json");
  r.search = a.flag("--search");
  r.model = model_from_flags(a, r.model_name);
  ServingInputs& in = r.in;
  in.chip = a.required_text("--chip");
  (void)chip_by_name(in.chip);
  r.chips = a.optional_count_input("hardware.chips");
  r.tp = a.optional_integer("--tp", 1, kMaxChips, "tensor-parallel ranks");
  r.pp = a.optional_integer("--pp", 1, kMaxChips, "pipeline stages");
  r.ep = a.optional_integer("--ep", 1, kMaxChips, "expert-parallel ranks");
  // One request unless told: serve by hand times a turn, not the scenario's
  // decode batch.
  in.batch = a.optional_count_input("serving.batch", "--batch").value_or(1);
  in.prompt_tokens = a.count_input("serving.prompt_tokens");
  in.cached_tokens = a.integer("--cached-tokens", 0, 0, 1'000'000'000, "tokens");
  in.decode_tokens = a.count_input("serving.decode_tokens");
  in.weights = parse_dtype(a.choice_input("serving.weight_precision"));
  in.kv = parse_dtype(a.choice_input("serving.kv_precision"));
  in.overhead_seconds = a.input("serving.overhead_seconds");
  const std::string pool = a.choice("--pool", "colocated", {"colocated", "prefill", "decode"});
  in.pool = pool == "prefill"  ? ServingPool::prefill
            : pool == "decode" ? ServingPool::decode
                               : ServingPool::colocated;
  if (a.flag("--ideal")) in.assume = ServingAssumptions::napkin();
  if (!a.switch_input("roofline.serving_layout.communication")) in.assume.communication = false;
  if (a.flag("--overlap-comm")) in.assume.overlap_prefill_comm = true;
  if (auto e = a.optional_real("--matmul-efficiency", 1e-3, 1, "fraction of peak"))
    in.assume.matmul_efficiency = *e;
  if (auto e = a.optional_real("--hbm-efficiency", 1e-3, 1, "fraction of HBM bandwidth"))
    in.assume.hbm_efficiency = *e;
  // Deprecated alias: the tensorrt-llm-0.6 engine preset reads the cache per query head.
  if (a.flag("--kv-reads-per-query-head")) in.assume.kv_reads_per_query_head = true;
  in.engine = a.choice_input("serving.engine");
  // The engine's memory setting as the run gives it to the engine.
  in.assume.engine_memory_fraction =
      a.optional_real("--memory-fraction", 1e-3, 1, "fraction of memory");
  if (a.flag("--shard-kv")) in.assume.shard_kv_beyond_heads = true;
  r.spec = speculative_flags(a);
  if (const auto mode = a.optional_choice_input("roofline.serving_layout.run_mode")) {
    ModeInputs& mi = r.mode.emplace();
    mi.mode = parse_batching_mode(*mode, "--mode");
    // The run's numbers: registered inputs (the Serving layout tab's and the file's ranges).
    mi.prompt_spread = a.count_input("roofline.serving_layout.run_prompt_spread_tokens");
    mi.output_spread = a.count_input("roofline.serving_layout.run_output_spread_tokens");
    mi.concurrency = a.optional_integer("--concurrency", 1, kMaxRunConcurrency, "requests");
    mi.max_tokens_per_step = a.optional_integer("--max-num-tokens", 1, 1'048'576, "tokens");
    if (const auto chunk = a.value("--chunked-prefill")) {
      if (*chunk != "on" && *chunk != "off")
        throw std::invalid_argument("--chunked-prefill must be on or off; got \"" + *chunk + "\"");
      mi.chunked_prefill = *chunk == "on";
    }
    if (mi.mode == BatchingMode::server)
      mi.request_rate_per_second = a.input("roofline.serving_layout.run_request_rate_per_second");
    mi.requests = a.count_input("roofline.serving_layout.run_requests");
    mi.seed = static_cast<std::uint64_t>(a.integer("--seed", 1, 0, 1'000'000'000, "seed"));
    r.frontier = a.flag("--frontier");
    r.ttft_p99_seconds = a.optional_real("--ttft-p99-s", 1e-6, 1e6, "s");
  }
  in.cost.price_per_chip_hour_dollars = a.input("budget.price_per_chip_hour_dollars");
  in.cost.kwh_price_dollars = a.input("budget.kwh_price_dollars");
  in.cost.pue = a.input("budget.pue");
  LatencyBudget& budget = r.budget;
  budget.turn_seconds = a.optional_real("--budget-s", 1e-9, 1e6, "s");
  budget.ttft_seconds = a.optional_real("--ttft-s", 1e-9, 1e6, "s");
  budget.tpot_seconds = a.optional_real("--tpot-s", 1e-9, 1e6, "s");
  // The search's largest slice and the traffic take what the Serving layout
  // tab and the scenario file take (inputs.h).
  r.max_chips = a.count_input("roofline.serving_layout.search_max_chips", "--max-chips");
  if ((r.max_chips & (r.max_chips - 1)) != 0)
    throw UsageError("--max-chips must be a power of two (slices of 1, 2, 4, ... chips); got " +
                     std::to_string(r.max_chips));
  r.max_batch = a.integer("--max-batch", 1024, 1, 1'000'000, "requests");
  r.tokens_per_day =
      a.input("roofline.serving_layout.generated_tokens_per_day", "--tokens-per-day");
  r.emit_to = a.choice("--emit", "none", {"none", "vllm", "tensorrt-llm"});
  r.served_model = a.text("--served-model", "MODEL");
  a.finish();

  r.has_budget = budget.turn_seconds || budget.ttft_seconds || budget.tpot_seconds;
  if (r.has_budget) budget.validate(in.overhead_seconds, "--budget-s", "--ttft-s", "--tpot-s");
  if (r.search && !r.has_budget)
    throw UsageError("--search needs a budget: --budget-s, or --ttft-s and --tpot-s");
  if (!r.search && !r.chips && !r.tp)
    throw UsageError("--chips is required (or --search with a budget)");
  // The search picks the slice itself, up to --max-chips: a fixed layout next
  // to it would be silently ignored by it.
  if (r.search && (r.chips || r.tp || r.pp || r.ep))
    throw UsageError(std::string("--search finds the chips and the layout itself; ") +
                     (r.chips ? "--chips " + std::to_string(*r.chips)
                              : std::string(r.tp   ? "--tp"
                                            : r.pp ? "--pp"
                                                   : "--ep")) +
                     " contradicts it: drop it, or bound the search with --max-chips");
  return r;
}

// The layout: as given, or the fastest split of --chips; none for --search.
std::optional<ServingLayout> serve_layout(const ServeRequest& r) {
  const auto &chips = r.chips, &tp = r.tp, &pp = r.pp, &ep = r.ep;
  if (tp || pp || ep) {
    ServingLayout l{tp.value_or(1), pp.value_or(1), ep.value_or(1)};
    if (chips && !pp) {
      if (*chips % (l.tp * l.ep) != 0)
        throw UsageError("--chips " + std::to_string(*chips) +
                         " is not a multiple of --tp x --ep = " + std::to_string(l.tp * l.ep));
      l.pp = *chips / (l.tp * l.ep);
    }
    validate_layout(r.model, l, "--tp", "--pp", "--ep");
    if (chips && l.chips() != *chips)
      throw UsageError("--tp x --pp x --ep = " + std::to_string(l.chips()) +
                       " must equal --chips " + std::to_string(*chips));
    return l;
  }
  if (!chips) return std::nullopt;
  const std::optional<ServingLayout> l = fastest_layout(r.model, r.in, *chips);
  if (!l)
    throw UsageError("--chips " + std::to_string(*chips) +
                     " cannot be split as TP x PP for this model (TP must divide its " +
                     std::to_string(r.model.n_heads) + " heads, PP at most its " +
                     std::to_string(r.model.n_layers) + " layers)");
  return l;
}

// The engine's launch flags for `layout` at `max_batch` requests in flight.
EmittedFlags launch_flags(const ServeRequest& r, const ServingLayout& layout,
                          std::int64_t max_batch) {
  ServingInputs in = r.in;
  in.layout = layout;
  return emit_serving_flags(
      r.emit_to == "vllm" ? ServingFlagsEngine::vllm : ServingFlagsEngine::tensorrt_llm, in,
      max_batch, r.served_model, r.mode ? r.mode->max_tokens_per_step.value_or(0) : 0,
      r.mode ? r.mode->chunked_prefill : std::nullopt);
}

std::optional<EmittedFlags> emitted_flags(const ServeRequest& r, const ServeAnswer& ans) {
  if (r.emit_to == "none") return std::nullopt;
  const ServingResult* shown = ans.shown();
  if (!shown)
    throw UsageError("--emit needs a serving layout: give --chips or a --search that finds one");
  return launch_flags(
      r, shown->layout,
      !ans.chosen && ans.search && ans.search->best ? ans.search->best->max_batch : shown->batch);
}

ServeAnswer compute_serve(const ServeRequest& r, const std::optional<ServingLayout>& layout) {
  ServeAnswer ans;
  if (layout) {
    ServingInputs in = r.in;
    in.layout = *layout;
    ans.chosen = evaluate_serving(r.model, in);
    if (r.spec.draft)
      ans.speculative = evaluate_speculative(
          r.model, SpeculativeInputs{in, *r.spec.draft, r.spec.draft_tokens, r.spec.acceptance});
  }
  if (r.search) {
    SearchInputs s;
    s.serving = r.in;
    s.budget = r.budget;
    s.max_chips = r.max_chips;
    s.max_batch = r.max_batch;
    ans.search = search_serving(r.model, s);
    if (r.budget.ttft_seconds && r.budget.tpot_seconds)
      ans.disagg = compare_disaggregation(r.model, {s, r.tokens_per_day});
  }
  ans.flags = emitted_flags(r, ans);
  return ans;
}

int run_serve(Args& a) {
  if (a.flag("--help")) {
    std::printf("usage: napkin-cli %s\n%s", serve_commands().front().usage,
                serve_help_text().c_str());
    return 0;
  }
  // serve --scenario FILE: the benchmark run of a saved scenario's Serving
  // layout tab (its model, chip, serving chips, chosen layout, engine,
  // precisions, lengths, scheduler and run settings), as the app shows it;
  // --frontier adds the latency–throughput frontier of those runs and the
  // request rate whose P99 TTFT meets the tab's TTFT bound (the turn budget
  // when there is none).
  if (const auto path = a.value("--scenario")) {
    const bool json = a.flag("--json");
    const bool frontier = a.flag("--frontier");
    const ScenarioFlags flags = read_scenario_flags(a, "serve");
    a.finish();
    std::vector<ScenarioOverride> overrides;
    const Scenario s = read_scenario(*path, "serve", flags, overrides);
    save_scenario_if_asked(flags, s);
    const ScenarioServing in = scenario_serving(s);
    if (!json) print_overrides(overrides);
    return print_serve_mode(
        in.model, in.run, json, s.model_name, frontier,
        frontier ? std::optional<double>(frontier_ttft_target_seconds(s)) : std::nullopt, nullptr,
        QJsonObject{{"overrides", overrides_json(overrides)}});
  }
  ServeRequest r = read_serve_flags(a);
  const std::optional<ServingLayout> layout = serve_layout(r);
  if (r.mode) {
    if (!layout) throw UsageError("--mode needs a layout: --chips N [--tp T] [--pp P]");
    if (r.search) throw UsageError("--mode and --search do not combine");
    r.in.layout = *layout;
    r.mode->serving = r.in;
    const ModeEmit launch{
        r.emit_to, [&](std::int64_t concurrency) { return launch_flags(r, *layout, concurrency); }};
    return print_serve_mode(r.model, *r.mode, r.json, r.model_name, r.frontier, r.ttft_p99_seconds,
                            r.emit_to == "none" ? nullptr : &launch);
  }
  const ServeAnswer ans = compute_serve(r, layout);
  if (r.json)
    print_json(serve_json(r, ans));
  else
    print_serve(r, ans);
  return 0;
}

int run_quantize(Args& a) {
  const bool json = a.flag("--json");
  const bool energy = a.flag("--energy");
  if (energy) {
    const double n = a.real("--params", 70e9, 1, 1e18, "parameters");
    const double per_day = a.real("--tokens-per-day", 1e9, 0, 1e18, "tokens");
    const double kwh = a.real("--kwh-price", 0.12, 0, 100, "$ per kWh");
    const std::int64_t batch = a.integer("--batch", 1, 1, 1'000'000'000, "requests");
    a.finish();
    const std::vector<DecodeEnergyRow> rows = decode_energy_table(n, per_day, kwh);
    if (json) {
      QJsonArray out;
      for (const DecodeEnergyRow& r : rows) {
        const double batched = batched_decode_energy_joules(n, r.bits_per_param, batch);
        out.append(QJsonObject{
            {"name", QString::fromStdString(r.name)},
            {"bits_per_param", r.bits_per_param},
            {"joules_per_token", r.joules_per_token},
            {"dollars_per_day", r.dollars_per_day},
            {"batched_joules_per_token", batched},
            {"batched_dollars_per_day", energy_dollars_per_day(batched, per_day, kwh)}});
      }
      print_json(QJsonObject{
          {"pj_per_bit", kDramPicojoulesPerBit}, {"batch", json_int(batch)}, {"rows", out}});
      return 0;
    }
    std::printf("Decode energy: %s params, every weight read once per step at %s pJ/bit\n",
                format_count(n).c_str(), format_grouped(kDramPicojoulesPerBit, 0).c_str());
    const std::string batched_head = "at batch " + std::to_string(batch);
    std::printf("  %-5s %12s %14s   %s\n", "", "mJ/token", "$/day", batched_head.c_str());
    for (const DecodeEnergyRow& r : rows) {
      const double batched = batched_decode_energy_joules(n, r.bits_per_param, batch);
      std::printf("  %-5s %12s %14s   %s mJ/token, %s/day\n", r.name.c_str(),
                  format_grouped(r.joules_per_token * 1000, 1).c_str(),
                  format_dollars(r.dollars_per_day).c_str(),
                  format_grouped(batched * 1000, 1).c_str(),
                  format_dollars(energy_dollars_per_day(batched, per_day, kwh)).c_str());
    }
    std::printf("  (%s tokens/day at %s/kWh; DRAM traffic only)\n", format_count(per_day).c_str(),
                format_dollars(kwh, 2).c_str());
    return 0;
  }
  const auto values = a.real_list("--values", -1e300, 1e300, "values");
  if (!values) throw UsageError("--values v1,v2,... is required (or --energy)");
  const std::int64_t bits = a.integer("--bits", 4, 1, 16, "bits per code");
  a.finish();
  const AffineQuantized q = quantize_affine(*values, static_cast<int>(bits));
  const std::vector<double> recon = dequantize_affine(q.codes, q.scale, q.zero);
  const double err = max_abs_error(*values, recon);
  if (json) {
    QJsonArray codes, rec;
    for (std::int64_t c : q.codes) codes.append(json_int(c));
    for (double r : recon) rec.append(r);
    print_json(QJsonObject{{"codes", codes},
                           {"scale", q.scale},
                           {"zero", q.zero},
                           {"max_error", err},
                           {"half_step", q.scale / 2},
                           {"reconstructed", rec}});
    return 0;
  }
  std::string codes;
  for (std::int64_t c : q.codes) codes += (codes.empty() ? "" : ", ") + std::to_string(c);
  std::printf("Affine quantization to %lld bits (%lld levels)\n", static_cast<long long>(bits),
              static_cast<long long>(std::int64_t{1} << bits));
  row("codes", "[" + codes + "]");
  row("scale", format_value(q.scale) + " per code step");
  row("zero", format_value(q.zero) + " (the value of code 0)");
  row("max error", format_value(err) + " <= scale / 2 = " + format_value(q.scale / 2));
  return 0;
}

}  // namespace

std::vector<Command> serve_commands() {
  return {
      {"serve",
       usage_with_choices(
           "serve ((--params N | --config FILE) --chip C (--chips N [--tp T] [--pp P] [--ep E] | "
           "--search) [--batch 1] [--prompt-tokens 8192] [--cached-tokens 0] [--decode-tokens 128] "
           "[--weight-precision {serving.weight_precision}] [--kv-precision bf16] [--overhead-s "
           "0.25] "
           "[--budget-s S | --ttft-s S --tpot-s S] [--max-chips 4096] [--max-batch 1024] "
           "[--pool colocated|prefill|decode] [--no-comm] [--ideal] [--overlap-comm] "
           "[--hbm-efficiency F] [--engine {serving.engine}] [--memory-fraction F] "
           "[--shard-kv] [--mode {roofline.serving_layout.run_mode}] (with --mode: [--concurrency "
           "C] [--max-num-tokens T] [--chunked-prefill on|off] [--request-rate R] "
           "[--prompt-spread S] [--output-spread S] [--requests 1000] [--seed 1] [--frontier] "
           "[--ttft-p99-s T]) "
           "[--draft-params N | --draft-config F [--draft-k 4] [--acceptance 0.7]] [--help] "
           "[--price 2.5] [--kwh-price 0.12] [--pue 1.2] [--tokens-per-day 1e9] "
           "[--emit vllm|tensorrt-llm [--served-model NAME]] | --scenario FILE [--chip C] "
           "[--request-rate R] [--requests N] [--prompt-spread S] [--output-spread S] [--engine E] "
           "[--weight-precision W] [--kv-precision K] [--mode M] (each "
           "replacing "
           "the file's value) [--save FILE] (the benchmark run of a saved scenario's Serving "
           "layout "
           "tab; with --frontier its frontier too))"),
       run_serve},
      {"quantize",
       "quantize --values v1,v2,... [--bits 4] | quantize --energy [--params 70e9] "
       "[--tokens-per-day 1e9] [--kwh-price 0.12] [--batch 1]",
       run_quantize},
  };
}

}  // namespace napkin::cli
