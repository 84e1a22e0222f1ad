// Serving commands: serve (a layout, or the search for a latency budget, with
// disaggregation and the cost of a token) and quantize (the affine quantizer
// and the decode-energy table).
#include <cstdio>
#include <string>

#include "cli_common.h"
#include "cli_serve_modes.h"
#include "config_import.h"
#include "format.h"
#include "framework_config.h"
#include "inputs.h"
#include "quantize.h"
#include "serving_search.h"
#include "validate.h"

namespace napkin::cli {

namespace {

constexpr std::int64_t kMaxChips = std::int64_t{1} << 20;

QJsonValue opt(const std::optional<double>& v) { return v ? QJsonValue(*v) : QJsonValue(); }

QJsonArray parts_json(const std::vector<TimePart>& parts) {
  QJsonArray out;
  for (const TimePart& p : parts)
    out.append(QJsonObject{{"label", qs(p.label)}, {"seconds", p.seconds}});
  return out;
}

std::string parts_text(const std::vector<TimePart>& parts) {
  std::string s;
  for (const TimePart& p : parts) {
    if (!s.empty()) s += ", ";
    s += std::string(p.label) + " " + format_seconds(p.seconds);
  }
  return s;
}

// The keys the issue names, plus the layout and the parts a panel stacks.
QJsonObject result_json(const ServingResult& r) {
  QJsonObject o;
  o["layout"] = QJsonObject{{"chips", json_int(r.chips)},
                            {"tp", json_int(r.layout.tp)},
                            {"pp", json_int(r.layout.pp)},
                            {"ep", json_int(r.layout.ep)}};
  o["batch"] = json_int(r.batch);
  o["pool"] = qs(to_string(r.pool));
  o["fits"] = r.fits;
  o["memory"] = QJsonObject{{"weights", r.memory.weights_bytes},
                            {"kv", r.memory.kv_bytes},
                            {"total", r.memory.total_bytes},
                            {"usable", r.memory.usable_bytes},
                            {"hbm", r.memory.hbm_bytes},
                            {"kv_groups_per_chip", json_int(r.memory.kv_groups_per_chip)}};
  o["fp8_compute"] = r.fp8_compute;
  o["prefill_seconds"] = r.prefill_seconds;
  o["prefill_chunks"] = json_int(r.prefill_chunks);
  o["decode_step_seconds"] = r.decode_step_seconds;
  o["decode_seconds"] = r.decode_seconds;
  o["overhead_seconds"] = r.overhead_seconds;
  o["interference_seconds"] = r.interference_seconds;
  o["kv_transfer_seconds"] = r.kv_transfer_seconds;
  o["turn_seconds"] = r.turn_seconds;
  o["ttft_seconds"] = r.ttft_seconds;
  o["tpot_seconds"] = r.tpot_seconds;
  o["comm_seconds_per_step"] = r.comm_seconds_per_step;
  o["tokens_per_second_per_chip"] = r.tokens_per_second_per_chip;
  o["requests_per_second"] = r.requests_per_second;
  o["dollars_per_million_tokens"] = r.cost.dollars_per_million_tokens;
  o["joules_per_token"] = r.cost.joules_per_token;
  o["energy_dollars_per_million_tokens"] = r.cost.energy_dollars_per_million_tokens;
  o["energy_share_of_bill"] = r.cost.energy_share_of_bill;
  o["dram_joules_per_token"] = r.cost.dram_joules_per_token;
  o["prefill_parts"] = parts_json(r.prefill.parts());
  o["step_parts"] = parts_json(r.decode_step.parts());
  o["turn_parts"] = parts_json(r.turn_parts());
  return o;
}

QJsonObject candidate_json(const LayoutCandidate& c) {
  QJsonObject o = result_json(c.result);
  o["max_batch"] = json_int(c.max_batch);
  o["meets"] = c.meets();
  o["reason"] = c.meets() ? QJsonValue() : QJsonValue(QString::fromStdString(c.reason));
  return o;
}

QJsonObject pool_json(const PoolPlan& p) {
  QJsonObject o{
      {"slices", json_int(p.slices)}, {"chips", json_int(p.chips)}, {"utilization", p.utilization}};
  o["slice"] = p.slice ? QJsonValue(candidate_json(*p.slice)) : QJsonValue();
  o["reason"] = p.slice ? QJsonValue() : QJsonValue(QString::fromStdString(p.reason));
  return o;
}

// 16 → "16", 4.125 → "4.125", 8.001953125 → "8.002".
std::string bits_text(double bits) {
  std::string s = format_grouped(bits, 3);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string layout_text(const ServingLayout& l) {
  return format_grouped(l.chips()) + (l.chips() == 1 ? " chip, " : " chips, ") + describe(l);
}

void print_result(const ServingResult& r, const ServingInputs& in,
                  const std::optional<LatencyBudget>& budget) {
  const ServingMemory& m = r.memory;
  row("layout", layout_text(r.layout) + ", batch " + format_grouped(r.batch) + ", " +
                    std::string(to_string(r.pool)) + " pool");
  row("engine", std::string(in.engine) +
                    (in.engine == "ideal" ? " (the roofline bound)" : " (per-kernel times)"));
  const bool tables_16_bit = tables_in_16_bit(in.engine, in.weights);
  row("precision", describe_precision(in.weights, in.kv) + " (" +
                       bits_text(bits_per_element(in.weights)) + " bits per weight" +
                       (tables_16_bit ? ", embedding tables in bf16" : "") + "); " +
                       (r.fp8_compute ? "fp8" : "bf16") + " matmuls");
  const Chip& chip = chip_by_name(in.chip);
  // TB/s to two decimals (3.02), GB/s whole (696).
  auto rate = [](double b) { return format_bytes(b, b >= 1e12 ? 2 : 0) + "/s"; };
  row("HBM bandwidth",
      rate(r.hbm_bytes_per_s) + " per chip = " + format_percent(r.hbm_efficiency, 0) + " of " +
          rate(chip.hbm_bytes_per_s) + " (" +
          (in.assume.hbm_efficiency
               ? std::string(*in.assume.hbm_efficiency >= 1.0 ? "the datasheet figure" : "as given")
               : "the chip's streaming-read fraction; " + std::string(chip.hbm_stream_source)) +
          ")" +
          (in.assume.kv_reads_per_query_head ? "; KV cache read once per query head (pre-XQA)"
                                             : ""));
  row("memory per chip", format_bytes(m.weights_bytes) + " weights + " + format_bytes(m.kv_bytes) +
                             " KV = " + format_bytes(m.total_bytes) + " of " +
                             format_bytes(m.usable_bytes) +
                             " usable: " + (r.fits ? "fits" : "DOES NOT FIT"));
  row("prefill", format_seconds(r.prefill_seconds) + " (" + parts_text(r.prefill.parts()) + ")");
  row("decode step",
      format_seconds(r.decode_step_seconds) + " (" + parts_text(r.decode_step.parts()) + ")");
  row("TTFT", format_seconds(r.ttft_seconds));
  row("TPOT", format_seconds(r.tpot_seconds) +
                  (r.interference_seconds > 0 ? " (with the batch's other prefills)" : ""));
  std::string turn = format_seconds(r.turn_seconds) + " (" + parts_text(r.turn_parts()) + ")";
  row("turn", turn);
  if (budget) {
    const bool ok = r.fits && (!budget->turn_seconds || r.turn_seconds <= *budget->turn_seconds) &&
                    (!budget->ttft_seconds || r.ttft_seconds <= *budget->ttft_seconds) &&
                    (!budget->tpot_seconds || r.tpot_seconds <= *budget->tpot_seconds);
    row("budget", budget->describe() + (ok ? ": OK" : ": MISS"));
  }
  row("throughput", format_grouped(r.tokens_per_second_per_chip, 1) +
                        (r.pool == ServingPool::prefill ? " prompt" : " generated") +
                        " tokens/s per chip");
  row("$ per million tokens", format_dollars(r.cost.dollars_per_million_tokens, 2) + " at " +
                                  format_dollars(in.cost.price_per_chip_hour_dollars, 2) +
                                  " per chip-hour");
  row("J per token", format_grouped(r.cost.joules_per_token, 2) + " J at the wall (" +
                         format_grouped(chip_by_name(in.chip).watts, 0) + " W x PUE " +
                         format_grouped(in.cost.pue, 2) + "); DRAM reads alone " +
                         format_grouped(r.cost.dram_joules_per_token, 3) + " J");
}

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

int run_serve(Args& a) {
  if (a.flag("--help")) {
    std::printf("usage: napkin-cli %s\n%s", serve_commands().front().usage,
                serve_help_text().c_str());
    return 0;
  }
  const bool json = a.flag("--json");
  const bool search = a.flag("--search");
  std::string model_name;
  const ServingModel model = model_from_flags(a, model_name);
  ServingInputs in;
  in.chip = a.required_text("--chip");
  (void)chip_by_name(in.chip);
  const auto chips = a.optional_count_input("hardware.chips");
  const auto tp = a.optional_integer("--tp", 1, kMaxChips, "tensor-parallel ranks");
  const auto pp = a.optional_integer("--pp", 1, kMaxChips, "pipeline stages");
  const auto ep = a.optional_integer("--ep", 1, kMaxChips, "expert-parallel ranks");
  in.batch = a.integer("--batch", 1, 1, 1'000'000, "requests");
  in.prompt_tokens = a.integer("--prompt-tokens", 8192, 1, 100'000'000, "tokens");
  in.cached_tokens = a.integer("--cached-tokens", 0, 0, 1'000'000'000, "tokens");
  in.decode_tokens = a.integer("--decode-tokens", 128, 1, 100'000'000, "tokens");
  in.weights = parse_dtype(a.text("--weight-precision", "bf16"), "--weight-precision");
  in.kv = parse_dtype(a.text("--kv-precision", "bf16"), "--kv-precision");
  in.overhead_seconds = a.real("--overhead-s", 0.25, 0, 1e6, "s");
  const std::string pool = a.choice("--pool", "colocated", {"colocated", "prefill", "decode"});
  in.pool = pool == "prefill"  ? ServingPool::prefill
            : pool == "decode" ? ServingPool::decode
                               : ServingPool::colocated;
  if (a.flag("--ideal")) in.assume = ServingAssumptions::napkin();
  if (a.flag("--no-comm")) in.assume.communication = false;
  if (a.flag("--overlap-comm")) in.assume.overlap_prefill_comm = true;
  if (auto e = a.optional_real("--matmul-efficiency", 1e-3, 1, "fraction of peak"))
    in.assume.matmul_efficiency = *e;
  if (auto e = a.optional_real("--hbm-efficiency", 1e-3, 1, "fraction of HBM bandwidth"))
    in.assume.hbm_efficiency = *e;
  // Deprecated alias: the tensorrt-llm-0.6 engine preset reads the cache per query head.
  if (a.flag("--kv-reads-per-query-head")) in.assume.kv_reads_per_query_head = true;
  in.engine = std::string(engine_by_name(a.text("--engine", "ideal"), "--engine").name);
  if (a.flag("--shard-kv")) in.assume.shard_kv_beyond_heads = true;
  const SpeculativeFlags spec = speculative_flags(a);
  const auto mode = a.value("--mode");
  ModeInputs mi;
  if (mode) {
    mi.mode = parse_batching_mode(*mode, "--mode");
    mi.prompt_spread = a.integer("--prompt-spread", 0, 0, 100'000'000, "tokens");
    mi.output_spread = a.integer("--output-spread", 0, 0, 100'000'000, "tokens");
    mi.concurrency = a.optional_integer("--concurrency", 1, 1'000'000, "requests");
    if (mi.mode == BatchingMode::server)
      mi.request_rate_per_second = a.real("--request-rate", 1, 1e-9, 1e9, "requests per second");
    mi.requests = a.integer("--requests", 1000, 1, 100'000, "requests");
    mi.seed = static_cast<std::uint64_t>(a.integer("--seed", 1, 0, 1'000'000'000, "seed"));
  }
  const bool frontier = mode && a.flag("--frontier");
  const auto ttft_p99 = mode ? a.optional_real("--ttft-p99-s", 1e-6, 1e6, "s") : std::nullopt;
  in.cost.price_per_chip_hour_dollars = a.input("budget.price_per_chip_hour_dollars");
  in.cost.kwh_price_dollars = a.input("budget.kwh_price_dollars");
  in.cost.pue = a.input("budget.pue");
  LatencyBudget budget;
  budget.turn_seconds = a.optional_real("--budget-s", 1e-9, 1e6, "s");
  budget.ttft_seconds = a.optional_real("--ttft-s", 1e-9, 1e6, "s");
  budget.tpot_seconds = a.optional_real("--tpot-s", 1e-9, 1e6, "s");
  const std::int64_t max_chips = a.integer("--max-chips", 4096, 1, kMaxChips, "chips");
  if ((max_chips & (max_chips - 1)) != 0)
    throw UsageError("--max-chips must be a power of two (slices of 1, 2, 4, ... chips); got " +
                     std::to_string(max_chips));
  const std::int64_t max_batch = a.integer("--max-batch", 1024, 1, 1'000'000, "requests");
  const double tokens_per_day =
      a.real("--tokens-per-day", 1e9, 1, 1e18, "generated tokens per day");
  const std::string emit_to = a.choice("--emit", "none", {"none", "vllm", "tensorrt-llm"});
  const std::string served_model = a.text("--served-model", "MODEL");
  a.finish();

  const bool has_budget = budget.turn_seconds || budget.ttft_seconds || budget.tpot_seconds;
  if (has_budget) budget.validate(in.overhead_seconds, "--budget-s", "--ttft-s", "--tpot-s");
  if (search && !has_budget)
    throw UsageError("--search needs a budget: --budget-s, or --ttft-s and --tpot-s");
  if (!search && !chips && !tp) throw UsageError("--chips is required (or --search with a budget)");
  // The search picks the slice itself, up to --max-chips: a fixed layout next
  // to it would be silently ignored by it.
  if (search && (chips || tp || pp || ep))
    throw UsageError(std::string("--search finds the chips and the layout itself; ") +
                     (chips ? "--chips " + std::to_string(*chips)
                            : std::string(tp   ? "--tp"
                                          : pp ? "--pp"
                                               : "--ep")) +
                     " contradicts it: drop it, or bound the search with --max-chips");

  // The layout: as given, or the fastest split of --chips.
  std::optional<ServingLayout> layout;
  if (tp || pp || ep) {
    ServingLayout l{tp.value_or(1), pp.value_or(1), ep.value_or(1)};
    if (chips && !pp) {
      if (*chips % (l.tp * l.ep) != 0)
        throw UsageError("--chips " + std::to_string(*chips) +
                         " is not a multiple of --tp x --ep = " + std::to_string(l.tp * l.ep));
      l.pp = *chips / (l.tp * l.ep);
    }
    validate_layout(model, l, "--tp", "--pp", "--ep");
    if (chips && l.chips() != *chips)
      throw UsageError("--tp x --pp x --ep = " + std::to_string(l.chips()) +
                       " must equal --chips " + std::to_string(*chips));
    layout = l;
  } else if (chips) {
    layout = fastest_layout(model, in, *chips);
    if (!layout)
      throw UsageError("--chips " + std::to_string(*chips) +
                       " cannot be split as TP x PP for this model (TP must divide its " +
                       std::to_string(model.n_heads) + " heads, PP at most its " +
                       std::to_string(model.n_layers) + " layers)");
  }

  if (mode) {
    if (!layout) throw UsageError("--mode needs a layout: --chips N [--tp T] [--pp P]");
    if (search) throw UsageError("--mode and --search do not combine");
    in.layout = *layout;
    mi.serving = in;
    return print_serve_mode(model, mi, json, model_name, frontier, ttft_p99);
  }
  std::optional<ServingResult> chosen;
  std::optional<SpeculativeResult> speculative;
  if (layout) {
    in.layout = *layout;
    chosen = evaluate_serving(model, in);
    if (spec.draft)
      speculative = evaluate_speculative(
          model, SpeculativeInputs{in, *spec.draft, spec.draft_tokens, spec.acceptance});
  }
  std::optional<SearchAnswer> answer;
  std::optional<Disaggregation> disagg;
  SearchInputs s;
  if (search) {
    s.serving = in;
    s.budget = budget;
    s.max_chips = max_chips;
    s.max_batch = max_batch;
    answer = search_serving(model, s);
    if (budget.ttft_seconds && budget.tpot_seconds)
      disagg = compare_disaggregation(model, {s, tokens_per_day});
  }
  const ServingResult* shown = chosen                     ? &*chosen
                               : (answer && answer->best) ? &answer->best->result
                                                          : nullptr;
  const Chip& chip = chip_by_name(in.chip);
  std::optional<EmittedFlags> flags;
  if (emit_to != "none") {
    if (!shown)
      throw UsageError("--emit needs a serving layout: give --chips or a --search that finds one");
    ServingFlagsInput f;
    f.model = served_model;
    f.tp = shown->layout.tp;
    f.pp = shown->layout.pp;
    f.max_batch = !chosen && answer && answer->best ? answer->best->max_batch : shown->batch;
    f.max_input_tokens = in.prompt_tokens + in.cached_tokens;
    f.max_seq_tokens = f.max_input_tokens + in.decode_tokens;
    f.weight_dtype = std::string(to_string(in.weights));
    f.kv_dtype = std::string(to_string(in.kv));
    flags = emit_to == "vllm" ? emit_vllm(f) : emit_tensorrt_llm(f);
    if (shown->layout.ep > 1)
      flags->caveats.push_back("expert parallelism (ep = " + std::to_string(shown->layout.ep) +
                               ") is not emitted; set the engine's expert-parallel option");
  }

  if (json) {
    QJsonObject o = shown ? result_json(*shown) : QJsonObject{};
    if (flags) {
      QJsonArray caveats;
      for (const std::string& c : flags->caveats) caveats.append(QString::fromStdString(c));
      o["emit"] = QJsonObject{{"framework", QString::fromStdString(emit_to)},
                              {"text", QString::fromStdString(flags->text)},
                              {"caveats", caveats}};
    }
    o["chip"] = qs(chip.name);
    o["model"] = QJsonObject{
        {"params", model.total_params()},         {"active_params", model.active_params()},
        {"layers", json_int(model.n_layers)},     {"heads", json_int(model.n_heads)},
        {"kv_heads", json_int(model.n_kv_heads)}, {"head_dim", json_int(model.d_head)},
        {"experts", json_int(model.n_experts)},   {"shape_assumed", model.shape_assumed}};
    o["engine"] = qs(in.engine);
    if (speculative) o["speculative"] = speculative_json(*speculative, spec);
    o["weight_precision"] = qs(to_string(in.weights));
    o["kv_precision"] = qs(to_string(in.kv));
    o["bits_per_weight"] = bits_per_element(in.weights);
    o["bits_per_kv_value"] = bits_per_element(in.kv);
    o["assumptions"] = QJsonObject{
        {"communication", in.assume.communication},
        {"kv_cache", in.assume.kv_cache},
        {"attention_flops", in.assume.attention_flops},
        {"overlap_prefill_comm", in.assume.overlap_prefill_comm},
        {"matmul_efficiency", in.assume.matmul_efficiency.value_or(chip.efficiency.matmul)},
        {"hbm_efficiency", in.assume.hbm_efficiency_on(chip)},
        {"kv_reads_per_query_head", in.assume.kv_reads_per_query_head},
        {"shard_kv_beyond_heads", in.assume.shard_kv_beyond_heads},
        {"hbm_usable_fraction", in.assume.hbm_usable_fraction}};
    o["energy_share_text"] = QString::fromStdString(energy_share_text(chip, in.cost));
    if (has_budget) {
      o["budget"] = QJsonObject{{"turn_seconds", opt(budget.turn_seconds)},
                                {"ttft_seconds", opt(budget.ttft_seconds)},
                                {"tpot_seconds", opt(budget.tpot_seconds)}};
    }
    if (answer) {
      o["best"] = answer->best ? QJsonValue(candidate_json(*answer->best)) : QJsonValue();
      o["most_efficient"] = answer->most_efficient
                                ? QJsonValue(candidate_json(*answer->most_efficient))
                                : QJsonValue();
      o["reason"] =
          answer->best ? QJsonValue() : QJsonValue(QString::fromStdString(answer->reason));
      QJsonArray layouts;
      for (const LayoutCandidate& c : answer->layouts) layouts.append(candidate_json(c));
      o["layouts"] = layouts;
    }
    if (disagg) {
      o["disaggregation"] = QJsonObject{
          {"requests_per_second", disagg->requests_per_second},
          {"prefill", pool_json(disagg->prefill)},
          {"decode", pool_json(disagg->decode)},
          {"shared", pool_json(disagg->shared)},
          {"disaggregated_chips", json_int(disagg->disaggregated_chips)},
          {"disaggregated_tokens_per_second_per_chip",
           disagg->disaggregated_tokens_per_second_per_chip},
          {"shared_tokens_per_second_per_chip", disagg->shared_tokens_per_second_per_chip},
          {"winner", qs(to_string(disagg->winner))},
          {"verdict", QString::fromStdString(disagg->verdict)}};
    }
    print_json(o);
    return 0;
  }

  std::printf("Serving %s on %s\n", model_name.c_str(), in.chip.c_str());
  if (chosen) print_result(*chosen, in, has_budget ? std::optional(budget) : std::nullopt);
  if (speculative) print_speculative(*speculative, spec);
  if (answer) {
    std::printf("\nSearch: %s, slices of 1 to %s chips, batches up to %s\n",
                budget.describe().c_str(), format_grouped(max_chips).c_str(),
                format_grouped(max_batch).c_str());
    if (answer->best) {
      const LayoutCandidate& b = *answer->best;
      row("smallest slice", layout_text(b.layout) + ", batch up to " + format_grouped(b.max_batch) +
                                ": turn " + format_seconds(b.result.turn_seconds) + ", TTFT " +
                                format_seconds(b.result.ttft_seconds) + ", TPOT " +
                                format_seconds(b.result.tpot_seconds));
      row("", format_grouped(b.result.tokens_per_second_per_chip, 1) + " tokens/s per chip, " +
                  format_dollars(b.result.cost.dollars_per_million_tokens, 2) +
                  " per million tokens, " + format_grouped(b.result.cost.joules_per_token, 2) +
                  " J per token");
      const LayoutCandidate& e = *answer->most_efficient;
      if (!(e.layout == b.layout))
        row("most efficient", layout_text(e.layout) + ", batch " + format_grouped(e.max_batch) +
                                  ": " + format_grouped(e.result.tokens_per_second_per_chip, 1) +
                                  " tokens/s per chip, " +
                                  format_dollars(e.result.cost.dollars_per_million_tokens, 2) +
                                  " per million tokens");
    } else {
      row("answer", "none");
      std::printf("  %s\n", answer->reason.c_str());
    }
    std::printf("\n  %6s  %-20s %9s  %10s  %10s  %s\n", "chips", "best layout", "max batch", "turn",
                "tok/s/chip", "or why not");
    for (const SliceSummary& slice : answer->slices) {
      const LayoutCandidate& l = slice.layout;
      if (slice.meets)
        std::printf("  %6lld  %-20s %9lld  %10s  %10s\n", static_cast<long long>(slice.chips),
                    describe(l.layout).c_str(), static_cast<long long>(l.max_batch),
                    format_seconds(l.result.turn_seconds).c_str(),
                    format_grouped(l.result.tokens_per_second_per_chip, 1).c_str());
      else
        std::printf("  %6lld  %-20s %9s  %10s  %10s  %s\n", static_cast<long long>(slice.chips),
                    describe(l.layout).c_str(), "-", format_seconds(l.result.turn_seconds).c_str(),
                    "-", l.reason.c_str());
    }
  }
  if (disagg) {
    std::printf("\nDisaggregation at %s generated tokens/day\n",
                format_count(tokens_per_day).c_str());
    std::printf("  %s\n", disagg->verdict.c_str());
  }
  if (shown) std::printf("\n  %s\n", energy_share_text(chip, in.cost).c_str());
  if (flags) {
    std::printf("\nLaunch flags (%s):\n%s", emit_to.c_str(), flags->text.c_str());
    for (const std::string& c : flags->caveats) std::printf("  note: %s\n", c.c_str());
  }
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
       "serve (--params N | --config FILE) --chip C (--chips N [--tp T] [--pp P] [--ep E] | "
       "--search) [--batch 1] [--prompt-tokens 8192] [--cached-tokens 0] [--decode-tokens 128] "
       "[--weight-precision bf16|fp8|int8|int4] [--kv-precision bf16] [--overhead-s 0.25] "
       "[--budget-s S | --ttft-s S --tpot-s S] [--max-chips 4096] [--max-batch 1024] "
       "[--pool colocated|prefill|decode] [--no-comm] [--ideal] [--overlap-comm] "
       "[--hbm-efficiency F] [--engine ideal|tensorrt-llm-0.6|tensorrt-llm|vllm|sglang|jetstream] "
       "[--shard-kv] [--mode static|offline|server [--concurrency C] [--request-rate R] "
       "[--prompt-spread S] [--output-spread S] [--requests 1000] [--seed 1] [--frontier] "
       "[--ttft-p99-s T]] "
       "[--draft-params N | --draft-config F [--draft-k 4] [--acceptance 0.7]] [--help] "
       "[--price 2.5] [--kwh-price 0.12] [--pue 1.2] [--tokens-per-day 1e9] "
       "[--emit vllm|tensorrt-llm [--served-model NAME]]",
       run_serve},
      {"quantize",
       "quantize --values v1,v2,... [--bits 4] | quantize --energy [--params 70e9] "
       "[--tokens-per-day 1e9] [--kwh-price 0.12] [--batch 1]",
       run_quantize},
  };
}

}  // namespace napkin::cli
