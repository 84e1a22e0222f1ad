#include "cli_common.h"

#include <QJsonDocument>
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "format.h"
#include "inputs.h"
#include "validate.h"

namespace napkin::cli {

namespace {

bool is_word_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
}

// Where `token` occurs in `text` as a whole word (words are [A-Za-z0-9_-]).
std::size_t find_word(std::string_view text, std::string_view token, std::size_t from = 0) {
  for (std::size_t pos = text.find(token, from); pos != std::string_view::npos;
       pos = text.find(token, pos + 1)) {
    const bool start_ok = pos == 0 || !is_word_char(text[pos - 1]);
    const std::size_t end = pos + token.size();
    const bool end_ok = end == text.size() || !is_word_char(text[end]);
    if (start_ok && end_ok) return pos;
  }
  return std::string_view::npos;
}

// The model's names of parameters the CLI reads under another name. Applied
// only when the command read that flag.
constexpr std::pair<std::string_view, std::string_view> kModelNames[] = {
    {"budget_seconds", "--budget-s"},
    {"overhead_seconds", "--overhead-s"},
    {"n_params", "--params"},
    {"n_layers", "--layers"},
    {"n_heads", "--heads"},
    {"n_query_heads", "--heads"},
    {"n_kv_heads", "--kv-heads"},
    {"d_head", "--head-dim"},
    {"n_experts", "--experts"},
    {"n_chips", "--chips"},
    {"tokens_per_batch", "--tokens"},
    {"n_tokens", "--tokens"},
    {"learning_rate", "--lr"},
    {"aux_weight", "--aux"},
    {"z_weight", "--z"},
    {"seq_len", "--seq"},
    {"budgets_flops", "--budgets"},
    {"huber_delta", "--delta"},
    {"resamples", "--bootstrap"},
    {"zero_stage", "--zero"},
    {"dp_degree", "--dp"},
    {"price_per_chip_hour_dollars", "--price"},
    {"kwh_price_dollars", "--kwh-price"},
    {"kv_bytes_per_elem", "--bytes-per-elem"},
    {"lr_decay_bias_nats", "--bias"},
};

// A flag's model-style name: --budget-s → budget_s.
std::string snake(std::string_view flag) {
  std::string out(flag.substr(flag.find_first_not_of('-')));
  for (char& c : out)
    if (c == '-') c = '_';
  return out;
}

// Replaces `name` by `flag` in `text` where it is a parameter name: anywhere
// as a whole word when it has an underscore; a plain word only where a
// validation message puts a name ("name (unit) ...", at the start or after
// ": " / "; ").
void replace_name(std::string& text, std::string_view name, std::string_view flag) {
  const bool snake_name = name.find('_') != std::string_view::npos;
  for (std::size_t pos = find_word(text, name); pos != std::string::npos;
       pos = find_word(text, name, pos + 1)) {
    // A quoted name is a key of a file the user gave ("gpus_per_node"): kept.
    if (pos > 0 && text[pos - 1] == '"' && text.compare(pos + name.size(), 1, "\"") == 0) continue;
    if (!snake_name) {
      const bool named_start = pos == 0 || (pos >= 2 && (text.compare(pos - 2, 2, ": ") == 0 ||
                                                         text.compare(pos - 2, 2, "; ") == 0));
      const bool unit_follows = text.compare(pos + name.size(), 2, " (") == 0 ||
                                (pos == 0 && text.compare(pos + name.size(), 6, " must ") == 0);
      const bool value_follows = text.compare(pos + name.size(), 3, " = ") == 0;
      if (!(named_start && unit_follows) && !value_follows) continue;
    }
    text.replace(pos, name.size(), flag);
    pos += flag.size() - 1;
  }
}

}  // namespace

std::string quoted(std::string_view value, std::size_t max_chars) {
  std::size_t cut = std::min(value.size(), max_chars);
  // Never cut inside a UTF-8 sequence.
  while (cut < value.size() && cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0) == 0x80)
    --cut;
  std::string s = "\"";
  for (char c : value.substr(0, cut)) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n')
      s += "\\n";
    else if (c == '\r')
      s += "\\r";
    else if (c == '\t')
      s += "\\t";
    else if (u < 0x20 || u == 0x7f)
      s += '?';
    else
      s += c;
  }
  s += '"';
  if (cut < value.size()) s += "… (" + std::to_string(value.size()) + " bytes)";
  return s;
}

