// Every input of a scenario as a named field: its key (the path of the field
// in the scenario document, "budget.days"), the name a person reads ("Days",
// "IsoFLOPs: Huber δ"), its unit and its value. What the comparison of two
// plans lists as "inputs that differ", and the names an undo step or a
// tooltip can use. The list covers every field the document writes (a test
// walks the document to keep it so): a field added to the scenario needs one
// line here.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

namespace napkin {

struct Scenario;

using FieldValue = std::variant<std::int64_t, double, bool, std::string>;

struct ScenarioField {
  std::string key;   // the document path: "hardware.chip", "isoflops.fit.huber_delta"
  std::string name;  // for people: "Chip", "IsoFLOPs: Huber δ"; unique
  std::string unit;  // "days", "FLOPs", "$/chip-hour", … ("" when none)
  std::function<FieldValue(const Scenario&)> get;
};

// In document order: hardware, budget, model, training, serving, then the
// IsoFLOPs, MoE and Roofline panels' settings.
std::span<const ScenarioField> scenario_fields();
// The field with this key, or nullptr; its position in scenario_fields() is
// a stable id within a build (e.g. for merging an undo gesture's steps).
const ScenarioField* find_scenario_field(std::string_view key);

// The value as a person reads it, with its unit: "30 days", "H100", "on",
// "1e+14 tokens". Reals show 6 significant digits, or `digits` when given.
std::string display_field_value(const FieldValue& v, const std::string& unit, int digits = 6);

}  // namespace napkin
