// The one CSV reader: RFC 4180 records (fields separated by commas, optionally
// double-quoted; a quoted field may hold commas, line breaks and doubled
// quotes), CR LF, LF or CR line ends, a UTF-8 byte-order mark, blank lines
// (a trailing empty line included) skipped. UTF-16, UTF-32 and binary text is
// refused as such. Used by the scaling ladder and the measured runs (io), the
// public data sets (validation) and the published serving table (roofline).
//
// Reading is bounded: a size limit, and a progress callback polled every
// 64 KiB that may stop a long read (a Cancel button, --max-seconds, Ctrl+C).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

namespace csv {

struct Field {
  std::string text;  // unquoted; blanks around an unquoted field trimmed
  bool quoted = false;
};

struct Record {
  std::int64_t line = 0;  // where the record starts, 1-based
  std::vector<Field> fields;
  std::string error;  // a stray quote (tolerant reading only)
};

struct Table {
  std::vector<std::string> header;
  std::vector<Record> records;  // data rows, without the header
};

// Bytes parsed so far and the text's size; false stops the read (Stopped).
using Progress = std::function<bool(std::int64_t done, std::int64_t total)>;
inline constexpr std::int64_t kProgressBytes = 64 * 1024;

// A read stopped by its progress callback.
struct Stopped : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Throws std::invalid_argument "source: line N: message" ("source: message"
// for line 0).
[[noreturn]] void fail(std::string_view source, std::int64_t line, std::string_view message);
// A value quoted for a message (at most 40 bytes, control characters escaped).
std::string shown(std::string_view value);
// The header as a list for a message.
std::string listed(const std::vector<std::string>& header);
std::string_view trim(std::string_view s);

// The records of `text`. An unterminated quote always throws (every row after
// it would be swallowed); a stray quote throws when strict, else marks the
// record (Record::error) and skips to the end of its line. Reading stops after
// `max_records` records (blank lines not counted): a preview reads only the
// first rows of a large text.
inline constexpr std::int64_t kAllRecords = std::numeric_limits<std::int64_t>::max();
std::vector<Record> split_records(std::string_view text, std::string_view source, bool tolerant,
                                  const Progress& progress = {},
                                  std::int64_t max_records = kAllRecords);
// The header (trimmed) and the data records of `text` (at most `max_bytes`;
// an empty text or a bad header throws), at most `max_data_rows` of them.
Table read_table(std::string_view text, std::string_view source, std::int64_t max_bytes,
                 bool tolerant, const Progress& progress = {},
                 std::int64_t max_data_rows = kAllRecords);

}  // namespace csv

// A strict table with named columns, as the public data sets are read.
class CsvText {
 public:
  // Throws std::invalid_argument naming `what` and the line when a row has
  // more fields than the header or a quote is not closed.
  CsvText(std::string_view text, std::string_view what);

  std::size_t size() const { return rows_.size(); }
  // The column's index; throws naming the data set and the column.
  std::size_t column(std::string_view name) const;
  bool has_column(std::string_view name) const;
  const std::vector<std::string>& header() const { return header_; }
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