bool looks_like_flag(std::string_view word) {
  if (word.size() >= 3 && word[0] == '-' && word[1] == '-')
    return std::isalpha(static_cast<unsigned char>(word[2])) != 0;
  return word.size() == 2 && word[0] == '-' && std::isalpha(static_cast<unsigned char>(word[1]));
}

Args::Args(std::vector<std::string> words) {
  for (auto& w : words) words_.push_back({std::move(w), false});
}

std::optional<std::size_t> Args::find(std::string_view name) {
  if (std::find(queried_.begin(), queried_.end(), name) == queried_.end())
    queried_.emplace_back(name);
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < words_.size(); ++i) {
    const std::string& w = words_[i].text;
    if (w == name ||
        (w.size() > name.size() && w.compare(0, name.size(), name) == 0 && w[name.size()] == '=')) {
      if (found) throw UsageError(std::string(name) + " is given more than once");
      found = i;
    }
  }
  return found;
}

bool Args::given(std::string_view name) const {
  for (const auto& w : words_)
    if (w.text == name || (w.text.size() > name.size() &&
                           w.text.compare(0, name.size(), name) == 0 && w.text[name.size()] == '='))
      return true;
  return false;
}

bool Args::flag(std::string_view name) {
  const auto i = find(name);
  if (!i) return false;
  if (words_[*i].text != name)
    throw UsageError(std::string(name) + " takes no value; got " + quoted(words_[*i].text));
  words_[*i].used = true;
  return true;
}

std::vector<std::string> Args::values(std::string_view name) {
  if (std::find(queried_.begin(), queried_.end(), name) == queried_.end())
    queried_.emplace_back(name);
  std::vector<std::string> out;
  for (std::size_t i = 0; i < words_.size(); ++i) {
    const std::string& w = words_[i].text;
    if (words_[i].used) continue;
    if (w.size() > name.size() && w.compare(0, name.size(), name) == 0 && w[name.size()] == '=') {
      words_[i].used = true;
      out.push_back(w.substr(name.size() + 1));
    } else if (w == name) {
      if (i + 1 >= words_.size() || looks_like_flag(words_[i + 1].text))
        throw UsageError(std::string(name) + " needs a value");
      words_[i].used = words_[i + 1].used = true;
      out.push_back(words_[++i].text);
    }
  }
  return out;
}

std::optional<std::string> Args::value(std::string_view name) {
  const auto i = find(name);
  if (!i) return std::nullopt;
  words_[*i].used = true;
  const std::string& w = words_[*i].text;
  if (w.size() > name.size()) return w.substr(name.size() + 1);
  if (*i + 1 >= words_.size() || words_[*i + 1].used)
    throw UsageError(std::string(name) + " needs a value");
  const std::string& next = words_[*i + 1].text;
  if (looks_like_flag(next))
    throw UsageError(std::string(name) + " needs a value; the next word is the flag " +
                     quoted(next.substr(0, next.find('=')), 40) + " (write " + std::string(name) +
                     "=VALUE for a value that starts with a dash)");
  words_[*i + 1].used = true;
  return next;
}

std::string Args::text(std::string_view name, std::string_view fallback) {
  auto v = value(name);
  return v ? *v : std::string(fallback);
}

std::string Args::required_text(std::string_view name) {
  auto v = value(name);
  if (!v) throw UsageError(std::string(name) + " is required");
  return *v;
}

