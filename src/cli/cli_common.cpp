#include "cli_common.h"

#include <QJsonDocument>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "validate.h"

namespace napkin::cli {

Args::Args(std::vector<std::string> words) {
  for (auto& w : words) words_.push_back({std::move(w), false});
}

std::optional<std::size_t> Args::find(std::string_view name) {
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

bool Args::flag(std::string_view name) {
  const auto i = find(name);
  if (!i) return false;
  if (words_[*i].text != name)
    throw UsageError(std::string(name) + " takes no value; got \"" + words_[*i].text + "\"");
  words_[*i].used = true;
  return true;
}

std::optional<std::string> Args::value(std::string_view name) {
  const auto i = find(name);
  if (!i) return std::nullopt;
  words_[*i].used = true;
  const std::string& w = words_[*i].text;
  if (w.size() > name.size()) return w.substr(name.size() + 1);
  if (*i + 1 >= words_.size() || words_[*i + 1].used)
    throw UsageError(std::string(name) + " needs a value");
  words_[*i + 1].used = true;
  return words_[*i + 1].text;
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

double parse_number(std::string_view name, const std::string& s, const std::string& expected) {
  if (s.empty()) throw UsageError(std::string(name) + " must be " + expected + "; got \"\"");
  errno = 0;
  char* end = nullptr;
  const double d = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || errno == ERANGE || !std::isfinite(d))
    throw UsageError(std::string(name) + " must be " + expected + "; got \"" + s + "\"");
  return d;
}

}  // namespace

std::optional<std::int64_t> Args::optional_integer(std::string_view name, std::int64_t lo,
                                                   std::int64_t hi, std::string_view unit) {
  auto v = value(name);
  if (!v) return std::nullopt;
  const std::string expected = "an integer number of " + std::string(unit) + " in [" +
                               std::to_string(lo) + ", " + std::to_string(hi) + "]";
  const double d = parse_number(name, *v, expected);
  if (d != std::floor(d) || d < static_cast<double>(lo) || d > static_cast<double>(hi))
    throw UsageError(std::string(name) + " must be " + expected + "; got \"" + *v + "\"");
  // Parse exactly when the text is a plain integer (doubles lose digits above 2^53).
  char* end = nullptr;
  errno = 0;
  const long long exact = std::strtoll(v->c_str(), &end, 10);
  if (end == v->c_str() + v->size() && errno == 0) {
    if (exact < lo || exact > hi)
      throw UsageError(std::string(name) + " must be " + expected + "; got \"" + *v + "\"");
    return exact;
  }
  return static_cast<std::int64_t>(d);
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
                     " in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return *v;
}

std::optional<double> Args::optional_real(std::string_view name, double lo, double hi,
                                          std::string_view unit) {
  auto v = value(name);
  if (!v) return std::nullopt;
  const std::string expected = range_text(lo, hi, unit);
  const double d = parse_number(name, *v, expected);
  if (d < lo || d > hi)
    throw UsageError(std::string(name) + " must be " + expected + "; got \"" + *v + "\"");
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

std::string Args::choice(std::string_view name, std::string_view fallback,
                         std::initializer_list<std::string_view> choices) {
  const std::string v = text(name, fallback);
  std::string list;
  for (auto c : choices) {
    if (c == v) return v;
    if (!list.empty()) list += ", ";
    list += c;
  }
  throw UsageError(std::string(name) + " must be one of " + list + "; got \"" + v + "\"");
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
    if (d < lo || d > hi)
      throw UsageError(std::string(name) + " must be " + expected + "; got \"" + part + "\"");
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

void Args::finish() const {
  for (const auto& w : words_)
    if (!w.used) {
      if (w.text.rfind("--", 0) == 0)
        throw UsageError("unknown flag " + w.text.substr(0, w.text.find('=')) +
                         " for this command (see napkin-cli help)");
      throw UsageError("unexpected argument \"" + w.text + "\"");
    }
}

QJsonValue json_int(std::int64_t v) { return QJsonValue(static_cast<qint64>(v)); }

void print_json(const QJsonObject& obj) {
  const QByteArray bytes = QJsonDocument(obj).toJson(QJsonDocument::Indented);
  std::fwrite(bytes.constData(), 1, static_cast<std::size_t>(bytes.size()), stdout);
}

}  // namespace napkin::cli
