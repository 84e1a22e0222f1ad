#include "inputs.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <vector>

#include "format.h"
#include "inputs_detail.h"
#include "plan_inputs.h"
#include "scenario.h"
#include "validate.h"

namespace napkin {

namespace {

using S = Scenario;

// The largest chip count anything accepts: 10 million (today's largest
// clusters are ~10^5; the CLI, the file and the GUI all stop here).
constexpr double kMaxChips = 10'000'000;

// The budget's, training's and plan's inputs; built on first use (some
// descriptions are the planner's, plan_inputs.h).
const auto& base_inputs() {
  static const std::array kInputs{
      ScenarioInput{.key = "hardware.chips",
                    .section = "hardware",
                    .json_key = "chips",
                    .flag = "--chips",
                    .label = "Chips",
                    .unit = "chips",
                    .display_unit = "",
                    .type = InputType::count,
                    .default_value = 1000,
                    .lo = 1,
                    .hi = kMaxChips,
                    .slider_lo = 1,
                    .slider_hi = 100'000,
                    .scale = InputScale::log,
                    .ladder = Ladder::oneTwoFive(),
                    .tooltip =
                        "Number of accelerators (chips). C = chips × peak FLOP/s × MFU × days × "
                        "86,400 s; the Roofline's turn read-out runs on this many.",
                    .get = [](const S& s) { return static_cast<double>(s.n_chips); },
                    .set = [](S& s, double v) { s.n_chips = std::llround(v); }},
      ScenarioInput{.key = "budget.days",
                    .section = "budget",
                    .json_key = "days",
                    .flag = "--days",
                    .label = "Days",
                    .unit = "days",
                    .display_unit = "days",
                    .default_value = 30,
                    .lo = 0.1,
                    .hi = 36'500,
                    .slider_lo = 1,
                    .slider_hi = 365,
                    .ladder = Ladder::multipleOf(1),
                    .decimals = 1,
                    .tooltip = "Wall-clock days of training (days). Enters C linearly.",
                    .get = [](const S& s) { return s.days; },
                    .set = [](S& s, double v) { s.days = v; }},
      ScenarioInput{.key = "budget.mfu",
                    .section = "budget",
                    .json_key = "mfu",
                    .flag = plan_input_info("mfu").flag,
                    .label = plan_input_info("mfu").label,
                    .unit = plan_input_info("mfu").unit,
                    .display_unit = "%",
                    .default_value = 0.4,
                    .lo = 0.001,
                    .hi = 1.0,
                    .slider_lo = 0.10,
                    .slider_hi = 0.70,
                    .ladder = Ladder::multipleOf(0.01),
                    .display_factor = 100,
                    .tooltip = plan_input_info("mfu").description,
                    .get = [](const S& s) { return s.mfu; },
                    .set = [](S& s, double v) { s.mfu = v; }},
      ScenarioInput{.key = "budget.price_per_chip_hour_dollars",
                    .section = "budget",
                    .json_key = "price_per_chip_hour_dollars",
                    .flag = plan_input_info("price_per_chip_hour_dollars").flag,
                    .label = plan_input_info("price_per_chip_hour_dollars").label,
                    .unit = plan_input_info("price_per_chip_hour_dollars").unit,
                    .display_unit = "$/chip-h",
                    .default_value = 2.5,
                    .lo = 0,
                    .hi = 10'000,
                    .slider_lo = 0.10,
                    .slider_hi = 20,
                    .scale = InputScale::log,
                    .ladder = Ladder::significant(2),
                    .decimals = 2,
                    .tooltip = plan_input_info("price_per_chip_hour_dollars").description,
                    .get = [](const S& s) { return s.price_per_chip_hour_dollars; },
                    .set = [](S& s, double v) { s.price_per_chip_hour_dollars = v; }},
      ScenarioInput{.key = "budget.kwh_price_dollars",
                    .section = "budget",
                    .json_key = "kwh_price_dollars",
                    .flag = "--kwh-price",
                    .label = "Energy price",
                    .unit = "$ per kWh",
                    .display_unit = "$/kWh",
                    .default_value = 0.12,
                    .lo = 0,
                    .hi = 100,
                    .slider_lo = 0.01,
                    .slider_hi = 0.50,
                    .ladder = Ladder::multipleOf(0.01),
                    .decimals = 3,
                    .tooltip =
                        "Electricity price ($ per kWh) at the wall (× PUE). Default $0.12, a US "
                        "industrial average.",
                    .get = [](const S& s) { return s.kwh_price_dollars; },
                    .set = [](S& s, double v) { s.kwh_price_dollars = v; }},
      ScenarioInput{
          .key = "budget.pue",
          .section = "budget",
          .json_key = "pue",
          .flag = "--pue",
          .label = "PUE",
          .unit = "facility W per IT W",
          .display_unit = "",
          .default_value = 1.2,
          .lo = 1.0,
          .hi = 5.0,
          .slider_lo = 1.0,
          .slider_hi = 2.0,
          .ladder = Ladder::multipleOf(0.01),
          .decimals = 2,
          .tooltip = "Power usage effectiveness (facility W per IT W): cooling and power delivery "
                     "on top of the chips' own draw. 1.1–1.4 for modern data centres.",
          .get = [](const S& s) { return s.pue; },
          .set = [](S& s, double v) { s.pue = v; }},
      ScenarioInput{
          .key = "budget.tokens_per_param",
          .section = "budget",
          .json_key = "tokens_per_param",
          .flag = "--tokens-per-param",
          .label = "Tokens/param",
          .unit = "tokens per parameter",
          .display_unit = "",
          .default_value = 20,
          .lo = 0.01,
          .hi = 1e6,
          .slider_lo = 1,
          .slider_hi = 1000,
          .scale = InputScale::log,
          .ladder = Ladder::significant(2),
          .decimals = 1,
          .tooltip = "Chinchilla ratio r (tokens per parameter): N = √(C / 6r), D = r·N. Default "
                     "20 (Hoffmann et al. 2022).",
          .get = [](const S& s) { return s.tokens_per_param; },
          .set = [](S& s, double v) { s.tokens_per_param = v; }},
      ScenarioInput{.key = "budget.tokens_available",
                    .section = "budget",
                    .json_key = "tokens_available",
                    .flag = plan_input_info("tokens_available").flag,
                    .label = plan_input_info("tokens_available").label,
                    .unit = plan_input_info("tokens_available").unit,
                    .display_unit = "",
                    .default_value = 15e12,
                    .lo = 1,
                    .hi = kMaxTrainTokens,
                    .slider_lo = 1e10,
                    .slider_hi = 1e15,
                    .scale = InputScale::log,
                    .ladder = Ladder::significant(2),
                    .decimals = 2,
                    .scientific = true,
                    .tooltip = plan_input_info("tokens_available").description,
                    .get = [](const S& s) { return s.tokens_available; },
                    .set = [](S& s, double v) { s.tokens_available = v; }},
      ScenarioInput{.key = "training.dp_degree",
                    .section = "training",
                    .json_key = "dp_degree",
                    .flag = "",
                    .label = "DP degree",
                    .unit = "replicas",
                    .display_unit = "",
                    .type = InputType::count,
                    .default_value = 64,
                    .lo = 1,
                    .hi = kMaxChips,
                    .slider_lo = 1,
                    .slider_hi = 100'000,
                    .scale = InputScale::log,
                    .ladder = Ladder::powersOfTwo(),
                    .tooltip = "Data-parallel replicas sharing the ZeRO shards (replicas).",
                    .get = [](const S& s) { return static_cast<double>(s.training.dp_degree); },
                    .set = [](S& s, double v) { s.training.dp_degree = std::llround(v); }},
      ScenarioInput{.key = "training.micro_batch",
                    .section = "training",
                    .json_key = "micro_batch",
                    .flag = "",
                    .label = "Micro-batch",
                    .unit = "sequences",
                    .display_unit = "seq",
                    .type = InputType::count,
                    .default_value = 1,
                    .lo = 1,
                    .hi = 1'000'000,
                    .slider_lo = 1,
                    .slider_hi = 512,
                    .scale = InputScale::log,
                    .ladder = Ladder::powersOfTwo(),
                    .tooltip = "Sequences per device per step; activation bytes scale with it.",
                    .get = [](const S& s) { return static_cast<double>(s.training.micro_batch); },
                    .set = [](S& s, double v) { s.training.micro_batch = std::llround(v); }},
      ScenarioInput{
          .key = "training.seq_len",
          .section = "training",
          .json_key = "seq_len",
          .flag = "--seq",
          .label = "Train sequence",
          .unit = "tokens",
          .display_unit = "tokens",
          .type = InputType::count,
          .default_value = 8192,
          .lo = 1,
          .hi = 100'000'000,
          .slider_lo = 128,
          .slider_hi = 1'048'576,
          .scale = InputScale::log,
          .ladder = Ladder::powersOfTwo(),
          .tooltip = "Training sequence length T (tokens): activations ∝ T, attention FLOPs ∝ T².",
          .get = [](const S& s) { return static_cast<double>(s.training.seq_len); },
          .set = [](S& s, double v) { s.training.seq_len = std::llround(v); }},
      // 0 is the planner's own choice (tokens per parameter × N); a control
      // shows that number until one is typed.
      ScenarioInput{.key = "plan.train_tokens",
                    .section = "plan",
                    .json_key = "train_tokens",
                    .flag = plan_input_info("train_tokens").flag,
                    .label = plan_input_info("train_tokens").label,
                    .unit = plan_input_info("train_tokens").unit,
                    .display_unit = "",
                    .default_value = 0,
                    .lo = 0,
                    .hi = kMaxTrainTokens,
                    .slider_lo = 1e9,
                    .slider_hi = 1e15,
                    .scale = InputScale::log,
                    .ladder = Ladder::significant(2),
                    .decimals = 2,
                    .scientific = true,
                    .tooltip = plan_input_info("train_tokens").description,
                    .special_text = "tokens per parameter × N",
                    .get = [](const S& s) { return s.plan.train_tokens; },
                    .set = [](S& s, double v) { s.plan.train_tokens = v; }},
      ScenarioInput{
          .key = "plan.moe_experts",
          .section = "plan",
          .json_key = "moe_experts",
          .flag = "--experts",
          .label = "MoE experts",
          .compare_name = "MoE candidate: experts",
          .unit = "routed experts",
          .display_unit = "",
          .type = InputType::count,
          .default_value = 1,
          .lo = 1,
          .hi = 4096,
          .slider_lo = 1,
          .slider_hi = 256,
          .tooltip =
              "Routed experts of the MoE candidate the Budget planner weighs against the dense "
              "answer at the same compute and serving limit (1: no MoE candidate). Loss from "
              "Ludziejewski et al. 2025's joint law (fitted up to 32 experts of FFN size).",
          .get = [](const S& s) { return static_cast<double>(s.plan.moe.experts); },
          .set = [](S& s, double v) { s.plan.moe.experts = std::llround(v); }},
      ScenarioInput{.key = "plan.moe_top_k",
                    .section = "plan",
                    .json_key = "moe_top_k",
                    .flag = "--top-k",
                    .label = "MoE top-k",
                    .compare_name = "MoE candidate: top-k",
                    .unit = "experts per token",
                    .display_unit = "",
                    .type = InputType::count,
                    .default_value = 1,
                    .lo = 1,
                    .hi = 4096,
                    .slider_lo = 1,
                    .slider_hi = 64,
                    .tooltip =
                        "Experts each token is routed to (at most the experts). The joint law "
                        "reads the expansion (experts + shared) / (top-k + shared).",
                    .get = [](const S& s) { return static_cast<double>(s.plan.moe.top_k); },
                    .set = [](S& s, double v) { s.plan.moe.top_k = std::llround(v); }},
      ScenarioInput{
          .key = "plan.moe_granularity",
          .section = "plan",
          .json_key = "moe_granularity",
          .flag = "--granularity",
          .label = "MoE granularity",
          .compare_name = "MoE candidate: granularity",
          .unit = "experts per dense FFN",
          .display_unit = "",
          .type = InputType::count,
          .default_value = 1,
          .lo = 1,
          .hi = 64,
          .slider_lo = 1,
          .slider_hi = 64,
          .tooltip =
              "Each expert is 1/G of the dense FFN (Krajewski et al. 2024). Recorded with the "
              "shape; the joint law was fitted at granularity 1 and does not credit it.",
          .get = [](const S& s) { return static_cast<double>(s.plan.moe.granularity); },
          .set = [](S& s, double v) { s.plan.moe.granularity = std::llround(v); }},
      ScenarioInput{
          .key = "plan.moe_shared_experts",
          .section = "plan",
          .json_key = "moe_shared_experts",
          .flag = "--shared-experts",
          .label = "MoE shared experts",
          .compare_name = "MoE candidate: shared experts",
          .unit = "experts",
          .display_unit = "",
          .type = InputType::count,
          .default_value = 0,
          .lo = 0,
          .hi = 64,
          .slider_lo = 0,
          .slider_hi = 8,
          .tooltip =
              "Experts every token uses besides its top-k (DeepSeek-MoE): active and stored.",
          .get = [](const S& s) { return static_cast<double>(s.plan.moe.shared_experts); },
          .set = [](S& s, double v) { s.plan.moe.shared_experts = std::llround(v); }},
  };
  return kInputs;
}

// A bound or a value as a number is written, at `factor` to the document's
// unit (the control's display factor, or 1 for a flag in the document's unit).
std::string bound_text(double v, double factor) {
  const double shown = v * factor;
  if (shown == std::floor(shown)) {
    if (std::abs(shown) < 1e15) return format_grouped(shown, 0);
    return format_sci(shown, 0);
  }
  if (std::abs(shown) >= 1e6 || std::abs(shown) < 1e-3) return format_sci(shown, 2);
  return format_value(shown);
}

std::string bound_text(const ScenarioInput& in, double v) {
  return bound_text(v, in.display_factor);
}

// "0.001 – 1 fraction of peak": the accepted range at `factor`, in `unit`.
std::string range_text(const ScenarioInput& in, double factor, std::string_view unit) {
  std::string text = bound_text(in.lo, factor) + " – " + bound_text(in.hi, factor);
  if (!unit.empty()) text.append(" ").append(unit);
  return text;
}

std::string accepted_text(const ScenarioInput& in, double factor, std::string_view unit) {
  return (in.type == InputType::count ? "a whole number in " : "a number in ") +
         range_text(in, factor, unit);
}

}  // namespace

std::span<const ScenarioInput> scenario_inputs() {
  // This file's table with the Parallelism panel's before the plan's, then
  // goodput, the model's shape, the serving set-up, the Serving layout tab's
  // benchmark run, then the IsoFLOPs, MoE router and Roofline panels'.
  static const std::vector<ScenarioInput> all = [] {
    const auto& base = base_inputs();
    const auto plan = std::find_if(base.begin(), base.end(),
                                   [](const ScenarioInput& in) { return in.section == "plan"; });
    std::vector<ScenarioInput> v(base.begin(), plan);
    const std::span<const ScenarioInput> parallel = detail::parallel_inputs();
    v.insert(v.end(), parallel.begin(), parallel.end());
    v.insert(v.end(), plan, base.end());
    for (const std::span<const ScenarioInput> part :
         {detail::goodput_inputs(), detail::model_inputs(), detail::serving_inputs(),
          detail::serving_run_inputs(), detail::isoflops_inputs(), detail::moe_router_inputs(),
          detail::roofline_inputs()})
      v.insert(v.end(), part.begin(), part.end());
    return v;
  }();
  return all;
}

const ScenarioInput& scenario_input(std::string_view key) {
  return entry_with_key(scenario_inputs(), "scenario input", key);
}

const ScenarioInput* scenario_input_by_flag(std::string_view flag) {
  for (const ScenarioInput& in : scenario_inputs())
    if (!in.flag.empty() && in.flag == flag) return &in;
  return nullptr;
}

std::vector<std::string_view> scenario_command_inputs(std::string_view command) {
  if (command == "parallel")
    return {"hardware.chips",
            "training.seq_len",
            "parallel.gpus_per_node",
            "parallel.scale_up_gb_per_s",
            "parallel.scale_out_gb_per_s",
            "parallel.non_tensor_gb",
            "model.layers",
            "model.d_model",
            "model.d_ff",
            "model.heads",
            "model.kv_heads",
            "model.head_dim",
            "model.vocab"};
  if (command == "isoflops") return {"hardware.chips", "budget.days", "budget.mfu"};
  std::vector<std::string_view> keys;
  if (command == "budget" || command == "serve" || command == "report")
    for (const ScenarioInput& in : scenario_inputs())
      if (!in.flag.empty() &&
          (command == "report" ||
           in.section.starts_with("roofline.serving_layout") == (command == "serve")))
        keys.push_back(in.key);
  return keys;
}

bool input_is_set(const ScenarioInput& in, const Scenario& s) {
  return in.is_set == nullptr || in.is_set(s);
}

void edit_input(Scenario& s, const ScenarioInput& in, double value) {
  in.set(s, value);
  if (in.edited) in.edited(s);
}

std::string_view input_compare_name(const ScenarioInput& in) {
  return in.compare_name.empty() ? in.label : in.compare_name;
}

std::string_view input_shown_unit(const ScenarioInput& in) {
  return in.display_unit.empty() ? in.unit : in.display_unit;
}

std::string input_range_text(const ScenarioInput& in) {
  return range_text(in, in.display_factor, input_shown_unit(in));
}

std::string input_accepted_text(const ScenarioInput& in) {
  return accepted_text(in, in.display_factor, input_shown_unit(in));
}

namespace {

// The whole number a factor below 1 is the inverse of (1e9 for 1e-9), or 0.
// Dividing by it keeps round numbers round: 2.5e8 bytes/s is 0.25 GB/s and
// back, where multiplying by 1e-9 gives 0.25000000000000006.
double whole_inverse(double factor) {
  if (!(factor > 0 && factor < 1)) return 0;
  const double inverse = std::round(1.0 / factor);
  return std::abs(inverse * factor - 1.0) < 1e-12 ? inverse : 0;
}

}  // namespace

double input_from_flag(const ScenarioInput& in, double flag_value) {
  if (!in.flag_in_shown_unit) return flag_value;
  const double inverse = whole_inverse(in.display_factor);
  return inverse > 0 ? flag_value * inverse : flag_value / in.display_factor;
}

double input_flag_value(const ScenarioInput& in, double value) {
  if (!in.flag_in_shown_unit) return value;
  const double inverse = whole_inverse(in.display_factor);
  return inverse > 0 ? value / inverse : value * in.display_factor;
}

std::string input_flag_accepted_text(const ScenarioInput& in) {
  return in.flag_in_shown_unit || in.display_factor == 1 ? input_accepted_text(in)
                                                         : accepted_text(in, 1.0, in.unit);
}

void check_input(const ScenarioInput& in, double value, std::string_view as_named) {
  const bool whole = in.type == InputType::real || value == std::floor(value);
  if (std::isfinite(value) && value >= in.lo && value <= in.hi && whole) return;
  const std::string name(as_named.empty() ? in.label : as_named);
  const std::string_view unit = input_shown_unit(in);
  const std::string found = std::isfinite(value) ? bound_text(in, value) : format_value(value);
  const std::string accepted = input_accepted_text(in);
  throw InputError(std::string(in.key),
                   name + " (" + std::string(unit) + ") must be " + accepted + "; got " + found);
}

void check_inputs(const Scenario& s) {
  for (const ScenarioInput& in : scenario_inputs())
    if (input_is_set(in, s)) check_input(in, in.get(s), in.key);
}

}  // namespace napkin
