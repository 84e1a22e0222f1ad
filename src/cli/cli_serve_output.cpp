// The reports of `napkin-cli serve`: its JSON object and its readable text.
#include "cli_serve_output.h"

#include <cstdio>

#include "format.h"

namespace napkin::cli {

namespace {

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
  o["fp4_compute"] = r.fp4_compute;
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
                       (r.fp4_compute   ? "fp4"
                        : r.fp8_compute ? "fp8"
                                        : "bf16") +
                       " matmuls");
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
  row("memory per chip",
      format_bytes(m.weights_bytes) + " weights + " + format_bytes(m.kv_bytes) + " KV = " +
          format_bytes(m.total_bytes) + " of " + format_bytes(m.usable_bytes) + " usable" +
          (in.assume.engine_memory_fraction
               ? " (memory fraction " + format_value(*in.assume.engine_memory_fraction) +
                     ", the run's)"
               : std::string()) +
          ": " + (r.fits ? "fits" : "DOES NOT FIT"));
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

}  // namespace

QJsonObject serve_json(const ServeRequest& r, const ServeAnswer& ans) {
  const ServingInputs& in = r.in;
  const ServingModel& model = r.model;
  const Chip& chip = chip_by_name(in.chip);
  QJsonObject o = ans.shown() ? result_json(*ans.shown()) : QJsonObject{};
  if (ans.flags) o["emit"] = emit_json(r.emit_to, ans.flags->text, ans.flags->caveats);
  o["chip"] = qs(chip.name);
  o["model"] = QJsonObject{
      {"params", model.total_params()},         {"active_params", model.active_params()},
      {"layers", json_int(model.n_layers)},     {"heads", json_int(model.n_heads)},
      {"kv_heads", json_int(model.n_kv_heads)}, {"head_dim", json_int(model.d_head)},
      {"experts", json_int(model.n_experts)},   {"shape_assumed", model.shape_assumed}};
  o["engine"] = qs(in.engine);
  if (ans.speculative) o["speculative"] = speculative_json(*ans.speculative, r.spec);
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
      {"hbm_usable_fraction", in.assume.hbm_usable_fraction},
      {"engine_memory_fraction", in.assume.engine_memory_fraction
                                     ? QJsonValue(*in.assume.engine_memory_fraction)
                                     : QJsonValue()}};
  o["energy_share_text"] = QString::fromStdString(energy_share_text(chip, in.cost));
  if (r.has_budget) {
    o["budget"] = QJsonObject{{"turn_seconds", opt(r.budget.turn_seconds)},
                              {"ttft_seconds", opt(r.budget.ttft_seconds)},
                              {"tpot_seconds", opt(r.budget.tpot_seconds)}};
  }
  if (const auto& answer = ans.search) {
    o["best"] = answer->best ? QJsonValue(candidate_json(*answer->best)) : QJsonValue();
    o["most_efficient"] =
        answer->most_efficient ? QJsonValue(candidate_json(*answer->most_efficient)) : QJsonValue();
    o["reason"] = answer->best ? QJsonValue() : QJsonValue(QString::fromStdString(answer->reason));
    QJsonArray layouts;
    for (const LayoutCandidate& c : answer->layouts) layouts.append(candidate_json(c));
    o["layouts"] = layouts;
  }
  if (const auto& disagg = ans.disagg) {
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
  return o;
}

// The search's answer: the smallest slice that meets the budget, the most
// efficient one, and each slice size's best layout or why it misses.
void print_search(const ServeRequest& r, const SearchAnswer& answer) {
  std::printf("\nSearch: %s, slices of 1 to %s chips, batches up to %s\n",
              r.budget.describe().c_str(), format_grouped(r.max_chips).c_str(),
              format_grouped(r.max_batch).c_str());
  if (answer.best) {
    const LayoutCandidate& b = *answer.best;
    row("smallest slice", layout_text(b.layout) + ", batch up to " + format_grouped(b.max_batch) +
                              ": turn " + format_seconds(b.result.turn_seconds) + ", TTFT " +
                              format_seconds(b.result.ttft_seconds) + ", TPOT " +
                              format_seconds(b.result.tpot_seconds));
    row("", format_grouped(b.result.tokens_per_second_per_chip, 1) + " tokens/s per chip, " +
                format_dollars(b.result.cost.dollars_per_million_tokens, 2) +
                " per million tokens, " + format_grouped(b.result.cost.joules_per_token, 2) +
                " J per token");
    const LayoutCandidate& e = *answer.most_efficient;
    if (!(e.layout == b.layout))
      row("most efficient",
          layout_text(e.layout) + ", batch " + format_grouped(e.max_batch) + ": " +
              format_grouped(e.result.tokens_per_second_per_chip, 1) + " tokens/s per chip, " +
              format_dollars(e.result.cost.dollars_per_million_tokens, 2) + " per million tokens");
  } else {
    row("answer", "none");
    std::printf("  %s\n", answer.reason.c_str());
  }
  std::printf("\n  %6s  %-20s %9s  %10s  %10s  %s\n", "chips", "best layout", "max batch", "turn",
              "tok/s/chip", "or why not");
  for (const SliceSummary& slice : answer.slices) {
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

void print_serve(const ServeRequest& r, const ServeAnswer& ans) {
  std::printf("Serving %s on %s\n", r.model_name.c_str(), r.in.chip.c_str());
  if (ans.chosen) {
    ServingInputs in = r.in;
    in.layout = ans.chosen->layout;
    print_result(*ans.chosen, in, r.has_budget ? std::optional(r.budget) : std::nullopt);
  }
  if (ans.speculative) print_speculative(*ans.speculative, r.spec);
  if (ans.search) print_search(r, *ans.search);
  if (ans.disagg) {
    std::printf("\nDisaggregation at %s generated tokens/day\n",
                format_count(r.tokens_per_day).c_str());
    std::printf("  %s\n", ans.disagg->verdict.c_str());
  }
  if (ans.shown())
    std::printf("\n  %s\n", energy_share_text(chip_by_name(r.in.chip), r.in.cost).c_str());
  if (ans.flags) {
    std::printf("\nLaunch flags (%s):\n%s", r.emit_to.c_str(), ans.flags->text.c_str());
    for (const std::string& c : ans.flags->caveats) std::printf("  note: %s\n", c.c_str());
  }
}

}  // namespace napkin::cli