namespace {

std::string range_text(double lo, double hi, std::string_view unit) {
  return "a number of " + std::string(unit) + " in [" + format_value(lo) + ", " + format_value(hi) +
         "]";
}

[[noreturn]] void bad_value(std::string_view name, const std::string& expected,
                            std::string_view got) {
  throw UsageError(std::string(name) + " must be " + expected + "; got " + quoted(got));
}

// Decimal or scientific notation only ("1.5", "-2", "1e3", "+.5"), read in
// the C locale whatever the environment says: no hexadecimal ("0x10"), no
// blanks, no "inf" or "nan", no decimal comma.
double parse_number(std::string_view name, const std::string& s, const std::string& expected) {
  std::string_view digits = s;
  if (!digits.empty() && digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty() || (digits.size() < s.size() && (digits[0] == '-' || digits[0] == '+')) ||
      !(std::isdigit(static_cast<unsigned char>(digits.back())) || digits.back() == '.') ||
      digits.find_first_not_of("0123456789.eE+-") != std::string_view::npos)
    bad_value(name, expected, s);
  double d = 0;
  const auto [ptr, ec] =
      std::from_chars(digits.data(), digits.data() + digits.size(), d, std::chars_format::general);
  if (ec != std::errc() || ptr != digits.data() + digits.size() || !std::isfinite(d))
    bad_value(name, expected, s);
  return d;
}

// "123", "-7", "+5": digits only, parsed exactly (doubles lose digits above 2^53).
bool plain_integer(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

}  // namespace

std::optional<std::int64_t> Args::optional_integer(std::string_view name, std::int64_t lo,
                                                   std::int64_t hi, std::string_view unit) {
  auto v = value(name);
  if (!v) return std::nullopt;
  const std::string expected = "an integer number of " + std::string(unit) + " in [" +
                               format_grouped(lo) + ", " + format_grouped(hi) + "]";
  std::int64_t x = 0;
  if (plain_integer(*v)) {
    std::string_view digits = *v;
    if (digits[0] == '+') digits.remove_prefix(1);
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), x);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) bad_value(name, expected, *v);
  } else {
    const double d = parse_number(name, *v, expected);
    // Range-checked as a double before the conversion: an int64 holds
    // [-2^63, 2^63), and converting anything outside is undefined behaviour.
    if (d != std::floor(d) || !(d >= -0x1p63 && d < 0x1p63)) bad_value(name, expected, *v);
    x = static_cast<std::int64_t>(d);
  }
  if (x < lo || x > hi) bad_value(name, expected, *v);
  return x;
}

std::int64_t Args::integer(std::string_view name, std::int64_t fallback, std::int64_t lo,
                           std::int64_t hi, std::string_view unit) {
  return optional_integer(name, lo, hi, unit).value_or(fallback);
}

std::int64_t Args::required_integer(std::string_view name, std::int64_t lo, std::int64_t hi,
                                    std::string_view unit) {
  auto v = optional_integer(name, lo, hi, unit);
  if (!v)
    throw UsageError(std::string(name) + " is required: an integer number of " + std::string(unit) +
                     " in [" + format_grouped(lo) + ", " + format_grouped(hi) + "]");
  return *v;
}

std::optional<double> Args::optional_real(std::string_view name, double lo, double hi,
                                          std::string_view unit) {
  auto v = value(name);
  if (!v) return std::nullopt;
  const std::string expected = range_text(lo, hi, unit);
  const double d = parse_number(name, *v, expected);
  if (d < lo || d > hi) bad_value(name, expected, *v);
  return d;
}

double Args::real(std::string_view name, double fallback, double lo, double hi,
                  std::string_view unit) {
  return optional_real(name, lo, hi, unit).value_or(fallback);
}

double Args::required_real(std::string_view name, double lo, double hi, std::string_view unit) {
  auto v = optional_real(name, lo, hi, unit);
  if (!v) throw UsageError(std::string(name) + " is required: " + range_text(lo, hi, unit));
  return *v;
}

std::optional<double> Args::optional_input(std::string_view input_key, std::string_view flag) {
  const ScenarioInput& in = scenario_input(input_key);
  const std::string_view name = flag.empty() ? in.flag : flag;
  auto v = value(name);
  if (!v) return std::nullopt;
  const std::string expected = input_flag_accepted_text(in);
  const double d = input_from_flag(in, parse_number(name, *v, expected));
  try {
    check_input(in, d);
  } catch (const InputError&) {
    bad_value(name, expected, *v);
  }
  return d;
}

