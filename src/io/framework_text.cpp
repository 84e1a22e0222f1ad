#include "framework_text.h"

#include <cctype>
#include <map>
#include <stdexcept>

#include "csv.h"
#include "read_file.h"

namespace napkin {

namespace {

using csv::fail;
using csv::shown;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

void check_size(std::string_view text, std::string_view source) {
  if (static_cast<std::int64_t>(text.size()) > kMaxConfigBytes)
    fail(source, 0,
         "the file is " + std::to_string(text.size()) + " bytes; the limit is " +
             std::to_string(kMaxConfigBytes) + " bytes");
  if (text.find('\0') != std::string_view::npos)
    fail(source, 0, "the file holds binary data (a zero byte); a config is text");
}

// Lines with their 1-based numbers, CR stripped.
std::vector<std::pair<std::int64_t, std::string_view>> lines_of(std::string_view text) {
  std::vector<std::pair<std::int64_t, std::string_view>> out;
  std::int64_t n = 1;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    out.emplace_back(n++, l);
    if (end == text.size()) break;
    start = end + 1;
  }
  return out;
}

bool is_identifier(std::string_view s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

// ------------------------------------------------------------ argument lists

struct Token {
  std::string text;
  bool has_unknown = false;  // a $VAR the script does not set
};

// $NAME, ${NAME} and ${NAME:-default} from the script's own assignments.
Token expand(std::string_view raw, const std::map<std::string, std::string>& vars) {
  Token t;
  for (std::size_t i = 0; i < raw.size(); ++i) {
    if (raw[i] != '$') {
      t.text += raw[i];
      continue;
    }
    std::string name, fallback;
    bool has_fallback = false;
    if (i + 1 < raw.size() && raw[i + 1] == '{') {
      const std::size_t close = raw.find('}', i + 2);
      if (close == std::string_view::npos) {
        t.has_unknown = true;
        break;
      }
      std::string_view inner = raw.substr(i + 2, close - i - 2);
      const std::size_t dash = inner.find(":-");
      if (dash != std::string_view::npos) {
        fallback = std::string(inner.substr(dash + 2));
        has_fallback = true;
        inner = inner.substr(0, dash);
      }
      name = std::string(inner);
      i = close;
    } else {
      std::size_t j = i + 1;
      while (j < raw.size() && (std::isalnum(static_cast<unsigned char>(raw[j])) || raw[j] == '_'))
        ++j;
      name = std::string(raw.substr(i + 1, j - i - 1));
      i = j - 1;
    }
    const auto it = vars.find(name);
    if (it != vars.end())
      t.text += it->second;
    else if (has_fallback)
      t.text += fallback;
    else
      t.has_unknown = true;
  }
  return t;
}

// Splits one logical shell line into words: quotes kept together, `#` at a
// word's start ends the line.
std::vector<std::string> shell_words(std::string_view line) {
  std::vector<std::string> words;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (char c : line) {
    if (quote) {
      if (c == quote)
        quote = 0;
      else
        cur += c;
      continue;
    }
    if (c == '"' || c == '\'') {
      quote = c;
      in_word = true;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (in_word) words.push_back(cur);
      cur.clear();
      in_word = false;
      continue;
    }
    if (c == '#' && !in_word) break;
    cur += c;
    in_word = true;
  }
  if (in_word) words.push_back(cur);
  return words;
}

ConfigEntries read_printed_arguments(std::string_view text, std::string_view source) {
  ConfigEntries out;
  out.source = std::string(source);
  for (auto [n, raw] : lines_of(text)) {
    // Log prefixes ("[rank0]: ") come before the two-space indent.
    std::string_view l = raw;
    const std::size_t dots = l.find(" ...");
    if (dots == std::string_view::npos) continue;
    std::size_t key_end = dots;
    std::size_t key_start = key_end;
    while (key_start > 0 &&
           (std::isalnum(static_cast<unsigned char>(l[key_start - 1])) || l[key_start - 1] == '_'))
      --key_start;
    std::size_t v = dots + 1;
    while (v < l.size() && l[v] == '.') ++v;
    if (key_start == key_end || v - dots < 4) continue;
    std::string value(trim(l.substr(v)));
    if (value == "None") value.clear();
    out.entries.push_back({std::string(l.substr(key_start, key_end - key_start)), value, n, true});
  }
  if (out.entries.empty()) fail(source, 0, "the arguments block holds no `name ..... value` lines");
  return out;
}

}  // namespace

const ConfigEntry* ConfigEntries::find(std::string_view key) const {
  for (auto it = entries.rbegin(); it != entries.rend(); ++it)
    if (it->key == key) return &*it;
  return nullptr;
}

bool has_printed_arguments(std::string_view text) {
  return text.find("-- arguments --") != std::string_view::npos ||
         text.find("end of arguments") != std::string_view::npos;
}

ConfigEntries read_argument_list(std::string_view text, std::string_view source) {
  check_size(text, source);
  if (has_printed_arguments(text)) return read_printed_arguments(text, source);
  ConfigEntries out;
  out.source = std::string(source);
  std::map<std::string, std::string> vars;
  std::string logical;
  std::int64_t logical_line = 0;
  auto process = [&](std::int64_t line_no, const std::string& line) {
    // A bash array on one line, ARGS=(--a 1 --b), reads as its words: the
    // parentheses split off the first and the last.
    std::vector<std::string> words;
    for (std::string w : shell_words(line)) {
      const std::size_t eq = w.find("=(");
      if (w.substr(0, 2) != "--" && eq != std::string::npos && is_identifier(w.substr(0, eq)) &&
          w.size() > eq + 2) {
        words.push_back(w.substr(0, eq + 2));
        w.erase(0, eq + 2);
      }
      const bool closes = w.size() > 1 && w.back() == ')' && w.find("$(") == std::string::npos;
      if (closes) w.pop_back();
      words.push_back(w);
      if (closes) words.emplace_back(")");
    }
    for (std::size_t i = 0; i < words.size(); ++i) {
      std::string_view w = words[i];
      if (w == "export" || w == "local" || w == "declare") continue;
      const std::size_t eq = w.find('=');
      if (w.substr(0, 2) != "--" && eq != std::string_view::npos &&
          is_identifier(w.substr(0, eq))) {
        const Token t = expand(w.substr(eq + 1), vars);
        if (!t.has_unknown && t.text != "(") vars[std::string(w.substr(0, eq))] = t.text;
        continue;
      }
      if (w.size() < 3 || w.substr(0, 2) != "--") continue;
      std::string key(w.substr(2));
      std::string raw_value = "true";
      const std::size_t keq = key.find('=');
      if (keq != std::string::npos) {
        raw_value = key.substr(keq + 1);
        key.resize(keq);
      } else if (i + 1 < words.size() && words[i + 1].substr(0, 2) != "--" && words[i + 1] != ")" &&
                 words[i + 1] != "\\") {
        raw_value = words[++i];
        // Flags that take a list (nargs='+'): every word up to the next flag.
        if (key == "recompute-modules")
          while (i + 1 < words.size() && words[i + 1].substr(0, 2) != "--" && words[i + 1] != ")" &&
                 words[i + 1] != "\\")
            raw_value += " " + words[++i];
      }
      for (char& c : key)
        if (c == '-') c = '_';
      const Token t = expand(raw_value, vars);
      out.entries.push_back({key, t.has_unknown ? raw_value : t.text, line_no, !t.has_unknown});
    }
  };
  for (auto [n, raw] : lines_of(text)) {
    if (logical.empty()) logical_line = n;
    std::string_view l = raw;
    const bool continued = !trim(l).empty() && trim(l).back() == '\\';
    if (continued) {
      l = trim(l);
      l.remove_suffix(1);
    }
    logical += std::string(l) + " ";
    if (continued) continue;
    process(logical_line, logical);
    logical.clear();
  }
  if (!logical.empty()) process(logical_line, logical);
  if (out.entries.empty())
    fail(source, 0,
         "no --flag found; expected a Megatron-LM launch script or its printed arguments block");
  return out;
}

// -------------------------------------------------------------------- TOML

namespace {

// The text before a `#` that is not inside a string.
std::string_view strip_comment(std::string_view l) {
  char quote = 0;
  for (std::size_t i = 0; i < l.size(); ++i) {
    const char c = l[i];
    if (quote) {
      if (c == '\\' && quote == '"')
        ++i;
      else if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '#') {
      return l.substr(0, i);
    }
  }
  return l;
}

// A scalar: quotes removed, else as written. False for an unterminated string.
bool unquote(std::string_view v, std::string* out) {
  v = trim(v);
  if (!v.empty() && (v.front() == '"' || v.front() == '\'')) {
    if (v.size() < 2 || v.back() != v.front()) return false;
    *out = std::string(v.substr(1, v.size() - 2));
    return true;
  }
  *out = std::string(v);
  return true;
}

}  // namespace

ConfigEntries read_toml(std::string_view text, std::string_view source) {
  check_size(text, source);
  ConfigEntries out;
  out.source = std::string(source);
  std::string section;
  std::string pending_key, pending_value;  // a multi-line array
  std::int64_t pending_line = 0;
  int depth = 0;
  for (auto [n, raw] : lines_of(text)) {
    std::string_view l = trim(strip_comment(raw));
    if (!pending_key.empty()) {
      pending_value += ' ';
      pending_value += l;
      for (char c : l) depth += c == '[' ? 1 : c == ']' ? -1 : 0;
      if (depth <= 0) {
        out.entries.push_back({pending_key, pending_value, pending_line, true});
        pending_key.clear();
      }
      continue;
    }
    if (l.empty()) continue;
    if (l.front() == '[') {
      const bool array_table = l.substr(0, 2) == "[[";
      const std::size_t close = l.find(array_table ? "]]" : "]");
      if (close == std::string_view::npos || trim(l.substr(close + (array_table ? 2 : 1))) != "")
        fail(source, n, "a table header needs a closing bracket; found " + shown(l));
      section = std::string(trim(l.substr(array_table ? 2 : 1, close - (array_table ? 2 : 1))));
      continue;
    }
    const std::size_t eq = l.find('=');
    if (eq == std::string_view::npos)
      fail(source, n, "expected `key = value` or `[section]`; found " + shown(l));
    std::string key;
    if (!unquote(l.substr(0, eq), &key) || key.empty())
      fail(source, n, "a key before `=` is empty or badly quoted: " + shown(l));
    const std::string full = section.empty() ? key : section + "." + key;
    std::string_view v = trim(l.substr(eq + 1));
    if (v.empty()) fail(source, n, "key \"" + full + "\" has no value after `=`");
    if (v.front() == '[') {
      depth = 0;
      for (char c : v) depth += c == '[' ? 1 : c == ']' ? -1 : 0;
      if (depth > 0) {
        pending_key = full;
        pending_value = std::string(v);
        pending_line = n;
        continue;
      }
    }
    std::string value;
    if (!unquote(v, &value)) fail(source, n, "key \"" + full + "\": an unterminated string");
    std::string clean;
    const bool numeric = !value.empty() && v.front() != '"' && v.front() != '\'';
    for (char c : value)
      if (!(numeric && c == '_')) clean += c;
    out.entries.push_back({full, clean, n, true});
  }
  if (!pending_key.empty())
    fail(source, pending_line, "key \"" + pending_key + "\": an array is never closed");
  if (out.entries.empty()) fail(source, 0, "no `key = value` found; expected a TOML file");
  return out;
}

// -------------------------------------------------------------------- YAML

ConfigEntries read_yaml(std::string_view text, std::string_view source) {
  check_size(text, source);
  ConfigEntries out;
  out.source = std::string(source);
  struct Level {
    std::size_t indent;
    std::string path;
  };
  std::vector<Level> stack;
  long skip_deeper_than = -1;  // inside a sequence or block scalar: skip deeper lines
  for (auto [n, raw] : lines_of(text)) {
    std::string_view l = strip_comment(raw);
    if (trim(l).empty() || trim(l) == "---" || trim(l) == "...") continue;
    std::size_t indent = 0;
    while (indent < l.size() && l[indent] == ' ') ++indent;
    if (indent < l.size() && l[indent] == '\t')
      fail(source, n, "a tab indents this line; YAML indents with spaces");
    if (skip_deeper_than >= 0 && static_cast<long>(indent) > skip_deeper_than) continue;
    skip_deeper_than = -1;
    std::string_view body = trim(l);
    while (!stack.empty() && stack.back().indent >= indent) stack.pop_back();
    if (body.front() == '-' && (body.size() == 1 || body[1] == ' ')) {
      skip_deeper_than = static_cast<long>(indent);  // a sequence item: not a setting Napkin reads
      continue;
    }
    std::size_t colon = std::string_view::npos;
    char quote = 0;
    for (std::size_t i = 0; i < body.size(); ++i) {
      if (quote) {
        if (body[i] == quote) quote = 0;
      } else if (body[i] == '"' || body[i] == '\'') {
        quote = body[i];
      } else if (body[i] == ':' && (i + 1 == body.size() || body[i + 1] == ' ')) {
        colon = i;
        break;
      }
    }
    if (colon == std::string_view::npos)
      fail(source, n, "expected `key: value`; found " + shown(body));
    std::string key;
    if (!unquote(body.substr(0, colon), &key) || key.empty())
      fail(source, n, "a key before `:` is empty or badly quoted: " + shown(body));
    const std::string path = stack.empty() ? key : stack.back().path + "." + key;
    std::string_view v = trim(body.substr(colon + 1));
    if (v.empty()) {
      stack.push_back({indent, path});
      continue;
    }
    if (v == "|" || v == ">" || v.substr(0, 2) == "|-" || v.substr(0, 2) == ">-") {
      skip_deeper_than = static_cast<long>(indent);
      continue;
    }
    std::string value;
    if (!unquote(v, &value)) fail(source, n, "key \"" + path + "\": an unterminated string");
    if (value == "null" || value == "~" || value == "None") value.clear();
    out.entries.push_back({path, value, n, true});
  }
  if (out.entries.empty()) fail(source, 0, "no `key: value` found; expected a YAML file");
  // ${a.b} (absolute) and ${.b} / ${..b} (relative to the key's mapping).
  std::map<std::string, std::size_t> last;  // key → its last entry
  for (std::size_t i = 0; i < out.entries.size(); ++i) last[out.entries[i].key] = i;
  for (int round = 0; round < 8; ++round) {
    bool changed = false;
    for (ConfigEntry& e : out.entries) {
      if (!e.known || e.value.find("${") == std::string::npos) continue;
      const std::string& v = e.value;
      if (v.substr(0, 2) != "${" || v.back() != '}' || v.find(':') != std::string::npos) {
        e.known = false;  // a resolver or text around the reference
        continue;
      }
      std::string ref = v.substr(2, v.size() - 3);
      std::string base =
          e.key.substr(0, e.key.rfind('.') == std::string::npos ? 0 : e.key.rfind('.'));
      if (!ref.empty() && ref[0] == '.') {
        ref.erase(0, 1);
        while (!ref.empty() && ref[0] == '.') {
          ref.erase(0, 1);
          const std::size_t dot = base.rfind('.');
          base = dot == std::string::npos ? "" : base.substr(0, dot);
        }
        ref = base.empty() ? ref : base + "." + ref;
      }
      const auto at = last.find(ref);
      const ConfigEntry* target = at == last.end() ? nullptr : &out.entries[at->second];
      if (!target || !target->known) {
        e.known = false;
        continue;
      }
      if (target->value.find("${") != std::string::npos) continue;  // next round
      e.value = target->value;
      changed = true;
    }
    if (!changed) break;
  }
  for (ConfigEntry& e : out.entries)
    if (e.value.find("${") != std::string::npos) e.known = false;
  return out;
}

// -------------------------------------------------------------------- JSON

namespace {

class JsonFlattener {
 public:
  JsonFlattener(std::string_view text, std::string_view source, ConfigEntries& out)
      : t_(text), source_(source), out_(out) {}

