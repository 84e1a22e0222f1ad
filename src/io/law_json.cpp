#include "law_json.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QJsonParseError>
#include <QString>
#include <cmath>
#include <stdexcept>

#include "atomic_writer.h"
#include "read_file.h"

namespace napkin {

namespace {

constexpr const char* kFormat = "napkin-law";
constexpr int kVersion = 1;
constexpr const char* kConstants[] = {"E", "A", "alpha", "B", "beta"};

QJsonObject constants_json(const LossLaw& l) {
  return QJsonObject{{"E", l.E}, {"A", l.A}, {"alpha", l.alpha}, {"B", l.B}, {"beta", l.beta}};
}

[[noreturn]] void refuse(std::string_view source, const std::string& key, const std::string& why) {
  throw std::invalid_argument(std::string(source) + ": " + key + ": " + why);
}

double number(const QJsonObject& o, const char* key, const std::string& prefix,
              std::string_view source) {
  const QJsonValue v = o.value(QLatin1String(key));
  if (v.isUndefined())
    refuse(source, prefix + key, "missing (a law file needs E, A, alpha, B, beta)");
  if (!v.isDouble() || !std::isfinite(v.toDouble()))
    refuse(source, prefix + key, "must be a number");
  return v.toDouble();
}

LossLaw constants_from(const QJsonObject& o, const std::string& prefix, std::string_view source) {
  LossLaw l;
  double* out[] = {&l.E, &l.A, &l.alpha, &l.B, &l.beta};
  for (int i = 0; i < 5; ++i) *out[i] = number(o, kConstants[i], prefix, source);
  return l;
}

}  // namespace

QByteArray plan_law_to_json(const PlanLaw& law, std::string_view estimator, std::int64_t n_points) {
  QJsonObject o = constants_json(law.law);
  o["format"] = QString::fromLatin1(kFormat);
  o["version"] = kVersion;
  o["name"] = QString::fromStdString(law.name);
  if (!estimator.empty())
    o["estimator"] = QString::fromUtf8(estimator.data(), static_cast<qsizetype>(estimator.size()));
  o["ladder_max_flops"] = law.ladder_max_flops;
  if (n_points > 0) o["n_points"] = static_cast<qint64>(n_points);
  o["confidence"] = law.confidence;
  QJsonArray draws;
  for (const LossLaw& d : law.draws) draws.append(constants_json(d));
  o["draws"] = draws;
  return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

PlanLaw plan_law_from_json(std::string_view json, std::string_view source) {
  QJsonParseError err{};
  const QJsonDocument doc =
      QJsonDocument::fromJson(QByteArray(json.data(), static_cast<qsizetype>(json.size())), &err);
  if (err.error != QJsonParseError::NoError)
    throw std::invalid_argument(std::string(source) + ": not JSON (" +
                                err.errorString().toStdString() + " at byte " +
                                std::to_string(err.offset) + ")");
  if (!doc.isObject()) refuse(source, "format", "a law file is a JSON object");
  const QJsonObject o = doc.object();
  if (o.value("format").toString() != QLatin1String(kFormat))
    refuse(source, "format", "must be \"napkin-law\" (written by napkin-cli fit -o)");
  if (!o.value("version").isDouble() || o.value("version").toInt() != kVersion)
    refuse(source, "version", "must be 1");
  PlanLaw p;
  p.choice = LawChoice::fitted;
  p.law = constants_from(o, "", source);
  p.name = o.value("name").toString().toStdString();
  if (p.name.empty()) p.name = "the law fitted in " + std::string(source);
  p.ladder_max_flops = number(o, "ladder_max_flops", "", source);
  if (o.contains("confidence")) p.confidence = number(o, "confidence", "", source);
  const QJsonValue draws = o.value("draws");
  if (!draws.isUndefined()) {
    if (!draws.isArray()) refuse(source, "draws", "must be an array of laws");
    const QJsonArray a = draws.toArray();
    for (qsizetype i = 0; i < a.size(); ++i) {
      const std::string prefix = "draws[" + std::to_string(i) + "].";
      if (!a[i].isObject()) refuse(source, "draws[" + std::to_string(i) + "]", "must be a law");
      p.draws.push_back(constants_from(a[i].toObject(), prefix, source));
    }
  }
  try {
    p.validate();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string(source) + ": " + e.what());
  }
  return p;
}

PlanLaw load_plan_law_file(const std::string& path) {
  std::string data, error;
  if (!read_file_capped(path, kMaxLawFileBytes, &data, &error))
    throw std::runtime_error(
        error + (error.find("limit is") != std::string::npos ? "; not a law file" : ""));
  try {
    return plan_law_from_json(data, path);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(e.what());
  }
}

void save_plan_law_file(const std::string& path, const PlanLaw& law, std::string_view estimator,
                        std::int64_t n_points) {
  QString error;
  if (!write_file_atomically(QString::fromStdString(path),
                             plan_law_to_json(law, estimator, n_points), &error))
    throw std::runtime_error(error.toStdString());
}

}  // namespace napkin
