// napkin-cli: every computation of the model library, headless.
#include <QCoreApplication>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli_common.h"

using napkin::cli::Args;
using napkin::cli::Command;
using napkin::cli::UsageError;

namespace {

std::vector<Command> all_commands() {
  std::vector<Command> out;
  for (auto group : {napkin::cli::algebra_commands, napkin::cli::scaling_commands,
                     napkin::cli::moe_commands, napkin::cli::roofline_commands,
                     napkin::cli::report_commands})
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

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);  // for Qt's file and JSON classes; no GUI
  const std::vector<Command> commands = all_commands();
  if (argc < 2 || std::string(argv[1]) == "help" || std::string(argv[1]) == "--help" ||
      std::string(argv[1]) == "-h") {
    print_help(commands);
    return argc < 2 ? 2 : 0;
  }
  if (std::string(argv[1]) == "--version") {
    std::printf("napkin-cli %s\n", NAPKIN_VERSION);
    return 0;
  }
  const std::string name = argv[1];
  std::vector<std::string> words(argv + 2, argv + argc);
  for (const Command& c : commands) {
    if (name != c.name) continue;
    try {
      Args args(std::move(words));
      return c.run(args);
    } catch (const UsageError& e) {
      std::fprintf(stderr, "napkin-cli %s: %s\n", c.name, e.what());
      return 2;
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "napkin-cli %s: %s\n", c.name, e.what());
      return 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "napkin-cli %s: error: %s\n", c.name, e.what());
      return 1;
    }
  }
  std::fprintf(stderr, "napkin-cli: unknown command \"%s\" (see napkin-cli help)\n", name.c_str());
  return 2;
}
