// The plan as it will really run: goodput; the budget's goodput, data,
// serving and range flags; "train this model".
#include "cli_plan.h"
#include "choices.h"
#include "cli_budget_choices.h"
#include "cli_cluster.h"
#include "inputs.h"

#include "budget_precision.h"
#include "budget_view.h"
#include "quantize.h"
#include "scenario.h"

#include <QJsonArray>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "config_import.h"
#include "format.h"
#include "goodput.h"
#include "hardware.h"
#include "law_json.h"
#include "plan.h"
#include "train_plan.h"
#include "validate.h"

namespace napkin::cli {

namespace {

double parse_part(std::string_view flag, const std::string& part, const std::string& expected,
                  const std::string& whole) {
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(part.c_str(), &end);
  if (part.empty() || end != part.c_str() + part.size() || errno == ERANGE || !std::isfinite(d))
    throw UsageError(std::string(flag) + " must be " + expected + "; got \"" + whole + "\"");
  return d;
}

// A number, or low:likely:high (each in [lo, hi], low ≤ likely ≤ high);
// `expected` says what is accepted.
std::optional<Range> range_flag(Args& a, std::string_view flag, double lo, double hi,
                                const std::string& expected) {
  const auto v = a.value(flag);
  if (!v) return std::nullopt;
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t colon = v->find(':', start);
    parts.push_back(
        v->substr(start, colon == std::string::npos ? std::string::npos : colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() != 1 && parts.size() != 3)
    throw UsageError(std::string(flag) + " must be " + expected + "; got \"" + *v + "\"");
  std::vector<double> x;
  for (const std::string& p : parts) {
    const double d = parse_part(flag, p, expected, *v);
    if (d < lo || d > hi)
      throw UsageError(std::string(flag) + " must be " + expected + "; got \"" + *v + "\"");
    x.push_back(d);
  }
  if (x.size() == 1) return Range::point(x[0]);
  if (!(x[0] <= x[1] && x[1] <= x[2]))
    throw UsageError(std::string(flag) + " range must be low:likely:high with low <= likely <= " +
                     "high; got \"" + *v + "\"");
  return Range{x[0], x[1], x[2]};
}

// A registered input as a number or a range, with the registry's default.
Range range_of_input(Args& a, std::string_view input_key) {
  return optional_range_of_input(a, input_key)
      .value_or(Range::point(scenario_input(input_key).default_value));
}

// The flags a run shares in both modes: MFU, price, energy, unique tokens,
// goodput and the Monte Carlo settings.
struct RunFlags {
  PlanRanges ranges;
  PlanLaw law;
  double mfu = 0.4;
  CostInputs cost;
  double tokens_available = 15e12;
  GoodputSetup goodput;
};

RunFlags parse_run_flags(Args& a) {
  RunFlags f;
  PlanRanges& r = f.ranges;
  r.mfu = range_of_input(a, "budget.mfu");
  if (!(r.mfu.low > 0)) throw UsageError("--mfu must be > 0");
  r.price_per_chip_hour_dollars = range_of_input(a, "budget.price_per_chip_hour_dollars");
  f.cost.kwh_price_dollars = a.input("budget.kwh_price_dollars");
  f.cost.pue = a.input("budget.pue");
  r.tokens_available = range_of_input(a, "budget.tokens_available");
  r.interruptions_per_1000_chip_days =
      range_of_input(a, "goodput.interruptions_per_1000_chip_days");
  r.restart_minutes = range_of_input(a, "goodput.restart_minutes");
  GoodputSetup& g = f.goodput;
  g.checkpoint_interval_minutes = a.input("goodput.checkpoint_interval_minutes");
  g.checkpoint_write_minutes = a.optional_input("goodput.checkpoint_write_minutes");
  g.storage_bytes_per_s_per_chip = a.input("goodput.storage_bytes_per_s_per_chip");
  g.mode = a.switch_input("goodput.checkpoint_mode") ? CheckpointMode::asynchronous
                                                     : CheckpointMode::synchronous;
  r.shape = parse_range_shape(a.choice_input("ranges.shape"));
  r.seed = static_cast<std::uint64_t>(a.integer("--seed", 1, 0, std::int64_t{1} << 53, "seed"));
  r.draws = a.integer("--draws", 10'000, 1, 1'000'000, "Monte Carlo draws");
  // The loss law: a built-in one by name, or a law file from `fit -o`.
  const std::string law = a.text("--law", "replication");
  if (law == "replication" || law == "chinchilla_paper") {
    f.law = builtin_plan_law(parse_law_choice(law));
  } else {
    try {
      f.law = load_plan_law_file(law);
    } catch (const std::runtime_error& e) {
      throw UsageError("--law " + std::string(e.what()) +
                       " (give replication, chinchilla_paper or a file written by fit -o)");
    }
  }
  r.law_draws = f.law.draws;
  f.mfu = r.mfu.likely;
  f.cost.price_per_chip_hour_dollars = r.price_per_chip_hour_dollars.likely;
  f.tokens_available = r.tokens_available.likely;
  g.interruptions_per_1000_chip_days = r.interruptions_per_1000_chip_days.likely;
  g.restart_minutes = r.restart_minutes.likely;
  return f;
}

}  // namespace

std::optional<Range> optional_range_of_input(Args& a, std::string_view input_key) {
  const ScenarioInput& in = scenario_input(input_key);
  const std::string expected =
      input_flag_accepted_text(in) + ", or a range low:likely:high of such numbers";
  const auto r =
      range_flag(a, in.flag, input_flag_value(in, in.lo), input_flag_value(in, in.hi), expected);
  if (!r) return std::nullopt;
  return Range{input_from_flag(in, r->low), input_from_flag(in, r->likely),
               input_from_flag(in, r->high)};
}

static QJsonObject percentiles_json(const OutputDistribution& d) {
  return QJsonObject{{"p10", d.p.p10}, {"p50", d.p.p50}, {"p90", d.p.p90}, {"point", d.point},
                     {"mean", d.mean}, {"min", d.min},   {"max", d.max}};
}

QJsonObject ranges_json(const RangeReport& r) {
  QJsonArray tornado;
  for (const TornadoBar& t : r.tornado)
    tornado.append(QJsonObject{{"input", QString::fromStdString(t.key)},
                               {"low", t.input_low},
                               {"high", t.input_high},
                               {"days_at_low", t.days_at_low},
                               {"days_at_high", t.days_at_high},
                               {"dollars_at_low", t.dollars_at_low},
                               {"dollars_at_high", t.dollars_at_high},
                               {"loss_at_low", t.loss_at_low},
                               {"loss_at_high", t.loss_at_high}});
  QJsonArray counts;
  for (std::int64_t c : r.days.histogram.counts) counts.append(json_int(c));
  return QJsonObject{{"shape", QString::fromUtf8(to_string(r.shape).data())},
                     {"seed", json_int(static_cast<std::int64_t>(r.seed))},
                     {"draws", json_int(r.draws)},
                     {"capped_draws", json_int(r.capped_draws)},
                     {"days", percentiles_json(r.days)},
                     {"dollars", percentiles_json(r.dollars)},
                     {"energy_kwh", percentiles_json(r.energy_kwh)},
                     {"loss", percentiles_json(r.loss)},
                     {"tornado", tornado},
                     {"days_histogram", QJsonObject{{"lo", r.days.histogram.lo},
                                                    {"bin_width", r.days.histogram.bin_width},
                                                    {"counts", counts}}}};
}

// The recommended run's ranges, under the law its forecast uses (the FP8
// law's draws when it trains in FP8).
static RangeReport recommended_ranges(const BudgetReport& r, PlanRanges ranges) {
  ranges.law_draws = r.law.draws;
  return plan_ranges(r.recommended.run_inputs, ranges, budget_law(r.law));
}

void print_ranges(const RangeReport& r) {
  std::printf("\nRanges (%s, %s draws, seed %llu)\n", std::string(to_string(r.shape)).c_str(),
              format_grouped(static_cast<double>(r.draws)).c_str(),
              static_cast<unsigned long long>(r.seed));
  std::printf("  %-18s %14s %14s %14s\n", "", "P10", "P50", "P90");
  auto line = [](const char* name, const OutputDistribution& d, auto fmt) {
    std::printf("  %-18s %14s %14s %14s\n", name, fmt(d.p.p10).c_str(), fmt(d.p.p50).c_str(),
                fmt(d.p.p90).c_str());
  };
  line("days", r.days, [](double v) { return format_grouped(v, 1); });
  line("dollars", r.dollars, [](double v) { return format_dollars(v); });
  line("energy MWh", r.energy_kwh, [](double v) { return format_grouped(v / 1000.0, 1); });
  line("loss nats/token", r.loss, [](double v) { return format_grouped(v, 4); });
  if (!r.tornado.empty()) {
    std::printf("  Tornado (days, one input at a time from low to high):\n");
    for (const TornadoBar& t : r.tornado)
      std::printf("    %-22s %s .. %s -> %s .. %s days\n", t.label.c_str(),
                  format_value(t.input_low).c_str(), format_value(t.input_high).c_str(),
                  format_grouped(t.days_at_low, 1).c_str(),
                  format_grouped(t.days_at_high, 1).c_str());
  }
  if (r.capped_draws > 0)
    std::printf("  %s draws make no progress or take over 100 years (counted as 100 years)\n",
                format_grouped(static_cast<double>(r.capped_draws)).c_str());
}

QJsonValue optional_json(const std::optional<double>& v) {
  return v ? QJsonValue(*v) : QJsonValue();
}

QJsonArray checks_json(const std::vector<Check>& checks) {
  QJsonArray a;
  for (const Check& c : checks)
    a.append(QJsonObject{{"name", QString::fromStdString(c.name)},
                         {"ok", c.ok},
                         {"detail", QString::fromStdString(c.detail)}});
  return a;
}

void print_checks(const std::vector<Check>& checks) {
  std::printf("\nSanity checks\n");
  for (const Check& c : checks)
    std::printf("  [%s] %-24s %s\n", c.ok ? "OK  " : "FAIL", c.name.c_str(), c.detail.c_str());
}

void goodput_rows(const GoodputReport& g, const GoodputInputs& gi) {
  row("goodput", format_percent(g.goodput, 1) + " (" + format_grouped(g.expected_crashes, 1) +
                     " expected interruptions, " + format_grouped(g.lost_per_crash_minutes, 0) +
                     " min each)");
  row("checkpoint", "every " + format_grouped(gi.checkpoint_interval_minutes, 0) + " min, " +
                        (gi.mode == CheckpointMode::synchronous ? "synchronous" : "asynchronous") +
                        ", written in " + format_seconds(gi.checkpoint_write_minutes * 60.0));
  if (g.optimal_checkpoint_minutes)
    row("optimal checkpoint", optimal_checkpoint_text(*g.optimal_checkpoint_minutes) + " -> " +
                                  format_percent(g.goodput_at_optimum, 1) + " goodput");
}

QJsonObject run_report_json(const RunReport& r) {
  return QJsonObject{
      {"params", r.params},
      {"active_params", r.active_params},
      {"tokens", r.tokens},
      {"flops", r.flops},
      {"productive_days", r.productive_days},
      {"days", r.wall_clock_days},
      {"goodput", r.goodput.goodput},
      {"effective_days", r.wall_clock_days * r.goodput.goodput},
      {"expected_crashes", r.goodput.expected_crashes},
      {"lost_hours", r.goodput.lost_hours},
      {"optimal_checkpoint_min", optional_json(r.goodput.optimal_checkpoint_minutes)},
      {"checkpoint_write_min", r.goodput_inputs.checkpoint_write_minutes},
      {"checkpoint_bytes", r.checkpoint_bytes},
      {"rental_dollars", r.cost.rental_dollars},
      {"energy_kwh", r.cost.energy_kwh},
      {"energy_dollars", r.cost.energy_dollars},
      {"loss", r.loss},
      {"loss_fresh", r.loss_fresh},
      {"unique_tokens", r.unique_tokens},
      {"epochs", r.epochs},
      {"effective_tokens", r.effective_tokens},
      {"effective_params", r.effective_params},
      {"data_suffice", r.data_suffice},
      {"summary", QString::fromStdString(r.summary)}};
}

void print_run_rows(const RunReport& r, const std::string& law_name) {
  row("C", format_sci(r.flops) + " FLOPs (6 x N x D)");
  row("days of computing", format_grouped(r.productive_days, 1));
  goodput_rows(r.goodput, r.goodput_inputs);
  row("wall-clock days", format_grouped(r.wall_clock_days, 1));
  row("rental $", format_grouped(r.cost.rental_dollars, 2));
  row("energy kWh (at the wall)", format_grouped(r.cost.energy_kwh, 2));
  row("energy $", format_grouped(r.cost.energy_dollars, 2));
  row("loss (forecast)",
      format_grouped(r.loss, 4) + " nats/token under " + law_name +
          (r.data_suffice ? std::string()
                          : " (" + format_grouped(r.loss_fresh, 4) + " if every token were new)"));
  row("epochs",
      format_grouped(r.epochs, 2) + " over " + format_count(r.unique_tokens, 1) + " unique tokens");
  row("effective tokens", format_count(r.effective_tokens, 2) + " (Muennighoff et al. 2023)");
  print_checks(r.checks);
}

namespace {

// --cluster-profile FILE: the MFU the calibrated model predicts for the
// fastest fitting layout of `shape` on these chips, as the plan resolves it
// (the Parallelism panel's search with the scenario's sequence and batch),
// on the cluster the runs ran on; its range is the layout's MFU at the fit's
// slow and fast corners.
MfuChoice calibrated_mfu(const TrainInputs& t, const ModelShape& shape, const std::string& path) {
  const ClusterProfile profile = cluster_profile_flag(path, t.chip);
  Scenario s;
  s.chip = t.chip;
  s.n_chips = t.n_chips;
  s.shape = shape;
  s.training.optimizer = t.optimizer;
  s.training.precision = t.precision;
  s.plan.train_tokens = t.train_tokens;
  s.tokens_per_param = t.tokens_per_param;
  ParallelSettings& p = s.parallel;
  p.mfu_source = MfuSource::predicted;
  p.cluster = "custom";
  p.gpus_per_node = profile.network.chips_per_node;
  p.scale_up_gb_per_s = profile.network.intra_node_bytes_per_s / 1e9;
  p.scale_out_gb_per_s = profile.network.inter_node_bytes_per_s / 1e9;
  p.cluster_profile = path;
  p.calibrated = profile.calibrated();
  p.calibrated_interval = profile.interval();
  MfuChoice c = budget_mfu(s);
  if (c.source != MfuSource::predicted)
    throw UsageError("--cluster-profile: no MFU to predict: " + c.note);
  return c;
}

QJsonObject calibrated_mfu_json(const MfuChoice& c, const std::string& path) {
  return QJsonObject{{"calibrated", true},
                     {"runs", json_int(c.calibrated_runs)},
                     {"profile", QString::fromStdString(path)},
                     {"layout", QString::fromStdString(c.layout)},
                     {"mfu", c.mfu},
                     {"mfu_low", c.mfu_low},
                     {"mfu_high", c.mfu_high}};
}

int run_train_model(Args& a, bool json, std::optional<double> params,
                    std::optional<std::string> config) {
  if (a.value("--days"))
    throw UsageError(
        "--days is a budget; with --params or --config (train this model) the days "
        "are computed: drop --days");
  TrainInputs t;
  t.chip = a.text("--chip", "H100");
  (void)chip_by_name(t.chip);
  t.n_chips = a.count_input("hardware.chips");
  std::string model_name;
  ModelShape shape;
  const auto profile_path = a.value("--cluster-profile");
  if (profile_path && !config)
    throw UsageError(
        "--cluster-profile predicts the MFU of a model's layouts: give the model with "
        "--config FILE");
  if (profile_path && a.given("--mfu"))
    throw UsageError("give --mfu or --cluster-profile, not both (the profile predicts the MFU)");
  if (config) {
    shape = import_hf_config_file(*config).shape;
    const ParamCount c = count_params(shape);
    t.n_params = static_cast<double>(c.total);
    t.active_params = c.active < c.total ? static_cast<double>(c.active) : 0.0;
    model_name = *config;
  } else {
    t.n_params = *params;
    t.active_params = a.real("--active-params", 0, 0, *params, "parameters (0 = --params)");
  }
  t.tokens_per_param = a.input("budget.tokens_per_param");
  t.train_tokens = a.input("plan.train_tokens");
  t.optimizer = parse_optimizer(a.choice_input("training.optimizer"));
  t.precision = parse_train_precision(a, t.chip);
  const RunFlags f = parse_run_flags(a);
  a.finish();
  t.mfu = f.mfu;
  t.cost = f.cost;
  t.tokens_available = f.tokens_available;
  t.goodput = f.goodput;
  PlanRanges ranges = f.ranges;
  std::optional<MfuChoice> calibrated;
  if (profile_path) {
    calibrated = calibrated_mfu(t, shape, *profile_path);
    t.mfu = calibrated->mfu;
    ranges.mfu = Range{calibrated->mfu_low, calibrated->mfu, calibrated->mfu_high};
  }
  const PlanLaw trained = forecast_law(f.law, t.precision);
  ranges.law_draws = trained.draws;
  const DataConstrainedLaw law = budget_law(trained);
  const RunReport r = train_run(t, law);
  std::optional<RangeReport> rr;
  if (ranges.any()) rr = plan_ranges(t, ranges, law);

  if (json) {
    QJsonObject o = run_report_json(r);
    o["mode"] = "train_model";
    o["chip"] = QString::fromStdString(t.chip);
    o["chips"] = json_int(t.n_chips);
    o["mfu"] = t.mfu;
    o["train_precision"] = QString::fromUtf8(to_string(t.precision).data());
    o["law_name"] = QString::fromStdString(trained.name);
    if (rr) o["ranges"] = ranges_json(*rr);
    if (calibrated) o["calibration"] = calibrated_mfu_json(*calibrated, *profile_path);
    print_json(o);
    return 0;
  }
  std::printf(
      "Train this model: %s params%s on %s tokens, %s %s @ %s MFU\n",
      format_count(r.params).c_str(),
      r.active_params < r.params ? (" (" + format_count(r.active_params) + " active)").c_str() : "",
      format_count(r.tokens, 2).c_str(), format_grouped(static_cast<double>(t.n_chips)).c_str(),
      t.chip.c_str(), format_percent(t.mfu, 0).c_str());
  if (!model_name.empty()) row("model", model_name);
  if (calibrated)
    row("MFU", format_percent(t.mfu, 1) + " (predicted, calibrated on " +
                   std::to_string(calibrated->calibrated_runs) + " runs: " + *profile_path +
                   "; layout " + calibrated->layout + "; fit's 90 % corners " +
                   format_percent(calibrated->mfu_low, 1) + " – " +
                   format_percent(calibrated->mfu_high, 1) + ")");
  print_run_rows(r, trained.name);
  if (rr) print_ranges(*rr);
  std::printf("\nSummary\n");
  paragraph(r.summary);
  return 0;
}

}  // namespace

PlanFlags parse_plan_flags(Args& a, BudgetInputs& in) {
  const RunFlags f = parse_run_flags(a);
  in.mfu = f.mfu;
  in.cost.price_per_chip_hour_dollars = f.cost.price_per_chip_hour_dollars;
  in.cost.kwh_price_dollars = f.cost.kwh_price_dollars;
  in.cost.pue = f.cost.pue;
  in.tokens_available = f.tokens_available;
  in.goodput = f.goodput;
  in.law = f.law;
  in.serving_node_chips = a.count_input("serving.chips");
  ServingLatency& s = in.serving_latency;
  s.enabled = !a.flag("--no-serving-limit");
  s.latency_budget_seconds = a.input("serving.latency_budget_seconds");
  s.overhead_seconds = a.input("serving.overhead_seconds");
  s.prompt_tokens = a.count_input("serving.prompt_tokens");
  s.decode_tokens = a.count_input("serving.decode_tokens");
  s.batch = a.count_input("serving.batch");
  // The same serving limit as the Budget planner's: the serving layout search
  // at the given precisions on up to --serving-chips chips.
  Scenario sc;
  sc.chip = in.chip;
  sc.price_per_chip_hour_dollars = in.cost.price_per_chip_hour_dollars;
  sc.kwh_price_dollars = in.cost.kwh_price_dollars;
  sc.pue = in.cost.pue;
  sc.serving.chips = in.serving_node_chips;
  sc.serving.limit_model = s.enabled;
  sc.serving.latency_budget_seconds = s.latency_budget_seconds;
  sc.serving.overhead_seconds = s.overhead_seconds;
  sc.serving.prompt_tokens = s.prompt_tokens;
  sc.serving.decode_tokens = s.decode_tokens;
  sc.serving.batch = s.batch;
  for (const char* key : {"serving.weight_precision", "serving.kv_precision"})
    scenario_choice(key).set(sc, a.choice_input(key));
  parse_budget_choices(a, in, sc);  // --objective, --serving-chip, --serving-price
  if (s.enabled) set_scenario_serving_limits(in, sc);
  return PlanFlags{f.ranges};
}

std::optional<int> run_train_model_if_asked(Args& a, bool json) {
  const auto params = a.optional_real("--params", 1e3, 1e15, "parameters");
  const auto config = a.value("--config");
  if (!params && !config) return std::nullopt;
  if (params && config) throw UsageError("give --params or --config, not both");
  return run_train_model(a, json, params, config);
}

void add_plan_json(QJsonObject& o, const BudgetReport& r, const PlanFlags& flags) {
  const RunReport& run = r.recommended.run;
  o["mode"] = "budget";
  o["goodput"] = r.goodput.goodput;
  o["effective_days"] = r.effective_days;
  o["effective_flops"] = r.effective_flops;
  o["expected_crashes"] = r.goodput.expected_crashes;
  o["lost_hours"] = r.goodput.lost_hours;
  o["optimal_checkpoint_min"] = optional_json(r.goodput.optimal_checkpoint_minutes);
  o["checkpoint_write_min"] = r.goodput_inputs.checkpoint_write_minutes;
  o["effective_params"] = r.effective_split.params;
  o["epochs"] = run.epochs;
  o["effective_tokens"] = run.effective_tokens;
  const DataLimit& d = r.data;
  o["data"] = QJsonObject{{"unique_tokens", d.unique_tokens},
                          {"chinchilla_fits", d.chinchilla_fits},
                          {"chinchilla_epochs", d.chinchilla_epochs},
                          {"chinchilla_loss", d.chinchilla_loss},
                          {"chinchilla_loss_fresh", d.chinchilla_loss_fresh},
                          {"best_params", d.best.params},
                          {"best_tokens", d.best.tokens},
                          {"best_epochs", d.best.epochs},
                          {"best_effective_tokens", d.best.effective_tokens},
                          {"best_loss", d.best.loss},
                          {"fresh_loss", d.fresh.loss},
                          {"repetition_penalty_nats", d.repetition_penalty_nats}};
  const ServingLimit& s = r.serving_limit;
  o["serving_limit"] = QJsonObject{{"applied", s.applied},
                                   {"serving_chips", json_int(s.serving_chips)},
                                   {"max_params", optional_json(s.max_params)},
                                   {"binds", r.recommended.serving_binds},
                                   {"detail", QString::fromStdString(s.detail)}};
  const Recommendation& rec = r.recommended;
  o["recommended"] = QJsonObject{{"params", rec.model.params},
                                 {"tokens", rec.model.train_tokens},
                                 {"reason", QString::fromUtf8(to_string(rec.reason).data())},
                                 {"epochs", run.epochs},
                                 {"effective_tokens", run.effective_tokens},
                                 {"flops", run.flops},
                                 {"days", run.wall_clock_days},
                                 {"goodput", run.goodput.goodput},
                                 {"rental_dollars", run.cost.rental_dollars},
                                 {"energy_kwh", run.cost.energy_kwh},
                                 {"loss", run.loss}};
  QJsonObject law{{"choice", QString::fromUtf8(to_string(r.law.choice).data())},
                  {"name", QString::fromStdString(r.law.name)},
                  {"E", r.law.law.E},
                  {"A", r.law.law.A},
                  {"alpha", r.law.law.alpha},
                  {"B", r.law.law.B},
                  {"beta", r.law.law.beta},
                  {"ladder_max_flops", r.law.ladder_max_flops},
                  {"draws", json_int(static_cast<std::int64_t>(r.law.draws.size()))}};
  if (rec.loss_interval) {
    law["loss_low"] = rec.loss_interval->low;
    law["loss_high"] = rec.loss_interval->high;
    law["confidence"] = r.law.confidence;
  }
  o["law"] = law;
  add_budget_choices_json(o, r);  // moe, lifetime dollars
  if (flags.ranges.any()) o["ranges"] = ranges_json(recommended_ranges(r, flags.ranges));
}

void print_plan_text(const BudgetReport& r, const PlanFlags& flags) {
  const auto& in = r.inputs;
  std::printf("\nGoodput\n");
  goodput_rows(r.goodput, r.goodput_inputs);
  row("effective days", format_grouped(r.effective_days, 1) + " of " + format_grouped(in.days, 1) +
                            " -> C = " + format_sci(r.effective_flops) + " FLOPs");
  row("Chinchilla answer", format_count(r.effective_split.params) + " params on " +
                               format_count(r.effective_split.tokens, 2) + " tokens");
  const DataLimit& d = r.data;
  std::printf("\nData\n");
  row("unique tokens", format_count(d.unique_tokens, 1) + (d.chinchilla_fits ? " (enough)" : ""));
  if (!d.chinchilla_fits) {
    row("Chinchilla answer needs", format_grouped(d.chinchilla_epochs, 2) + " epochs: loss " +
                                       format_grouped(d.chinchilla_loss, 4) + " (fresh: " +
                                       format_grouped(d.chinchilla_loss_fresh, 4) + ")");
    row("best under the limit",
        format_count(d.best.params) + " params on " + format_count(d.best.tokens, 2) + " tokens, " +
            format_grouped(d.best.epochs, 2) + " epochs, loss " + format_grouped(d.best.loss, 4));
    row("penalty of repeating", format_grouped(d.repetition_penalty_nats, 4) + " nats");
  }
  std::printf("\nServing\n");
  paragraph(r.serving_limit.detail + (r.recommended.serving_binds ? " (binds)" : ""));
  const RunReport& run = r.recommended.run;
  std::printf("\nRecommended run (%s)\n", std::string(to_string(r.recommended.reason)).c_str());
  row("model", format_count(run.params) + " params on " + format_count(run.tokens, 2) +
                   " tokens (" + format_grouped(run.epochs, 2) + " epochs, " +
                   format_count(run.effective_tokens, 2) + " effective)");
  row("days on this cluster", format_grouped(run.wall_clock_days, 1) + " at " +
                                  format_percent(run.goodput.goodput, 1) + " goodput");
  row("rental $", format_grouped(run.cost.rental_dollars, 2));
  row("energy kWh (at the wall)", format_grouped(run.cost.energy_kwh, 2));
  std::string loss = format_grouped(run.loss, 4) + " nats/token under " + r.law.name;
  if (const auto& iv = r.recommended.loss_interval)
    loss += " (" + format_percent(r.law.confidence, 0) + " interval " + format_grouped(iv->low, 4) +
            " – " + format_grouped(iv->high, 4) + ")";
  row("loss (forecast)", loss);
  print_budget_choices_text(r);
  if (flags.ranges.any()) print_ranges(recommended_ranges(r, flags.ranges));
}

}  // namespace napkin::cli
