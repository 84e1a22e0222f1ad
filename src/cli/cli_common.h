// napkin-cli plumbing: strict flag parsing (a bad flag or value is a
// UsageError: exit status 2 and one line on stderr naming the flag and the
// accepted range) and JSON output.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace napkin::cli {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  explicit Args(std::vector<std::string> words);

  // A switch such as --json or --tied (no value).
  bool flag(std::string_view name);
  // A flag's raw value, if given.
  std::optional<std::string> value(std::string_view name);
  std::string text(std::string_view name, std::string_view fallback);
  std::string required_text(std::string_view name);
  // Integers and reals: accept plain or scientific notation ("1e3"); the
  // value must be finite and in range, and integers must be whole.
  std::int64_t integer(std::string_view name, std::int64_t fallback, std::int64_t lo,
                       std::int64_t hi, std::string_view unit);
  std::optional<std::int64_t> optional_integer(std::string_view name, std::int64_t lo,
                                               std::int64_t hi, std::string_view unit);
  std::int64_t required_integer(std::string_view name, std::int64_t lo, std::int64_t hi,
                                std::string_view unit);
  double real(std::string_view name, double fallback, double lo, double hi, std::string_view unit);
  std::optional<double> optional_real(std::string_view name, double lo, double hi,
                                      std::string_view unit);
  double required_real(std::string_view name, double lo, double hi, std::string_view unit);
  std::string choice(std::string_view name, std::string_view fallback,
                     std::initializer_list<std::string_view> choices);
  // A comma-separated list of reals ("1e18,1e19").
  std::optional<std::vector<double>> real_list(std::string_view name, double lo, double hi,
                                               std::string_view unit);
  // Leading words that are not flags (sub-subcommands such as "moe collapse").
  std::optional<std::string> positional();
  // Throws UsageError for any word that no accessor consumed.
  void finish() const;

 private:
  struct Word {
    std::string text;
    bool used = false;
  };
  std::vector<Word> words_;
  std::optional<std::size_t> find(std::string_view name);
};

// JSON numbers: integers exactly, doubles as doubles.
QJsonValue json_int(std::int64_t v);
// Prints `obj` as indented JSON on stdout.
void print_json(const QJsonObject& obj);

struct Command {
  const char* name;
  const char* usage;  // one line, shown by `napkin-cli help`
  int (*run)(Args& args);
};

// Command groups, one per model module (defined in cli_<module>.cpp).
std::vector<Command> algebra_commands();
std::vector<Command> scaling_commands();
std::vector<Command> moe_commands();
std::vector<Command> roofline_commands();
std::vector<Command> parallel_commands();
std::vector<Command> report_commands();

// Runs `napkin-cli argv...` (argv without the program name); returns the exit status.
int dispatch(const std::vector<std::string>& argv);

}  // namespace napkin::cli
