#include "csv_text.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace napkin {

namespace {

const std::string kEmpty;

}  // namespace

CsvText::CsvText(std::string_view text, std::string_view what) : what_(what) {
  std::vector<std::string> fields;
  std::string field;
  bool quoted = false, any = false;
  int line = 1, record_line = 1;
  auto end_record = [&] {
    fields.push_back(field);
    field.clear();
    const bool blank = fields.size() == 1 && fields[0].empty() && !any;
    if (!blank) {
      if (header_.empty()) {
        header_ = std::move(fields);
      } else {
        if (fields.size() > header_.size())
          throw std::invalid_argument(what_ + ", line " + std::to_string(record_line) + ": " +
                                      std::to_string(fields.size()) + " fields, the header has " +
                                      std::to_string(header_.size()));
        rows_.push_back(std::move(fields));
        lines_.push_back(record_line);
      }
    }
    fields.clear();
    any = false;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (quoted) {
      if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (ch == '"') {
        quoted = false;
      } else {
        if (ch == '\n') ++line;
        field += ch;
      }
    } else if (ch == '"') {
      quoted = any = true;
    } else if (ch == ',') {
      fields.push_back(field);
      field.clear();
      any = true;
    } else if (ch == '\n') {
      end_record();
      record_line = ++line;
    } else if (ch != '\r') {
      field += ch;
      any = true;
    }
  }
  if (quoted)
    throw std::invalid_argument(what_ + ", line " + std::to_string(record_line) +
                                ": a quoted field is not closed");
  end_record();
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
    throw std::invalid_argument(what_ + ", line " + std::to_string(lines_[row]) + ", column \"" +
                                header_[col] + "\": not a number: \"" + s + "\"");
  return v;
}

std::int64_t CsvText::count(std::size_t row, std::size_t col) const {
  const std::string& s = at(row, col);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size())
    throw std::invalid_argument(what_ + ", line " + std::to_string(lines_[row]) + ", column \"" +
                                header_[col] + "\": not a whole number: \"" + s + "\"");
  return v;
}

}  // namespace napkin
