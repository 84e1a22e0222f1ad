#include "calibration.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <algorithm>
#include <stdexcept>

#include "hardware.h"
#include "read_file.h"

namespace napkin {

std::vector<FitConstant> step_time_constants() {
  return {
      {"compute_factor", "×", ConstantKind::factor, 1.0, 0.3, 0.2, 5.0,
       "1 = the chip's datasheet peak at the kernel model's efficiencies (hardware.cpp); a "
       "log-normal prior of width 0.3 (about ±35 %, the spread of achieved GEMM efficiency "
       "across shapes)"},
      {"network_factor", "×", ConstantKind::factor, 1.0, 0.5, 0.1, 10.0,
       "1 = the datasheet links at the collective efficiency of hardware.cpp; width 0.5"},
      {"micro_batch_overhead_seconds", "s", ConstantKind::offset, 0.0, 0.005, 0.0, 1.0,
       "0 in the datasheet model; kernel launches and host work per micro-batch, prior "
       "width 5 ms"},
      {"step_overhead_seconds", "s", ConstantKind::offset, 0.0, 0.1, 0.0, 100.0,
       "0 in the datasheet model; per-step host work, data loading, logging, prior width "
       "0.1 s"},
  };
}

StepParts step_parts(const TrainingJob& job, const Layout& layout) {
  const LayoutResult r = evaluate_layout(job, layout);
  if (!r.valid) throw std::invalid_argument(r.reason);
  const StepTime& t = r.time;
  StepParts p;
  p.compute_seconds =
      t.compute_seconds + t.recompute_seconds + t.pp_bubble_seconds + t.optimizer_seconds;
  p.comm_seconds = t.exposed_comm_seconds();
  p.micro_batches = static_cast<double>(r.micro_batches);
  return p;
}

double predict_step_seconds(const StepParts& p, std::span<const double> c) {
  return c[0] * p.compute_seconds + c[1] * p.comm_seconds + c[2] * p.micro_batches + c[3];
}

Calibration calibrate_step_time(const std::vector<MeasuredRun>& runs,
                                const ConstantFitOptions& options,
                                const std::vector<std::string>& fixed) {
  Calibration c;
  c.constants = step_time_constants();
  for (const std::string& name : fixed) {
    auto it = std::find_if(c.constants.begin(), c.constants.end(),
                           [&](const FitConstant& k) { return k.name == name; });
    if (it == c.constants.end())
      throw std::invalid_argument("constant \"" + name +
                                  "\" is not one of compute_factor, network_factor, "
                                  "micro_batch_overhead_seconds, step_overhead_seconds");
    it->lo = it->hi = it->prior;
    it->source = "held at the datasheet value. " + it->source;
  }
  for (const MeasuredRun& r : runs) {
    double step = 0;
    if (r.measured.step_seconds) {
      step = *r.measured.step_seconds;
    } else if (r.measured.tokens_per_second_per_chip) {
      step = static_cast<double>(r.job.global_batch * r.job.seq_len) /
             (*r.measured.tokens_per_second_per_chip * static_cast<double>(r.job.n_chips));
    } else {
      c.skipped.push_back(r.label +
                          ": no step time or tokens/s (TFLOP/s alone: frameworks count "
                          "FLOPs differently)");
      continue;
    }
    if (c.chip.empty()) c.chip = r.job.chip;
    if (r.job.chip != c.chip)
      throw std::invalid_argument(r.label + ": chip " + r.job.chip + ", but " +
                                  c.runs.front().label + " ran on " + c.chip +
                                  "; calibrate one chip at a time");
    CalibrationRun cr{r.label, "", r.job, r.layout, step, step_parts(r.job, r.layout)};
    c.runs.push_back(std::move(cr));
  }
  if (c.runs.empty()) throw std::invalid_argument("no run with a step time to calibrate on");
  std::vector<double> measured;
  for (const CalibrationRun& r : c.runs) measured.push_back(r.measured_step_seconds);
  const std::vector<CalibrationRun>& rs = c.runs;
  c.fit = fit_constants(
      c.constants, measured,
      [&rs](std::size_t i, std::span<const double> k) {
        return predict_step_seconds(rs[i].parts, k);
      },
      options);
  return c;
}

namespace {

QJsonObject errors_json(const ErrorSummary& e) {
  return QJsonObject{{"mean_abs", e.mean_abs}, {"mean_signed", e.mean_signed}};
}

[[noreturn]] void bad(std::string_view source, const std::string& key, const std::string& what) {
  throw std::invalid_argument(std::string(source) + ": key \"" + key + "\": " + what);
}

}  // namespace

std::string profile_to_json(const Calibration& c) {
  const Chip& chip = chip_by_name(c.chip);
  QJsonObject o;
  o["format"] = "napkin-cluster-profile";
  o["version"] = 1;
  o["chip"] = QString::fromStdString(c.chip);
  o["network"] = QJsonObject{
      {"chips_per_node", static_cast<double>(chip.network.chips_per_node)},
      {"intra_node_bytes_per_s", chip.network.intra_node_bytes_per_s},
      {"inter_node_bytes_per_s", chip.network.inter_node_bytes_per_s},
      {"source", QString::fromUtf8(chip.network.source.data(),
                                   static_cast<qsizetype>(chip.network.source.size()))}};
  o["model"] =
      "step = compute_factor × (compute + recompute + bubble + optimizer) + network_factor × "
      "exposed communication + micro_batch_overhead_seconds × micro-batches + "
      "step_overhead_seconds";
  QJsonArray constants;
  for (std::size_t k = 0; k < c.fit.constants.size(); ++k) {
    const FittedConstant& f = c.fit.constants[k];
    constants.append(QJsonObject{{"name", QString::fromStdString(f.name)},
                                 {"unit", QString::fromStdString(f.unit)},
                                 {"value", f.value},
                                 {"p05", f.p05},
                                 {"p95", f.p95},
                                 {"prior", f.prior},
                                 {"kind", "calibrated"},
                                 {"prior_source", QString::fromStdString(c.constants[k].source)}});
  }
  o["constants"] = constants;
  QJsonArray runs;
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    const CalibrationRun& r = c.runs[i];
    const RunFit& f = c.fit.runs[i];
    runs.append(QJsonObject{{"label", QString::fromStdString(r.label)},
                            {"chips", static_cast<double>(r.job.n_chips)},
                            {"layout", QString::fromStdString(to_string(r.layout))},
                            {"measured_step_seconds", f.measured},
                            {"prior_predicted_step_seconds", f.prior_predicted},
                            {"predicted_step_seconds", f.predicted},
                            {"loo_predicted_step_seconds", f.loo_predicted}});
  }
  o["runs"] = runs;
  o["errors"] = QJsonObject{{"prior", errors_json(c.fit.prior_error)},
                            {"fit", errors_json(c.fit.fit_error)},
                            {"leave_one_out", errors_json(c.fit.loo_error)}};
  return QJsonDocument(o).toJson(QJsonDocument::Indented).toStdString();
}

