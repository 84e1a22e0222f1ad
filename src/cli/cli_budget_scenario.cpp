// napkin-cli budget --scenario FILE: a saved scenario's Budget planner,
// headless — the model's view of the scenario (make_budget_view), as the panel
// and the report compute it: the budget report with the panel's checks (the
// memory one included) and its memo, the planned run of "train this model",
// the ranges' Monte Carlo when any input is a range, and the resolved plan.
#include <QJsonObject>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "budget_view.h"
#include "cli_common.h"
#include "cli_plan.h"
#include "cli_scenario.h"
#include "format.h"
#include "inputs.h"
#include "scenario.h"

namespace napkin::cli {

int run_budget_scenario(Args& a, const std::string& path) {
  const bool json = a.flag("--json");
  const ScenarioFlags flags = read_scenario_flags(a, "budget");
  a.finish();
  std::vector<ScenarioOverride> overrides;
  const Scenario s = read_scenario(path, "budget", flags, overrides);
  save_scenario_if_asked(flags, s);
  const BudgetView v = make_budget_view(s);
  if (!v.valid()) throw std::invalid_argument(path + ": " + v.error);
  // The panel's checks: the budget's four and the scenario model's memory.
  BudgetReport report = v.report;
  report.checks = v.checks;
  const BudgetInputs& in = report.inputs;
  const PlanFlags none{};
  const std::string subject =
      s.model_name + " on " + format_grouped(static_cast<double>(s.n_chips)) + " × " + s.chip;
  if (json) {
    QJsonObject o = budget_json(in, report, none);
    o["scenario"] =
        QJsonObject{{"subject", QString::fromStdString(subject)},
                    {"plan_mode", QString::fromUtf8(to_string(s.plan.mode).data())},
                    {"plan_subject", QString::fromStdString(v.plan_subject)},
                    {"plan", resolved_plan_json(v.plan)},
                    {"memory_per_device_bytes", v.memory_per_device_bytes()},
                    {"train", v.train ? QJsonValue(run_report_json(*v.train)) : QJsonValue()},
                    {"ranges", v.ranges ? QJsonValue(ranges_json(*v.ranges)) : QJsonValue()},
                    {"overrides", overrides_json(overrides)}};
    print_json(o);
    return 0;
  }
  std::printf("Scenario: %s (%s)\n", subject.c_str(), path.c_str());
  print_overrides(overrides);
  print_resolved_plan(v.plan);
  std::printf("\n");
  print_budget(in, report, none);
  if (v.train) {
    std::printf("\nThe planned run (%s)\n", v.plan_subject.c_str());
    print_run_rows(*v.train, report.law.name);
  }
  if (v.ranges) print_ranges(*v.ranges);
  return 0;
}

}  // namespace napkin::cli
