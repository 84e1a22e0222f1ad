// Phase 02 commands: moe collapse | capacity | comm | pipeline.
#include <cstdio>
#include <string>
#include <vector>

#include "algebra.h"
#include "cli_common.h"
#include "cli_long_run.h"
#include "cli_scenario.h"
#include "format.h"
#include "moe.h"
#include "moe_health.h"
#include "moe_view.h"
#include "validate.h"

namespace napkin::cli {

namespace {

// Router steps × tokens per step × experts: one unit is one token's logit and
// gradient for one expert. 2e10 is a few minutes on one core; the maximum
// values of the three flags (4e15) would run for years.
constexpr double kMaxCollapseWork = 2e10;

int print_collapse(const CollapseParams& p, std::int64_t steps,
                   const std::vector<StepStats>& history, bool json);

// moe collapse --scenario FILE: the MoE panel's run of record of a saved
// scenario (its knobs and steps, within the one budget for a recorded run
// that the file reader enforces), as the panel opens on it.
int run_collapse_scenario(Args& a, const std::string& path) {
  const bool json = a.flag("--json");
  a.finish();
  const Scenario sc = read_scenario(path, "moe collapse");
  const MoeRunOfRecord run = make_moe_run_of_record(sc);
  return print_collapse(run.params, sc.moe.steps, run.history, json);
}

int run_collapse_cmd(Args& a) {
  if (const auto path = a.value("--scenario")) return run_collapse_scenario(a, *path);
  const bool json = a.flag("--json");
  // The router's numbers take what the MoE panel and the scenario file take
  // (inputs.h), under this command's names, with the panel's defaults.
  CollapseParams p;
  p.n_experts = a.count_input("moe.experts", "--experts");
  p.top_k = a.count_input("moe.top_k", "--top-k");
  if (p.top_k > p.n_experts)
    throw UsageError("--top-k must be at most --experts (" + std::to_string(p.n_experts) +
                     "); got " + std::to_string(p.top_k));
  p.aux_weight = a.input("moe.aux_weight", "--aux");
  p.z_weight = a.input("moe.z_weight", "--z");
  p.capacity_factor = a.input("moe.capacity_factor", "--capacity-factor");
  p.tokens_per_batch = a.count_input("moe.tokens_per_batch", "--tokens");
  p.learning_rate = a.input("moe.learning_rate", "--lr");
  p.shared_expert = a.switch_input("moe.shared_expert");
  p.renormalize = a.switch_input("moe.renormalize");
  const std::int64_t steps = a.integer("--steps", 600, 1, 1'000'000, "router steps");
  p.seed = static_cast<std::uint64_t>(a.count_input("moe.seed", "--seed"));
  const double max_seconds = a.real("--max-seconds", 0, 0, 1e7, "s (0: no limit)");
  a.finish();
  const double work = static_cast<double>(steps) * static_cast<double>(p.tokens_per_batch) *
                      static_cast<double>(p.n_experts);
  if (work > kMaxCollapseWork)
    throw UsageError("--steps × --tokens × --experts = " + format_sci(work, 2) +
                     " token-expert updates; the limit is " + format_sci(kMaxCollapseWork, 0) +
                     " (a few minutes on one core): lower --steps, --tokens or --experts");
  CollapseSimulation sim(p);
  {
    LongRun run("router steps", steps, json, max_seconds);
    for (std::int64_t i = 0; i < steps; ++i) {
      sim.step();
      run.update(i + 1);
    }
  }
  return print_collapse(p, steps, sim.history(), json);
}

// The router's last step after `steps` steps of `p`, its verdict and the
// run's history: as JSON, or as the text report.
int print_collapse(const CollapseParams& p, std::int64_t steps,
                   const std::vector<StepStats>& history, bool json) {
  const StepStats& s = history.back();
  const MoeHealth health = moe_health(s);  // the panel's verdict, the same rule
  if (json) {
    QJsonObject o{{"max_over_mean", s.max_over_mean},
                  {"recent_max_over_mean", s.recent_max_over_mean},
                  {"dead_experts", json_int(s.dead_experts)},
                  {"l_balance", s.l_balance},
                  {"l_z", s.l_z},
                  {"drop_rate", s.drop_rate},
                  {"fully_dropped_tokens", json_int(s.fully_dropped_tokens)},
                  {"capacity_per_expert", json_int(s.capacity_per_expert)},
                  {"steps", json_int(steps)},
                  {"verdict", QString::fromUtf8(to_string(health.verdict).data())}};
    QJsonArray reasons;
    for (const std::string& r : health.reasons) reasons.append(QString::fromStdString(r));
    o["verdict_reasons"] = reasons;
    const MoeHealthThresholds& t = health.thresholds;
    o["verdict_thresholds"] =
        QJsonObject{{"strained_drop_fraction", t.strained_drop_fraction},
                    {"collapsed_drop_fraction", t.collapsed_drop_fraction},
                    {"strained_max_over_mean", t.strained_max_over_mean},
                    {"collapsed_max_over_mean", t.collapsed_max_over_mean},
                    {"collapsed_dead_experts", json_int(t.collapsed_dead_experts)}};
    QJsonArray shares;
    for (std::int64_t e = 0; e < p.n_experts; ++e) shares.append(s.share(e));
    o["shares"] = shares;
    QJsonArray steps_json;
    for (const StepStats& h : history)
      steps_json.append(QJsonObject{{"step", json_int(h.step)},
                                    {"max_over_mean", h.max_over_mean},
                                    {"recent_max_over_mean", h.recent_max_over_mean},
                                    {"l_balance", h.l_balance},
                                    {"l_z", h.l_z},
                                    {"drop_rate", h.drop_rate},
                                    {"dead_experts", json_int(h.dead_experts)}});
    o["history"] = steps_json;
    print_json(o);
    return 0;
  }
  std::printf("Router collapse: E=%lld k=%lld aux=%g z=%g cf=%g, %lld steps, seed %llu\n",
              static_cast<long long>(p.n_experts), static_cast<long long>(p.top_k), p.aux_weight,
              p.z_weight, p.capacity_factor, static_cast<long long>(steps),
              static_cast<unsigned long long>(p.seed));
  row("max/mean (this step)", format_grouped(s.max_over_mean, 2), kReportLabelWidth);
  row("max/mean (recent ~20 steps)", format_grouped(s.recent_max_over_mean, 2), kReportLabelWidth);
  row("dead experts (gate share)",
      format_grouped(s.dead_experts) + " of " + format_grouped(p.n_experts), kReportLabelWidth);
  row("L_balance (1.0 = balanced)", format_grouped(s.l_balance, 4), kReportLabelWidth);
  row("L_z", format_grouped(s.l_z, 4), kReportLabelWidth);
  row("drop rate", format_percent(s.drop_rate), kReportLabelWidth);
  row("verdict",
      health.verdict == MoeVerdict::collapsed  ? "COLLAPSED"
      : health.verdict == MoeVerdict::strained ? "STRAINED"
                                               : "healthy",
      kReportLabelWidth);
  for (const std::string& r : health.reasons) row("  because", r, kReportLabelWidth);
  std::printf("  (%s)\n", describe(health.thresholds).c_str());
  return 0;
}

std::vector<std::int64_t> parse_counts(Args& a) {
  const auto list = a.real_list("--counts", 0, 1e15, "slots routed to an expert");
  if (!list) throw UsageError("--counts is required: a comma-separated list of slots per expert");
  std::vector<std::int64_t> out;
  for (double v : *list) {
    if (v != static_cast<double>(static_cast<std::int64_t>(v)))
      throw UsageError("--counts must be whole numbers of slots; got " + format_value(v));
    out.push_back(static_cast<std::int64_t>(v));
  }
  return out;
}

int run_capacity_cmd(Args& a) {
  const bool json = a.flag("--json");
  const std::vector<std::int64_t> counts = parse_counts(a);
  const double cf = a.real("--capacity-factor", 1.25, 1, 1000, "× balanced load");
  const std::int64_t k = a.integer("--top-k", 1, 1, 100'000, "experts per token");
  a.finish();
  const CapacityResult r = capacity_from_counts(counts, cf, k);
  const auto curve = capacity_tradeoff(counts, k, 1.0, 2.0, 11);
  if (json) {
    QJsonObject o{{"capacity_per_expert", json_int(r.capacity_per_expert)},
                  {"dropped", json_int(r.dropped)},
                  {"padded_slots", json_int(r.padded_slots)},
                  {"drop_rate", r.drop_rate},
                  {"buffer_utilization", r.buffer_utilization},
                  {"slots", json_int(r.routed_slots)}};
    QJsonArray tradeoff;
    for (const CapacityPoint& c : curve)
      tradeoff.append(QJsonObject{{"capacity_factor", c.capacity_factor},
                                  {"capacity_per_expert", json_int(c.capacity_per_expert)},
                                  {"drop_rate", c.drop_rate},
                                  {"wasted_fraction", c.wasted_fraction}});
    o["tradeoff"] = tradeoff;
    print_json(o);
    return 0;
  }
  std::printf("Expert capacity at capacity_factor %g, k = %lld, %zu experts\n", cf,
              static_cast<long long>(k), counts.size());
  row("capacity per expert", format_grouped(r.capacity_per_expert) + " slots", kReportLabelWidth);
  row("dropped (silently)",
      format_grouped(r.dropped) + " slots (" + format_percent(r.drop_rate) + ")",
      kReportLabelWidth);
  row("padded", format_grouped(r.padded_slots) + " slots (compute on zeros)", kReportLabelWidth);
  row("buffer utilization", format_percent(r.buffer_utilization), kReportLabelWidth);
  std::printf("\n  cf     cap   drop rate   wasted\n");
  for (const CapacityPoint& c : curve)
    std::printf("  %.2f  %5lld  %9s  %8s\n", c.capacity_factor,
                static_cast<long long>(c.capacity_per_expert), format_percent(c.drop_rate).c_str(),
                format_percent(c.wasted_fraction).c_str());
  return 0;
}

int run_comm_cmd(Args& a) {
  const bool json = a.flag("--json");
  AllToAllInputs in;
  in.tokens = a.required_integer("--tokens", 1, 1'000'000'000, "tokens");
  in.d_model = a.required_integer("--d-model", 1, kMaxModelWidth, "elements");
  in.n_layers = a.required_integer("--layers", 1, kMaxLayers, "MoE layers");
  in.top_k = a.required_integer("--top-k", 1, 100'000, "experts per token");
  in.bytes_per_elem = a.integer("--bytes-per-elem", 2, 1, 16, "bytes");
  in.link_gbps = a.real("--link-gbps", in.link_gbps, 1e-6, 1e9, "Gbit/s");
  in.latency_us = a.real("--latency-us", in.latency_us, 0, 1e9, "µs per collective");
  a.finish();
  const AllToAllCost c = expert_parallel_comm(in);
  if (json) {
    print_json(QJsonObject{{"bytes", json_int(c.bytes)},
                           {"seconds", c.seconds},
                           {"transfer_seconds", c.transfer_seconds},
                           {"latency_seconds", c.latency_seconds},
                           {"collectives", json_int(c.collectives)}});
    return 0;
  }
  std::printf("Naive expert parallelism: 2 all-to-alls per layer\n");
  row("bytes across the interconnect", format_bytes(static_cast<double>(c.bytes), 1),
      kReportLabelWidth);
  row("transfer", format_seconds(c.transfer_seconds), kReportLabelWidth);
  row("latency",
      format_seconds(c.latency_seconds) + " (" + format_grouped(c.collectives) + " collectives)",
      kReportLabelWidth);
  row("total network time", format_seconds(c.seconds), kReportLabelWidth);
  return 0;
}

int run_pipeline_cmd(Args& a) {
  const bool json = a.flag("--json");
  PipelineInputs in;
  in.chunks = a.required_integer("--chunks", 1, 1'000'000, "prompt chunks");
  in.stages = a.required_integer("--stages", 1, 100'000, "pipeline stages");
  in.compute_ms = a.required_real("--compute-ms", 1e-9, 1e12, "ms per chunk per stage");
  in.transfer_ms = a.required_real("--transfer-ms", 0, 1e12, "ms per hop");
  a.finish();
  const PipelineResult r = pipelined_prefill(in);
  if (json) {
    print_json(QJsonObject{{"serial_ms", r.serial_ms},
                           {"pipelined_ms", r.pipelined_ms},
                           {"utilization", r.utilization},
                           {"bubble_ms", r.bubble_ms},
                           {"step_ms", r.step_ms},
                           {"speedup", r.speedup}});
    return 0;
  }
  std::printf("Pipelined prefill: %lld chunks through %lld stages\n",
              static_cast<long long>(in.chunks), static_cast<long long>(in.stages));
  row("serial (no overlap)", format_grouped(r.serial_ms, 1) + " ms", kReportLabelWidth);
  row("pipelined", format_grouped(r.pipelined_ms, 1) + " ms", kReportLabelWidth);
  row("bubble (fill)", format_grouped(r.bubble_ms, 1) + " ms", kReportLabelWidth);
  row("utilization M/(M+S-1)", format_percent(r.utilization), kReportLabelWidth);
  row("speedup", format_grouped(r.speedup, 2) + "x", kReportLabelWidth);
  return 0;
}

int run_moe(Args& a) {
  const auto sub = a.positional();
  if (!sub) throw UsageError("needs a sub-command: collapse, capacity, comm or pipeline");
  if (*sub == "collapse") return run_collapse_cmd(a);
  if (*sub == "capacity") return run_capacity_cmd(a);
  if (*sub == "comm") return run_comm_cmd(a);
  if (*sub == "pipeline") return run_pipeline_cmd(a);
  throw UsageError("unknown sub-command \"" + *sub +
                   "\"; expected collapse, capacity, comm or pipeline");
}

}  // namespace

std::vector<Command> moe_commands() {
  return {{"moe",
           "moe collapse ([--experts 8] [--top-k 2] [--aux 0.01] [--z 0.001] "
           "[--capacity-factor 1.25] [--steps 600] [--seed 0] [--tokens 256] [--lr 5] "
           "[--shared-expert] [--raw-gates] [--max-seconds S] (steps × tokens × experts ≤ 2e10) | "
           "--scenario FILE (the MoE panel's run of record of a saved scenario)) | "
           "moe capacity --counts 40,30,20,10 "
           "[--capacity-factor 1.25] [--top-k 1] | moe comm --tokens T --d-model D --layers L "
           "--top-k K [--link-gbps 100] [--latency-us 5] | moe pipeline --chunks M --stages S "
           "--compute-ms C --transfer-ms X",
           run_moe}};
}

}  // namespace napkin::cli