std::vector<double> ClusterProfile::values() const {
  std::vector<double> v;
  for (const FittedConstant& c : constants) v.push_back(c.value);
  return v;
}

ClusterProfile profile_from_json(std::string_view json, std::string_view source) {
  QJsonParseError err{};
  const QJsonDocument doc =
      QJsonDocument::fromJson(QByteArray(json.data(), static_cast<qsizetype>(json.size())), &err);
  if (err.error != QJsonParseError::NoError || !doc.isObject())
    throw std::invalid_argument(std::string(source) + ": not a JSON object (" +
                                err.errorString().toStdString() + " at offset " +
                                std::to_string(err.offset) + ")");
  const QJsonObject o = doc.object();
  if (o["format"].toString() != "napkin-cluster-profile")
    bad(source, "format", "expected \"napkin-cluster-profile\"");
  if (o["version"].toInt() != 1) bad(source, "version", "expected 1");
  ClusterProfile p;
  p.chip = o["chip"].toString().toStdString();
  (void)chip_by_name(p.chip);
  const std::vector<FitConstant> expected = step_time_constants();
  const QJsonArray arr = o["constants"].toArray();
  if (arr.size() != static_cast<qsizetype>(expected.size()))
    bad(source, "constants", "expected " + std::to_string(expected.size()) + " constants");
  for (qsizetype k = 0; k < arr.size(); ++k) {
    const QJsonObject c = arr[k].toObject();
    const std::string key = "constants[" + std::to_string(k) + "]";
    if (c["name"].toString().toStdString() != expected[k].name)
      bad(source, key + ".name", "expected \"" + expected[k].name + "\"");
    FittedConstant f;
    f.name = expected[k].name;
    f.unit = expected[k].unit;
    f.prior = expected[k].prior;
    f.value = c["value"].toDouble(-1);
    if (!(f.value >= expected[k].lo && f.value <= expected[k].hi))
      bad(source, key + ".value",
          "expected a number in [" + std::to_string(expected[k].lo) + ", " +
              std::to_string(expected[k].hi) + "]");
    f.p05 = c["p05"].toDouble(f.value);
    f.p95 = c["p95"].toDouble(f.value);
    p.constants.push_back(f);
  }
  p.runs = o["runs"].toArray().size();
  return p;
}

ClusterProfile load_profile_file(const std::string& path) {
  std::string text, error;
  if (!read_file_capped(path, std::int64_t{16} << 20, &text, &error))
    throw std::invalid_argument(error);
  return profile_from_json(text, path);
}

}  // namespace napkin
