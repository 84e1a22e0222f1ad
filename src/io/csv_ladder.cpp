#include "csv_ladder.h"

#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

#include "read_file.h"
#include "validate.h"

namespace napkin {

namespace {

struct Field {
  std::string text;
  bool quoted = false;
};

struct Record {
  std::int64_t line = 0;  // where the record starts, 1-based
  std::vector<Field> fields;
};

[[noreturn]] void fail(std::string_view source, std::int64_t line, std::string_view message) {
  std::string m(source);
  if (line > 0) m += ": line " + std::to_string(line);
  m += ": ";
  m += message;
  throw std::invalid_argument(m);
}

// A value quoted for an error message: at most 40 bytes, control characters
// escaped so that one bad cell cannot spill over lines.
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

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// RFC 4180 records. A blank line is skipped; a record may span lines inside
// quotes (it is then reported at the line where it starts).
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

std::vector<Record> split_records(std::string_view text, std::string_view source) {
  reject_non_utf8(text, source);
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::vector<Record> out;
  std::size_t i = 0;
  std::int64_t line = 1;
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
      if (j < text.size() && text[j] == '"') {
        f.quoted = true;
        i = j + 1;
        const std::int64_t open_line = line;
        for (;;) {
          if (i >= text.size())
            fail(source, open_line,
                 "column " + std::to_string(rec.fields.size() + 1) +
                     ": unterminated quoted field; got " + shown(raw));
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
          fail(source, line,
               "column " + std::to_string(rec.fields.size() + 1) +
                   ": characters after a closing quote; got " +
                   shown(text.substr(i, std::min<std::size_t>(20, text.size() - i))));
        f.text = raw;
      } else {
        while (i < text.size() && text[i] != ',' && text[i] != '\n' && text[i] != '\r') {
          if (text[i] == '"')
            fail(source, line,
                 "column " + std::to_string(rec.fields.size() + 1) +
                     ": a quote inside an unquoted field; got " + shown(raw + '"'));
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
    const bool blank =
        rec.fields.size() == 1 && !rec.fields[0].quoted && rec.fields[0].text.empty();
    if (!blank) out.push_back(std::move(rec));
  }
  return out;
}

double parse_number(const Field& f, std::string_view source, std::int64_t line,
                    std::string_view column, std::string_view unit) {
  std::string_view s = trim(f.text);
  const std::string where = "column \"" + std::string(column) + "\" (" + std::string(unit) + ")";
  if (s.empty()) fail(source, line, where + ": empty field; a number > 0 is required");
  std::string_view digits = s;
  if (digits.front() == '+') digits.remove_prefix(1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range)
    fail(source, line, where + ": the number is out of range; got " + shown(f.text));
  if (ec != std::errc() || ptr != digits.data() + digits.size())
    fail(source, line, where + ": not a number; got " + shown(f.text));
  if (!std::isfinite(v))
    fail(source, line, where + ": must be a finite number > 0; got " + shown(f.text));
  if (!(v > 0)) fail(source, line, where + ": must be > 0; got " + shown(f.text));
  return v;
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
  if (found == header.size()) {
    std::string have;
    for (const auto& h : header) have += (have.empty() ? "" : ", ") + shown(h);
    fail(source, 1,
         "column \"" + name + "\" (" + std::string(role) + ") is missing; the header has " + have);
  }
  return found;
}

bool has_column(const std::vector<std::string>& header, std::string_view name) {
  for (const auto& h : header)
    if (h == name) return true;
  return false;
}

}  // namespace

void CsvLadderOptions::validate() const {
  if (n_column.empty()) throw std::invalid_argument("n_column (column name) must not be empty");
  if (loss_column.empty())
    throw std::invalid_argument("loss_column (column name) must not be empty");
  if (!d_column.empty() && !c_column.empty())
    throw std::invalid_argument(
        "d_column and c_column (column names): give at most one of tokens and FLOPs; got \"" +
        d_column + "\" and \"" + c_column + "\"");
  if (max_loss) require_positive(*max_loss, "max_loss", "nats/token");
  require_count(max_bytes, "max_bytes", "bytes", 1);
}

CsvLadder parse_csv_ladder(std::string_view text, std::string_view source,
                           const CsvLadderOptions& options) {
  options.validate();
  if (static_cast<std::int64_t>(text.size()) > options.max_bytes)
    fail(source, 0,
         "the file is " + std::to_string(text.size()) + " bytes; the limit is " +
             std::to_string(options.max_bytes) + " bytes");
  const std::vector<Record> records = split_records(text, source);
  if (records.empty()) fail(source, 0, "the file is empty; a header line is required");
  std::vector<std::string> header;
  for (const Field& f : records[0].fields) header.push_back(std::string(trim(f.text)));

  CsvLadder out;
  out.source = std::string(source);
  const std::size_t n_col = find_column(header, options.n_column, source, "parameters");
  const std::size_t loss_col = find_column(header, options.loss_column, source, "nats/token");
  std::string d_name = options.d_column, c_name = options.c_column;
  if (d_name.empty() && c_name.empty()) {
    if (has_column(header, "D"))
      d_name = "D";
    else if (has_column(header, "C"))
      c_name = "C";
    else
      fail(source, 1,
           "no tokens column: name one with d_column (tokens) or c_column (training FLOPs); "
           "neither \"D\" nor \"C\" is in the header");
  }
  out.tokens_from_flops = d_name.empty();
  out.tokens_column = out.tokens_from_flops ? c_name : d_name;
  const std::size_t t_col = find_column(header, out.tokens_column, source,
                                        out.tokens_from_flops ? "training FLOPs" : "tokens");
  std::optional<std::size_t> b_col;
  if (!options.budget_column.empty())
    b_col = find_column(header, options.budget_column, source, "budget label, FLOPs");

  for (std::size_t r = 1; r < records.size(); ++r) {
    const Record& rec = records[r];
    if (rec.fields.size() != header.size())
      fail(source, rec.line,
           "the row has " + std::to_string(rec.fields.size()) + " fields; the header has " +
               std::to_string(header.size()));
    ++out.rows;
    LadderPoint p;
    p.n_params = parse_number(rec.fields[n_col], source, rec.line, header[n_col], "parameters");
    const double t = parse_number(rec.fields[t_col], source, rec.line, header[t_col],
                                  out.tokens_from_flops ? "training FLOPs" : "tokens");
    p.n_tokens = out.tokens_from_flops ? t / (6.0 * p.n_params) : t;
    if (!std::isfinite(p.n_tokens) || !(p.n_tokens > 0))
      fail(source, rec.line,
           "column \"" + header[t_col] + "\": D = C / (6N) is not a finite number > 0; got " +
               shown(rec.fields[t_col].text));
    p.loss = parse_number(rec.fields[loss_col], source, rec.line, header[loss_col], "nats/token");
    if (b_col)
      p.budget_flops =
          parse_number(rec.fields[*b_col], source, rec.line, header[*b_col], "budget label, FLOPs");
    if (options.max_loss && !(p.loss < *options.max_loss)) {
      ++out.rows_filtered;
      continue;
    }
    out.points.push_back(p);
  }
  if (out.rows == 0) fail(source, 0, "no data rows after the header");
  if (out.points.empty())
    fail(source, 0,
         "every one of the " + std::to_string(out.rows) + " rows has loss >= max_loss (" +
             format_value(*options.max_loss) + " nats/token)");
  return out;
}

CsvLadder load_csv_ladder(const std::string& path, const CsvLadderOptions& options) {
  options.validate();
  std::string text, error;
  // Streams too: a pipe, a FIFO, /dev/stdin or a /proc file.
  if (!read_file_capped(path, options.max_bytes, &text, &error)) throw std::invalid_argument(error);
  return parse_csv_ladder(text, path, options);
}

}  // namespace napkin
