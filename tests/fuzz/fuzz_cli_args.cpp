// napkin-cli argument parsing: the input is a command line, one word per line.
// Every command line either runs or exits 2 with a message; nothing crashes,
// throws out of dispatch, or hangs. Commands whose cost grows with their
// arguments (fits, bootstraps, simulations, the report) are parsed but not run.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cli_common.h"

// The commands print reports; scripts/run-fuzz.sh closes their stdout and stderr
// (-close_fd_mask=3) while libFuzzer keeps its own output.
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> words;
  std::string word;
  for (std::size_t i = 0; i < size && words.size() < 40; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\n') {
      words.push_back(word);
      word.clear();
    } else if (word.size() < 200) {
      word += c;
    }
  }
  if (!word.empty()) words.push_back(word);
  if (words.empty()) return 0;
  for (const std::string& w : words)
    if (w.find("/dev/") != std::string::npos || w.find("/proc/") != std::string::npos) return 0;
  const std::string& cmd = words[0];
  const bool costly = cmd == "fit" || cmd == "isoflops" || cmd == "report" ||
                      (cmd == "moe" && words.size() > 1 && words[1] == "collapse");
  if (!costly) {
    (void)napkin::cli::dispatch(words);
    return 0;
  }
  // Exercise every accessor the costly commands use, as they use them.
  try {
    napkin::cli::Args a(std::vector<std::string>(words.begin() + 1, words.end()));
    (void)a.positional();
    (void)a.flag("--json");
    (void)a.integer("--steps", 600, 1, 100000, "steps");
    (void)a.integer("--bootstrap", 0, 0, 100000, "resamples");
    (void)a.real("--noise", 0.005, 0, 1, "fraction");
    (void)a.real_list("--budgets", 1e10, 1e30, "FLOPs");
    (void)a.choice("--estimator", "huber-log", {"huber-log", "ls-log", "ls-linear", "seed-cd"});
    (void)a.text("--csv", "");
    (void)a.value("-o");
    a.finish();
  } catch (const napkin::cli::UsageError&) {
  }
  return 0;
}