  void document() {
    space();
    if (peek() != '{') fail(source_, line_, "a DeepSpeed config is a JSON object `{...}`");
    value("", 0);
    space();
    if (i_ < t_.size())
      fail(source_, line_, "text after the closing brace: " + shown(t_.substr(i_)));
  }

 private:
  std::string_view t_;
  std::string_view source_;
  ConfigEntries& out_;
  std::size_t i_ = 0;
  std::int64_t line_ = 1;

  char peek() const { return i_ < t_.size() ? t_[i_] : '\0'; }
  void space() {
    while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) {
      if (t_[i_] == '\n') ++line_;
      ++i_;
    }
  }
  void expect(char c, const char* what) {
    space();
    if (peek() != c)
      fail(source_, line_,
           std::string("expected ") + what + "; found " +
               (i_ < t_.size() ? shown(t_.substr(i_, 12)) : std::string("the end of the file")));
    ++i_;
  }
  std::string string() {
    expect('"', "a string");
    std::string s;
    while (i_ < t_.size() && t_[i_] != '"') {
      if (t_[i_] == '\n') fail(source_, line_, "a string runs past the end of its line");
      if (t_[i_] == '\\' && i_ + 1 < t_.size()) ++i_;
      s += t_[i_++];
    }
    if (i_ >= t_.size()) fail(source_, line_, "a string is never closed");
    ++i_;
    return s;
  }
  void value(const std::string& key, int depth) {
    if (depth > 64) fail(source_, line_, "objects nested deeper than 64 levels");
    space();
    const std::int64_t at = line_;
    const char c = peek();
    if (c == '{') {
      ++i_;
      space();
      if (peek() == '}') {
        ++i_;
        return;
      }
      for (;;) {
        space();
        const std::string k = string();
        expect(':', "`:` after a key");
        value(key.empty() ? k : key + "." + k, depth + 1);
        space();
        if (peek() == ',') {
          ++i_;
          continue;
        }
        expect('}', "`,` or `}`");
        return;
      }
    }
    if (c == '[') {
      const std::size_t start = i_;
      int d = 0;
      char quote = 0;
      for (; i_ < t_.size(); ++i_) {
        const char x = t_[i_];
        if (x == '\n') ++line_;
        if (quote) {
          if (x == '\\')
            ++i_;
          else if (x == '"')
            quote = 0;
        } else if (x == '"') {
          quote = x;
        } else if (x == '[' || x == '{') {
          ++d;
        } else if (x == ']' || x == '}') {
          if (--d == 0) break;
        }
      }
      if (i_ >= t_.size()) fail(source_, at, "key \"" + key + "\": an array is never closed");
      ++i_;
      out_.entries.push_back({key, std::string(t_.substr(start, i_ - start)), at, true});
      return;
    }
    if (c == '"') {
      out_.entries.push_back({key, string(), at, true});
      return;
    }
    std::size_t j = i_;
    while (j < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[j])) || t_[j] == '.' ||
                             t_[j] == '-' || t_[j] == '+'))
      ++j;
    std::string scalar(t_.substr(i_, j - i_));
    if (scalar.empty())
      fail(source_, at, "key \"" + key + "\": expected a value; found " + shown(t_.substr(i_, 12)));
    i_ = j;
    if (scalar == "null") scalar.clear();
    out_.entries.push_back({key, scalar, at, true});
  }
};

}  // namespace

ConfigEntries read_json(std::string_view text, std::string_view source) {
  check_size(text, source);
  ConfigEntries out;
  out.source = std::string(source);
  JsonFlattener(text, source, out).document();
  return out;
}

}  // namespace napkin
