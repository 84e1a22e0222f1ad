// napkin-cli plumbing: strict flag parsing (a bad flag or value is a
// UsageError: exit status 2 and one line on stderr naming the flag and the
// accepted range) and JSON output.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace napkin::cli {

// The label column of the sectioned reports (moe, params, parallel).
inline constexpr int kReportLabelWidth = 28;

// UTF-8 text as a QString (for the JSON writers).
inline QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

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
  // Every value of a flag that may be given more than once ("--runs A --runs B").
  std::vector<std::string> values(std::string_view name);
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
  // A registered scenario input (inputs.h) read by its flag, with the
  // registry's accepted range and unit (the GUI's control and the scenario
  // file accept the same); absent: the registry's default.
  // `flag`, when given, is the command's own name for the input ("--batch"
  // for serve's serving.batch).
  std::optional<double> optional_input(std::string_view input_key, std::string_view flag = {});
  double input(std::string_view input_key, std::string_view flag = {});
  std::int64_t count_input(std::string_view input_key, std::string_view flag = {});
  std::optional<std::int64_t> optional_count_input(std::string_view input_key,
                                                   std::string_view flag = {});
  std::int64_t required_count_input(std::string_view input_key, std::string_view flag = {});
  std::string choice(std::string_view name, std::string_view fallback,
                     std::initializer_list<std::string_view> choices);
  // A registered choice (choices.h) read by its flag: one of the registry's
  // options (the GUI's combo and the scenario file accept the same), its name;
  // absent: the registry's default (or `fallback`, the scenario's own value).
  // `flag`: a command's own name for it ("--precision"); empty: the registry's.
  std::string choice_input(std::string_view choice_key, std::string_view fallback = {},
                           std::string_view flag = {});
  std::optional<std::string> optional_choice_input(std::string_view choice_key,
                                                   std::string_view flag = {});
  // A registered switch (switches.h) by its flag: the flag's state when
  // given, else the registry's default.
  bool switch_input(std::string_view switch_key);
  // A comma-separated list of reals ("1e18,1e19").
  std::optional<std::vector<double>> real_list(std::string_view name, double lo, double hi,
                                               std::string_view unit);
  // Leading words that are not flags (sub-subcommands such as "moe collapse").
  std::optional<std::string> positional();
  // Throws UsageError for any word that no accessor consumed. A flag that
  // this command reads only with another flag (or in another sub-command, or
  // not together with an alternative) is named with what it needs, read off
  // the command's usage line.
  void finish() const;

  // Set by dispatch: the command's name and usage line (for finish()).
  void set_command(std::string_view name, std::string_view usage);
  // Declares that the model calls the parameter `model_name` what the user
  // types as `flag` (e.g. "budget_seconds" → "--budget-s"); common names are
  // built in (see user_message).
  void alias(std::string_view model_name, std::string_view flag);
  // A model's error message in the user's words: parameter names replaced by
  // the flags this command read (built-in and alias() names, and snake_case
  // names of kebab-case flags), control characters escaped, long values cut.
  std::string user_message(std::string_view message) const;
  // True when the user gave `name` (with or without a value), whether or not
  // it was read yet.
  bool given(std::string_view name) const;

 private:
  struct Word {
    std::string text;
    bool used = false;
  };
  std::vector<Word> words_;
  std::vector<std::string> queried_;  // every flag an accessor asked for
  std::vector<std::pair<std::string, std::string>> aliases_;
  std::string command_, usage_;
  std::optional<std::size_t> find(std::string_view name);
};

// A value quoted for a message: at most `max_chars` bytes (then "…" and the
// full length), control characters escaped, so one line stays one line.
std::string quoted(std::string_view value, std::size_t max_chars = 60);
// True for a word that is a flag rather than a value: "--name…" or "-x"
// (negative numbers such as -5 or -1e3, and "-" alone, are values).
bool looks_like_flag(std::string_view word);

// One "label  value" line of a text report, the label padded to `width`.
void row(const char* label, const std::string& value, int width = 26);
// Text wrapped at 92 columns, each line indented by `indent` spaces.
void paragraph(const std::string& text, int indent = 2);
// Characters of UTF-8 text as a terminal lays them out (code points).
std::size_t code_points(const std::string& s);
// Padded to `width` characters (UTF-8 code points, not bytes, so "−" counts
// once): text then spaces (pad_right; at least one space after), or spaces
// then text (pad_left).
std::string pad_right(const std::string& text, std::size_t width);
std::string pad_left(const std::string& text, std::size_t width);
// A fraction as a signed percent, with the minus sign U+2212 as the read-outs
// print it: −0.006 → "−0.6 %", 0.103 → "+10.3 %".
std::string signed_percent(double fraction);

// JSON numbers: integers exactly, doubles as doubles.
QJsonValue json_int(std::int64_t v);
// Prints `obj` as indented JSON on stdout.
void print_json(const QJsonObject& obj);
// --emit's launch flags as JSON: {"framework", "text", "caveats"}.
inline QJsonObject emit_json(const std::string& framework, const std::string& text,
                             const std::vector<std::string>& caveats) {
  QJsonArray notes;
  for (const std::string& c : caveats) notes.append(QString::fromStdString(c));
  return QJsonObject{{"framework", QString::fromStdString(framework)},
                     {"text", QString::fromStdString(text)},
                     {"caveats", notes}};
}

// A registered choice's options as a usage line lists them: "bf16|fp8|…".
std::string choice_usage(std::string_view choice_key);
// A usage line with each "{choice.key}" in it replaced by choice_usage(), kept
// for the process (a Command holds the text).
const char* usage_with_choices(const char* usage);

struct Command {
  const char* name;
  const char* usage;  // one line, shown by `napkin-cli help`
  int (*run)(Args& args);
};

// Command groups, one per model module (defined in cli_<module>.cpp).
std::vector<Command> algebra_commands();
std::vector<Command> scaling_commands();
std::vector<Command> distill_commands();  // distill (cli_distill.cpp)
std::vector<Command> moe_commands();
std::vector<Command> roofline_commands();
std::vector<Command> serve_commands();
std::vector<Command> parallel_commands();
std::vector<Command> report_commands();
std::vector<Command> compare_commands();    // diff
std::vector<Command> plan_commands();       // goodput (cli_plan.cpp)
std::vector<Command> import_commands();     // import-run (cli_import.cpp)
std::vector<Command> calibrate_commands();  // calibrate (cli_calibrate.cpp)
std::vector<Command> validate_commands();   // validate: the public data sets, predicted

// Runs `napkin-cli argv...` (argv without the program name); returns the exit status.
int dispatch(const std::vector<std::string>& argv);

}  // namespace napkin::cli
