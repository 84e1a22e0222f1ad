// A predicted-against-measured data set: the rows of one published table (or
// of the seed track's worked examples), each with the value the library
// predicts beside the value the source measured or printed. The scoreboard
// (`napkin-cli validate`) summarises every set the same way: rows, mean
// absolute error, mean signed error and the worst row, all relative to the
// measurement, and how many rows are optimistic (faster or higher than
// measured).
#pragma once

#include <string>
#include <vector>

namespace napkin {

struct ValidationRow {
  std::string label;       // what the row is, as its source names it
  double predicted = 0.0;  // Napkin's value, in the set's unit
  double measured = 0.0;   // the source's value, in the set's unit (nonzero)
  std::string setting;     // the only per-row choice made (framework, engine), or empty
  std::string chip = {};   // the row's chip (hardware.h), where a set mixes chips; or empty
};

struct ValidationSet {
  std::string key;       // short stable id, e.g. "megatron-narayanan-2021"
  std::string title;     // e.g. "Narayanan et al. 2021, Table 1"
  std::string quantity;  // e.g. "MFU", "iteration time", "output tokens/s"
  std::string unit;      // e.g. "%", "ms", "tokens/s"
  std::string source;    // citation of the measurements
  std::string outside;   // what the model leaves out that this set exercises, or empty
  std::vector<ValidationRow> rows;
  // A time: a prediction below the measurement is the optimistic one. For
  // throughputs and utilizations (the default) optimism is above.
  bool lower_is_optimistic = false;
};

struct ValidationSummary {
  std::size_t rows = 0;
  double mean_abs_error = 0.0;      // mean |predicted/measured − 1|
  double mean_signed_error = 0.0;   // mean (predicted/measured − 1); > 0 is optimistic
  std::size_t worst_row = 0;        // index of the largest |error|
  double worst_error = 0.0;         // its signed relative error
  std::size_t optimistic_rows = 0;  // rows on the optimistic side of the measurement
};

// Relative errors of every row; throws std::invalid_argument naming the set
// and row when a measured value is zero or a value is not finite.
ValidationSummary summarize(const ValidationSet& set);

}  // namespace napkin
