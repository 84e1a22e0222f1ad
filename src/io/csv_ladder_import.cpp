// What the CSV import dialog asks of a ladder file: which header names which
// column (and in what units), and a preview of the rows it would keep and
// skip. Reading the CSV itself is csv_ladder.cpp.
#include "csv_ladder.h"
#include "csv_ladder_detail.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <stdexcept>
#include <system_error>

#include "format.h"
#include "read_file.h"
#include "validate.h"

namespace napkin {

using namespace csv_detail;

namespace {

// --- header guessing

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "Training FLOP (PF-days)" → words {"training", "flop"} and unit "pf-days".
struct HeaderName {
  std::vector<std::string> words;
  std::string unit;  // the parenthesized or bracketed part, lower case
};

HeaderName split_header(std::string_view raw) {
  HeaderName h;
  std::string s = lower(trim(raw));
  for (auto [open, close] : {std::pair{'(', ')'}, std::pair{'[', ']'}}) {
    const auto a = s.find(open);
    const auto b = s.rfind(close);
    if (a != std::string::npos && b != std::string::npos && b > a) {
      h.unit = std::string(trim(std::string_view(s).substr(a + 1, b - a - 1)));
      s = s.substr(0, a) + s.substr(b + 1);
    }
  }
  std::string word;
  for (char c : s) {
    if (c == ' ' || c == '_' || c == '-' || c == '.' || c == '/') {
      if (!word.empty()) h.words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  if (!word.empty()) h.words.push_back(word);
  return h;
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The multiplier a unit word names: "m" / "millions" → 1e6; 0 when none.
double scale_word(std::string_view w, bool flops) {
  if (w == "k" || w == "thousands") return 1e3;
  if (w == "m" || w == "mil" || w == "million" || w == "millions") return 1e6;
  if (w == "b" || w == "bn" || w == "billion" || w == "billions") return 1e9;
  if (w == "t" || w == "trillion" || w == "trillions") return 1e12;
  // 1 PF-day = 1e15 FLOP/s × 86,400 s (Kaplan et al. 2020's compute unit).
  if (flops && (w == "pf-days" || w == "pf days" || w == "pfdays" || w == "petaflop-days" ||
                w == "pf-day" || w == "petaflop days"))
    return 8.64e19;
  if (w == "1" || w == "count" || w == "flop" || w == "flops" || w == "tokens" ||
      w == "parameters" || w == "params")
    return 1;
  return 0;
}

struct RoleNames {
  LadderRole role;
  bool flops;  // names of training-compute columns (for the tokens role)
  std::vector<std::string> names;
};

const std::vector<RoleNames>& role_names() {
  static const std::vector<RoleNames> names = {
      {LadderRole::n_params,
       false,
       {"n", "params", "parameters", "n params", "model size", "num params", "nparams",
        "parameter count", "model params", "n parameters"}},
      {LadderRole::tokens,
       false,
       {"d", "tokens", "n tokens", "training tokens", "train tokens", "num tokens", "dataset size",
        "data"}},
      {LadderRole::tokens,
       true,
       {"c", "flop", "flops", "training flop", "training flops", "compute", "train flops",
        "training compute", "c flops"}},
      {LadderRole::loss,
       false,
       {"loss", "final loss", "eval loss", "val loss", "validation loss", "train loss",
        "training loss", "l"}},
      {LadderRole::budget,
       false,
       {"budget", "budget flops", "isoflop budget", "isoflops budget", "isoflop", "c budget"}},
  };
  return names;
}

}  // namespace

// ------------------------------------------------------- the import dialog

ColumnGuess guess_column(const std::vector<std::string>& header, LadderRole role) {
  for (const RoleNames& r : role_names()) {
    if (r.role != role) continue;
    const bool flops_units = r.flops || role == LadderRole::budget;
    for (const std::string& want : r.names)
      for (const std::string& h : header) {
        HeaderName n = split_header(h);
        double scale = 1;
        // "tokens_B", "params M": a trailing unit word.
        if (n.words.size() > 1) {
          const double s = scale_word(n.words.back(), flops_units);
          if (s > 0 && joined(std::vector(n.words.begin(), n.words.end() - 1)) == want) {
            scale = s;
            n.words.pop_back();
          }
        }
        if (joined(n.words) != want) continue;
        ColumnGuess g;
        g.name = h;
        g.tokens_kind = r.flops ? TokensKind::flops : TokensKind::tokens;
        if (!n.unit.empty()) {
          if (role == LadderRole::loss) {
            if (n.unit.find("bit") != std::string::npos) g.loss_unit = LossUnit::bits;
          } else if (const double s = scale_word(n.unit, flops_units); s > 0) {
            scale = s;
          }
        }
        g.scale = scale;
        return g;
      }
  }
  return {};
}

namespace {

// The column of each role, guessed from the header; a required role with
// none is said in p.missing.
void guess_columns(CsvPreview& p) {
  const std::string have = "the header has " + listed(p.header);
  LadderColumns& g = p.guess;
  const ColumnGuess n = guess_column(p.header, LadderRole::n_params);
  g.n_params = n.name;
  g.n_params_scale = n.scale;
  if (n.name.empty())
    p.missing.push_back("no column for the parameters (N, \"params\" or \"Model Size\"); " + have);
  const ColumnGuess t = guess_column(p.header, LadderRole::tokens);
  g.tokens = t.name;
  g.tokens_kind = t.tokens_kind;
  g.tokens_scale = t.scale;
  if (t.name.empty())
    p.missing.push_back(
        "no column for the tokens (D, \"tokens\") or the training compute (C, \"Training FLOP\", "
        "with D = C/6N); " +
        have);
  const ColumnGuess l = guess_column(p.header, LadderRole::loss);
  g.loss = l.name;
  g.loss_unit = l.loss_unit;
  if (l.name.empty()) p.missing.push_back("no column for the loss (\"loss\"); " + have);
  const ColumnGuess b = guess_column(p.header, LadderRole::budget);
  g.budget = b.name;
  g.budget_scale = b.scale;
}

// The index of `column` in the header, if it is one.
std::optional<std::size_t> column_index(const CsvPreview& p, const std::string& column) {
  const auto it = std::find(p.header.begin(), p.header.end(), column);
  if (column.empty() || it == p.header.end()) return std::nullopt;
  return static_cast<std::size_t>(it - p.header.begin());
}

// The column's first non-empty field when no shown row holds a number there.
std::optional<std::string> text_only(const CsvPreview& p, const std::string& column) {
  const std::optional<std::size_t> k = column_index(p, column);
  if (!k) return std::nullopt;
  std::optional<std::string> sample;
  for (const CsvPreviewRow& r : p.rows) {
    if (*k >= r.fields.size()) continue;
    const std::string_view s = trim(r.fields[*k]);
    if (s.empty()) continue;
    double v = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && ptr == s.data() + s.size()) return std::nullopt;
    if (!sample) sample = std::string(s);
  }
  return sample;
}

// A column guessed by its name but holding text ("small", "1B run") is not
// mapped to a number: every row would be refused.
void unmap_text_columns(CsvPreview& p) {
  auto unmap = [&](std::string& column, const char* role, bool required) {
    const std::optional<std::string> sample = text_only(p, column);
    if (!sample) return;
    std::string why =
        "\"" + column + "\" holds text (\"" + *sample + "\"), not numbers: not used as " + role;
    column.clear();
    if (required)
      p.missing.push_back("no numeric column for " + std::string(role) + "; " + why);
    else
      p.notes.push_back(std::move(why));
  };
  LadderColumns& g = p.guess;
  unmap(g.n_params, "the parameters", true);
  unmap(g.tokens, "the tokens", true);
  unmap(g.loss, "the loss", true);
  unmap(g.budget, "the budget", false);
}

// The smallest positive number the shown rows hold in `column`.
std::optional<double> smallest(const CsvPreview& p, const std::string& column) {
  const std::optional<std::size_t> k = column_index(p, column);
  if (!k) return std::nullopt;
  std::optional<double> lo;
  for (const CsvPreviewRow& r : p.rows) {
    if (*k >= r.fields.size()) continue;
    double v = 0;
    const std::string_view s = trim(r.fields[*k]);
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && ptr == s.data() + s.size() && std::isfinite(v) && v > 0)
      lo = lo ? std::min(*lo, v) : v;
  }
  return lo;
}

// Unit hints from the first rows' magnitudes: a ladder's smallest model has
// millions of parameters and trains on hundreds of millions of tokens.
void add_unit_hints(CsvPreview& p) {
  const LadderColumns& g = p.guess;
  if (const auto lo = smallest(p, g.n_params); lo && *lo * g.n_params_scale < 1e5)
    p.notes.push_back("the parameters in \"" + g.n_params + "\" start at " + format_value(*lo) +
                      ": if they are in millions or billions, set the column's unit");
  if (const auto lo = smallest(p, g.tokens);
      lo && g.tokens_kind == TokensKind::tokens && *lo * g.tokens_scale < 1e6)
    p.notes.push_back("the tokens in \"" + g.tokens + "\" start at " + format_value(*lo) +
                      ": if they are in millions or billions, set the column's unit");
}

}  // namespace

CsvPreview preview_csv_ladder(std::string_view text, std::string_view source,
                              std::int64_t max_rows) {
  require_count(max_rows, "preview rows", "rows", 0, 1'000'000);
  // One row more than shown tells whether the file goes on.
  const Table table = read_table(text, source, kMaxCsvBytes, true, {}, max_rows + 1);
  CsvPreview p;
  p.source = std::string(source);
  p.header = table.header;
  if (static_cast<std::int64_t>(table.records.size()) <= max_rows)
    p.data_rows = static_cast<std::int64_t>(table.records.size());
  for (const Record& rec : table.records) {
    if (static_cast<std::int64_t>(p.rows.size()) >= max_rows) break;
    CsvPreviewRow row;
    row.line = rec.line;
    for (const Field& f : rec.fields) row.fields.push_back(f.text);
    p.rows.push_back(std::move(row));
  }
  guess_columns(p);
  unmap_text_columns(p);
  add_unit_hints(p);
  return p;
}

std::string CsvImport::problem() const {
  if (usable()) return {};
  const auto all = static_cast<std::int64_t>(ladder.points.size());
  const auto bad = static_cast<std::int64_t>(skipped.size());
  std::string m = "A fit needs at least 5 runs; " + std::to_string(kept()) + " of the " +
                  std::to_string(ladder.data_rows) + " rows remain";
  if (bad > 0) m += " (" + std::to_string(bad) + " cannot be read";
  if (!over_loss_cut.empty())
    m += std::string(bad > 0 ? ", " : " (") + std::to_string(over_loss_cut.size()) + " of the " +
         std::to_string(all) + " readable ones are over the loss cut";
  if (bad > 0 || !over_loss_cut.empty()) m += ")";
  return m;
}

CsvImport import_csv_ladder(std::string_view text, std::string_view source,
                            const LadderColumns& columns, const LossCut& cut,
                            const csv::Progress& progress) {
  columns.validate();
  if (cut.enabled) require_positive(cut.max_loss, "loss cut", "nats/token");
  const Table table = read_table(text, source, kMaxCsvBytes, true, progress);
  const Mapping m = map_columns(table.header, columns, source);
  CsvImport out;
  out.ladder.file_name = file_name_of(source);
  out.ladder.columns = columns;
  out.ladder.data_rows = static_cast<std::int64_t>(table.records.size());
  const auto total = static_cast<std::int64_t>(text.size());
  std::int64_t row = 0;
  for (const Record& rec : table.records) {
    if (progress && ++row % 65536 == 0 && !progress(total, total))
      throw csv::Stopped(std::string(source) + ": stopped at line " + std::to_string(rec.line));
    LadderPoint p;
    CsvSkippedRow why;
    if (!read_row(rec, table.header.size(), m, p, why)) {
      out.skipped.push_back(std::move(why));
      continue;
    }
    if (cut.enabled && !(p.loss < cut.max_loss)) {
      CsvSkippedRow over;
      over.line = rec.line;
      over.reason = CsvSkipReason::over_loss_cut;
      over.column = columns.loss;
      over.message = "column \"" + columns.loss + "\": loss " + format_value(p.loss) +
                     " nats/token is at or above the loss cut (" + format_value(cut.max_loss) + ")";
      out.over_loss_cut.push_back(std::move(over));
    }
    out.ladder.points.push_back(p);
  }
  return out;
}

}  // namespace napkin
