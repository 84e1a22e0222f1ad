#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli_chip_files.h"
#include "cli_common.h"
#include "cli_long_run.h"
#include "hardware_json.h"

namespace napkin::cli {

namespace {

std::vector<std::string>& given_chip_files() {
  static std::vector<std::string> files;
  return files;
}

std::vector<Command> all_commands() {
  std::vector<Command> out;
  for (auto group : {algebra_commands, scaling_commands, distill_commands, moe_commands,
                     roofline_commands, parallel_commands, serve_commands, report_commands,
                     plan_commands, import_commands, calibrate_commands, validate_commands})
    for (const Command& c : group()) out.push_back(c);
  for (const Command& c : compare_commands()) out.push_back(c);  // diff
  return out;
}

void print_help(const std::vector<Command>& commands) {
  std::printf("napkin-cli — the arithmetic of LLM pre-training, headless\n\n");
  std::printf("usage: napkin-cli COMMAND [flags] [--json]\n\n");
  for (const Command& c : commands) std::printf("  %s\n", c.usage);
  std::printf("\nWithout --json a readable report is printed; with --json one JSON object.\n");
  std::printf("Bad flags or values exit with status 2 and one line on stderr.\n");
  std::printf(
      "Long runs (fit and its bootstrap, diff's ladder fits, calibrate, moe collapse) show\n"
      "progress on a terminal (not with --json),\n"
      "stop on Ctrl+C with status 130, and with --max-seconds S stop after S seconds with\n"
      "status 124. A value that starts with a dash is given as --flag=VALUE.\n");
  std::printf(
      "Chips and clusters described in JSON files in the data folder's chips/ and clusters/\n"
      "(NAPKIN_DATA_DIR, else ~/.local/share/Napkin/Napkin) are listed with the built-in ones;\n"
      "--chip-file FILE (any command) adds one chip.\n");
}

// The user's chips and clusters from the data folder (once per process; a
// file that cannot be read is named with its key and reason on stderr, the
// others still load), then the chips of --chip-file FILE (any command; a bad
// one is an error). Returns the words without --chip-file, or the error.
std::vector<std::string> load_hardware(const std::vector<std::string>& argv, std::string* error) {
  static bool loaded = false;
  if (!loaded) {
    loaded = true;
    for (const std::string& why : load_user_hardware(user_data_folder()).refused)
      std::fprintf(stderr, "napkin-cli: ignored %s\n", why.c_str());
  }
  std::vector<std::string> out;
  given_chip_files().clear();  // this command's, when dispatch runs again in one process
  for (std::size_t i = 0; i < argv.size(); ++i) {
    std::string file;
    if (argv[i] == "--chip-file") {
      if (i + 1 == argv.size()) {
        *error = "--chip-file needs a file name (a chip JSON file)";
        return {};
      }
      file = argv[++i];
    } else if (argv[i].rfind("--chip-file=", 0) == 0) {
      file = argv[i].substr(12);
    } else {
      out.push_back(argv[i]);
      continue;
    }
    try {
      register_chip_file(file);
      given_chip_files().push_back(file);
    } catch (const std::invalid_argument& e) {
      *error = std::string("--chip-file: ") + e.what();
      return {};
    }
  }
  return out;
}

}  // namespace

const std::vector<std::string>& chip_files() { return given_chip_files(); }

int dispatch(const std::vector<std::string>& given) {
  const std::vector<Command> commands = all_commands();
  std::string hardware_error;
  const std::vector<std::string> argv = load_hardware(given, &hardware_error);
  if (!hardware_error.empty()) {
    std::fprintf(stderr, "napkin-cli: %s\n", hardware_error.c_str());
    return 2;
  }
  if (argv.empty() || argv[0] == "help" || argv[0] == "--help" || argv[0] == "-h") {
    print_help(commands);
    return argv.empty() ? 2 : 0;
  }
  if (argv[0] == "--version") {
    std::printf("napkin-cli %s\n", NAPKIN_VERSION);
    return 0;
  }
  const std::string& name = argv[0];
  // `napkin-cli COMMAND --help` (or -h): the command's usage, status 0. params
  // and serve print a longer help of their own.
  const bool help = std::any_of(argv.begin() + 1, argv.end(),
                                [](const std::string& w) { return w == "--help" || w == "-h"; });
  if (help && name != "params" && name != "serve") {
    bool found = false;
    for (const Command& c : commands)
      if (name == c.name) {
        std::printf("%s napkin-cli %s\n", found ? "      " : "usage:", c.usage);
        found = true;
      }
    if (found) {
      std::printf(
          "\nWithout --json a readable report; with --json one JSON object. Bad flags or values\n"
          "exit with status 2 and one line on stderr. napkin-cli help lists every command.\n");
      return 0;
    }
  }
  for (const Command& c : commands) {
    if (name != c.name) continue;
    std::vector<std::string> words(argv.begin() + 1, argv.end());
    if (help)  // params and serve read --help
      for (std::string& w : words)
        if (w == "-h") w = "--help";
    Args args(std::move(words));
    args.set_command(c.name, c.usage);
    try {
      return c.run(args);
    } catch (const Interrupted& e) {
      std::fprintf(stderr, "napkin-cli %s: %s\n", c.name, e.what());
      return kExitInterrupted;
    } catch (const OutOfTime& e) {
      std::fprintf(stderr, "napkin-cli %s: %s\n", c.name, e.what());
      return kExitOutOfTime;
    } catch (const std::exception& e) {
      // Usage errors, out-of-range values and unreadable files: one line, status 2,
      // in the words the user typed (the model's parameter names become flags).
      std::fprintf(stderr, "napkin-cli %s: %s\n", c.name, args.user_message(e.what()).c_str());
      return 2;
    } catch (...) {
      std::fprintf(stderr, "napkin-cli %s: internal error\n", c.name);
      return 1;
    }
  }
  std::fprintf(stderr, "napkin-cli: unknown command %s (see napkin-cli help)\n",
               quoted(name, 60).c_str());
  return 2;
}

}  // namespace napkin::cli
