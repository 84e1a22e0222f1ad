// What scenario_json.cpp and scenario_settings_json.cpp share: the checked
// reader of a JSON object (every failure names the field, what was expected
// and what was found) and the panels' settings, written and read.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include <string_view>
#include "format.h"

#include "choices.h"
#include "inputs.h"
#include "scenario.h"
#include "switches.h"
#include "validate.h"

namespace napkin::json_detail {

inline QString q(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

class Reader {
 public:
  Reader(const QJsonObject& o, std::string prefix, std::string_view source)
      : obj_(o), prefix_(std::move(prefix)), source_(source) {}

  [[noreturn]] void fail(const char* key, const std::string& found,
                         const std::string& expected) const {
    throw std::invalid_argument(std::string(source_) + ": field \"" + prefix_ + key +
                                "\": expected " + expected + ", found " + found);
  }

  static std::string describe(const QJsonValue& v) {
    switch (v.type()) {
      case QJsonValue::Null: return "null";
      case QJsonValue::Bool: return v.toBool() ? "true" : "false";
      case QJsonValue::Double: {
        // Shortest round trip: 9007199254740992 as written, not "9.0072e+15".
        char text[64];
        const auto r = std::to_chars(text, text + sizeof text, v.toDouble());
        return std::string(text, r.ptr);
      }
      case QJsonValue::String: return "the string \"" + v.toString().left(40).toStdString() + "\"";
      case QJsonValue::Array: return "an array";
      case QJsonValue::Object: return "an object";
      case QJsonValue::Undefined: return "nothing";
    }
    return "nothing";
  }

  void integer(const char* key, std::int64_t& out, std::int64_t lo, std::int64_t hi) const {
    const QJsonValue v = look(key);
    if (v.isUndefined()) return;
    const std::string expected =
        "an integer in [" + format_grouped(lo) + ", " + format_grouped(hi) + "]";
    if (!v.isDouble()) fail(key, describe(v), expected);
    const double d = v.toDouble();
    if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) ||
        d > static_cast<double>(hi))
      fail(key, describe(v), expected);
    out = v.toInteger(static_cast<qint64>(d));
  }

  void integer(const char* key, int& out, int lo, int hi) const {
    std::int64_t v = out;
    integer(key, v, lo, hi);
    out = static_cast<int>(v);
  }

  void real(const char* key, double& out, double lo, double hi) const {
    const QJsonValue v = look(key);
    if (v.isUndefined()) return;
    const std::string expected = "a number in [" + format_value(lo) + ", " + format_value(hi) + "]";
    if (!v.isDouble()) fail(key, describe(v), expected);
    const double d = v.toDouble();
    if (!std::isfinite(d) || d < lo || d > hi) fail(key, describe(v), expected);
    out = d;
  }

  // Every registered input (inputs.h) of this reader's section ("model."
  // reads the section "model"), each as input() reads it.
  void inputs(Scenario& s) const {
    const std::string_view section = std::string_view(prefix_).substr(0, prefix_.size() - 1);
    for (const ScenarioInput& in : scenario_inputs())
      if (in.section == section) input(in.key, s);
  }

  // Every registered choice (choices.h) of this object: its options from the
  // registry, written into `s`.
  void choices(Scenario& s) const {
    const std::string_view section = std::string_view(prefix_).substr(0, prefix_.size() - 1);
    for (const ScenarioChoice& c : scenario_choices()) {
      if (c.section != section) continue;
      const std::string key(c.json_key);
      if (!c.unset_label.empty() && has(key.c_str()) && is_null(key.c_str())) {
        c.set(s, "");  // null: left unset
        continue;
      }
      std::string name = c.get(s);
      choice<std::string>(key.c_str(), name, [&c](std::string_view text) {
        return choice_option(c, text, c.json_key).name;
      });
      c.set(s, name);
    }
  }

  // Every registered switch (switches.h) of this object, written into `s`.
  void switches(Scenario& s) const {
    const std::string_view section = std::string_view(prefix_).substr(0, prefix_.size() - 1);
    for (const ScenarioSwitch& w : scenario_switches()) {
      if (w.section != section) continue;
      bool on = w.get(s);
      const std::string key(w.json_key);
      if (w.json_on.empty()) {
        boolean(key.c_str(), on);
      } else {  // a word for each state
        choice<bool>(key.c_str(), on, [&w](std::string_view text) {
          if (text == w.json_on || text == w.json_off) return text == w.json_on;
          throw std::invalid_argument("one of " + std::string(w.json_off) + ", " +
                                      std::string(w.json_on));
        });
      }
      w.set(s, on);
    }
  }

