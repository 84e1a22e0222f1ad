#include "cli_common.h"

namespace napkin::cli {

std::vector<Command> moe_commands() { return {}; }

}  // namespace napkin::cli