void row(const char* label, const std::string& value, int width) {
  std::printf("  %-*s %s\n", width, label, value.c_str());
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

std::string pad_right(const std::string& text, std::size_t width) {
  const std::size_t n = code_points(text);
  return n >= width ? text + " " : text + std::string(width - n, ' ');
}

std::string pad_left(const std::string& text, std::size_t width) {
  const std::size_t n = code_points(text);
  return n >= width ? text : std::string(width - n, ' ') + text;
}

std::string signed_percent(double fraction) { return format_signed(100 * fraction, 1) + " %"; }

void paragraph(const std::string& text, int indent) {
  std::string line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > 92) {
      std::printf("%*s%s\n", indent, "", line.c_str());
      line.clear();
    }
    if (!line.empty()) line += ' ';
    line += word;
    start = end + 1;
  }
  if (!line.empty()) std::printf("%*s%s\n", indent, "", line.c_str());
}

std::string Args::choice(std::string_view name, std::string_view fallback,
                         std::initializer_list<std::string_view> choices) {
  const std::string v = text(name, fallback);
  for (auto c : choices)
    if (c == v) return v;
  throw UsageError(unknown_name_text(name, v, choices, [](std::string_view c) { return c; }));
}

std::optional<std::vector<double>> Args::real_list(std::string_view name, double lo, double hi,
                                                   std::string_view unit) {
  auto v = value(name);
  if (!v) return std::nullopt;
  std::vector<double> out;
  const std::string expected = "a comma-separated list of " + range_text(lo, hi, unit);
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = v->find(',', start);
    const std::string part =
        v->substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const double d = parse_number(name, part, expected);
    if (d < lo || d > hi) bad_value(name, expected, part);
    out.push_back(d);
    if (out.size() > 100000) throw UsageError(std::string(name) + " has too many values");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::optional<std::string> Args::positional() {
  for (auto& w : words_) {
    if (w.used) continue;
    if (w.text.rfind("--", 0) == 0) return std::nullopt;
    w.used = true;
    return w.text;
  }
  return std::nullopt;
}

void Args::set_command(std::string_view name, std::string_view usage) {
  command_ = name;
  usage_ = usage;
}

void Args::alias(std::string_view model_name, std::string_view flag) {
  aliases_.emplace_back(model_name, flag);
}

std::string Args::user_message(std::string_view message) const {
  std::string text(message);
  auto read = [&](std::string_view flag) {
    return std::find(queried_.begin(), queried_.end(), flag) != queried_.end();
  };
  for (const auto& [name, flag] : aliases_) replace_name(text, name, flag);
  for (const auto& [name, flag] : kModelNames)
    if (read(flag)) replace_name(text, name, flag);
  for (const std::string& flag : queried_)
    if (flag.rfind("--", 0) == 0) replace_name(text, snake(flag), flag);
  // Long quoted values cut short.
  for (std::size_t open = text.find('"'); open != std::string::npos;) {
    const std::size_t close = text.find('"', open + 1);
    if (close == std::string::npos) break;
    const std::size_t len = close - open - 1;
    if (len > 80) {
      std::size_t cut = 60;
      while (cut > 0 && (static_cast<unsigned char>(text[open + 1 + cut]) & 0xC0) == 0x80) --cut;
      const std::string tail = "\"… (" + std::to_string(len) + " bytes)";
      text.replace(open + 1 + cut, len - cut + 1, tail);
      open = text.find('"', open + 1 + cut + tail.size());
    } else {
      open = text.find('"', close + 1);
    }
  }
  // One line, of a readable length.
  std::string out;
  for (char c : text) out += (c == '\n' || c == '\r') ? ' ' : c;
  constexpr std::size_t kMax = 600;
  if (out.size() > kMax) {
    std::size_t cut = kMax;
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80) --cut;
    out = out.substr(0, cut) + "… (" + std::to_string(message.size()) + " bytes)";
  }
  return out;
}

namespace {

// The flags (words starting with a dash) of a usage fragment.
std::vector<std::string> flags_in(std::string_view text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && !is_word_char(text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && is_word_char(text[j])) ++j;
    const std::string_view w = text.substr(i, j - i);
    if (looks_like_flag(w)) out.emplace_back(w);
    i = j;
  }
  return out;
}

// Splits `text` at '|' outside brackets; returns [begin, end) offsets.
std::vector<std::pair<std::size_t, std::size_t>> alternatives(std::string_view text) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  int depth = 0;
  std::size_t begin = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') --depth;
    // " | " separates alternatives; "a|b" without spaces is a choice of values.
    if (c == '|' && depth == 0 && i > 0 && text[i - 1] == ' ' && i + 1 < text.size() &&
        text[i + 1] == ' ') {
      out.emplace_back(begin, i);
      begin = i + 1;
    }
  }
  out.emplace_back(begin, text.size());
  return out;
}

