#include "calibration.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <algorithm>
#include <stdexcept>

#include "format.h"
#include "hardware.h"
#include "parallel_for.h"
#include "read_file.h"

namespace napkin {

namespace {

const std::vector<std::string> kNames = {"matmul_efficiency", "hbm_efficiency",
                                         "scale_up_efficiency", "scale_out_efficiency",
                                         "host_dispatch_seconds"};

}  // namespace

std::vector<std::string> step_time_constant_names() { return kNames; }

std::vector<FitConstant> step_time_constants(const TrainingJob& job) {
  TrainingJob published = job;
  published.calibrated.reset();
  const CalibratedConstants d = published.constants();
  const std::string chip = job.chip;
  const Chip& row = chip_by_name(job.chip);
  // Ceilings from what the chip has been measured to do at best: no GEMM
  // beats the chip's best published GEMM (hardware.h matmul_best; 1 where
  // none is cited), no element-wise kernel beats a plain device-to-device
  // copy (hbm_stream_efficiency). A fit that presses against one says the
  // model, not the constant, is off for the runs' shapes.
  const double matmul_ceiling = row.efficiency.matmul_best > 0
                                    ? std::max(row.efficiency.matmul_best, d.matmul_efficiency)
                                    : 1.0;
  const double hbm_ceiling = std::max(row.hbm_stream_efficiency, d.hbm_efficiency);
  // Log-normal priors (factors) at the published values; the widths are the
  // spread the sources show: GEMM efficiency across shapes and clocks ±20 %,
  // fused element-wise kernels and NCCL bus bandwidth ±30 %, the host time
  // per kernel (Python dispatch, CUDA launches) a factor of about 1.6.
  return {
      {kNames[0], "×", ConstantKind::factor, d.matmul_efficiency, 0.2, 0.05, matmul_ceiling,
       chip + " efficiency.matmul (chip_efficiency.h: published GEMM rates ÷ datasheet peak" +
           (matmul_ceiling < 1
                ? "; at most " + format_grouped(matmul_ceiling, 3) + ", the best published GEMM)"
                : ")")},
      {kNames[1], "×", ConstantKind::factor, d.hbm_efficiency, 0.3, 0.05, hbm_ceiling,
       chip +
           " efficiency.hbm (chip_efficiency.h: fused element-wise kernels ÷ HBM bandwidth; at "
           "most " +
           format_grouped(hbm_ceiling, 3) + ", a plain copy)"},
      {kNames[2], "×", ConstantKind::factor, d.scale_up_efficiency, 0.3, 0.05, 1.0,
       chip + " efficiency.link (chip_efficiency.h: nccl-tests bus bandwidth ÷ NVLink)"},
      {kNames[3], "×", ConstantKind::factor, d.scale_out_efficiency, 0.3, 0.05, 1.0,
       chip + " efficiency.link, applied to the scale-out network too"},
      {kNames[4], "s", ConstantKind::factor, d.host_dispatch_seconds, 0.5, 1e-7, 1e-2,
       "the framework preset's host_dispatch_seconds (parallel.cpp)"},
  };
}

CalibratedConstants constants_from_values(std::span<const double> v) {
  if (v.size() != kNames.size())
    throw std::invalid_argument("expected " + std::to_string(kNames.size()) + " constants");
  return {v[0], v[1], v[2], v[3], v[4], 0, {}, {}};
}

std::vector<double> values_of(const CalibratedConstants& k) {
  return {k.matmul_efficiency, k.hbm_efficiency, k.scale_up_efficiency, k.scale_out_efficiency,
          k.host_dispatch_seconds};
}

double predict_step_seconds(TrainingJob job, const Layout& layout, std::span<const double> c) {
  job.calibrated = constants_from_values(c);
  const LayoutResult r = evaluate_layout(job, layout);
  if (!r.valid) throw std::invalid_argument(r.reason);
  return r.step_seconds;
}

Calibration calibrate_step_time(const std::vector<MeasuredRun>& runs,
                                const ConstantFitOptions& options,
                                const std::vector<std::string>& fixed,
                                const std::optional<Network>& network,
                                const std::function<bool()>& keep_going) {
  Calibration c;
  c.network = network;
  std::vector<std::string> frameworks;
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
    // The framework the constants are fitted under (the host time per
    // kernel and the efficiencies are the framework's as much as the cluster's).
    std::string software;
    try {
      software = software_for_framework(r.framework);
    } catch (const std::invalid_argument&) {
      software = "";  // a log with no framework named: the run's preset is unknown
    }
    if (std::find(frameworks.begin(), frameworks.end(), r.framework) == frameworks.end()) {
      c.framework += (frameworks.empty() ? "" : ", ") + r.framework;
      frameworks.push_back(r.framework);
    }
    if (c.runs.empty())
      c.software = software;
    else if (software != c.software)
      c.software = "mixed";
    CalibrationRun cr{r.label, "", r.job, r.layout, step};
    cr.job.network = network;
    cr.job.calibrated.reset();
    const LayoutResult check = evaluate_layout(cr.job, cr.layout);
    if (!check.valid) throw std::invalid_argument(r.label + ": " + check.reason);
    c.runs.push_back(std::move(cr));
  }
  if (c.runs.empty()) throw std::invalid_argument("no run with a step time to calibrate on");
  c.constants = step_time_constants(c.runs.front().job);
  for (const std::string& name : fixed) {
    auto it = std::find_if(c.constants.begin(), c.constants.end(),
                           [&](const FitConstant& k) { return k.name == name; });
    if (it == c.constants.end()) {
      std::string names;
      for (const std::string& n : kNames) names += (names.empty() ? "" : ", ") + n;
      throw std::invalid_argument("constant \"" + name + "\" is not one of " + names);
    }
    it->lo = it->hi = it->prior;
    it->source = "held at its published value. " + it->source;
  }
  std::vector<double> measured;
  for (const CalibrationRun& r : c.runs) measured.push_back(r.measured_step_seconds);
  const std::vector<CalibrationRun>& rs = c.runs;
  c.fit = fit_constants(
      c.constants, measured,
      [&rs, &keep_going](std::size_t i, std::span<const double> k) {
        if (keep_going && !keep_going()) throw Cancelled("calibration cancelled");
        return predict_step_seconds(rs[i].job, rs[i].layout, k);
      },
      options);
  for (std::size_t k = 0; k < c.constants.size(); ++k)
    if (c.fit.constants[k].held)
      c.constants[k].source =
          "held at its published value: these runs do not identify it "
          "(they leave " +
          format_percent(c.fit.constants[k].sd_ratio, 0) + " of its prior uncertainty). " +
          c.constants[k].source;
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
  const Network& net = c.network ? *c.network : chip_by_name(c.chip).network;
  QJsonObject o;
  o["format"] = "napkin-cluster-profile";
  o["version"] = 2;
  o["chip"] = QString::fromStdString(c.chip);
  o["framework"] = QString::fromStdString(c.framework);
  o["software"] = QString::fromStdString(c.software);
  o["network"] = QJsonObject{
      {"gpus_per_node", static_cast<double>(net.chips_per_node)},
      {"scale_up_gb_per_s", net.intra_node_bytes_per_s / 1e9},
      {"scale_out_gb_per_s", net.inter_node_bytes_per_s / 1e9},
      {"scale_up_latency_us", net.intra_node_latency_seconds * 1e6},
      {"scale_out_latency_us", net.inter_node_latency_seconds * 1e6},
      {"scale_up_topology", net.full_mesh ? "full_mesh" : "switch"},
      {"source", QString::fromUtf8(net.source.data(), static_cast<qsizetype>(net.source.size()))}};
  o["model"] =
      "the step-time model of the parallelism planner with these constants in place of the "
      "chip's published efficiencies and the framework's host time per kernel";
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

CalibratedConstants ClusterProfile::calibrated() const {
  CalibratedConstants k = constants_from_values(values());
  k.runs = runs;
  k.framework = framework;
  k.software = software;
  return k;
}

CalibratedInterval ClusterProfile::interval() const {
  std::vector<double> slow, fast;
  for (const FittedConstant& c : constants) {
    const double lo = std::min({c.p05, c.value, c.p95});
    const double hi = std::max({c.p05, c.value, c.p95});
    const bool time = c.unit == "s";  // more host time is slower
    slow.push_back(time ? hi : lo);
    fast.push_back(time ? lo : hi);
  }
  CalibratedInterval k{constants_from_values(slow), constants_from_values(fast)};
  k.slow.runs = k.fast.runs = runs;
  k.slow.framework = k.fast.framework = framework;
  k.slow.software = k.fast.software = software;
  return k;
}

namespace {

double number(const QJsonObject& o, const char* key, std::string_view source,
              const std::string& path, double lo, double hi) {
  const QJsonValue v = o[key];
  const double x = v.toDouble(-1);
  if (!v.isDouble() || !(x >= lo && x <= hi))
    bad(source, path + key,
        "expected a number in [" + format_sci(lo, 2) + ", " + format_sci(hi, 2) + "]");
  return x;
}

}  // namespace

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
  if (o["version"].toInt() != 2)
    bad(source, "version",
        "expected 2 (a version 1 profile fitted factors on parts of the step; calibrate again)");
  ClusterProfile p;
  p.chip = o["chip"].toString().toStdString();
  try {
    (void)chip_by_name(p.chip);
  } catch (const std::invalid_argument& e) {
    bad(source, "chip", e.what());
  }
  // Optional (profiles written before they were recorded do not say).
  for (auto [key, field] :
       {std::pair{"framework", &p.framework}, std::pair{"software", &p.software}}) {
    const QJsonValue v = o[key];
    if (v.isUndefined()) continue;
    if (!v.isString() || v.toString().size() > 200)
      bad(source, key, "expected a text of at most 200 characters");
    *field = v.toString().toStdString();
  }
  if (!p.software.empty() && p.software != "mixed") {
    try {
      (void)software_by_name(p.software);
    } catch (const std::invalid_argument& e) {
      bad(source, "software", e.what());
    }
  }
  const QJsonObject n = o["network"].toObject();
  p.network.chips_per_node =
      static_cast<std::int64_t>(number(n, "gpus_per_node", source, "network.", 1, 100'000));
  p.network.intra_node_bytes_per_s =
      number(n, "scale_up_gb_per_s", source, "network.", 0.1, 100'000) * 1e9;
  p.network.inter_node_bytes_per_s =
      number(n, "scale_out_gb_per_s", source, "network.", 0.1, 100'000) * 1e9;
  p.network.intra_node_latency_seconds =
      number(n, "scale_up_latency_us", source, "network.", 0, 1e6) * 1e-6;
  p.network.inter_node_latency_seconds =
      number(n, "scale_out_latency_us", source, "network.", 0, 1e6) * 1e-6;
  // Written since the topology was modelled; an older profile's is the chip's.
  if (const QJsonValue t = n["scale_up_topology"]; t.isUndefined())
    p.network.full_mesh = chip_by_name(p.chip).network.full_mesh;
  else if (t == QLatin1String("switch") || t == QLatin1String("full_mesh"))
    p.network.full_mesh = t == QLatin1String("full_mesh");
  else
    bad(source, "network.scale_up_topology", "expected \"switch\" or \"full_mesh\"");
  p.network.source = "cluster profile";
  TrainingJob on_chip;
  on_chip.chip = p.chip;
  const std::vector<FitConstant> expected = step_time_constants(on_chip);
  const QJsonArray arr = o["constants"].toArray();
  if (arr.size() != static_cast<qsizetype>(expected.size()))
    bad(source, "constants", "expected " + std::to_string(expected.size()) + " constants");
  for (qsizetype k = 0; k < arr.size(); ++k) {
    const QJsonObject c = arr[k].toObject();
    const std::string key = "constants[" + std::to_string(k) + "]";
    const FitConstant& e = expected[static_cast<std::size_t>(k)];
    if (c["name"].toString().toStdString() != e.name)
      bad(source, key + ".name", "expected \"" + e.name + "\"");
    FittedConstant f;
    f.name = e.name;
    f.unit = e.unit;
    f.value = number(c, "value", source, key + ".", e.lo, e.hi);
    f.prior = c["prior"].toDouble(e.prior);
    f.p05 = c.contains("p05") ? number(c, "p05", source, key + ".", e.lo, e.hi) : f.value;
    f.p95 = c.contains("p95") ? number(c, "p95", source, key + ".", e.lo, e.hi) : f.value;
    p.constants.push_back(f);
  }
  p.runs = o["runs"].toArray().size();
  if (p.runs < 1) bad(source, "runs", "expected the runs the constants were fitted on");
  return p;
}

ClusterProfile load_profile_file(const std::string& path) {
  std::string text, error;
  if (!read_file_capped(path, std::int64_t{16} << 20, &text, &error))
    throw std::invalid_argument(error);
  return profile_from_json(text, path);
}

}  // namespace napkin
