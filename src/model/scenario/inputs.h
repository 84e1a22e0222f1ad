// Every numeric input of the scenario that a person sets, described once: its
// key in the document, its JSON key, its napkin-cli flag, its label and unit,
// its default, the range a typed, flagged or loaded value must lie in, where a
// slider spans and lands, and its tooltip with the source of the default.
// The GUI's controls, the CLI's flags, the scenario JSON reader, validate(),
// the report and the comparison read this table; nothing else writes these
// defaults or ranges.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "nice_numbers.h"

namespace napkin {

struct Scenario;

enum class InputType { count, real };
enum class InputScale { linear, log };

struct ScenarioInput {
  std::string_view key;       // the document path: "hardware.chips"
  std::string_view section;   // the JSON object it is in: "hardware"
  std::string_view json_key;  // its key there: "chips"
  std::string_view flag;      // napkin-cli's flag, "--chips" ("" when none)
  std::string_view label;     // for a control: "Chips"
  // What a comparison of two plans and an undo step call it when the label
  // needs its panel beside it ("Parallelism: global batch"); "" = the label.
  std::string_view compare_name = {};
  std::string_view unit;  // "chips", "days", "fraction of peak"
  // After the number in a control ("%" for a fraction shown in percent); ""
  // shows none (the label says it: "Chips", "PUE").
  std::string_view display_unit;
  InputType type = InputType::real;
  double default_value = 0;
  // Accepted: every typed, flagged or loaded value in [lo, hi].
  double lo = 0, hi = 0;
  // Where the slider spans (within [lo, hi]) and the values it lands on; a
  // typed value outside the slider's span is accepted while inside [lo, hi].
  double slider_lo = 0, slider_hi = 0;
  InputScale scale = InputScale::linear;
  Ladder ladder = {};
  int decimals = 0;           // digits a control shows after the point
  double display_factor = 1;  // shown = value × factor (100 for a fraction in %)
  bool scientific = false;    // shown as 1.5e+13
  std::string_view tooltip;   // what it means, the formula, the source of the default
  // What a control shows instead of the number when the value is `lo` and
  // `lo` means something else ("estimated" for a measured figure left at 0);
  // "" shows the number.
  std::string_view special_text = {};
  double (*get)(const Scenario&) = nullptr;
  void (*set)(Scenario&, double) = nullptr;
  // What a person's edit of this input (a control, a flag beside --scenario;
  // not a file being read) also changes, after set(): a model-shape input
  // renames the model "Custom". nullptr: nothing.
  void (*edited)(Scenario&) = nullptr;
  // An input the document may leave unset (null in the file; no flag given):
  // its value is then derived where it is used ("from the storage
  // bandwidth"), and unset_text says so. is_set tells whether it is set,
  // clear unsets it; get() of an unset input gives a placeholder (0) that
  // no reader shows. nullptr: the input always has a value.
  bool (*is_set)(const Scenario&) = nullptr;
  void (*clear)(Scenario&) = nullptr;
  std::string_view unset_text = {};
  // What number the flag takes: false, the value in `unit`, as the document
  // stores it (--mfu 0.4); true, as the control shows it, in `display_unit`
  // (--storage-gb-per-s-per-chip 0.122 for 1.22e8 bytes/s).
  bool flag_in_shown_unit = false;
};

// A value outside an input's accepted range. `key` is the input's document
// key, so a front end can name it in its own words (a flag, a control).
struct InputError : std::invalid_argument {
  InputError(std::string input_key, const std::string& message)
      : std::invalid_argument(message), key(std::move(input_key)) {}
  std::string key;
};

// In document order.
std::span<const ScenarioInput> scenario_inputs();
// The input with this document key; throws std::invalid_argument naming it.
const ScenarioInput& scenario_input(std::string_view key);
// The input read by this napkin-cli flag, or nullptr.
const ScenarioInput* scenario_input_by_flag(std::string_view flag);
// The registered inputs a panel's napkin-cli command takes as flags beside
// --scenario, replacing the file's values — those it reads with the flag's
// own meaning in that command: "budget" every input but the Serving layout
// tab's benchmark run, "parallel" the job's chips, sequence, cluster and the
// model's dense shape,
// "isoflops" what sets the Budget planner's compute (its C* follows it),
// "serve" the benchmark run's, "report" (every panel) all of them. These
// commands also take --chip. Empty for any other command.
std::vector<std::string_view> scenario_command_inputs(std::string_view command);

// Whether `in` has a value in `s` (ScenarioInput::is_set; always, for an
// input the document cannot leave unset).
bool input_is_set(const ScenarioInput& in, const Scenario& s);

// A person's edit of `in` (a control, a flag beside --scenario): set() to
// `value`, then what the edit also changes (ScenarioInput::edited).
void edit_input(Scenario& s, const ScenarioInput& in, double value);

// The name a comparison lists (compare_name, else the label) and the unit
// its values show in (the control's display unit, else the unit).
std::string_view input_compare_name(const ScenarioInput& in);
std::string_view input_shown_unit(const ScenarioInput& in);

// "1 – 10,000,000 chips", "0.1 – 100 %": the accepted range as people read it
// (in the display unit, or the unit when the control shows none).
std::string input_range_text(const ScenarioInput& in);
// What a value must be: "a whole number in 1 – 10,000,000 chips", "a number in
// 0.1 – 100 %" (every message about an input's range says it so).
std::string input_accepted_text(const ScenarioInput& in);
// The input's value from the number given to its flag, and back; and what
// that number must be, in the flag's unit ("a number in 0.001 – 1 fraction
// of peak" for --mfu, whose control shows percent).
double input_from_flag(const ScenarioInput& in, double flag_value);
double input_flag_value(const ScenarioInput& in, double value);
std::string input_flag_accepted_text(const ScenarioInput& in);
// Throws InputError when `value` is not finite, not in [lo, hi], or not whole
// for a count: "chips (chips) must be in 1 – 10,000,000; got 2e+07". `as_named`
// replaces the label in the message (a flag, "hardware.chips" in a file).
void check_input(const ScenarioInput& in, double value, std::string_view as_named = {});
// check_input() of every registered input of `s`.
void check_inputs(const Scenario& s);

}  // namespace napkin