std::string trimmed(std::string_view s) {
  const std::size_t b = s.find_first_not_of(' ');
  if (b == std::string_view::npos) return {};
  return std::string(s.substr(b, s.find_last_not_of(' ') - b + 1));
}

}  // namespace

void Args::finish() const {
  for (const auto& w : words_) {
    if (w.used) continue;
    if (w.text.rfind("--", 0) != 0) throw UsageError("unexpected argument " + quoted(w.text));
    const std::string name = w.text.substr(0, w.text.find('='));
    const std::string_view usage = usage_;
    const std::size_t pos = usage.empty() ? std::string_view::npos : find_word(usage, name);
    if (pos == std::string_view::npos)
      throw UsageError("unknown flag " + (name.size() <= 60 ? name : quoted(name, 40)) + " for " +
                       (command_.empty() ? std::string("this command") : command_) +
                       " (see napkin-cli help)");
    // The groups around the flag in the usage line, innermost first.
    std::vector<std::pair<std::size_t, std::size_t>> groups;  // (open, close)
    std::vector<std::size_t> open;
    for (std::size_t i = 0; i < usage.size(); ++i) {
      const char c = usage[i];
      if (c == '[' || c == '(') open.push_back(i);
      if ((c == ']' || c == ')') && !open.empty()) {
        if (open.back() < pos && i > pos) groups.emplace_back(open.back(), i);
        open.pop_back();
      }
    }
    std::sort(groups.begin(), groups.end(), [](auto a, auto b) { return a.first > b.first; });
    for (const auto& [g_open, g_close] : groups) {
      const std::string_view inner = usage.substr(g_open + 1, g_close - g_open - 1);
      const auto alts = alternatives(inner);
      if (alts.size() > 1) {
        for (const auto& [b, e] : alts) {
          if (pos >= g_open + 1 + b && pos < g_open + 1 + e) continue;  // the flag's own
          for (const std::string& other : flags_in(inner.substr(b, e - b)))
            if (given(other)) {
              // A long group is named by where to read it, not cut mid-flag.
              const std::string group = trimmed(inner);
              throw UsageError(name + " cannot be combined with " + other + ": give one of " +
                               (group.size() <= 120
                                    ? quoted(group, 120)
                                    : "the alternatives in napkin-cli " + command_ + " --help"));
            }
        }
        continue;
      }
      const std::vector<std::string> flags = flags_in(inner);
      if (usage[g_open] == '[' && !flags.empty() && flags.front() != name)
        throw UsageError(name + " needs " + flags.front() + ": it is read only together with it [" +
                         trimmed(inner).substr(0, 160) + "]");
    }
    // Sub-commands: "moe collapse [...] | moe capacity ...".
    const auto top = alternatives(usage);
    if (top.size() > 1) {
      std::string owners;
      for (const auto& [b, e] : top) {
        const std::string alt = trimmed(usage.substr(b, e - b));
        if (find_word(alt, name) == std::string::npos) continue;
        // The leading words ("moe collapse"), up to the first flag or group.
        std::string owner;
        for (std::size_t i = 0; i < alt.size();) {
          const std::size_t j = std::min(alt.find(' ', i), alt.size());
          const std::string_view word = std::string_view(alt).substr(i, j - i);
          if (word.empty() || word[0] == '-' || word[0] == '[' || word[0] == '(') break;
          if (!owner.empty()) owner += ' ';
          owner += word;
          i = j + 1;
        }
        owners += (owners.empty() ? "\"" : ", \"") + owner + "\"";
      }
      throw UsageError(name + " is a flag of " + owners + ", not of this sub-command");
    }
    throw UsageError(name + " was not read by " +
                     (command_.empty() ? std::string("this command") : command_) +
                     " with these flags (see napkin-cli help)");
  }
}

QJsonValue json_int(std::int64_t v) { return QJsonValue(static_cast<qint64>(v)); }

void print_json(const QJsonObject& obj) {
  const QByteArray bytes = QJsonDocument(obj).toJson(QJsonDocument::Indented);
  std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stdout);
}

}  // namespace napkin::cli
