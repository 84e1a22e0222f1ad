// napkin-cli validate: every public data set Napkin ships, predicted beside
// what its source measured — rows, mean absolute error, mean signed error
// (positive: Napkin is optimistic) and the worst row of each set.
#include <QJsonArray>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "cli_common.h"
#include "format.h"
#include "track_record.h"
#include "validate.h"
#include "validation.h"

namespace napkin::cli {

namespace {

QJsonObject set_json(const ValidationSet& set, const ValidationSummary& s, bool with_rows) {
  QJsonObject o;
  o["key"] = QString::fromStdString(set.key);
  o["title"] = QString::fromStdString(set.title);
  o["quantity"] = QString::fromStdString(set.quantity);
  o["unit"] = QString::fromStdString(set.unit);
  o["source"] = QString::fromStdString(set.source);
  if (!set.outside.empty()) o["outside"] = QString::fromStdString(set.outside);
  o["rows"] = static_cast<qint64>(s.rows);
  o["mean_abs_error"] = s.mean_abs_error;
  o["mean_signed_error"] = s.mean_signed_error;
  o["lower_is_optimistic"] = set.lower_is_optimistic;
  o["optimistic_rows"] = static_cast<qint64>(s.optimistic_rows);
  if (s.rows > 0) {
    const ValidationRow& w = set.rows[s.worst_row];
    o["worst_row"] = QString::fromStdString(w.label);
    o["worst_error"] = s.worst_error;
  }
  if (with_rows) {
    QJsonArray rows;
    for (const ValidationRow& r : set.rows) {
      QJsonObject x;
      x["label"] = QString::fromStdString(r.label);
      x["predicted"] = r.predicted;
      x["measured"] = r.measured;
      x["error"] = r.predicted / r.measured - 1;
      if (!r.setting.empty()) x["setting"] = QString::fromStdString(r.setting);
      rows.append(x);
    }
    o["predictions"] = rows;
  }
  return o;
}

QJsonArray records_json(const std::vector<TrackRecord>& scopes) {
  QJsonArray out;
  for (const TrackRecord& t : scopes) {
    QJsonArray sets;
    for (const std::string& k : t.sets) sets.append(QString::fromStdString(k));
    out.append(QJsonObject{{"scope", QString::fromStdString(t.scope)},
                           {"sets", sets},
                           {"runs", static_cast<qint64>(t.rows)},
                           {"mean_abs_error", t.mean_abs_error},
                           {"mean_signed_error", t.mean_signed_error},
                           {"p10_error", t.p10_error},
                           {"p90_error", t.p90_error}});
  }
  return out;
}

void print_records(const std::vector<TrackRecord>& scopes) {
  int width = 5;
  for (const TrackRecord& t : scopes) width = std::max(width, static_cast<int>(t.scope.size()));
  std::printf("%-*s %6s %6s %10s %12s %7s %7s\n", width, "scope", "tables", "runs", "mean |err|",
              "mean signed", "10th", "90th");
  for (const TrackRecord& t : scopes)
    std::printf("%-*s %6zu %6s %8.1f %% %s %s %s\n", width, t.scope.c_str(), t.sets.size(),
                format_grouped(static_cast<double>(t.rows)).c_str(), 100 * t.mean_abs_error,
                pad_left(signed_percent(t.mean_signed_error), 12).c_str(),
                pad_left(signed_percent(t.p10_error), 7).c_str(),
                pad_left(signed_percent(t.p90_error), 7).c_str());
}

// The training and serving sets read back by scope: what a predicted MFU's,
// a serving throughput's and a first-token time's range are made of.
int print_track_record(bool json) {
  const std::vector<TrackRecord> training = track_record_scopes();
  const std::vector<TrackRecord> serving = serving_track_record_scopes();
  const std::vector<TrackRecord> first_token = first_token_track_record_scopes();
  if (json) {
    print_json(QJsonObject{{"track_record", records_json(training)},
                           {"serving_track_record", records_json(serving)},
                           {"first_token_track_record", records_json(first_token)}});
    return 0;
  }
  std::printf(
      "Napkin's error on published runs, by scope; every table weighs one. Error = predicted /\n"
      "measured − 1 (> 0: optimistic). A prediction's range is the prediction ÷ (1 + the 90th\n"
      "and the 10th percentile).\n\n");
  std::printf("Training MFU, by framework family and chip generation\n");
  print_records(training);
  std::printf("\nServing output tokens/s, by model kind and chip generation\n");
  print_records(serving);
  std::printf(
      "\nServing first-token latency of a static batch, by chip generation: the error of the\n"
      "latency's inverse (measured ÷ predicted − 1), so a predicted time's range is the time ×\n"
      "(1 + the 10th and the 90th percentile)\n");
  print_records(first_token);
  return 0;
}

int run_validate(Args& args) {
  const bool json = args.flag("--json");
  const bool rows = args.flag("--rows");
  const bool record = args.flag("--track-record");
  const std::optional<std::string> only = args.value("--set");
  args.finish();
  if (record && (rows || only))
    throw UsageError(
        "--track-record reads every training set back by scope: drop --set and --rows");
  if (record) return print_track_record(json);
  // A known key is checked before anything is predicted; --set predicts
  // only the data its set comes from.
  const std::vector<std::string_view>& keys = public_validation_keys();
  if (only && std::find(keys.begin(), keys.end(), *only) == keys.end())
    throw UsageError(unknown_name_text("--set", *only, keys, [](std::string_view k) { return k; }));
  const std::vector<ValidationSet> sets = public_validation_sets(only.value_or(""));
  if (json) {
    QJsonArray out;
    for (const ValidationSet& s : sets)
      if (!only || s.key == *only) out.append(set_json(s, summarize(s), rows || only));
    QJsonObject o;
    o["sets"] = out;
    print_json(o);
    return 0;
  }
  std::printf(
      "Predicted against measured: every public data set. Error = predicted / measured − 1;\n"
      "optimistic rows are faster or higher than measured.\n\n");
  // The key column as wide as the longest key.
  int key_width = 3;
  for (const ValidationSet& s : sets)
    key_width = std::max(key_width, static_cast<int>(s.key.size()));
  std::printf("%-*s %5s %10s %12s %11s  %s\n", key_width, "set", "rows", "mean |err|",
              "mean signed", "optimistic", "worst row");
  for (const ValidationSet& s : sets) {
    if (only && s.key != *only) continue;
    const ValidationSummary m = summarize(s);
    std::string worst =
        m.rows ? s.rows[m.worst_row].label + " (" + signed_percent(m.worst_error) + ")" : "";
    std::printf("%-*s %5zu %8.1f %% %s %11s  %s\n", key_width, s.key.c_str(), m.rows,
                100 * m.mean_abs_error, pad_left(signed_percent(m.mean_signed_error), 12).c_str(),
                (std::to_string(m.optimistic_rows) + "/" + std::to_string(m.rows)).c_str(),
                worst.c_str());
  }
  for (const ValidationSet& s : sets) {
    if (only ? s.key != *only : !rows) continue;
    std::printf("\n%s — %s (%s)\n", s.title.c_str(), s.quantity.c_str(), s.unit.c_str());
    paragraph(s.source);
    if (!s.outside.empty()) paragraph("Not in the source: " + s.outside);
    // The label column as wide as the set's longest label (in characters).
    std::size_t label_width = 60;
    for (const ValidationRow& r : s.rows) label_width = std::max(label_width, code_points(r.label));
    for (const ValidationRow& r : s.rows)
      std::printf("  %s%12.4g %12.4g %s\n", pad_right(r.label, label_width + 1).c_str(),
                  r.predicted, r.measured,
                  pad_left(signed_percent(r.predicted / r.measured - 1), 9).c_str());
  }
  return 0;
}

}  // namespace

std::vector<Command> validate_commands() {
  return {{"validate", "validate [--set KEY] [--rows] [--track-record] [--json]", run_validate}};
}

}  // namespace napkin::cli
