// What csv_ladder.cpp and csv_ladder_import.cpp share and nobody else needs:
// the records of a CSV file, the column mapping and reading one row.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "csv.h"
#include "csv_ladder.h"

namespace napkin::csv_detail {

// The one CSV reader's records (csv.h).
using csv::fail;
using csv::Field;
using csv::listed;
using csv::read_table;
using csv::Record;
using csv::shown;
using csv::Table;
using csv::trim;

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

// Where each role's column is in `header`, with its units.
Mapping map_columns(const std::vector<std::string>& header, const LadderColumns& c,
                    std::string_view source);
// One record as a point; false (and why) when it is skipped.
bool read_row(const Record& rec, std::size_t n_fields, const Mapping& m, LadderPoint& p,
              CsvSkippedRow& why);
std::string file_name_of(std::string_view source);

}  // namespace napkin::csv_detail
