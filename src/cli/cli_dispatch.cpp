#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli_common.h"

namespace napkin::cli {

namespace {

std::vector<Command> all_commands() {
  std::vector<Command> out;
  for (auto group : {algebra_commands, scaling_commands, moe_commands, roofline_commands,
                     parallel_commands, report_commands})
    for (const Command& c : group()) out.push_back(c);
  return out;
}

void print_help(const std::vector<Command>& commands) {
  std::printf("napkin-cli — the arithmetic of LLM pre-training, headless\n\n");
  std::printf("usage: napkin-cli COMMAND [flags] [--json]\n\n");
  for (const Command& c : commands) std::printf("  %s\n", c.usage);
  std::printf("\nWithout --json a readable report is printed; with --json one JSON object.\n");
  std::printf("Bad flags or values exit with status 2 and one line on stderr.\n");
}

}  // namespace

int dispatch(const std::vector<std::string>& argv) {
  const std::vector<Command> commands = all_commands();
  if (argv.empty() || argv[0] == "help" || argv[0] == "--help" || argv[0] == "-h") {
    print_help(commands);
    return argv.empty() ? 2 : 0;
  }
  if (argv[0] == "--version") {
    std::printf("napkin-cli %s\n", NAPKIN_VERSION);
    return 0;
  }
  const std::string& name = argv[0];
  for (const Command& c : commands) {
    if (name != c.name) continue;
    try {
      Args args(std::vector<std::string>(argv.begin() + 1, argv.end()));
      return c.run(args);
    } catch (const std::exception& e) {
      // Usage errors, out-of-range values and unreadable files: one line, status 2.
      std::fprintf(stderr, "napkin-cli %s: %s\n", c.name, e.what());
      return 2;
    } catch (...) {
      std::fprintf(stderr, "napkin-cli %s: internal error\n", c.name);
      return 1;
    }
  }
  std::fprintf(stderr, "napkin-cli: unknown command \"%s\" (see napkin-cli help)\n",
               name.substr(0, 60).c_str());
  return 2;
}

}  // namespace napkin::cli
