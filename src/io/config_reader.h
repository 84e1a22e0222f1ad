// Typed, range-checked reads of a JSON object for the config.json importer.
// Every access records the key, so the importer can tell which keys it
// modelled; every failure is one std::invalid_argument line naming the file,
// the key, the value found and what was expected. Internal to napkin_io.
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <QJsonValue>
#include <QString>
#include <cmath>
#include <cstdint>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>

#include "format.h"
#include "validate.h"

namespace napkin {

class Reader {
 public:
  Reader(const QJsonObject& o, std::string_view source, std::string prefix = "")
      : obj_(o), source_(source), prefix_(std::move(prefix)) {}

  [[noreturn]] void fail(const QString& key, const std::string& found,
                         const std::string& expected) const {
    throw std::invalid_argument(std::string(source_) + ": key \"" + prefix_ + key.toStdString() +
                                "\": expected " + expected + ", found " + found);
  }

  // A key the family's importer does not model although it changes the count.
  [[noreturn]] void fail_unmodelled(const QString& key, const std::string& found,
                                    const std::string& family) const {
    throw std::invalid_argument(std::string(source_) + ": key \"" + prefix_ + key.toStdString() +
                                "\" (found " + found +
                                ") changes the parameter count but is not part of a " + family +
                                " model, so the " + family +
                                " importer cannot count it; is model_type right? (or count the "
                                "model by hand: napkin-cli params --help)");
  }

  static std::string describe(const QJsonValue& v) {
    switch (v.type()) {
      case QJsonValue::Null: return "null";
      case QJsonValue::Bool: return v.toBool() ? "true" : "false";
      case QJsonValue::Double: return format_value(v.toDouble());
      case QJsonValue::String: {
        std::string s = v.toString().left(40).toStdString();
        return "the string \"" + s + "\"";
      }
      case QJsonValue::Array: return "an array";
      case QJsonValue::Object: return "an object";
      case QJsonValue::Undefined: return "nothing";
    }
    return "nothing";
  }

  void mark_read(const char* key) const { read_.insert(key); }
  bool was_read(const char* key) const { return read_.count(key) > 0; }

  QJsonValue raw(const char* key) const {
    mark_read(key);
    return obj_.value(QLatin1String(key));
  }

  bool has(const char* key) const {
    const QJsonValue v = raw(key);
    return !v.isUndefined() && !v.isNull();
  }

  std::int64_t integer(const char* key, std::int64_t lo, std::int64_t hi) const {
    const QString k = QLatin1String(key);
    const QJsonValue v = raw(key);
    const std::string expected =
        "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (v.isUndefined() || v.isNull()) fail(k, "nothing (the key is required)", expected);
    if (!v.isDouble()) fail(k, describe(v), expected);
    const double d = v.toDouble();
    if (!std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) ||
        d > static_cast<double>(hi))
      fail(k, describe(v), expected);
    return static_cast<std::int64_t>(d);
  }

  std::int64_t integer_or(const char* key, std::int64_t fallback, std::int64_t lo,
                          std::int64_t hi) const {
    return has(key) ? integer(key, lo, hi) : fallback;
  }

  // `key` or its older spelling `alias` (both recorded as read); `key` wins.
  std::int64_t integer_alias(const char* key, const char* alias, std::int64_t lo,
                             std::int64_t hi) const {
    if (!has(key) && has(alias)) return integer(alias, lo, hi);
    return integer(key, lo, hi);
  }

  std::int64_t integer_alias_or(const char* key, const char* alias, std::int64_t fallback,
                                std::int64_t lo, std::int64_t hi) const {
    if (has(key)) return integer(key, lo, hi);
    if (has(alias)) return integer(alias, lo, hi);
    return fallback;
  }

  // A list of distinct integers in [lo, hi]; null or absent is empty.
  std::set<std::int64_t> integer_set(const char* key, std::int64_t lo, std::int64_t hi) const {
    const QString k = QLatin1String(key);
    const QJsonValue v = raw(key);
    std::set<std::int64_t> out;
    if (v.isUndefined() || v.isNull()) return out;
    const std::string expected =
        "a list of integers in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
    if (!v.isArray()) fail(k, describe(v), expected);
    for (const QJsonValue& e : v.toArray()) {
      const double d = e.isDouble() ? e.toDouble() : -1.0;
      if (!e.isDouble() || !std::isfinite(d) || d != std::floor(d) || d < static_cast<double>(lo) ||
          d > static_cast<double>(hi))
        fail(k, "an element " + describe(e), expected);
      out.insert(static_cast<std::int64_t>(d));
    }
    return out;
  }

  bool boolean_or(const char* key, bool fallback) const {
    const QString k = QLatin1String(key);
    const QJsonValue v = raw(key);
    if (v.isUndefined() || v.isNull()) return fallback;
    if (!v.isBool()) fail(k, describe(v), "true or false");
    return v.toBool();
  }

  std::string string(const char* key, const std::string& expected_when_missing) const {
    const QString k = QLatin1String(key);
    const QJsonValue v = raw(key);
    if (v.isUndefined() || v.isNull())
      fail(k, "nothing (the key is required)", expected_when_missing);
    if (!v.isString()) fail(k, describe(v), "a string");
    return v.toString().toStdString();
  }

  std::string string_or(const char* key, const std::string& fallback) const {
    const QString k = QLatin1String(key);
    const QJsonValue v = raw(key);
    if (v.isUndefined() || v.isNull()) return fallback;
    if (!v.isString()) fail(k, describe(v), "a string");
    return v.toString().toStdString();
  }

 private:
  const QJsonObject& obj_;
  std::string_view source_;
  std::string prefix_;
  mutable std::set<std::string> read_;
};

}  // namespace napkin
