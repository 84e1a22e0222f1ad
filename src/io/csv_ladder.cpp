#include "csv_ladder.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

#include "csv_ladder_detail.h"
#include "format.h"
#include "read_file.h"
#include "validate.h"

namespace napkin {

namespace csv_detail {

[[noreturn]] void fail(std::string_view source, std::int64_t line, std::string_view message) {
  std::string m(source);
  if (line > 0) m += ": line " + std::to_string(line);
  m += ": ";
  m += message;
  throw std::invalid_argument(m);
}

// A value quoted for a message: at most 40 bytes, control characters escaped
// so that one bad cell cannot spill over lines.
std::string shown(std::string_view value) {
  constexpr std::size_t kMax = 40;
  std::string s;
  for (char c : value.substr(0, kMax)) {
    if (c == '\n')
      s += "\\n";
    else if (c == '\r')
      s += "\\r";
    else if (static_cast<unsigned char>(c) < 0x20)
      s += '?';
    else
      s += c;
  }
  if (value.size() > kMax) s += "…";
  return "\"" + s + "\"";
}

std::string listed(const std::vector<std::string>& header) {
  std::string have;
  for (const auto& h : header) have += (have.empty() ? "" : ", ") + shown(h);
  return have.empty() ? "no columns" : have;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Text that is not UTF-8 (or ASCII) CSV: said so, instead of a header of
// raw bytes.
void reject_non_utf8(std::string_view text, std::string_view source) {
  auto starts = [&](std::string_view bom) { return text.substr(0, bom.size()) == bom; };
  if (starts(std::string_view("\xFF\xFE\0\0", 4)) || starts(std::string_view("\0\0\xFE\xFF", 4)))
    fail(source, 0, "the file is UTF-32 text; save it as UTF-8 CSV");
  if (starts("\xFF\xFE"))
    fail(source, 0,
         "the file is UTF-16 (little-endian) text, with a byte-order mark; save it as UTF-8 CSV "
         "(e.g. iconv -f UTF-16 -t UTF-8)");
  if (starts("\xFE\xFF"))
    fail(source, 0,
         "the file is UTF-16 (big-endian) text, with a byte-order mark; save it as UTF-8 CSV "
         "(e.g. iconv -f UTF-16 -t UTF-8)");
  const std::string_view head = text.substr(0, 4096);
  const std::size_t nul = head.find('\0');
  if (nul == std::string_view::npos) return;
  std::size_t odd = 0, even = 0;
  for (std::size_t i = 0; i < head.size(); ++i)
    if (head[i] == '\0') ++(i % 2 ? odd : even);
  if (odd * 4 >= head.size() && even == 0)
    fail(source, 0,
         "the file looks like UTF-16 (little-endian) text (every other byte is zero); save it as "
         "UTF-8 CSV (e.g. iconv -f UTF-16LE -t UTF-8)");
  if (even * 4 >= head.size() && odd == 0)
    fail(source, 0,
         "the file looks like UTF-16 (big-endian) text (every other byte is zero); save it as "
         "UTF-8 CSV (e.g. iconv -f UTF-16BE -t UTF-8)");
  fail(source, 0,
       "the file holds binary data (a zero byte at offset " + std::to_string(nul) +
           "); a CSV ladder is UTF-8 text");
}

// RFC 4180 records. A blank line is skipped; a record may span lines inside
// quotes (it is then reported at the line where it starts). An unterminated
// quote always throws: every row after it would be swallowed. A stray quote
// throws when strict, else marks the record and skips to the end of its line.
std::vector<Record> split_records(std::string_view text, std::string_view source, bool tolerant) {
  reject_non_utf8(text, source);
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<Record> out;
  std::size_t i = 0;
  std::int64_t line = 1;
  auto bad = [&](Record& rec, std::int64_t at, const std::string& message) {
    if (!tolerant) fail(source, at, message);
    rec.error = message;
    while (i < text.size() && text[i] != '\n' && text[i] != '\r') ++i;
  };
  while (i < text.size()) {
    Record rec;
    rec.line = line;
    bool end_of_record = false;
    while (!end_of_record) {
      Field f;
      std::string raw;
      // Leading blanks before an opening quote are allowed.
      std::size_t j = i;
      while (j < text.size() && (text[j] == ' ' || text[j] == '\t')) ++j;
      const std::string column = "column " + std::to_string(rec.fields.size() + 1);
      if (j < text.size() && text[j] == '"') {
        f.quoted = true;
        i = j + 1;
        const std::int64_t open_line = line;
        for (;;) {
          if (i >= text.size())
            fail(source, open_line,
                 column +
                     ": unterminated quoted field (never closed, so the rows after it cannot be "
                     "told apart); got " +
                     shown(raw));
          const char c = text[i];
          if (c == '"') {
            if (i + 1 < text.size() && text[i + 1] == '"') {
              raw += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (c == '\n') ++line;
          raw += c;
          ++i;
        }
        while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
        if (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          bad(rec, line,
              column + ": characters after a closing quote; got " +
                  shown(text.substr(i, std::min<std::size_t>(20, text.size() - i))));
        f.text = raw;
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == '"') {
            bad(rec, line, column + ": a quote inside an unquoted field; got " + shown(raw + '"'));
            break;
          }
          raw += text[i];
          ++i;
        }
        f.text = std::string(trim(raw));
      }
      rec.fields.push_back(std::move(f));
      if (i >= text.size()) {
        end_of_record = true;
      } else if (text[i] == ',') {
        ++i;
      } else {  // \n, \r\n or a lone \r
        if (text[i] == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
        ++i;
        ++line;
        end_of_record = true;
      }
    }
    const bool blank = rec.error.empty() && rec.fields.size() == 1 && !rec.fields[0].quoted &&
                       rec.fields[0].text.empty();
    if (!blank) out.push_back(std::move(rec));
  }
  return out;
}

Table read_table(std::string_view text, std::string_view source, std::int64_t max_bytes,
                 bool tolerant) {
  if (static_cast<std::int64_t>(text.size()) > max_bytes)
    fail(source, 0,
         "the file is " + std::to_string(text.size()) + " bytes; the limit is " +
             std::to_string(max_bytes) + " bytes");
  std::vector<Record> records = split_records(text, source, tolerant);
  if (records.empty()) fail(source, 0, "the file is empty; a header line is required");
  if (!records[0].error.empty()) fail(source, records[0].line, "the header: " + records[0].error);
  Table t;
  for (const Field& f : records[0].fields) t.header.push_back(std::string(trim(f.text)));
  t.records.assign(std::make_move_iterator(records.begin() + 1),
                   std::make_move_iterator(records.end()));
  return t;
}

std::size_t find_column(const std::vector<std::string>& header, const std::string& name,
                        std::string_view source, std::string_view role) {
  std::size_t found = header.size();
  for (std::size_t k = 0; k < header.size(); ++k) {
    if (header[k] != name) continue;
    if (found != header.size())
      fail(source, 1,
           "column \"" + name + "\" (" + std::string(role) +
               ") appears more than once in the header; rename one");
    found = k;
  }
  if (found == header.size())
    fail(source, 1,
         "column \"" + name + "\" (" + std::string(role) + ") is missing; the header has " +
             listed(header));
  return found;
}

Mapping map_columns(const std::vector<std::string>& header, const LadderColumns& c,
                    std::string_view source) {
  Mapping m;
  m.from_flops = c.tokens_kind == TokensKind::flops;
  m.loss_unit = c.loss_unit;
  const std::string tokens_unit = m.from_flops ? "training FLOPs" : "tokens";
  const std::string loss_unit = c.loss_unit == LossUnit::bits ? "bits/token" : "nats/token";
  m.n = {find_column(header, c.n_params, source, "parameters"), c.n_params, "parameters",
         c.n_params_scale};
  m.tokens = {find_column(header, c.tokens, source, tokens_unit), c.tokens, tokens_unit,
              c.tokens_scale};
  m.loss = {find_column(header, c.loss, source, loss_unit), c.loss, loss_unit, 1.0};
  if (!c.budget.empty())
    m.budget = Column{find_column(header, c.budget, source, "budget label, FLOPs"), c.budget,
                      "budget label, FLOPs", c.budget_scale};
  return m;
}

// A number > 0 from a mapped column, or the reason it is not one.
bool read_number(const Record& rec, const Column& col, double& out, CsvSkippedRow& why) {
  const Field& f = rec.fields[col.index];
  const std::string_view s = trim(f.text);
  const std::string where = "column \"" + col.name + "\" (" + col.unit + ")";
  why.column = col.name;
  auto reject = [&](CsvSkipReason r, const std::string& m) {
    why.reason = r;
    why.message = where + ": " + m;
    return false;
  };
  if (s.empty()) return reject(CsvSkipReason::empty, "empty field; a number > 0 is required");
  std::string_view digits = s;
  if (digits.front() == '+') digits.remove_prefix(1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range)
    return reject(CsvSkipReason::out_of_range, "the number is out of range; got " + shown(f.text));
  if (ec != std::errc() || ptr != digits.data() + digits.size())
    return reject(CsvSkipReason::non_numeric, "not a number; got " + shown(f.text));
  if (!std::isfinite(v))
    return reject(CsvSkipReason::non_numeric, "must be a finite number > 0; got " + shown(f.text));
  if (!(v > 0)) return reject(CsvSkipReason::non_positive, "must be > 0; got " + shown(f.text));
  out = v * col.scale;
  if (!std::isfinite(out) || !(out > 0))
    return reject(CsvSkipReason::out_of_range,
                  "times the column's scale (" + format_value(col.scale) +
                      ") is not a finite number > 0; got " + shown(f.text));
  return true;
}

// One data row as a run, or the reason it is not one.
bool read_row(const Record& rec, std::size_t n_fields, const Mapping& m, LadderPoint& p,
              CsvSkippedRow& why) {
  why = CsvSkippedRow{};
  why.line = rec.line;
  if (!rec.error.empty()) {
    why.reason = CsvSkipReason::malformed;
    why.message = rec.error;
    return false;
  }
  if (rec.fields.size() != n_fields) {
    why.reason = CsvSkipReason::ragged;
    why.message = "the row has " + std::to_string(rec.fields.size()) + " fields; the header has " +
                  std::to_string(n_fields);
    return false;
  }
  p = LadderPoint{};
  double t = 0;
  if (!read_number(rec, m.n, p.n_params, why) || !read_number(rec, m.tokens, t, why)) return false;
  p.n_tokens = m.from_flops ? t / (6.0 * p.n_params) : t;
  if (!std::isfinite(p.n_tokens) || !(p.n_tokens > 0)) {
    why.column = m.tokens.name;
    why.reason = CsvSkipReason::out_of_range;
    why.message = "column \"" + m.tokens.name +
                  "\": D = C / (6N) is not a finite number > 0; got " +
                  shown(rec.fields[m.tokens.index].text);
    return false;
  }
  if (!read_number(rec, m.loss, p.loss, why)) return false;
  if (m.loss_unit == LossUnit::bits) p.loss *= std::log(2.0);  // bits → nats
  if (m.budget && !read_number(rec, *m.budget, p.budget_flops, why)) return false;
  return true;
}

std::string file_name_of(std::string_view source) {
  const auto slash = source.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? source : source.substr(slash + 1));
}

}  // namespace csv_detail

using namespace csv_detail;

std::string_view to_string(CsvSkipReason r) {
  switch (r) {
    case CsvSkipReason::ragged: return "ragged row";
    case CsvSkipReason::malformed: return "malformed";
    case CsvSkipReason::empty: return "empty";
    case CsvSkipReason::non_numeric: return "non-numeric";
    case CsvSkipReason::non_positive: return "non-positive";
    case CsvSkipReason::out_of_range: return "out of range";
    case CsvSkipReason::over_loss_cut: return "over the loss cut";
  }
  return "malformed";
}

void CsvLadderOptions::validate() const {
  if (n_column.empty())
    throw std::invalid_argument("the parameters column (N) needs a name; got an empty one");
  if (loss_column.empty())
    throw std::invalid_argument("the loss column needs a name; got an empty one");
  if (!d_column.empty() && !c_column.empty())
    throw std::invalid_argument(
        "tokens come from a tokens column (D) or a training-compute column (C, D = C/6N), not "
        "both; got \"" +
        d_column + "\" and \"" + c_column + "\"");
  if (max_loss) require_positive(*max_loss, "loss cut", "nats/token");
  require_count(max_bytes, "size limit", "bytes", 1);
  require_real(n_scale, "parameters scale", "× the column", 1e-15, 1e21);
  require_real(tokens_scale, "tokens scale", "× the column", 1e-15, 1e21);
  require_real(budget_scale, "budget scale", "× the column", 1e-15, 1e21);
}

CsvLadder parse_csv_ladder(std::string_view text, std::string_view source,
                           const CsvLadderOptions& options) {
  options.validate();
  const Table table = read_table(text, source, options.max_bytes, options.skip_bad_rows);
  const std::vector<std::string>& header = table.header;

  LadderColumns c;
  c.n_params = options.n_column;
  c.n_params_scale = options.n_scale;
  c.loss = options.loss_column;
  c.loss_unit = options.loss_unit;
  c.budget = options.budget_column;
  c.budget_scale = options.budget_scale;
  c.tokens_scale = options.tokens_scale;
  if (!options.d_column.empty()) {
    c.tokens = options.d_column;
  } else if (!options.c_column.empty()) {
    c.tokens = options.c_column;
    c.tokens_kind = TokensKind::flops;
  } else if (std::find(header.begin(), header.end(), "D") != header.end()) {
    c.tokens = "D";
  } else if (std::find(header.begin(), header.end(), "C") != header.end()) {
    c.tokens = "C";
    c.tokens_kind = TokensKind::flops;
  } else {
    fail(source, 1,
         "no tokens column: the header has " + listed(header) +
             "; a column of tokens (D) or of training compute (C, in FLOPs, with D = C/6N) is "
             "required");
  }
  const Mapping m = map_columns(header, c, source);

  CsvLadder out;
  out.source = std::string(source);
  out.tokens_from_flops = m.from_flops;
  out.tokens_column = c.tokens;
  for (const Record& rec : table.records) {
    ++out.rows;
    LadderPoint p;
    CsvSkippedRow why;
    if (!read_row(rec, header.size(), m, p, why)) {
      if (!options.skip_bad_rows) fail(source, why.line, why.message);
      out.skipped.push_back(std::move(why));
      continue;
    }
    if (options.max_loss && !(p.loss < *options.max_loss)) {
      ++out.rows_filtered;
      continue;
    }
    out.points.push_back(p);
    out.point_lines.push_back(rec.line);
  }
  if (out.rows == 0) fail(source, 0, "no data rows after the header");
  if (out.points.empty()) {
    const auto bad = static_cast<std::int64_t>(out.skipped.size());
    std::string m2 = "no usable rows: of the " + std::to_string(out.rows) + " rows, ";
    if (bad > 0)
      m2 += std::to_string(bad) + " cannot be read (first: line " +
            std::to_string(out.skipped.front().line) + ", " + out.skipped.front().message + ")";
    if (bad > 0 && out.rows_filtered > 0) m2 += " and ";
    if (out.rows_filtered > 0)
      m2 += std::to_string(out.rows_filtered) + " have a loss at or above the loss cut (" +
            format_value(*options.max_loss) + " nats/token)";
    fail(source, 0, m2);
  }
  return out;
}

std::string read_csv_file(const std::string& path, std::int64_t max_bytes) {
  require_count(max_bytes, "size limit", "bytes", 1);
  // Streams too: a pipe, a FIFO, /dev/stdin or a /proc file.
  std::string text, error;
  if (!read_file_capped(path, max_bytes, &text, &error)) throw std::invalid_argument(error);
  return text;
}

CsvLadder load_csv_ladder(const std::string& path, const CsvLadderOptions& options) {
  options.validate();
  return parse_csv_ladder(read_csv_file(path, options.max_bytes), path, options);
}

}  // namespace napkin
