#include "cli_common.h"

namespace napkin::cli {

std::vector<Command> scaling_commands() { return {}; }

}  // namespace napkin::cli
