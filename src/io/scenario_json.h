// The scenario document: versioned JSON, written atomically.
#pragma once

#include <string>

#include "scenario.h"

namespace napkin {

// 2 added goodput, ranges, the plan mode and the serving chips; version 1
// files open with their defaults.
inline constexpr int kScenarioFormatVersion = 2;

// The document as JSON text (UTF-8, indented, keys in a stable order).
std::string scenario_to_json(const Scenario& s);

// Parses a document. Every field is optional (missing fields keep their
// defaults) but a present field must have the right type and range. Throws
// std::invalid_argument naming `source`, the field, the value found and what
// was expected, for malformed, truncated, future-version or out-of-range
// documents.
Scenario scenario_from_json(std::string_view json, std::string_view source = "scenario");

// Reads a file (at most 16 MiB) / writes one atomically: a temporary file in
// the same folder renamed into place, so a failed save never destroys the
// previous file. Both throw std::runtime_error with the path and the reason.
Scenario load_scenario_file(const std::string& path);
void save_scenario_file(const Scenario& s, const std::string& path);

}  // namespace napkin
