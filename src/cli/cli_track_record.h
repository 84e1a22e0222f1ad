// How far published runs like a plan's landed from Napkin's prediction
// (track_record.h), as napkin-cli prints it.
#pragma once

#include <QJsonObject>
#include <QString>

#include "track_record.h"

namespace napkin::cli {

// How far published runs like the plan's landed from a prediction
// (track_record.h): a JSON object with the prediction under `key` and the
// band as `key`_low and `key`_high; and, for an MFU, a short section of text.
QJsonObject track_record_json(const TrackRecord& t, const QString& key, double predicted);
// The same with the band given (a time's: TrackRecord::measured_time_low, _high).
QJsonObject track_record_json(const TrackRecord& t, const QString& key, double predicted,
                              double low, double high);
void print_track_record(const TrackRecord& t, double mfu);

}  // namespace napkin::cli
