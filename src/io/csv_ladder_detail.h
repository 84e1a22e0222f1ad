// What csv_ladder.cpp and csv_ladder_import.cpp share and nobody else needs:
// the records of a CSV file, the column mapping and reading one row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "csv_ladder.h"

namespace napkin::csv_detail {

struct Field {
  std::string text;
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

// A mapped column and the numbers it holds.
struct Column {
  std::size_t index = 0;
  std::string name;
  std::string unit;  // for messages
  double scale = 1;
};

struct Mapping {
  Column n, tokens, loss;
  std::optional<Column> budget;
  bool from_flops = false;
  LossUnit loss_unit = LossUnit::nats;
};

// Throws the message a CSV failure shows: "file:line: message".
[[noreturn]] void fail(std::string_view source, std::int64_t line, std::string_view message);
// A value quoted for a message (at most 40 bytes, control characters escaped).
std::string shown(std::string_view value);
// The header as a list for a message.
std::string listed(const std::vector<std::string>& header);
std::string_view trim(std::string_view s);
// The header and the data records of `text` (at most `max_bytes`).
Table read_table(std::string_view text, std::string_view source, std::int64_t max_bytes,
                 bool tolerant);
// Where each role's column is in `header`, with its units.
Mapping map_columns(const std::vector<std::string>& header, const LadderColumns& c,
                    std::string_view source);
// One record as a point; false (and why) when it is skipped.
bool read_row(const Record& rec, std::size_t n_fields, const Mapping& m, LadderPoint& p,
              CsvSkippedRow& why);
std::string file_name_of(std::string_view source);

}  // namespace napkin::csv_detail
