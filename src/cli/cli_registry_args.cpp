// Args' accessors of what the scenario's registries describe (inputs.h,
// choices.h): a registered input's value with its default, as a count, and a
// registered choice's option.
#include "choices.h"
#include "cli_common.h"
#include "inputs.h"

namespace napkin::cli {

double Args::input(std::string_view input_key, std::string_view flag) {
  return optional_input(input_key, flag).value_or(scenario_input(input_key).default_value);
}

std::optional<std::int64_t> Args::optional_count_input(std::string_view input_key,
                                                       std::string_view flag) {
  const auto v = optional_input(input_key, flag);
  if (!v) return std::nullopt;
  return static_cast<std::int64_t>(*v);  // whole and in range: checked
}

std::int64_t Args::count_input(std::string_view input_key, std::string_view flag) {
  return static_cast<std::int64_t>(input(input_key, flag));
}

std::int64_t Args::required_count_input(std::string_view input_key, std::string_view flag) {
  const auto v = optional_count_input(input_key, flag);
  if (!v) {
    const ScenarioInput& in = scenario_input(input_key);
    throw UsageError(std::string(flag.empty() ? in.flag : flag) +
                     " is required: " + input_flag_accepted_text(in));
  }
  return *v;
}

std::optional<std::string> Args::optional_choice_input(std::string_view choice_key) {
  const ScenarioChoice& c = scenario_choice(choice_key);
  const auto v = value(c.flag);
  if (!v) return std::nullopt;
  try {
    return choice_option(c, *v, c.flag).name;
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

std::string Args::choice_input(std::string_view choice_key, std::string_view fallback) {
  if (auto v = optional_choice_input(choice_key)) return *v;
  return std::string(fallback.empty() ? scenario_choice(choice_key).default_name : fallback);
}

}  // namespace napkin::cli
