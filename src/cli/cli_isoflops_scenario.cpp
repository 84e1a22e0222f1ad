// napkin-cli isoflops --scenario FILE: a saved scenario's IsoFLOPs panel,
// headless — its ladder (synthetic, or the loaded CSV embedded in the file),
// the IsoFLOPs method's optima and exponents, the parametric fit with the
// panel's estimator and the bootstrap of its forecast, all at the panel's C*
// (the Budget planner's compute, or the manual target): the model's view
// make_isoflops_view() of isoflops_slow_now(), as the panel shows it once its
// job has finished.
#include <QJsonObject>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_common.h"
#include "cli_long_run.h"
#include "cli_plan.h"
#include "cli_scaling.h"
#include "cli_scenario.h"
#include "format.h"
#include "isoflops_view.h"
#include "scenario.h"

namespace napkin::cli {

namespace {

QJsonObject law_json(const LossLaw& l) {
  return QJsonObject{{"E", l.E}, {"A", l.A}, {"alpha", l.alpha}, {"B", l.B}, {"beta", l.beta}};
}

QJsonValue interval_json(const std::optional<BandPoint>& b) {
  if (!b) return QJsonValue();
  return QJsonObject{{"low", b->low}, {"median", b->median}, {"high", b->high}};
}

std::string law_text(const LossLaw& l) {
  return "L = " + format_grouped(l.E, 4) + " + " + format_grouped(l.A, 1) + "/N^" +
         format_grouped(l.alpha, 4) + " + " + format_grouped(l.B, 1) + "/D^" +
         format_grouped(l.beta, 4);
}

std::string ladder_text(const Scenario& s, const IsoflopsShown& v) {
  const std::string runs = format_grouped(static_cast<double>(v.view().points.size())) + " runs";
  if (const auto& loaded = s.isoflops.loaded) return runs + " loaded from " + loaded->file_name;
  return runs + " of a synthetic ladder (seed " + std::to_string(s.isoflops.seed) + ")";
}

}  // namespace

int run_isoflops_scenario(Args& a, const std::string& path) {
  const bool json = a.flag("--json");
  const double max_seconds = a.real("--max-seconds", 0, 0, 1e7, "s (0: no limit)");
  const ScenarioFlags flags = read_scenario_flags(a, "isoflops");
  a.finish();
  std::vector<ScenarioOverride> overrides;
  const Scenario s = read_scenario(path, "isoflops", flags, overrides);
  save_scenario_if_asked(flags, s);
  LongRun run("resamples", s.isoflops.fit.resamples, json, max_seconds);
  IsoflopsSlow slow;
  try {
    slow = isoflops_slow_now(s, [&run](int done, int) { return run.keep_going(done); });
  } catch (const Cancelled&) {
    run.stop_reason();
    throw;
  }
  const IsoflopsShown v = make_isoflops_view(s, &slow);
  if (!v.valid()) throw std::invalid_argument(path + ": " + v.error);
  const IsoflopsForecast& f = v.forecast;
  const std::string target_source =
      v.follows_budget ? "the Budget planner's compute" : "the panel's target";
  if (json) {
    QJsonObject o = isoflops_optima_json(v.view());
    o["scenario"] = QString::fromStdString(path);
    o["ladder"] = QString::fromStdString(ladder_text(s, v));
    o["target_flops"] = v.target();
    o["target_follows_budget"] = v.follows_budget;
    o["extrapolation_decades"] = v.view().extrapolation_decades;
    o["estimator"] = QString::fromUtf8(to_string(s.isoflops.fit.estimator).data());
    o["fit"] = v.fit ? QJsonValue(law_json(v.fit->law)) : QJsonValue();
    o["fit_error"] = QString::fromStdString(v.fit_error);
    o["bootstrap"] = QJsonObject{{"resamples", s.isoflops.fit.resamples},
                                 {"refitted", v.n_successful},
                                 {"skipped", v.n_skipped},
                                 {"error", QString::fromStdString(v.boot_error)}};
    o["n_opt"] = optional_json(f.n_opt);
    o["d_opt"] = optional_json(f.d_opt);
    o["optimum_from_law"] = f.optimum_from_law;
    o["loss"] = optional_json(f.loss);
    o["loss_interval"] = interval_json(f.interval);
    o["n_opt_law"] = optional_json(f.n_opt_law);
    o["n_opt_law_interval"] = interval_json(f.n_opt_law_interval);
    if (v.ladder.truth) o["truth"] = law_json(*v.ladder.truth);
    o["overrides"] = overrides_json(overrides);
    print_json(o);
    return 0;
  }
  std::printf("IsoFLOPs: %s (%s)\n", ladder_text(s, v).c_str(), path.c_str());
  print_overrides(overrides);
  print_isoflops_optima(v.view());
  std::printf("\nFit (%s)\n", std::string(to_string(s.isoflops.fit.estimator)).c_str());
  row("law", v.fit ? law_text(v.fit->law) : "none: " + v.fit_error);
  if (v.ladder.truth) row("ground truth", law_text(*v.ladder.truth));
  row("bootstrap", v.boot_error.empty()
                       ? format_grouped(std::int64_t{v.n_successful}) + " of " +
                             format_grouped(std::int64_t{s.isoflops.fit.resamples}) +
                             " resamples refitted"
                       : "none: " + v.boot_error);
  std::printf("\nAt C* = %s FLOPs (%s; %s decades beyond the ladder)\n",
              format_sci(v.target()).c_str(), target_source.c_str(),
              format_grouped(v.view().extrapolation_decades, 2).c_str());
  const std::string from = f.optimum_from_law ? " (the fitted law's optimum)" : "";
  row("N_opt", f.n_opt ? format_count(*f.n_opt, 2) + " params" + from : "n/a");
  row("D_opt", f.d_opt ? format_count(*f.d_opt, 2) + " tokens" + from : "n/a");
  // A forecast and its bootstrap interval, each number written by `fmt`.
  const auto with_interval = [](double value, const std::optional<BandPoint>& iv,
                                const std::string& unit, auto fmt) {
    std::string text = fmt(value) + unit;
    if (iv) text += " (bootstrap " + fmt(iv->low) + " – " + fmt(iv->high) + ")";
    return text;
  };
  if (f.loss)
    row("loss (fitted law)", with_interval(*f.loss, f.interval, " nats/token",
                                           [](double x) { return format_grouped(x, 4); }));
  if (f.n_opt_law)
    row("law's optimal N", with_interval(*f.n_opt_law, f.n_opt_law_interval, " params",
                                         [](double x) { return format_count(x, 2); }));
  return 0;
}

}  // namespace napkin::cli
