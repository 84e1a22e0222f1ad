// A scaling ladder from a CSV file: one training run per row, columns chosen
// by name (seed Phase 01; issue 4 "Real data"). Tokens come from a D column or
// are derived from a training-compute column as D = C / (6N), as Besiroglu
// et al. 2024 do for the Chinchilla Figure 4 points.
//
// The parser is RFC 4180 (quoted fields, "" inside quotes, CRLF, a UTF-8 BOM).
// Two ways to read a file:
//  - strict (parse_csv_ladder / load_csv_ladder, the command line's default):
//    the first bad row throws std::invalid_argument naming the file, the line,
//    the column and the value;
//  - tolerant (the import dialog: preview_csv_ladder, then import_csv_ladder;
//    or CsvLadderOptions::skip_bad_rows): a bad row is skipped and listed with
//    its line and reason, and only a file that cannot be read as a ladder at
//    all (empty, over the size limit, an unterminated quote, a mapped column
//    missing from the header) throws.
// Messages speak of columns and rows, never of command-line flags.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "csv.h"
#include "panel_settings.h"
#include "scaling.h"

namespace napkin {

inline constexpr std::int64_t kMaxCsvBytes = std::int64_t{64} << 20;

// Why a row was skipped.
enum class CsvSkipReason {
  ragged,        // more or fewer fields than the header
  malformed,     // a stray quote
  empty,         // an empty field in a mapped column
  non_numeric,   // not a number (or NaN, inf)
  non_positive,  // ≤ 0
  out_of_range,  // too large for a double, or D = C/6N not a finite number > 0
  over_loss_cut  // loss at or above the loss cut
};
// "ragged row", "malformed", "empty", "non-numeric", "non-positive",
// "out of range", "over the loss cut".
std::string_view to_string(CsvSkipReason r);

struct CsvSkippedRow {
  std::int64_t line = 0;  // where the row starts, 1-based (the header is line 1)
  CsvSkipReason reason = CsvSkipReason::malformed;
  std::string column;   // the mapped column at fault; "" for a ragged or malformed row
  std::string message;  // e.g. column "loss" (nats/token): not a number; got "abc"
};

struct CsvLadderOptions {
  std::string n_column = "N";  // parameters
  // Tokens: `d_column`, or FLOPs in `c_column` (D = C/6N); give at most one.
  // With neither, a column named "D" is used, else one named "C".
  std::string d_column;
  std::string c_column;
  std::string loss_column = "loss";  // nats/token (or bits, see loss_unit)
  std::string budget_column;         // optional IsoFLOPs budget label, FLOPs
  std::optional<double> max_loss;    // keep rows with loss < max_loss
  std::int64_t max_bytes = kMaxCsvBytes;
  // Multiply the file's numbers into parameters, tokens (or FLOPs) and FLOPs.
  double n_scale = 1;
  double tokens_scale = 1;
  double budget_scale = 1;
  LossUnit loss_unit = LossUnit::nats;
  // Skip bad rows (listed in CsvLadder::skipped) instead of throwing.
  bool skip_bad_rows = false;
  // Polled while the file is read and while it is parsed (bytes done, total;
  // 0 when a pipe's size is unknown): false stops the load with csv::Stopped.
  csv::Progress progress;

  void validate() const;
};

struct CsvLadder {
  std::string source;                     // the file name (or the name given to parse_csv_ladder)
  std::vector<LadderPoint> points;        // rows kept, in file order
  std::vector<std::int64_t> point_lines;  // the line each kept row starts on
  std::int64_t rows = 0;                  // data rows read (kept, filtered and skipped)
  std::int64_t rows_filtered = 0;         // dropped by max_loss
  std::string tokens_column;              // the column D came from
  bool tokens_from_flops = false;         // D = C / (6N)
  std::vector<CsvSkippedRow> skipped;     // bad rows (skip_bad_rows only), in file order
};

// Reads and parses `path`.
CsvLadder load_csv_ladder(const std::string& path, const CsvLadderOptions& options = {});
// Parses CSV text; `source` names it in error messages.
CsvLadder parse_csv_ladder(std::string_view text, std::string_view source,
                           const CsvLadderOptions& options = {});

// ------------------------------------------------------- the import dialog

// Reads a whole file (at most max_bytes) for preview and import; throws
// std::invalid_argument naming the path and the reason, or csv::Stopped when
// `progress` returned false.
std::string read_csv_file(const std::string& path, std::int64_t max_bytes = kMaxCsvBytes,
                          const csv::Progress& progress = {});

struct CsvPreviewRow {
  std::int64_t line = 0;
  std::vector<std::string> fields;  // as written (unquoted), possibly ragged
};

struct CsvPreview {
  std::string source;
  std::vector<std::string> header;
  std::vector<CsvPreviewRow> rows;  // the first data rows
  // Every data row of the file when the preview read to its end; unset when
  // it stopped after its rows (counting them all is the import's full parse).
  std::optional<std::int64_t> data_rows;
  // The mapping guessed from the header's names and units. A role with no
  // matching column has an empty name (`budget` is optional).
  LadderColumns guess;
  // One sentence per required role with no column, naming what the header
  // has: empty when the guess is complete.
  std::vector<std::string> missing;
  // Hints on units, e.g. parameters that look like millions.
  std::vector<std::string> notes;
  bool complete() const { return missing.empty(); }
};

// The header, the first `max_rows` rows and a guessed mapping, reading no
// further into the text than those rows (a preview of a million-row file
// costs what one of a few rows does). Throws only when that part is not a CSV
// table (empty, over the limit, an unterminated quote); bad rows are shown as
// they are.
CsvPreview preview_csv_ladder(std::string_view text, std::string_view source,
                              std::int64_t max_rows = 20);

// Finds a column for `role` the way preview_csv_ladder does: case-insensitive
// names ("N", "Model Size", "params", "Training FLOP", "loss", "budget", ...),
// with a unit read from a suffix ("params (M)", "tokens_B", "C (PF-days)",
// "loss (bits)"). Returns the column with its scale and loss unit.
struct ColumnGuess {
  std::string name;  // "" when none matches
  double scale = 1;
  TokensKind tokens_kind = TokensKind::tokens;
  LossUnit loss_unit = LossUnit::nats;
};
enum class LadderRole { n_params, tokens, loss, budget };
ColumnGuess guess_column(const std::vector<std::string>& header, LadderRole role);

struct CsvImport {
  // Every row that reads as a run, before the loss cut: what a scenario
  // embeds (file_name is `source`'s file name without its folder).
  LoadedLadder ladder;
  std::vector<CsvSkippedRow> skipped;        // unreadable rows, in file order
  std::vector<CsvSkippedRow> over_loss_cut;  // readable rows the loss cut leaves out
  std::int64_t kept() const {
    return static_cast<std::int64_t>(ladder.points.size() - over_loss_cut.size());
  }
  // A fit needs at least 5 runs after the loss cut.
  bool usable() const { return kept() >= 5; }
  // Why the import cannot be used, in plain words; "" when usable().
  std::string problem() const;
};

// The tolerant import with an explicit mapping. Throws std::invalid_argument
// when a mapped column is not in the header (the message lists the header),
// appears twice, or the text is not a CSV table. `progress` is polled every
// 64 KiB of the parse and every 65,536 rows after it; false stops the import
// with csv::Stopped.
CsvImport import_csv_ladder(std::string_view text, std::string_view source,
                            const LadderColumns& columns, const LossCut& cut = {},
                            const csv::Progress& progress = {});

}  // namespace napkin
