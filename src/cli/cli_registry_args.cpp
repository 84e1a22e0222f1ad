// Args' accessors of what the scenario's registries describe (inputs.h,
// choices.h): a registered input's value with its default, as a count, and a
// registered choice's option.
#include <map>
#include <mutex>

#include "choices.h"
#include "cli_common.h"
#include "inputs.h"
#include "switches.h"

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

std::optional<std::string> Args::optional_choice_input(std::string_view choice_key,
                                                       std::string_view flag) {
  const ScenarioChoice& c = scenario_choice(choice_key);
  if (flag.empty()) flag = c.flag;
  const auto v = value(flag);
  if (!v) return std::nullopt;
  try {
    return choice_option(c, *v, flag).name;
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

std::string Args::choice_input(std::string_view choice_key, std::string_view fallback,
                               std::string_view flag) {
  if (auto v = optional_choice_input(choice_key, flag)) return *v;
  return std::string(fallback.empty() ? scenario_choice(choice_key).default_name : fallback);
}

bool Args::switch_input(std::string_view switch_key) {
  const ScenarioSwitch& w = scenario_switch(switch_key);
  return flag(w.flag) ? w.flag_sets : w.default_on;
}

std::string choice_usage(std::string_view choice_key) {
  return choice_names(scenario_choice(choice_key), "|");
}

const char* usage_with_choices(const char* usage) {
  static std::mutex lock;
  static std::map<const char*, std::string> expanded;
  const std::lock_guard<std::mutex> hold(lock);
  auto [it, added] = expanded.try_emplace(usage);
  if (added) {
    std::string text = usage;
    for (std::size_t open = text.find('{'); open != std::string::npos;
         open = text.find('{', open + 1)) {
      const std::size_t close = text.find('}', open);
      if (close == std::string::npos) break;
      const std::string options = choice_usage(text.substr(open + 1, close - open - 1));
      text.replace(open, close - open + 1, options);
    }
    it->second = std::move(text);
  }
  return it->second.c_str();
}

}  // namespace napkin::cli
