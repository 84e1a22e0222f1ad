#include "cli_common.h"

namespace napkin::cli {

std::vector<Command> roofline_commands() { return {}; }

}  // namespace napkin::cli
