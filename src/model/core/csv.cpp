#include "csv.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iterator>
#include <stdexcept>

namespace napkin {

namespace csv {

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

namespace {

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

}  // namespace

// RFC 4180 records. A blank line is skipped; a record may span lines inside
// quotes (it is then reported at the line where it starts). An unterminated
// quote always throws: every row after it would be swallowed. A stray quote
// throws when strict, else marks the record and skips to the end of its line.
std::vector<Record> split_records(std::string_view text, std::string_view source, bool tolerant,
                                  const Progress& progress, std::int64_t max_records) {
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
  const auto total = static_cast<std::int64_t>(text.size());
  std::int64_t next_report = kProgressBytes;
  while (i < text.size() && static_cast<std::int64_t>(out.size()) < max_records) {
    if (progress && static_cast<std::int64_t>(i) >= next_report) {
      next_report = static_cast<std::int64_t>(i) + kProgressBytes;
      if (!progress(static_cast<std::int64_t>(i), total))
        throw Stopped(std::string(source) + ": stopped at line " + std::to_string(line));
    }
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
  if (progress && !progress(total, total))
    throw Stopped(std::string(source) + ": stopped at the end");
  return out;
}

Table read_table(std::string_view text, std::string_view source, std::int64_t max_bytes,
                 bool tolerant, const Progress& progress, std::int64_t max_data_rows) {
  if (static_cast<std::int64_t>(text.size()) > max_bytes)
    fail(source, 0,
         "the file is " + std::to_string(text.size()) + " bytes; the limit is " +
             std::to_string(max_bytes) + " bytes");
  // The header is a record too.
  const std::int64_t max_records = max_data_rows < kAllRecords ? max_data_rows + 1 : kAllRecords;
  std::vector<Record> records = split_records(text, source, tolerant, progress, max_records);
  if (records.empty()) fail(source, 0, "the file is empty; a header line is required");
  if (!records[0].error.empty()) fail(source, records[0].line, "the header: " + records[0].error);
  Table t;
  for (const Field& f : records[0].fields) t.header.push_back(std::string(trim(f.text)));
  t.records.assign(std::make_move_iterator(records.begin() + 1),
                   std::make_move_iterator(records.end()));
  return t;
}

}  // namespace csv

namespace {

const std::string kEmpty;
// The public data sets are small; the bound only keeps a mistake cheap.
constexpr std::int64_t kMaxTextBytes = std::int64_t{64} << 20;

}  // namespace

CsvText::CsvText(std::string_view text, std::string_view what) : what_(what) {
  csv::Table t = csv::read_table(text, what, kMaxTextBytes, false);
  header_ = std::move(t.header);
  for (csv::Record& r : t.records) {
    if (r.fields.size() > header_.size())
      csv::fail(what, r.line,
                std::to_string(r.fields.size()) + " fields, the header has " +
                    std::to_string(header_.size()));
    std::vector<std::string> row;
    for (csv::Field& f : r.fields) row.push_back(std::move(f.text));
    rows_.push_back(std::move(row));
    lines_.push_back(static_cast<int>(r.line));
  }
}

bool CsvText::has_column(std::string_view name) const {
  for (const std::string& h : header_)
    if (h == name) return true;
  return false;
}

std::size_t CsvText::column(std::string_view name) const {
  for (std::size_t i = 0; i < header_.size(); ++i)
    if (header_[i] == name) return i;
  throw std::invalid_argument(what_ + ": no column \"" + std::string(name) + "\"");
}

const std::string& CsvText::at(std::size_t row, std::size_t column) const {
  const std::vector<std::string>& r = rows_.at(row);
  return column < r.size() ? r[column] : kEmpty;
}

double CsvText::real(std::size_t row, std::size_t col) const {
  const std::string& s = at(row, col);
  double v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v))
    throw std::invalid_argument(what_ + ": line " + std::to_string(lines_[row]) + ", column \"" +
                                header_[col] + "\": not a number: \"" + s + "\"");
  return v;
}

std::int64_t CsvText::count(std::size_t row, std::size_t col) const {
  const std::string& s = at(row, col);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    throw std::invalid_argument(what_ + ": line " + std::to_string(lines_[row]) + ", column \"" +
                                header_[col] + "\": not a whole number: \"" + s + "\"");
  return v;
}

}  // namespace napkin
