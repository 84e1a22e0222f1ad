#include "csv_ladder.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

#include "csv_ladder_detail.h"
#include "format.h"
#include "read_file.h"
#include "validate.h"

namespace napkin {

namespace csv_detail {

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
  if (found == header.size())
    fail(source, 1,
         "column \"" + name + "\" (" + std::string(role) + ") is missing; the header has " +
             listed(header));
  return found;
}

Mapping map_columns(const std::vector<std::string>& header, const LadderColumns& c,
                    std::string_view source) {
  Mapping m;
  m.from_flops = c.tokens_kind == TokensKind::flops;
  m.loss_unit = c.loss_unit;
  const std::string tokens_unit = m.from_flops ? "training FLOPs" : "tokens";
  const std::string loss_unit = c.loss_unit == LossUnit::bits ? "bits/token" : "nats/token";
  m.n = {find_column(header, c.n_params, source, "parameters"), c.n_params, "parameters",
         c.n_params_scale};
  m.tokens = {find_column(header, c.tokens, source, tokens_unit), c.tokens, tokens_unit,
              c.tokens_scale};
  m.loss = {find_column(header, c.loss, source, loss_unit), c.loss, loss_unit, 1.0};
  if (!c.budget.empty())
    m.budget = Column{find_column(header, c.budget, source, "budget label, FLOPs"), c.budget,
                      "budget label, FLOPs", c.budget_scale};
  return m;
}

// A number > 0 from a mapped column, or the reason it is not one.
bool read_number(const Record& rec, const Column& col, double& out, CsvSkippedRow& why) {
  const Field& f = rec.fields[col.index];
  const std::string_view s = trim(f.text);
  const std::string where = "column \"" + col.name + "\" (" + col.unit + ")";
  why.column = col.name;
  auto reject = [&](CsvSkipReason r, const std::string& m) {
    why.reason = r;
    why.message = where + ": " + m;
    return false;
  };
  if (s.empty()) return reject(CsvSkipReason::empty, "empty field; a number > 0 is required");
  std::string_view digits = s;
  if (digits.front() == '+') digits.remove_prefix(1);
  double v = 0;
  const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec == std::errc::result_out_of_range)
    return reject(CsvSkipReason::out_of_range, "the number is out of range; got " + shown(f.text));
  if (ec != std::errc() || ptr != digits.data() + digits.size())
    return reject(CsvSkipReason::non_numeric, "not a number; got " + shown(f.text));
  if (!std::isfinite(v))
    return reject(CsvSkipReason::non_numeric, "must be a finite number > 0; got " + shown(f.text));
  if (!(v > 0)) return reject(CsvSkipReason::non_positive, "must be > 0; got " + shown(f.text));
  out = v * col.scale;
  if (!std::isfinite(out) || !(out > 0))
    return reject(CsvSkipReason::out_of_range,
                  "times the column's scale (" + format_value(col.scale) +
                      ") is not a finite number > 0; got " + shown(f.text));
  return true;
}

// One data row as a run, or the reason it is not one.
bool read_row(const Record& rec, std::size_t n_fields, const Mapping& m, LadderPoint& p,
              CsvSkippedRow& why) {
  why = CsvSkippedRow{};
  why.line = rec.line;
  if (!rec.error.empty()) {
    why.reason = CsvSkipReason::malformed;
    why.message = rec.error;
    return false;
  }
  if (rec.fields.size() != n_fields) {
    why.reason = CsvSkipReason::ragged;
    why.message = "the row has " + std::to_string(rec.fields.size()) + " fields; the header has " +
                  std::to_string(n_fields);
    return false;
  }
  p = LadderPoint{};
  double t = 0;
  if (!read_number(rec, m.n, p.n_params, why) || !read_number(rec, m.tokens, t, why)) return false;
  p.n_tokens = m.from_flops ? t / (6.0 * p.n_params) : t;
  if (!std::isfinite(p.n_tokens) || !(p.n_tokens > 0)) {
    why.column = m.tokens.name;
    why.reason = CsvSkipReason::out_of_range;
    why.message = "column \"" + m.tokens.name +
                  "\": D = C / (6N) is not a finite number > 0; got " +
                  shown(rec.fields[m.tokens.index].text);
    return false;
  }
  if (!read_number(rec, m.loss, p.loss, why)) return false;
  if (m.loss_unit == LossUnit::bits) p.loss *= std::log(2.0);  // bits → nats
  if (m.budget && !read_number(rec, *m.budget, p.budget_flops, why)) return false;
  return true;
}

std::string file_name_of(std::string_view source) {
  const auto slash = source.find_last_of("/\\");
  return std::string(slash == std::string_view::npos ? source : source.substr(slash + 1));
}

}  // namespace csv_detail

using namespace csv_detail;

