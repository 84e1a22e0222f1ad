// The chip files given with --chip-file (any command), in order and as typed:
// dispatch reads and registers them before the command runs; napkin-cli
// report hands them on to its renderer, which needs the same chips.
#pragma once

#include <string>
#include <vector>

namespace napkin::cli {

const std::vector<std::string>& chip_files();

}  // namespace napkin::cli
