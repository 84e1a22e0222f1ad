#include "json_strict.h"

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace napkin {

namespace {

bool digit(char c) { return c >= '0' && c <= '9'; }

// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? (RFC 8259 §6).
bool json_number(std::string_view t) {
  std::size_t i = 0;
  if (i < t.size() && t[i] == '-') ++i;
  if (i >= t.size() || !digit(t[i])) return false;
  if (t[i] == '0')
    ++i;
  else
    while (i < t.size() && digit(t[i])) ++i;
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (i >= t.size() || !digit(t[i])) return false;
    while (i < t.size() && digit(t[i])) ++i;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (i >= t.size() || !digit(t[i])) return false;
    while (i < t.size() && digit(t[i])) ++i;
  }
  return i == t.size();
}

struct Level {
  bool object = false;
  std::string path;  // "moe." for the object under "moe"; "" at the top
  std::set<std::string> keys;
  bool expect_key = false;  // in an object, after '{' or ','
  std::string last_key;
};

std::string excerpt(std::string_view s) {
  return s.size() > 40 ? std::string(s.substr(0, 40)) + "…" : std::string(s);
}

}  // namespace

void check_strict_json(std::string_view json, std::string_view source) {
  const std::string where = std::string(source) + ": ";
  std::vector<Level> stack;
  std::size_t i = 0;
  while (i < json.size()) {
    const char c = json[i];
    if (c == '"') {  // a string: a key when an object expects one
      std::string text;
      std::size_t j = i + 1;
      for (; j < json.size() && json[j] != '"'; ++j) {
        if (json[j] == '\\' && j + 1 < json.size()) text += json[j++];
        text += json[j];
      }
      if (!stack.empty() && stack.back().object && stack.back().expect_key) {
        Level& l = stack.back();
        if (!l.keys.insert(text).second)
          throw std::invalid_argument(where + "field \"" + l.path + excerpt(text) +
                                      "\" is given twice (at byte " + std::to_string(i) +
                                      "); keep one");
        l.last_key = text;
        l.expect_key = false;
      }
      i = j + 1;
      continue;
    }
    if (c == '{' || c == '[') {
      std::string path;
      if (!stack.empty())
        path = stack.back().object ? stack.back().path + stack.back().last_key + "."
                                   : stack.back().path;
      stack.push_back(Level{c == '{', path, {}, c == '{', {}});
    } else if (c == '}' || c == ']') {
      if (!stack.empty()) stack.pop_back();
    } else if (c == ',') {
      if (!stack.empty() && stack.back().object) stack.back().expect_key = true;
    } else if (c == '-' || c == '+' || c == '.' || digit(c)) {
      std::size_t j = i;
      while (j < json.size() &&
             (digit(json[j]) || json[j] == '.' || json[j] == '-' || json[j] == '+' ||
              json[j] == 'e' || json[j] == 'E' || json[j] == 'x' || json[j] == 'X'))
        ++j;
      const std::string_view token = json.substr(i, j - i);
      if (!json_number(token)) {
        std::string key;
        if (!stack.empty() && stack.back().object)
          key = " (field \"" + stack.back().path + excerpt(stack.back().last_key) + "\")";
        const bool point = token.find('.') != std::string_view::npos;
        throw std::invalid_argument(where + "the number " + excerpt(token) + " at byte " +
                                    std::to_string(i) + key + " is not JSON; " +
                                    (point
                                         ? "write digits on both sides of the point, as 5.0 or 0.5"
                                         : "write a decimal number, as 16 or 1e3"));
      }
      i = j;
      continue;
    }
    ++i;
  }
}

}  // namespace napkin