std::string_view to_string(CsvSkipReason r) {
  switch (r) {
    case CsvSkipReason::ragged: return "ragged row";
    case CsvSkipReason::malformed: return "malformed";
    case CsvSkipReason::empty: return "empty";
    case CsvSkipReason::non_numeric: return "non-numeric";
    case CsvSkipReason::non_positive: return "non-positive";
    case CsvSkipReason::out_of_range: return "out of range";
    case CsvSkipReason::over_loss_cut: return "over the loss cut";
  }
  return "malformed";
}

void CsvLadderOptions::validate() const {
  if (n_column.empty())
    throw std::invalid_argument("the parameters column (N) needs a name; got an empty one");
  if (loss_column.empty())
    throw std::invalid_argument("the loss column needs a name; got an empty one");
  if (!d_column.empty() && !c_column.empty())
    throw std::invalid_argument(
        "tokens come from a tokens column (D) or a training-compute column (C, D = C/6N), not "
        "both; got \"" +
        d_column + "\" and \"" + c_column + "\"");
  if (max_loss) require_positive(*max_loss, "loss cut", "nats/token");
  require_count(max_bytes, "size limit", "bytes", 1);
  require_real(n_scale, "parameters scale", "× the column", 1e-15, 1e21);
  require_real(tokens_scale, "tokens scale", "× the column", 1e-15, 1e21);
  require_real(budget_scale, "budget scale", "× the column", 1e-15, 1e21);
}

CsvLadder parse_csv_ladder(std::string_view text, std::string_view source,
                           const CsvLadderOptions& options) {
  options.validate();
  const Table table =
      read_table(text, source, options.max_bytes, options.skip_bad_rows, options.progress);
  const std::vector<std::string>& header = table.header;

  LadderColumns c;
  c.n_params = options.n_column;
  c.n_params_scale = options.n_scale;
  c.loss = options.loss_column;
  c.loss_unit = options.loss_unit;
  c.budget = options.budget_column;
  c.budget_scale = options.budget_scale;
  c.tokens_scale = options.tokens_scale;
  if (!options.d_column.empty()) {
    c.tokens = options.d_column;
  } else if (!options.c_column.empty()) {
    c.tokens = options.c_column;
    c.tokens_kind = TokensKind::flops;
  } else if (std::find(header.begin(), header.end(), "D") != header.end()) {
    c.tokens = "D";
  } else if (std::find(header.begin(), header.end(), "C") != header.end()) {
    c.tokens = "C";
    c.tokens_kind = TokensKind::flops;
  } else {
    fail(source, 1,
         "no tokens column: the header has " + listed(header) +
             "; a column of tokens (D) or of training compute (C, in FLOPs, with D = C/6N) is "
             "required");
  }
  const Mapping m = map_columns(header, c, source);

  CsvLadder out;
  out.source = std::string(source);
  out.tokens_from_flops = m.from_flops;
  out.tokens_column = c.tokens;
  for (const Record& rec : table.records) {
    ++out.rows;
    LadderPoint p;
    CsvSkippedRow why;
    if (!read_row(rec, header.size(), m, p, why)) {
      if (!options.skip_bad_rows) fail(source, why.line, why.message);
      out.skipped.push_back(std::move(why));
      continue;
    }
    if (options.max_loss && !(p.loss < *options.max_loss)) {
      ++out.rows_filtered;
      continue;
    }
    out.points.push_back(p);
    out.point_lines.push_back(rec.line);
  }
  if (out.rows == 0) fail(source, 0, "no data rows after the header");
  if (out.points.empty()) {
    const auto bad = static_cast<std::int64_t>(out.skipped.size());
    std::string m2 = "no usable rows: of the " + std::to_string(out.rows) + " rows, ";
    if (bad > 0)
      m2 += std::to_string(bad) + " cannot be read (first: line " +
            std::to_string(out.skipped.front().line) + ", " + out.skipped.front().message + ")";
    if (bad > 0 && out.rows_filtered > 0) m2 += " and ";
    if (out.rows_filtered > 0)
      m2 += std::to_string(out.rows_filtered) + " have a loss at or above the loss cut (" +
            format_value(*options.max_loss) + " nats/token)";
    fail(source, 0, m2);
  }
  return out;
}

std::string read_csv_file(const std::string& path, std::int64_t max_bytes,
                          const csv::Progress& progress) {
  require_count(max_bytes, "size limit", "bytes", 1);
  // Streams too: a pipe, a FIFO, /dev/stdin or a /proc file.
  std::string text, error;
  bool stopped = false;
  const ReadProgress watch = [&](std::int64_t done, std::int64_t total) {
    stopped = !progress(done, total);
    return !stopped;
  };
  if (!read_file_capped(path, max_bytes, &text, &error, progress ? watch : ReadProgress{})) {
    if (stopped) throw csv::Stopped(error);
    throw std::invalid_argument(error);
  }
  return text;
}

CsvLadder load_csv_ladder(const std::string& path, const CsvLadderOptions& options) {
  options.validate();
  return parse_csv_ladder(read_csv_file(path, options.max_bytes, options.progress), path, options);
}

}  // namespace napkin
