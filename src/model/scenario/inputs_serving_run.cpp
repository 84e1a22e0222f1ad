// The Serving layout tab's benchmark run (roofline.serving_layout.run_*):
// the four numbers `napkin-cli serve --mode` takes as flags, registered with
// the rest of the scenario's inputs (inputs.h). Their ranges are the run's
// own (roofline_settings.h), which RooflineSettings::validate also applies.
#include <array>
#include <cmath>
#include <cstdint>
#include <string_view>

#include "inputs_detail.h"
#include "scenario.h"

namespace napkin::detail {

namespace {

using S = Scenario;

constexpr std::string_view kSpreadTooltip =
    "The requests' lengths are uniform within this many tokens either side of the serving "
    "turn's (tokens); 0: fixed. It must stay below the turn's length.";

// A spread of the requests' lengths (prompt or output) around the turn's.
template <std::int64_t ServingLayoutSettings::*Member>
ScenarioInput spread_input(std::string_view key, std::string_view json_key, std::string_view flag,
                           std::string_view label, std::string_view compare_name) {
  return ScenarioInput{
      .key = key,
      .section = "roofline.serving_layout",
      .json_key = json_key,
      .flag = flag,
      .label = label,
      .compare_name = compare_name,
      .unit = "tokens",
      .display_unit = "tokens",
      .type = InputType::count,
      .default_value = 0,
      .lo = 0,
      .hi = static_cast<double>(kMaxRunSpreadTokens),
      .slider_lo = 0,
      .slider_hi = 8'192,
      .ladder = Ladder::multipleOf(16),
      .tooltip = kSpreadTooltip,
      .get = [](const S& s) { return static_cast<double>(s.roofline.serving_layout.*Member); },
      .set = [](S& s, double v) { s.roofline.serving_layout.*Member = std::llround(v); }};
}

}  // namespace

std::span<const ScenarioInput> serving_run_inputs() {
  static const std::array kRun{
      ScenarioInput{
          .key = "roofline.serving_layout.run_request_rate_per_second",
          .section = "roofline.serving_layout",
          .json_key = "run_request_rate_per_second",
          .flag = "--request-rate",
          .label = "Request rate",
          .compare_name = "Roofline: benchmark request rate",
          .unit = "requests per second",
          .display_unit = "req/s",
          .default_value = 1.0,
          .lo = kMinRunRequestRatePerSecond,
          .hi = kMaxRunRequestRatePerSecond,
          .slider_lo = 0.01,
          .slider_hi = 1000,
          .scale = InputScale::log,
          .ladder = Ladder::oneTwoFive(),
          .decimals = 2,
          .tooltip = "Server mode: Poisson arrivals per second (requests per second).",
          .get = [](const S& s) { return s.roofline.serving_layout.run_request_rate_per_second; },
          .set = [](S& s, double v) { s.roofline.serving_layout.run_request_rate_per_second = v; }},
      ScenarioInput{
          .key = "roofline.serving_layout.run_requests",
          .section = "roofline.serving_layout",
          .json_key = "run_requests",
          .flag = "--requests",
          .label = "Requests",
          .compare_name = "Roofline: benchmark requests",
          .unit = "requests",
          .display_unit = "",
          .type = InputType::count,
          .default_value = 1000,
          .lo = 1,
          .hi = static_cast<double>(kMaxRunRequests),
          .slider_lo = 10,
          .slider_hi = static_cast<double>(kMaxRunRequests),
          .scale = InputScale::log,
          .ladder = Ladder::oneTwoFive(),
          .tooltip = "Requests the offline or server run simulates (requests); at most 20 "
                     "million output tokens in all.",
          .get =
              [](const S& s) {
                return static_cast<double>(s.roofline.serving_layout.run_requests);
              },
          .set = [](S& s, double v) { s.roofline.serving_layout.run_requests = std::llround(v); }},
      spread_input<&ServingLayoutSettings::run_prompt_spread_tokens>(
          "roofline.serving_layout.run_prompt_spread_tokens", "run_prompt_spread_tokens",
          "--prompt-spread", "Prompt spread", "Roofline: benchmark prompt spread"),
      spread_input<&ServingLayoutSettings::run_output_spread_tokens>(
          "roofline.serving_layout.run_output_spread_tokens", "run_output_spread_tokens",
          "--output-spread", "Output spread", "Roofline: benchmark output spread"),
  };
  return kRun;
}

}  // namespace napkin::detail
