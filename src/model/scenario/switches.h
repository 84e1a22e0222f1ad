// Every on/off switch of the scenario described once, as the numbers are in
// inputs.h and the choices in choices.h: its document key, JSON key, the
// napkin-cli flag that turns it from its default, the check box's label (and
// which state ticks it), the comparison's name, the tooltip and the default.
// The check boxes, the file's reader and writer, the flags and the diff all
// read this table.
#pragma once

#include <span>
#include <string_view>

#include "scenario.h"

namespace napkin {

struct ScenarioSwitch {
  std::string_view key;       // the document path: "moe.renormalize"
  std::string_view section;   // the JSON object it is in: "moe"
  std::string_view json_key;  // its key there: "renormalize"
  // napkin-cli's flag ("" when none): given, the switch takes `flag_sets`,
  // which is never the default ("--raw-gates" sets renormalize off).
  std::string_view flag = {};
  bool flag_sets = true;
  std::string_view label;  // the check box's: "Renormalized gates"
  // The check box is ticked when the switch is this: false for a box that
  // says what turning it off means ("α = 0 (no balance loss)").
  bool ticked_when = true;
  std::string_view compare_name;  // what a comparison calls it: "MoE: renormalized gates"
  std::string_view tooltip;
  bool default_on = false;  // a new scenario's state
  // A switch the file spells as a word, not true or false: the words for on
  // and off ("asynchronous", "synchronous"); empty: a JSON boolean.
  std::string_view json_on = {};
  std::string_view json_off = {};
  bool (*get)(const Scenario&) = nullptr;
  void (*set)(Scenario&, bool) = nullptr;
};

// In document order.
std::span<const ScenarioSwitch> scenario_switches();
// The switch with this document key; throws std::invalid_argument naming it.
const ScenarioSwitch& scenario_switch(std::string_view key);

}  // namespace napkin
