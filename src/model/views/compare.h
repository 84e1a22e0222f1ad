// Comparing two plans (issue 13): the headline outputs of a scenario, the
// inputs that differ between two scenarios, and the outputs side by side with
// their change and which plan is better on each.
//
// Each headline output is one line of a table in compare.cpp: a name, a unit,
// which direction is better, the model function it comes from and a lambda on
// the scenario's results (computed once per scenario, on first use). A new
// output (predicted MFU, goodput, $ per million served tokens) is one more
// line there.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scenario.h"

namespace napkin {

// Which direction of a quantity is better for the plan.
enum class Better { higher, lower, none };
std::string_view to_string(Better b);  // "higher" | "lower" | "none"

// Units of the headline outputs.
enum class Unit {
  flops,
  parameters,
  tokens,
  days,
  dollars,
  kwh,
  bytes,
  requests,
  nats_per_token,
  seconds,
  chips,
  fraction
};
// "FLOPs", "parameters", "tokens", "days", "$", "kWh", "bytes", "requests",
// "nats/token", "s", "chips", "fraction".
std::string_view to_string(Unit u);
// A value as a person reads it: "1.026e+24 FLOPs", "70.6B parameters",
// "$2,520,000", "185.0 GB", "12.3 ms", "38.1 %". Never "nan".
std::string format_quantity(double value, Unit unit);
// A change: "+4.513e+23 FLOPs", "−$840,000", "+2.1 pp" (percentage points
// for fractions), "0" when zero.
std::string format_delta(double delta, Unit unit);

struct HeadlineOutput {
  std::string name;  // "Compute C", "Turn latency", …; unique
  Unit unit = Unit::fraction;
  std::optional<double> value;  // nullopt: none (display says why)
  std::string display;          // the value with its unit and context, or why there is none
  Better better = Better::none;
  // A missing value is the worst outcome (no slice meets the latency budget),
  // not merely unknown.
  bool missing_is_worst = false;
  std::string source;  // the model function(s) it comes from
};

// C, N, D, days, $, energy, memory per device, KV fit, IsoFLOPs forecast L*, turn
// latency, chips for the latency budget, the MoE router run's drop rate, in that order.
// Deterministic: the forecast is the parametric fit without the bootstrap.
// Throws std::invalid_argument for an invalid scenario; an output that cannot
// be computed for a valid one (a ladder that does not fit) has no value and
// says why in its display.
// `progress` reports the ladder fits (the forecast's, a fitted plan law's)
// and may stop them: the call then throws Cancelled (parallel_for.h).
std::vector<HeadlineOutput> headline_outputs(const Scenario& s, const FitProgressFn& progress = {});

struct InputDifference {
  std::string key;   // the document path ("budget.days")
  std::string name;  // "Days"
  std::string a;     // display strings: "30 days"
  std::string b;
};

// Every input (scenario_fields()) whose value differs, in document order.
// Reals that differ show enough digits to tell them apart.
std::vector<InputDifference> differing_inputs(const Scenario& a, const Scenario& b);

enum class Winner { a, b, same, none };  // none: no better direction, or not comparable
std::string_view to_string(Winner w);    // "a" | "b" | "same" | "none"

struct OutputComparison {
  std::string name;
  Unit unit = Unit::fraction;
  std::optional<double> a, b;
  std::optional<double> delta;  // b − a, when both have a value
  std::optional<double> ratio;  // b ÷ a, when both have a value and a ≠ 0
  Winner better = Winner::none;
  std::string a_display, b_display;
};

// Pairs the outputs by name (those of `a` in order; an output only one side
// has is compared with a missing value). Equal within 1e-12 relative (or
// both missing) is "same"; otherwise the better direction decides, and an
// output with none is Winner::none.
std::vector<OutputComparison> compare_outputs(const std::vector<HeadlineOutput>& a,
                                              const std::vector<HeadlineOutput>& b);

}  // namespace napkin
