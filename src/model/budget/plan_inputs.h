// What each planning input means, for tooltips, help text and the report:
// its unit and where its default comes from. One table; the panel, the CLI
// and the memo read it.
#pragma once

#include <span>
#include <string_view>

namespace napkin {

struct InputInfo {
  std::string_view key;    // the Scenario / JSON field name
  std::string_view flag;   // the napkin-cli flag, empty when there is none
  std::string_view label;  // short, for a control
  std::string_view unit;
  std::string_view description;  // one or two sentences with the source of the default
};

std::span<const InputInfo> plan_input_info();
// Throws std::invalid_argument for an unknown key.
const InputInfo& plan_input_info(std::string_view key);

}  // namespace napkin
