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

int run_calibrate(Args& a) {
  const bool json = a.flag("--json");
  const std::vector<std::string> files = a.values("--runs");
  if (files.empty()) throw UsageError("--runs FILE is required (a runs CSV or a training log)");
  const RunDefaults defaults = parse_set(a.values("--set"));
  const auto config_path = a.value("--config");
  const auto chip = a.value("--chip");
  const std::set<std::int64_t> lines = parse_lines(a.value("--lines"));
  const auto predict_file = a.value("--predict");
  const auto out = a.value("-o");
  const std::optional<Network> network = cluster_from_flags(
      a, chip ? *chip : (defaults.count("chip") ? defaults.at("chip") : std::string("H100")));
  std::vector<std::string> fixed;
  for (const std::string& f : a.values("--fix")) {
    std::size_t start = 0;
    while (start <= f.size()) {
      std::size_t end = f.find(',', start);
      if (end == std::string::npos) end = f.size();
      if (end > start) fixed.push_back(f.substr(start, end - start));
      start = end + 1;
    }
  }
  ConstantFitOptions options;
  options.bootstrap = a.integer("--bootstrap", 200, 0, 100'000, "resamples");
  options.seed = static_cast<std::uint64_t>(a.integer("--seed", 1, 0, 1'000'000'000, "seed"));
  const double max_seconds = a.real("--max-seconds", 0, 0, 1e7, "s (0: no limit)");
  a.finish();

  // One clock for the whole command, as fit has: reading the runs, the fit,
  // its leave-one-out fits and bootstrap (--max-seconds, Ctrl+C and the
  // progress line cover them all).
  LongRun run("fits", 0, json, max_seconds);

  RunDefaults d = defaults;
  if (chip) d["chip"] = *chip;
  std::optional<TrainingConfig> config;
  if (config_path) config = import_training_config_file(*config_path);
  MeasuredRuns runs = read_all(files, d, config);
  run.update(0);  // runs files that took the whole budget to read stop here
  if (!lines.empty()) {
    std::vector<MeasuredRun> kept;
    for (MeasuredRun& r : runs.runs)
      if (lines.count(r.line)) kept.push_back(std::move(r));
    if (kept.size() != lines.size())
      throw UsageError("--lines names " + std::to_string(lines.size()) + " rows but " +
                       std::to_string(kept.size()) + " of them are readable runs");
    runs.runs = std::move(kept);
  }
  if (chip)
    for (MeasuredRun& r : runs.runs) r.job.chip = *chip;
  // Asked after each fit (with the count) and before each model evaluation
  // (one fit of many runs can take a while): a stop is seen within one step.
  std::int64_t fits_done = 0;
  options.progress = [&run, &fits_done](std::int64_t done, std::int64_t total) {
    fits_done = done;
    return run.keep_going(done, total);
  };
  Calibration c;
  try {
    c = calibrate_step_time(runs.runs, options, fixed, network,
                            [&run, &fits_done] { return run.keep_going(fits_done); });
  } catch (const Cancelled&) {
    run.stop_reason();
    throw;
  }
  const std::vector<double> fitted = c.fit.values();
  const std::vector<double> priors = [&] {
    std::vector<double> p;
    for (const FitConstant& k : c.constants) p.push_back(k.prior);
    return p;
  }();

  // Runs of another file predicted with the datasheet model and the profile.
  std::vector<double> pm, pp, pc;
  std::vector<std::string> predict_skipped;
  if (predict_file) {
    const MeasuredRuns other = load_runs_file(*predict_file, d, config);
    for (const MeasuredRun& r : other.runs) {
      if (!r.measured.step_seconds) continue;
      TrainingJob job = r.job;
      if (chip) job.chip = *chip;
      job.network = network;
      pm.push_back(*r.measured.step_seconds);
      pp.push_back(predict_step_seconds(job, r.layout, priors));
      pc.push_back(predict_step_seconds(job, r.layout, fitted));
    }
    for (const SkippedRun& s : other.skipped)
      predict_skipped.push_back("line " + std::to_string(s.line) + ": " + s.reason);
  }
  const ErrorSummary pe = relative_errors(pp, pm), ce = relative_errors(pc, pm);

  run.update(fits_done);  // the --predict runs are read and evaluated on the same clock
  if (out) {
    QString error;
    if (!write_file_atomically(QString::fromStdString(*out),
                               QByteArray::fromStdString(profile_to_json(c)), &error))
      throw std::runtime_error(error.toStdString());
  }
  if (json) {
    QJsonObject o = QJsonDocument::fromJson(QByteArray::fromStdString(profile_to_json(c))).object();
    QJsonArray skipped;
    for (const SkippedRun& s : runs.skipped) skipped.append(QString::fromStdString(s.reason));
    for (const std::string& s : c.skipped) skipped.append(QString::fromStdString(s));
    o["skipped"] = skipped;
    if (predict_file)
      o["prediction"] = QJsonObject{
          {"file", QString::fromStdString(*predict_file)},
          {"runs", static_cast<double>(pm.size())},
          {"prior", QJsonObject{{"mean_abs", pe.mean_abs}, {"mean_signed", pe.mean_signed}}},
          {"calibrated", QJsonObject{{"mean_abs", ce.mean_abs}, {"mean_signed", ce.mean_signed}}}};
    if (out) o["written"] = QString::fromStdString(*out);
    print_json(o);
    return 0;
  }
  const Network& net = network ? *network : chip_by_name(c.chip).network;
  std::printf("Calibrated on %zu runs of %s (step time; %lld bootstrap resamples)\n", c.runs.size(),
              c.chip.c_str(), static_cast<long long>(options.bootstrap));
  std::printf("  cluster: %lld GPUs per node, scale-up %s GB/s, scale-out %s GB/s per GPU\n",
              static_cast<long long>(net.chips_per_node),
              format_grouped(net.intra_node_bytes_per_s / 1e9, 1).c_str(),
              format_grouped(net.inter_node_bytes_per_s / 1e9, 2).c_str());
  std::printf("  framework: %s (software preset %s)\n",
              c.framework.empty() ? "not named" : c.framework.c_str(),
              c.software.empty() ? "unknown" : c.software.c_str());
  for (const std::string& n : runs.notes) std::printf("  note: %s\n", n.c_str());
  std::printf("Constants (fitted, 90 %% bootstrap interval, datasheet prior)\n");
  for (std::size_t k = 0; k < c.fit.constants.size(); ++k)
    std::printf("  %s\n", value_text(c.fit.constants[k], c.constants[k]).c_str());
  std::printf(
      "Runs: measured step, datasheet model, calibrated, leave-one-out (error vs measured)\n");
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
  err("datasheet model", c.fit.prior_error);
  err("calibrated (in sample)", c.fit.fit_error);
  err("leave-one-out", c.fit.loo_error);
  if (predict_file) {
    std::printf("Prediction of %s (%zu runs)\n", predict_file->c_str(), pm.size());
    err("datasheet model", pe);
    err("calibrated", ce);
  }
  for (const SkippedRun& s : runs.skipped) std::printf("  skipped: %s\n", s.reason.c_str());
  for (const std::string& s : c.skipped) std::printf("  skipped: %s\n", s.c_str());
  for (const std::string& s : predict_skipped)
    std::printf("  skipped in --predict: %s\n", s.c_str());
  if (out) std::printf("Cluster profile written to %s\n", out->c_str());
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
