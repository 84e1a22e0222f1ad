// calibrate: fit the step-time model's named constants to measured runs (a
// runs CSV or training logs), print the constants with bootstrap intervals,
// each run's measured, datasheet and calibrated step and the leave-one-out
// errors, and write the cluster profile through the atomic writer.
#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>

#include "atomic_writer.h"
#include "calibration.h"
#include "cli_cluster.h"
#include "cli_common.h"
#include "cli_long_run.h"
#include "format.h"
#include "framework_config.h"
#include "measured_runs.h"
#include "parallel_for.h"

namespace napkin::cli {

namespace {

// "chip=A100-80,vocab=50304" → defaults for columns a runs file lacks.
RunDefaults parse_set(const std::vector<std::string>& items) {
  RunDefaults d;
  for (const std::string& all : items) {
    std::size_t start = 0;
    while (start <= all.size()) {
      std::size_t end = all.find(',', start);
      if (end == std::string::npos) end = all.size();
      const std::string item = all.substr(start, end - start);
      start = end + 1;
      if (item.empty()) continue;
      const std::size_t eq = item.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
        throw UsageError("--set takes column=value items (e.g. chip=A100-80,vocab=50304); got " +
                         quoted(item));
      d[item.substr(0, eq)] = item.substr(eq + 1);
    }
  }
  return d;
}

std::set<std::int64_t> parse_lines(const std::optional<std::string>& text) {
  std::set<std::int64_t> out;
  if (!text) return out;
  std::size_t start = 0;
  while (start <= text->size()) {
    std::size_t end = text->find(',', start);
    if (end == std::string::npos) end = text->size();
    const std::string item = text->substr(start, end - start);
    start = end + 1;
    try {
      std::size_t used = 0;
      const long long v = std::stoll(item, &used);
      if (used != item.size() || v < 2) throw std::invalid_argument("");
      out.insert(v);
    } catch (const std::exception&) {
      throw UsageError(
          "--lines takes file line numbers >= 2 (the header is line 1), "
          "comma-separated; got " +
          quoted(item));
    }
  }
  return out;
}

MeasuredRuns read_all(const std::vector<std::string>& files, const RunDefaults& defaults,
                      const std::optional<TrainingConfig>& config) {
  MeasuredRuns all;
  for (const std::string& f : files) {
    MeasuredRuns r = load_runs_file(f, defaults, config);
    for (MeasuredRun& run : r.runs) {
      if (files.size() > 1) run.label = f.substr(f.find_last_of('/') + 1) + " " + run.label;
      all.runs.push_back(std::move(run));
    }
    for (SkippedRun& s : r.skipped) {
      s.reason = f + ": line " + std::to_string(s.line) + ": " + s.reason;
      all.skipped.push_back(std::move(s));
    }
    for (std::string& n : r.notes) all.notes.push_back(std::move(n));
  }
  return all;
}

// A signed percent right-aligned in 8 columns.
std::string pct(double x) { return pad_left(signed_percent(x), 8); }

std::string value_text(const FittedConstant& c, const FitConstant& k) {
  char b[160];
  if (c.unit == "s")
    std::snprintf(b, sizeof b, "%-30s %10.4g s    [%.4g, %.4g]   prior %g s", c.name.c_str(),
                  c.value, c.p05, c.p95, c.prior);
  else
    std::snprintf(b, sizeof b, "%-30s %10.4f      [%.4f, %.4f]   prior %.4g", c.name.c_str(),
                  c.value, c.p05, c.p95, c.prior);
  if (c.held) return std::string(b) + "   held: the runs do not identify it";
  if (k.hi > k.lo && c.value >= k.hi * (1 - 1e-6))
    return std::string(b) + "   at its ceiling: the runs ask for more than the chip has shown";
  return b;
}

// What `calibrate` was asked: the runs, their defaults and filters, the
// cluster, the constants held fixed, the bootstrap, the file to predict and
// the profile to write.
struct CalibrateRequest {
  bool json = false;
  std::vector<std::string> files;
  RunDefaults defaults;  // --set, with --chip over its chip
  std::optional<std::string> config_path, chip, predict_file, out;
  std::set<std::int64_t> lines;
  std::optional<Network> network;
  std::vector<std::string> fixed;
  ConstantFitOptions options;
  double max_seconds = 0;
};

CalibrateRequest read_calibrate_flags(Args& a) {
  CalibrateRequest r;
  r.json = a.flag("--json");
  r.files = a.values("--runs");
  if (r.files.empty()) throw UsageError("--runs FILE is required (a runs CSV or a training log)");
  r.defaults = parse_set(a.values("--set"));
  r.config_path = a.value("--config");
  r.chip = a.value("--chip");
  r.lines = parse_lines(a.value("--lines"));
  r.predict_file = a.value("--predict");
  r.out = a.value("-o");
  r.network = cluster_from_flags(
      a,
      r.chip ? *r.chip : (r.defaults.count("chip") ? r.defaults.at("chip") : std::string("H100")));
  for (const std::string& f : a.values("--fix")) {
    std::size_t start = 0;
    while (start <= f.size()) {
      std::size_t end = f.find(',', start);
      if (end == std::string::npos) end = f.size();
      if (end > start) r.fixed.push_back(f.substr(start, end - start));
      start = end + 1;
    }
  }
  r.options.bootstrap = a.integer("--bootstrap", 200, 0, 100'000, "resamples");
  r.options.seed = static_cast<std::uint64_t>(a.integer("--seed", 1, 0, 1'000'000'000, "seed"));
  r.max_seconds = a.real("--max-seconds", 0, 0, 1e7, "s (0: no limit)");
  a.finish();
  if (r.chip) r.defaults["chip"] = *r.chip;
  return r;
}

// The runs to fit: every file read, only the --lines asked for, on --chip.
MeasuredRuns runs_to_fit(const CalibrateRequest& r, const std::optional<TrainingConfig>& config) {
  MeasuredRuns runs = read_all(r.files, r.defaults, config);
  if (!r.lines.empty()) {
    std::vector<MeasuredRun> kept;
    for (MeasuredRun& m : runs.runs)
      if (r.lines.count(m.line)) kept.push_back(std::move(m));
    if (kept.size() != r.lines.size())
      throw UsageError("--lines names " + std::to_string(r.lines.size()) + " rows but " +
                       std::to_string(kept.size()) + " of them are readable runs");
    runs.runs = std::move(kept);
  }
  if (r.chip)
    for (MeasuredRun& m : runs.runs) m.job.chip = *r.chip;
  return runs;
}

// The runs of --predict's file: measured, with the datasheet model (the
// priors) and with the profile (the fitted values).
struct Prediction {
  std::vector<double> measured, prior, calibrated;
  std::vector<std::string> skipped;
  ErrorSummary prior_error, calibrated_error;
};

Prediction predict_other(const CalibrateRequest& r, const std::optional<TrainingConfig>& config,
                         const Calibration& c) {
  std::vector<double> priors;
  for (const FitConstant& k : c.constants) priors.push_back(k.prior);
  const std::vector<double> fitted = c.fit.values();
  Prediction p;
  const MeasuredRuns other = load_runs_file(*r.predict_file, r.defaults, config);
  for (const MeasuredRun& m : other.runs) {
    if (!m.measured.step_seconds) continue;
    TrainingJob job = m.job;
    if (r.chip) job.chip = *r.chip;
    job.network = r.network;
    p.measured.push_back(*m.measured.step_seconds);
    p.prior.push_back(predict_step_seconds(job, m.layout, priors));
    p.calibrated.push_back(predict_step_seconds(job, m.layout, fitted));
  }
  for (const SkippedRun& s : other.skipped)
    p.skipped.push_back("line " + std::to_string(s.line) + ": " + s.reason);
  p.prior_error = relative_errors(p.prior, p.measured);
  p.calibrated_error = relative_errors(p.calibrated, p.measured);
  return p;
}

QJsonObject calibrate_json(const CalibrateRequest& r, const MeasuredRuns& runs,
                           const Calibration& c, const std::optional<Prediction>& p) {
  QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(profile_to_json(c))).object();
  QJsonArray skipped;
  for (const SkippedRun& s : runs.skipped) skipped.append(QString::fromStdString(s.reason));
  for (const std::string& s : c.skipped) skipped.append(QString::fromStdString(s));
  o["skipped"] = skipped;
  if (p)
    o["prediction"] =
        QJsonObject{{"file", QString::fromStdString(*r.predict_file)},
                    {"runs", static_cast<double>(p->measured.size())},
                    {"prior", QJsonObject{{"mean_abs", p->prior_error.mean_abs},
                                          {"mean_signed", p->prior_error.mean_signed}}},
                    {"calibrated", QJsonObject{{"mean_abs", p->calibrated_error.mean_abs},
                                               {"mean_signed", p->calibrated_error.mean_signed}}}};
  if (r.out) o["written"] = QString::fromStdString(*r.out);
  return o;
}

void print_calibration(const CalibrateRequest& r, const MeasuredRuns& runs, const Calibration& c,
                       const std::optional<Prediction>& p) {
  const Network& net = r.network ? *r.network : chip_by_name(c.chip).network;
  std::printf("Calibrated on %zu runs of %s (step time; %lld bootstrap resamples)\n", c.runs.size(),
              c.chip.c_str(), static_cast<long long>(r.options.bootstrap));
  std::printf("  cluster: %lld GPUs per node, scale-up %s GB/s, scale-out %s GB/s per GPU\n",
              static_cast<long long>(net.chips_per_node),
              format_grouped(net.intra_node_bytes_per_s / 1e9, 1).c_str(),
              format_grouped(net.inter_node_bytes_per_s / 1e9, 2).c_str());
  std::printf("  framework: %s (software preset %s)\n",
              c.framework.empty() ? "not named" : c.framework.c_str(),
              c.software.empty() ? "unknown" : c.software.c_str());
  for (const std::string& n : runs.notes) std::printf("  note: %s\n", n.c_str());
  std::printf("Constants (fitted, 90 %% bootstrap interval, prior: the published value)\n");
  for (std::size_t k = 0; k < c.fit.constants.size(); ++k)
    std::printf("  %s\n", value_text(c.fit.constants[k], c.constants[k]).c_str());
  std::printf(
      "Runs: measured step, published constants, calibrated, leave-one-out (error vs measured)\n");
  for (std::size_t i = 0; i < c.runs.size(); ++i) {
    const RunFit& f = c.fit.runs[i];
    std::printf(
        "  %-12s %-64s %9s  %9s %s  %9s %s  %9s %s\n", c.runs[i].label.c_str(),
        to_string(c.runs[i].layout).c_str(), format_seconds(f.measured).c_str(),
        format_seconds(f.prior_predicted).c_str(), pct(f.prior_predicted / f.measured - 1).c_str(),
        format_seconds(f.predicted).c_str(), pct(f.predicted / f.measured - 1).c_str(),
        format_seconds(f.loo_predicted).c_str(), pct(f.loo_predicted / f.measured - 1).c_str());
  }
  std::printf("Errors (mean absolute, mean signed; negative = predicted faster than measured)\n");
  auto err = [](const char* what, const ErrorSummary& e) {
    std::printf("  %-28s %7.1f %%  %s\n", what, 100 * e.mean_abs, pct(e.mean_signed).c_str());
  };
  err("published constants", c.fit.prior_error);
  err("calibrated (in sample)", c.fit.fit_error);
  err("leave-one-out", c.fit.loo_error);
  if (p) {
    std::printf("Prediction of %s (%zu runs)\n", r.predict_file->c_str(), p->measured.size());
    err("published constants", p->prior_error);
    err("calibrated", p->calibrated_error);
  }
  for (const SkippedRun& s : runs.skipped) std::printf("  skipped: %s\n", s.reason.c_str());
  for (const std::string& s : c.skipped) std::printf("  skipped: %s\n", s.c_str());
  if (p)
    for (const std::string& s : p->skipped) std::printf("  skipped in --predict: %s\n", s.c_str());
  if (r.out) std::printf("Cluster profile written to %s\n", r.out->c_str());
}

int run_calibrate(Args& a) {
  CalibrateRequest r = read_calibrate_flags(a);
  // One clock for the whole command, as fit has: reading the runs, the fit,
  // its leave-one-out fits and bootstrap (--max-seconds, Ctrl+C and the
  // progress line cover them all).
  LongRun run("fits", 0, r.json, r.max_seconds);
  std::optional<TrainingConfig> config;
  if (r.config_path) config = import_training_config_file(*r.config_path);
  const MeasuredRuns runs = runs_to_fit(r, config);
  run.update(0);  // runs files that took the whole budget to read stop here
  // Asked after each fit (with the count) and before each model evaluation
  // (one fit of many runs can take a while): a stop is seen within one step.
  std::int64_t fits_done = 0;
  r.options.progress = [&run, &fits_done](std::int64_t done, std::int64_t total) {
    fits_done = done;
    return run.keep_going(done, total);
  };
  Calibration c;
  try {
    c = calibrate_step_time(runs.runs, r.options, r.fixed, r.network,
                            [&run, &fits_done] { return run.keep_going(fits_done); });
  } catch (const Cancelled&) {
    run.stop_reason();
    throw;
  }
  std::optional<Prediction> p;
  if (r.predict_file) p = predict_other(r, config, c);
  run.update(fits_done);  // the --predict runs are read and evaluated on the same clock
  if (r.out) {
    QString error;
    if (!write_file_atomically(QString::fromStdString(*r.out),
                               QByteArray::fromStdString(profile_to_json(c)), &error))
      throw std::runtime_error(error.toStdString());
  }
  if (r.json)
    print_json(calibrate_json(r, runs, c, p));
  else
    print_calibration(r, runs, c, p);
  return 0;
}

}  // namespace

std::vector<Command> calibrate_commands() {
  return {
      {"calibrate",
       "calibrate --runs FILE [--runs FILE ...] [--set column=value,...] [--config FILE] "
       "[--chip C] [--cluster NAME|FILE] [--gpus-per-node N] [--scale-up-gb-per-s X] "
       "[--scale-out-gb-per-s Y] [--lines 2,5,...] [--fix NAME,...] [--predict FILE] [--bootstrap "
       "200] [--seed "
       "1] [--max-seconds S] [-o PROFILE.json] [--json]",
       run_calibrate},
  };
}

}  // namespace napkin::cli
