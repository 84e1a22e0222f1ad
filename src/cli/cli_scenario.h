// A saved scenario read by a command (diff, serve --scenario): one line for
// any load error, the reader's warnings (unknown keys kept) on stderr. Beside
// --scenario, budget, parallel, isoflops and serve also take the flags of the
// registered inputs (inputs.h) they read, with those flags' meaning in the
// command, and --chip: each replaces the file's value, as typing it in the app
// would.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <QJsonArray>
#include <QJsonObject>

#include "choices.h"
#include "inputs.h"
#include "plan.h"
#include "scenario.h"

namespace napkin::cli {

class Args;

// What a command was told to change in the file: the registered inputs
// (inputs.h) given as their flags, each checked against the registry's range
// (those the Budget planner's ranges cover also as low:likely:high, setting
// the range; a number clears it, as the budget command takes it), and --chip
// NAME (a known chip); --save FILE writes the changed scenario.
struct ScenarioFlags {
  struct Input {
    const ScenarioInput* input = nullptr;
    double value = 0;
    // For the inputs the Budget planner's ranges cover (MFU, price, unique
    // tokens): the low:likely:high given, or none (a number: no range).
    std::optional<Spread> spread;
  };
  std::vector<Input> inputs;
  // The registered choices (choices.h) given as their flags: the option's name.
  struct Choice {
    const ScenarioChoice* choice = nullptr;
    std::string name;
  };
  std::vector<Choice> choices;
  std::optional<std::string> chip;
  std::optional<std::string> save_to;
};
// Reads them from `a` (before Args::finish()): the flags of `command`'s
// inputs and choices (scenario_command_inputs, scenario_command_choices) and
// --chip, --save.
ScenarioFlags read_scenario_flags(Args& a, std::string_view command);

// One value a flag replaced: the flag, what it sets, the file's value and the
// flag's, as text ("4,096 chips") and as numbers (none for --chip), and for
// an input the Budget planner's ranges cover, the file's range and the flag's.
struct ScenarioOverride {
  std::string flag;
  std::string key;
  std::string file_text, value_text;
  std::optional<double> file_value, value;
  bool has_range = false;
  std::optional<Spread> file_range, range;
};

// Throws std::runtime_error with the reader's message on one line.
Scenario read_scenario(const std::string& path, std::string_view command);
// The file with `flags` applied (in the registry's order, then --chip), each
// one recorded in `applied`; the result is validated as a loaded file is (a
// combination the file could not hold is refused naming the flags).
Scenario read_scenario(const std::string& path, std::string_view command,
                       const ScenarioFlags& flags, std::vector<ScenarioOverride>& applied);
// Writes `s` to flags.save_to through the atomic writer, when asked (after
// the command has refused what it refuses, so that nothing refused is saved).
void save_scenario_if_asked(const ScenarioFlags& flags, const Scenario& s);

// The overrides as JSON (an array, empty when none), and as the text line
// "Overrides: --chips 4,096 chips (the file: 2,048 chips); ..." (nothing
// printed when none).
QJsonArray overrides_json(const std::vector<ScenarioOverride>& applied);
void print_overrides(const std::vector<ScenarioOverride>& applied);

// The plan as it will run (resolve_plan), as every panel, the report and diff
// read it: its MFU and source, C, the batch as asked and as run, the run's
// tokens and days. As JSON, and as the text section "Plan".
QJsonObject resolved_plan_json(const ResolvedPlan& p);
void print_resolved_plan(const ResolvedPlan& p);

}  // namespace napkin::cli
