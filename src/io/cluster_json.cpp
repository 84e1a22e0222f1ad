#include "cluster_json.h"

#include <QByteArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cmath>
#include <stdexcept>

#include "read_file.h"

namespace napkin {

namespace {

double number(const QJsonObject& o, const char* key, const std::string& what, double lo, double hi,
              const char* unit, bool required, double fallback) {
  const QJsonValue v = o.value(QLatin1String(key));
  if (v.isUndefined()) {
    if (required)
      throw std::invalid_argument(what + ": \"" + key + "\" is required (" + unit + ")");
    return fallback;
  }
  const double x = v.toDouble(std::nan(""));
  if (!v.isDouble() || !std::isfinite(x) || x < lo || x > hi)
    throw std::invalid_argument(what + ": \"" + key + "\" must be a number in " +
                                std::to_string(lo) + " – " + std::to_string(hi) + " " + unit);
  return x;
}

}  // namespace

ClusterFile parse_cluster_json(const std::string& text, const std::string& what) {
  QJsonParseError err{};
  const QJsonDocument doc =
      QJsonDocument::fromJson(QByteArray(text.data(), static_cast<qsizetype>(text.size())), &err);
  if (err.error != QJsonParseError::NoError || !doc.isObject())
    throw std::invalid_argument(what + ": not a JSON object (" + err.errorString().toStdString() +
                                ")");
  const QJsonObject o = doc.object();
  static const char* const kKeys[] = {"name",
                                      "gpus_per_node",
                                      "scale_up_gb_per_s",
                                      "scale_out_gb_per_s",
                                      "scale_up_latency_us",
                                      "scale_out_latency_us"};
  for (auto it = o.begin(); it != o.end(); ++it) {
    bool known = false;
    for (const char* k : kKeys) known = known || it.key() == QLatin1String(k);
    if (!known)
      throw std::invalid_argument(what + ": unknown key \"" + it.key().toStdString() +
                                  "\" (keys: \"name\", \"gpus_per_node\", "
                                  "\"scale_up_gb_per_s\", \"scale_out_gb_per_s\", "
                                  "\"scale_up_latency_us\", \"scale_out_latency_us\")");
  }
  const double gpus = number(o, "gpus_per_node", what, 1, 100'000, "GPUs", true, 0);
  if (gpus != std::floor(gpus))
    throw std::invalid_argument(what + ": \"gpus_per_node\" must be a whole number");
  Network like = cluster_by_name("dgx-h100").network;
  ClusterFile f;
  f.network =
      custom_network(static_cast<std::int64_t>(gpus),
                     number(o, "scale_up_gb_per_s", what, 0.1, 100'000, "GB/s", true, 0),
                     number(o, "scale_out_gb_per_s", what, 0.1, 100'000, "GB/s", true, 0), like);
  f.network.intra_node_latency_seconds = number(o, "scale_up_latency_us", what, 0, 10'000, "µs",
                                                false, like.intra_node_latency_seconds * 1e6) *
                                         1e-6;
  f.network.inter_node_latency_seconds = number(o, "scale_out_latency_us", what, 0, 10'000, "µs",
                                                false, like.inter_node_latency_seconds * 1e6) *
                                         1e-6;
  f.network.source = "cluster file";
  const QJsonValue name = o.value(QLatin1String("name"));
  if (!name.isUndefined() && !name.isString())
    throw std::invalid_argument(what + ": \"name\" must be a string");
  f.name = name.isString() ? name.toString().toStdString() : what;
  return f;
}

ClusterFile read_cluster_file(const std::string& path) {
  std::string text, error;
  if (!read_file_capped(path, 64 * 1024, &text, &error)) throw std::invalid_argument(error);
  return parse_cluster_json(text, path);
}

}  // namespace napkin
