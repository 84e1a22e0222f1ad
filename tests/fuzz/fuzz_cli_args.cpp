// napkin-cli argument parsing and the commands themselves: the input is a
// command line, one word per line. Every command line either runs or exits 2
// with a message; nothing crashes, throws out of dispatch, or hangs. The
// costly commands run for real when their work is bounded (moe collapse
// ≤ 50 steps of ≤ 256 tokens and ≤ 64 experts, fit on a 12-point ladder with
// ≤ 16 resamples, isoflops with ≤ 8 budgets, validate one set other than the
// offline serving ones); the report is not rendered here.
// Arguments that are not UTF-8 go through main()'s check (process_guard.h).
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cli_common.h"
#include "process_guard.h"

namespace {

// A small real ladder (Chinchilla-like) that `fit --csv` is pointed at.
const std::string& ladder_path() {
  static const std::string path = [] {
    char tmpl[] = "/tmp/napkin-fuzz-ladder-XXXXXX";
    const int fd = ::mkstemp(tmpl);
    if (fd < 0) std::abort();
    const std::string csv =
        "N,D,loss\n7e7,1.4e9,3.50\n7e7,5e9,3.30\n1.5e8,3e9,3.20\n1.5e8,1e10,3.00\n"
        "4e8,8e9,2.90\n4e8,3e10,2.75\n1e9,2e10,2.65\n1e9,6e10,2.55\n3e9,6e10,2.45\n"
        "3e9,2e11,2.35\n7e9,1.4e11,2.30\n7e9,5e11,2.22\n";
    if (::write(fd, csv.data(), csv.size()) != static_cast<ssize_t>(csv.size())) std::abort();
    ::close(fd);
    return std::string(tmpl);
  }();
  return path;
}

// The number after `flag` (as "--flag V" or "--flag=V"); `fallback` if absent,
// NaN-free: an unparsable value gives `fallback` too (the command rejects it).
double number_of(const std::vector<std::string>& words, const std::string& flag, double fallback) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string v;
    if (words[i] == flag && i + 1 < words.size())
      v = words[i + 1];
    else if (words[i].rfind(flag + "=", 0) == 0)
      v = words[i].substr(flag.size() + 1);
    else
      continue;
    char* end = nullptr;
    const double d = std::strtod(v.c_str(), &end);
    return end == v.c_str() + v.size() && d == d ? d : fallback;
  }
  return fallback;
}

// The text after `flag` (as "--flag V" or "--flag=V"); empty if absent.
std::string value_of(const std::vector<std::string>& words, const std::string& flag) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] == flag && i + 1 < words.size()) return words[i + 1];
    if (words[i].rfind(flag + "=", 0) == 0) return words[i].substr(flag.size() + 1);
  }
  return {};
}

std::size_t list_length(const std::vector<std::string>& words, const std::string& flag) {
  for (std::size_t i = 0; i + 1 < words.size(); ++i)
    if (words[i] == flag) {
      std::size_t n = 1;
      for (char c : words[i + 1]) n += c == ',';
      return n;
    }
  return 0;
}

}  // namespace

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
  // As main() does: an argument that is not UTF-8 is refused before Qt sees it.
  std::vector<char*> argv{const_cast<char*>("napkin-cli")};
  for (std::string& w : words) argv.push_back(w.data());
  if (!napkin::non_utf8_argument(static_cast<int>(argv.size()), argv.data()).empty()) return 0;
  std::string& cmd = words[0];
  if (cmd == "report") return 0;  // renders with the GUI program: not here
  if (cmd == "moe" && words.size() > 1 && words[1] == "collapse") {
    const double steps = number_of(words, "--steps", 600);
    if (steps > 50 || number_of(words, "--tokens", 256) > 256 ||
        number_of(words, "--experts", 8) > 64)
      return 0;
  }
  if (cmd == "fit") {
    if (number_of(words, "--bootstrap", 0) > 16) return 0;
    for (std::size_t i = 1; i < words.size(); ++i) {
      if (words[i] == "--csv" && i + 1 < words.size()) words[i + 1] = ladder_path();
      if (words[i].rfind("--csv=", 0) == 0) words[i] = "--csv=" + ladder_path();
    }
  }
  if (cmd == "isoflops" && list_length(words, "--budgets") > 8) return 0;
  // validate predicts every public data set (over a second natively, the
  // offline serving sets most of it): here one set at a time, not those.
  if (cmd == "validate") {
    const std::string set = value_of(words, "--set");
    if (set.empty() || set.rfind("serving-trtllm-offline", 0) == 0) return 0;
  }
  (void)napkin::cli::dispatch(words);
  return 0;
}
