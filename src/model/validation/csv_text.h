// CSV text with a header row, as the public data sets are written: fields
// separated by commas, optionally double-quoted (a quoted field may hold
// commas and doubled quotes), CR LF or LF line ends, blank lines skipped.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

class CsvText {
 public:
  // Throws std::invalid_argument naming `what` and the line when a row has
  // more fields than the header or a quote is not closed.
  CsvText(std::string_view text, std::string_view what);

  std::size_t size() const { return rows_.size(); }
  // The column's index; throws naming the data set and the column.
  std::size_t column(std::string_view name) const;
  bool has_column(std::string_view name) const;
  // Field of row `row` (missing trailing fields read as empty).
  const std::string& at(std::size_t row, std::size_t column) const;
  // Numbers: throw naming the data set, line and column when not one.
  double real(std::size_t row, std::size_t column) const;
  std::int64_t count(std::size_t row, std::size_t column) const;
  int line(std::size_t row) const { return lines_[row]; }

 private:
  std::string what_;
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
  std::vector<int> lines_;
};

}  // namespace napkin
