// Every choice of the scenario described once, as the numbers are in
// inputs.h: its document key, JSON key, napkin-cli flag, label, comparison
// name, tooltip, default and the options it accepts. The controls, the file's
// reader and writer, the flags and the diff all read this table, so an option
// one of them accepts is an option all of them accept and show.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "scenario.h"

namespace napkin {

struct ChoiceOption {
  std::string name;         // as files and flags spell it: "fp8"
  std::string label;        // as a control lists it: "fp8 (8.002 bits)"
  std::string legacy = {};  // an older spelling files may hold, read as this option, never written
};

struct ScenarioChoice {
  std::string_view key;           // the document path: "serving.weight_precision"
  std::string_view section;       // the JSON object it is in: "serving"
  std::string_view json_key;      // its key there: "weight_precision"
  std::string_view flag;          // napkin-cli's flag, "--weight-precision" ("" when none)
  std::string_view label;         // for a control: "Weights"
  std::string_view compare_name;  // what a comparison calls it: "Serving weight precision"
  std::string_view tooltip;
  std::string_view default_name;  // a new scenario's option: "bf16"
  // Non-empty: the choice may be left unset (its name "", null in a file, its
  // flag not given), listed first under this label: "the software's".
  std::string_view unset_label = {};
  std::vector<ChoiceOption> (*options)() = nullptr;         // every accepted option, in order
  std::string (*get)(const Scenario&) = nullptr;            // the option's name
  void (*set)(Scenario&, std::string_view name) = nullptr;  // a name from options()
};

// What the scenario holds, as a control or a comparison shows it: the
// option's name, or the unset label.
std::string choice_shown(const ScenarioChoice& c, const Scenario& s);

// In document order.
std::span<const ScenarioChoice> scenario_choices();
// The choice with this document key; throws std::invalid_argument naming it.
const ScenarioChoice& scenario_choice(std::string_view key);

// The choices a panel's napkin-cli command (budget, serve, parallel,
// isoflops, report) takes by their flags beside --scenario FILE, each
// replacing the file's value: those the command's view reads.
std::vector<std::string_view> scenario_command_choices(std::string_view command);

// "bf16, fp8, int8, int4": the accepted names, for help and messages
// (`separator` "|": a usage line's "bf16|fp8|int8|int4").
std::string choice_names(const ScenarioChoice& c, std::string_view separator = ", ");
// The option `text` names exactly ("" the unset option, where the choice has
// one: {"", unset_label}); otherwise throws std::invalid_argument
// "<what> must be one of …; got "x"" (and which name was meant, where only
// its spelling differs). `what` is how the caller's user named the choice (a
// flag, a file's field); empty: the label.
ChoiceOption choice_option(const ScenarioChoice& c, std::string_view text,
                           std::string_view what = {});
// choice_option(), then set().
void set_choice(const ScenarioChoice& c, Scenario& s, std::string_view text,
                std::string_view what = {});

}  // namespace napkin
