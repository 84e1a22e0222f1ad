// A scaling ladder from a CSV file: one training run per row, columns chosen
// by name (seed Phase 01; issue 4 "Real data"). Tokens come from a D column or
// are derived from a training-compute column as D = C / (6N), as Besiroglu
// et al. 2024 do for the Chinchilla Figure 4 points.
//
// The parser is RFC 4180 (quoted fields, "" inside quotes, CRLF, a UTF-8 BOM)
// and strict: an empty field, a non-number, NaN, ±inf, a value ≤ 0, a ragged
// row, a missing or duplicated column, or a file over the size limit throws
// std::invalid_argument naming the file, the line, the column and the value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "scaling.h"

namespace napkin {

struct CsvLadderOptions {
  std::string n_column = "N";  // parameters
  // Tokens: `d_column`, or FLOPs in `c_column` (D = C/6N); give at most one.
  // With neither, a column named "D" is used, else one named "C".
  std::string d_column;
  std::string c_column;
  std::string loss_column = "loss";  // nats/token
  std::string budget_column;         // optional IsoFLOPs budget label, FLOPs
  std::optional<double> max_loss;    // keep rows with loss < max_loss
  std::int64_t max_bytes = std::int64_t{64} << 20;

  void validate() const;
};

struct CsvLadder {
  std::string source;               // the file name (or the name given to parse_csv_ladder)
  std::vector<LadderPoint> points;  // rows kept, in file order
  std::int64_t rows = 0;            // data rows read
  std::int64_t rows_filtered = 0;   // dropped by max_loss
  std::string tokens_column;        // the column D came from
  bool tokens_from_flops = false;   // D = C / (6N)
};

// Reads and parses `path`.
CsvLadder load_csv_ladder(const std::string& path, const CsvLadderOptions& options = {});
// Parses CSV text; `source` names it in error messages.
CsvLadder parse_csv_ladder(std::string_view text, std::string_view source,
                           const CsvLadderOptions& options = {});

}  // namespace napkin