  // A registered input (inputs.h): its JSON key, range and type from the
  // registry, written into `s`.
  void input(std::string_view input_key, Scenario& s) const {
    const ScenarioInput& in = scenario_input(input_key);
    const std::string key(in.json_key);
    const QJsonValue v = look(key);
    if (v.isUndefined()) return;
    if (in.clear && v.isNull()) {  // an input the document may leave unset
      in.clear(s);
      return;
    }
    const std::string expected =
        input_accepted_text(in) + (in.clear ? " or null (" + std::string(in.unset_text) + ")" : "");
    if (!v.isDouble()) fail(key.c_str(), describe(v), expected);
    try {
      check_input(in, v.toDouble());
    } catch (const InputError&) {
      fail(key.c_str(), describe(v), expected);
    }
    in.set(s, v.toDouble());
  }

  void boolean(const char* key, bool& out) const {
    const QJsonValue v = look(key);
    if (v.isUndefined()) return;
    if (!v.isBool()) fail(key, describe(v), "true or false");
    out = v.toBool();
  }

  void text(const char* key, std::string& out, std::size_t max_len = 200) const {
    const QJsonValue v = look(key);
    if (v.isUndefined()) return;
    if (!v.isString()) fail(key, describe(v), "a string");
    const std::string s = v.toString().toStdString();
    if (s.size() > max_len)
      fail(key, "a string of " + std::to_string(s.size()) + " bytes",
           "at most " + std::to_string(max_len) + " bytes");
    out = s;
  }

  // A string converted by `parse` (which throws std::invalid_argument).
  template <typename T>
  void choice(const char* key, T& out, const std::function<T(std::string_view)>& parse) const {
    std::string s;
    const QJsonValue v = look(key);
    if (v.isUndefined()) return;
    text(key, s);
    try {
      out = parse(s);
    } catch (const std::invalid_argument& e) {
      std::string msg = e.what();
      const auto semi = msg.find(';');
      fail(key, "\"" + s + "\"", msg.substr(0, semi));
    }
  }

  // {"low": …, "high": …} around a value of the scenario; null clears it.
  void spread(const char* key, std::optional<Spread>& out, double lo, double hi) const {
    const QJsonValue v = look(key);
    if (v.isUndefined()) return;
    if (v.isNull()) {
      out.reset();
      return;
    }
    if (!v.isObject()) fail(key, describe(v), "an object {\"low\": …, \"high\": …} or null");
    const QJsonObject o = v.toObject();
    const Reader inner(o, prefix_ + key + ".", source_);
    Spread sp;
    for (const char* k : {"low", "high"})
      if (!o.contains(QLatin1String(k))) inner.fail(k, "nothing", "a number");
    inner.real("low", sp.low, lo, hi);
    inner.real("high", sp.high, lo, hi);
    if (sp.low > sp.high)
      fail(key, "low " + format_value(sp.low) + " > high " + format_value(sp.high), "low <= high");
    out = sp;
  }

  QJsonObject object(const char* key) const {
    const QJsonValue v = look(key);
    if (v.isUndefined()) return {};
    if (!v.isObject()) fail(key, describe(v), "an object");
    return v.toObject();
  }

  bool has(const char* key) const {
    mark(key);
    return obj_.contains(QLatin1String(key));
  }
  bool is_null(const char* key) const { return look(key).isNull(); }

  QJsonArray array(const char* key) const {
    const QJsonValue v = look(key);
    if (v.isUndefined()) return {};
    if (!v.isArray()) fail(key, describe(v), "an array");
    return v.toArray();
  }

  // Every key a Reader looks up, as "prefix.key", while a KeysRead is alive
  // on this thread: what the document holds beyond them is unknown to this
  // build (a misspelling, or a newer writer's field).
  struct KeysRead {
    std::set<std::string> keys;
    KeysRead* previous;
    KeysRead() : previous(current()) { current() = this; }
    ~KeysRead() { current() = previous; }
    KeysRead(const KeysRead&) = delete;
    KeysRead& operator=(const KeysRead&) = delete;
    static KeysRead*& current() {
      thread_local KeysRead* active = nullptr;
      return active;
    }
  };

  const std::string& prefix() const { return prefix_; }
  std::string_view source() const { return source_; }

 private:
  void mark(std::string_view key) const {
    if (KeysRead* k = KeysRead::current()) k->keys.insert(prefix_ + std::string(key));
  }
  QJsonValue look(const char* key) const {
    mark(key);
    return obj_.value(QLatin1String(key));
  }
  QJsonValue look(const std::string& key) const {
    mark(key);
    return obj_.value(QString::fromStdString(key));
  }

  const QJsonObject obj_;  // implicitly shared: a copy is cheap, a reference could dangle
  std::string prefix_;
  std::string_view source_;
};

// The panels' settings (IsoFLOPs, MoE, Roofline, Parallelism) of `s` into `doc`.
void settings_to_json(const Scenario& s, QJsonObject& doc);
// Reads them from the document `top` into `s` (absent ones keep their defaults).
void settings_from_json(const Reader& top, Scenario& s);

}  // namespace napkin::json_detail
