#include "cli_scenario.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "scenario_json.h"

namespace napkin::cli {

Scenario read_scenario(const std::string& path, std::string_view command) {
  try {
    std::vector<std::string> warnings;
    Scenario s = load_scenario_file(path, &warnings);
    for (const std::string& w : warnings)
      std::fprintf(stderr, "napkin-cli %.*s: warning: %s\n", static_cast<int>(command.size()),
                   command.data(), w.c_str());
    return s;
  } catch (const std::exception& e) {
    std::string m = e.what();
    std::replace(m.begin(), m.end(), '\n', ' ');
    throw std::runtime_error(m);
  }
}

}  // namespace napkin::cli
