#include "scenario.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>

#include "budget_precision.h"
#include "hardware.h"
#include "inputs.h"
#include "scaling.h"
#include "serving_engine.h"
#include "validate.h"

namespace napkin {

namespace {

// Each panel's settings, with the panel named in front of the field.
void validate_panel_settings(const Scenario& s) {
  auto named = [](const char* panel, const auto& settings) {
    try {
      settings.validate();
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string(panel) + " settings: " + e.what());
    }
  };
  named("IsoFLOPs", s.isoflops);
  named("MoE", s.moe);
  named("Roofline", s.roofline);
  named("Parallelism", s.parallel);
}

}  // namespace

void Scenario::validate() const {
  check_inputs(*this);  // the registered inputs' ranges (inputs.h)
  budget_inputs().validate();
  shape.validate();
  require_count(training.zero_stage, "zero_stage", "ZeRO stage", 0, 3);
  (void)engine_by_name(serving.engine, "engine");
  validate_panel_settings(*this);
  goodput.validate();
  require_real(plan.train_tokens, "train_tokens", "tokens (0 = tokens per parameter x N)", 0.0,
               kMaxTrainTokens);
  // Tokens per parameter × N, in every plan mode: the Parallelism panel's job
  // runs them, and it takes no more than the plan does.
  if (plan.train_tokens == 0)
    require_real(train_inputs().tokens(), "tokens", "tokens (tokens per parameter × N)", 0.0,
                 kMaxTrainTokens);
  (void)plan_ranges(train_inputs());
  // The run must make progress, so that every view of a valid scenario computes.
  if (plan.mode == PlanMode::train_model)
    (void)train_run(train_inputs());
  else
    (void)budget_goodput(budget_inputs());
}

std::string_view to_string(PlanMode mode) {
  return mode == PlanMode::budget ? "budget" : "train_model";
}

PlanMode parse_plan_mode(std::string_view text) {
  if (text == "budget") return PlanMode::budget;
  if (text == "train_model") return PlanMode::train_model;
  throw std::invalid_argument("plan mode must be one of budget, train_model; got \"" +
                              std::string(text.substr(0, 40)) + "\"");
}

bool RangeSetup::any() const {
  return mfu || interruptions_per_1000_chip_days || restart_minutes ||
         price_per_chip_hour_dollars || tokens_available;
}

std::optional<Spread> RangeSetup::*input_range(std::string_view input_key) {
  if (input_key == "budget.mfu") return &RangeSetup::mfu;
  if (input_key == "budget.price_per_chip_hour_dollars")
    return &RangeSetup::price_per_chip_hour_dollars;
  if (input_key == "budget.tokens_available") return &RangeSetup::tokens_available;
  if (input_key == "goodput.interruptions_per_1000_chip_days")
    return &RangeSetup::interruptions_per_1000_chip_days;
  if (input_key == "goodput.restart_minutes") return &RangeSetup::restart_minutes;
  return nullptr;
}

TrainInputs Scenario::train_inputs() const {
  const ParamCount p = count_params(shape);
  TrainInputs t;
  t.chip = chip;
  t.n_chips = n_chips;
  t.mfu = mfu;
  t.n_params = static_cast<double>(p.total);
  t.active_params = p.active < p.total ? static_cast<double>(p.active) : 0.0;
  t.train_tokens = plan.train_tokens;
  t.tokens_per_param = tokens_per_param;
  t.tokens_available = tokens_available;
  t.cost.price_per_chip_hour_dollars = price_per_chip_hour_dollars;
  t.cost.kwh_price_dollars = kwh_price_dollars;
  t.cost.pue = pue;
  t.goodput = goodput;
  t.optimizer = training.optimizer;
  t.precision = training.precision;
  return t;
}

PlanRanges Scenario::plan_ranges(const TrainInputs& t) const {
  PlanRanges r = point_ranges(t);
  // A spread keeps the plan's own value as the likely one.
  auto set = [](Range& range, const std::optional<Spread>& s) {
    if (s) range = Range{s->low, range.likely, s->high};
  };
  set(r.mfu, ranges.mfu);
  set(r.interruptions_per_1000_chip_days, ranges.interruptions_per_1000_chip_days);
  set(r.restart_minutes, ranges.restart_minutes);
  set(r.price_per_chip_hour_dollars, ranges.price_per_chip_hour_dollars);
  set(r.tokens_available, ranges.tokens_available);
  r.shape = ranges.shape;
  r.seed = ranges.seed;
  r.law_draws = trained_law().draws;
  r.validate();
  return r;
}

BudgetInputs Scenario::budget_inputs() const {
  BudgetInputs in;
  in.chip = chip;
  in.n_chips = n_chips;
  in.days = days;
  in.mfu = mfu;
  in.cost.price_per_chip_hour_dollars = price_per_chip_hour_dollars;
  in.cost.kwh_price_dollars = kwh_price_dollars;
  in.cost.pue = pue;
  in.tokens_per_param = tokens_per_param;
  in.tokens_available = tokens_available;
  in.served_tokens = serving.served_tokens;
  in.optimizer = training.optimizer;
  in.precision = training.precision;
  in.serving_node_chips = serving.chips;
  in.goodput = goodput;
  in.serving_latency.enabled = serving.limit_model;
  in.serving_latency.prompt_tokens = serving.prompt_tokens;
  in.serving_latency.decode_tokens = serving.decode_tokens;
  in.serving_latency.batch = serving.batch;
  in.serving_latency.latency_budget_seconds = serving.latency_budget_seconds;
  in.serving_latency.overhead_seconds = serving.overhead_seconds;
  in.serving_latency.bytes_per_param = serving.bytes_per_param();
  in.law = plan_law();
  in.moe = plan.moe;
  in.objective = plan.objective;
  in.serving_chip = serving.chip;
  in.serving_price_per_chip_hour_dollars = serving.price_per_chip_hour_dollars;
  in.serving_weights = serving.weight_dtype;
  in.serving_kv = serving.kv_dtype;
  in.serving_engine = serving.engine;
  return in;
}

namespace {

// The last fitted law and the inputs it was fitted from: a slider tick that
// leaves the ladder alone costs no fit.
struct FittedMemo {
  std::mutex mutex;
  std::optional<IsoflopsSettings> key;
  PlanLaw law;
};

FittedMemo& fitted_memo() {
  static FittedMemo memo;
  return memo;
}

}  // namespace

PlanLaw Scenario::trained_law() const { return forecast_law(plan_law(), training.precision); }

PlanLaw Scenario::plan_law(const FitProgressFn& progress) const {
  if (plan.law != LawChoice::fitted) return builtin_plan_law(plan.law);
  FittedMemo& memo = fitted_memo();
  {
    std::lock_guard lock(memo.mutex);
    if (memo.key == isoflops) return memo.law;
  }
  const std::vector<LadderPoint> points = ladder_points(isoflops);
  FitOptions options = isoflops.fit.fit_options();
  options.progress = progress;
  const FitResult fit = fit_parametric(points, options);
  double max_flops = 0;
  for (const LadderPoint& p : points)
    max_flops = std::max({max_flops, p.budget_flops, 6.0 * p.n_params * p.n_tokens});
  const std::string origin = isoflops.loaded
                                 ? "the ladder " + isoflops.loaded->file_name + " (IsoFLOPs panel)"
                                 : "the IsoFLOPs panel's synthetic ladder";
  PlanLaw law = fitted_plan_law(fit.law, {}, origin, max_flops);
  std::lock_guard lock(memo.mutex);
  memo.key = isoflops;
  memo.law = law;
  return law;
}

}  // namespace napkin
