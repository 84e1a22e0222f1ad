// A saved scenario read by a command (diff, serve --scenario): one line for
// any load error, the reader's warnings (unknown keys kept) on stderr.
#pragma once

#include <string>
#include <string_view>

#include "scenario.h"

namespace napkin::cli {

// Throws std::runtime_error with the reader's message on one line.
Scenario read_scenario(const std::string& path, std::string_view command);

}  // namespace napkin::cli
