// The serving set-up (serving.*): the context each request keeps, the tokens
// served over the model's life, the serving deployment and its price, and
// the interactive turn the latency limit is set from (batch, prompt and
// decode tokens, the budget and the fixed overhead) — registered with the
// rest of the scenario's inputs (inputs.h), so that the Budget planner's and
// the Roofline's controls, the scenario file, budget's, serve's and
// roofline's flags take the same values.
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "inputs_detail.h"
#include "plan_inputs.h"
#include "scenario.h"

namespace napkin::detail {

namespace {

using S = Scenario;

}  // namespace

std::span<const ScenarioInput> serving_inputs() {
  static const std::array kServing{
      ScenarioInput{
          .key = "serving.context_len",
          .section = "serving",
          .json_key = "context_len",
          .flag = "",
          .label = "Context",
          .compare_name = "Serving context",
          .unit = "tokens",
          .display_unit = "tokens",
          .type = InputType::count,
          .default_value = 8192,
          .lo = 1,
          .hi = 100'000'000,
          .slider_lo = 256,
          .slider_hi = 1'048'576,
          .scale = InputScale::log,
          .ladder = Ladder::powersOfTwo(),
          .tooltip = "Tokens in each served request's KV cache (tokens): 2·L·n_kv·d_head·T values "
                     "per request at the KV precision, read every decode step.",
          .get = [](const S& s) { return static_cast<double>(s.serving.context_len); },
          .set = [](S& s, double v) { s.serving.context_len = std::llround(v); }},
      ScenarioInput{
          .key = "serving.served_tokens",
          .section = "serving",
          .json_key = "served_tokens",
          .flag = "--served-tokens",
          .label = "Served tokens",
          .unit = "tokens",
          .display_unit = "",
          .default_value = 1e14,
          .lo = 0,
          .hi = 1e22,
          .slider_lo = 1e9,
          .slider_hi = 1e17,
          .scale = InputScale::log,
          .ladder = Ladder::significant(2),
          .decimals = 2,
          .scientific = true,
          .tooltip = "Tokens the model serves over its life (tokens). Lifetime FLOPs = 6N·D_train "
                     "+ 2N·D_served: more serving favours a smaller model trained longer.",
          .get = [](const S& s) { return s.serving.served_tokens; },
          .set = [](S& s, double v) { s.serving.served_tokens = v; }},
      ScenarioInput{.key = "serving.chips",
                    .section = "serving",
                    .json_key = "chips",
                    .flag = plan_input_info("serving_chips").flag,
                    .label = plan_input_info("serving_chips").label,
                    .unit = plan_input_info("serving_chips").unit,
                    .display_unit = "",
                    .type = InputType::count,
                    .default_value = 8,
                    .lo = 1,
                    .hi = 4096,
                    .slider_lo = 1,
                    .slider_hi = 4096,
                    .scale = InputScale::log,
                    .ladder = Ladder::powersOfTwo(),
                    .tooltip = plan_input_info("serving_chips").description,
                    .get = [](const S& s) { return static_cast<double>(s.serving.chips); },
                    .set = [](S& s, double v) { s.serving.chips = std::llround(v); }},
      ScenarioInput{.key = "serving.price_per_chip_hour_dollars",
                    .section = "serving",
                    .json_key = "price_per_chip_hour_dollars",
                    .flag = "--serving-price",
                    .label = "Serving price",
                    .unit = "$ per chip-hour",
                    .display_unit = "$/chip-h",
                    .default_value = 2.5,
                    .lo = 0,
                    .hi = 10'000,
                    .slider_lo = 0.10,
                    .slider_hi = 20,
                    .scale = InputScale::log,
                    .ladder = Ladder::significant(2),
                    .decimals = 2,
                    .tooltip =
                        "Rental price of one serving chip for one hour ($ per chip-hour). Lifetime "
                        "dollars = training chip-hours × the training price + served tokens ÷ the "
                        "serving layout's tokens per chip-hour × this price, energy at the wall on "
                        "both. Default $2.50, the training default.",
                    .get = [](const S& s) { return s.serving.price_per_chip_hour_dollars; },
                    .set = [](S& s, double v) { s.serving.price_per_chip_hour_dollars = v; }},
      ScenarioInput{.key = "serving.batch",
                    .section = "serving",
                    .json_key = "batch",
                    .flag = "--serving-batch",
                    .label = "Batch",
                    .compare_name = "Serving batch",
                    .unit = "requests",
                    .display_unit = "req",
                    .type = InputType::count,
                    .default_value = 8,
                    .lo = 1,
                    .hi = 1'000'000,
                    .slider_lo = 1,
                    .slider_hi = 1024,
                    .scale = InputScale::log,
                    .ladder = Ladder::powersOfTwo(),
                    .tooltip = "Concurrent decode requests (requests). One decode step reads the "
                               "weights once for the batch plus every request's KV cache.",
                    .get = [](const S& s) { return static_cast<double>(s.serving.batch); },
                    .set = [](S& s, double v) { s.serving.batch = std::llround(v); }},
      ScenarioInput{.key = "serving.prompt_tokens",
                    .section = "serving",
                    .json_key = "prompt_tokens",
                    .flag = "--prompt-tokens",
                    .label = "Prompt tokens",
                    .unit = "tokens",
                    .display_unit = "tokens",
                    .type = InputType::count,
                    .default_value = 8192,
                    .lo = 1,
                    .hi = 100'000'000,
                    .slider_lo = 1,
                    .slider_hi = 1'048'576,
                    .scale = InputScale::log,
                    .ladder = Ladder::powersOfTwo(),
                    .tooltip =
                        "Incremental prefill per turn (tokens). Prefill s = 2N·T ÷ (chips × peak × "
                        "MFU): 2N per token, forward only.",
                    .get = [](const S& s) { return static_cast<double>(s.serving.prompt_tokens); },
                    .set = [](S& s, double v) { s.serving.prompt_tokens = std::llround(v); }},
      ScenarioInput{.key = "serving.decode_tokens",
                    .section = "serving",
                    .json_key = "decode_tokens",
                    .flag = "--decode-tokens",
                    .label = "Decode tokens",
                    .unit = "tokens",
                    .display_unit = "tokens",
                    .type = InputType::count,
                    .default_value = 128,
                    .lo = 1,
                    .hi = 100'000'000,
                    .slider_lo = 1,
                    .slider_hi = 16384,
                    .scale = InputScale::log,
                    .ladder = Ladder::powersOfTwo(),
                    .tooltip =
                        "Generated tokens per turn (tokens). Decode s = tokens × (weight bytes + "
                        "B·KV bytes) ÷ (chips × HBM bandwidth).",
                    .get = [](const S& s) { return static_cast<double>(s.serving.decode_tokens); },
                    .set = [](S& s, double v) { s.serving.decode_tokens = std::llround(v); }},
      ScenarioInput{
          .key = "serving.latency_budget_seconds",
          .section = "serving",
          .json_key = "latency_budget_seconds",
          .flag = "--latency-budget-s",
          .label = "Latency budget",
          .unit = "seconds",
          .display_unit = "s",
          .default_value = 1.0,
          .lo = 1e-6,
          .hi = 1e6,
          .slider_lo = 0.05,
          .slider_hi = 60,
          .scale = InputScale::log,
          .ladder = Ladder::significant(2),
          .decimals = 2,
          .tooltip = "Wall-clock budget for one interactive turn (seconds). Chips for the budget "
                     "= smallest power-of-two slice meeting it; impossible when budget ≤ "
                     "overhead.",
          .get = [](const S& s) { return s.serving.latency_budget_seconds; },
          .set = [](S& s, double v) { s.serving.latency_budget_seconds = v; }},
      ScenarioInput{.key = "serving.overhead_seconds",
                    .section = "serving",
                    .json_key = "overhead_seconds",
                    .flag = "--overhead-s",
                    .label = "Overhead",
                    .compare_name = "Turn overhead",
                    .unit = "seconds",
                    .display_unit = "s",
                    .default_value = 0.25,
                    .lo = 0,
                    .hi = 1e6,
                    .slider_lo = 0,
                    .slider_hi = 5,
                    .ladder = Ladder::multipleOf(0.01),
                    .decimals = 2,
                    .tooltip =
                        "Fixed time per turn no hardware removes (seconds): scaffolding, load "
                        "balancing, validation. The seed's agent: 0.25 s.",
                    .get = [](const S& s) { return s.serving.overhead_seconds; },
                    .set = [](S& s, double v) { s.serving.overhead_seconds = v; }},
  };
  return kServing;
}

}  // namespace napkin::detail
