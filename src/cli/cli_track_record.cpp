#include "cli_track_record.h"

#include <QJsonArray>
#include <cstdio>

#include "cli_common.h"
#include "format.h"

namespace napkin::cli {

QJsonObject track_record_json(const TrackRecord& t, const QString& key, double predicted) {
  return track_record_json(t, key, predicted, t.measured_low(predicted),
                           t.measured_high(predicted));
}

QJsonObject track_record_json(const TrackRecord& t, const QString& key, double predicted,
                              double low, double high) {
  QJsonArray sets;
  for (const std::string& k : t.sets) sets.append(QString::fromStdString(k));
  return QJsonObject{{"scope", QString::fromStdString(t.scope)},
                     {"fallback", QString::fromStdString(t.fallback)},
                     {"sets", sets},
                     {"runs", json_int(static_cast<std::int64_t>(t.rows))},
                     {"mean_abs_error", t.mean_abs_error},
                     {"mean_signed_error", t.mean_signed_error},
                     {"p10_error", t.p10_error},
                     {"p90_error", t.p90_error},
                     {key, predicted},
                     {key + QStringLiteral("_low"), low},
                     {key + QStringLiteral("_high"), high}};
}

void print_track_record(const TrackRecord& t, double mfu) {
  if (t.empty()) return;
  std::printf("Published runs like it (%s: %s runs in %zu tables)\n", t.scope.c_str(),
              format_grouped(static_cast<double>(t.rows)).c_str(), t.sets.size());
  if (!t.fallback.empty()) std::printf("  wider than the plan's: %s\n", t.fallback.c_str());
  row("measured MFU",
      format_percent(t.measured_low(mfu)) + " – " + format_percent(t.measured_high(mfu)) +
          " (10th–90th percentile, where Napkin predicts " + format_percent(mfu) + ")",
      kReportLabelWidth);
  row("Napkin's error",
      "mean " + format_percent(t.mean_abs_error) + ", signed " +
          signed_percent(t.mean_signed_error) + " (> 0: above the measurement)",
      kReportLabelWidth);
}

}  // namespace napkin::cli
