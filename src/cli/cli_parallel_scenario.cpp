// napkin-cli parallel --scenario FILE: a saved scenario's Parallelism panel,
// headless. The job is the scenario's (its model, chips, sequence, the batch
// as the plan runs it, software, cluster and cluster profile), the search is
// the panel's under its locks, and the layout detailed is the one the
// scenario runs: the one chosen in the panel, else the fastest that fits. The
// plan's MFU, compute and batch are resolve_plan()'s, as every panel, the
// report and diff read them.
#include <QJsonArray>
#include <QJsonObject>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli_common.h"
#include "cli_parallel.h"
#include "cli_scenario.h"
#include "cli_track_record.h"
#include "format.h"
#include "framework_config.h"
#include "parallel_view.h"
#include "plan.h"
#include "scenario.h"

namespace napkin::cli {

namespace {

// Why no layout runs, in the view's words.
std::string no_layout_text(const ParallelView& v, const ParallelAnswer& ans) {
  if (!v.none_reason.empty()) return v.none_reason;
  return "none of the " + format_grouped(static_cast<double>(ans.considered)) +
         " valid layouts fits in memory";
}

}  // namespace

void add_scenario_json(QJsonObject& o, const ParallelAnswer& ans) {
  const ParallelView& v = *ans.scenario;
  o["scenario"] = QJsonObject{
      {"subject", QString::fromStdString(v.subject)},
      {"locks", QString::fromStdString(ans.locks)},
      {"chosen", v.chosen},
      {"dropped", QString::fromStdString(v.dropped)},
      {"runs", v.layout ? QJsonValue(layout_json(*v.layout)) : QJsonValue()},
      {"none_reason", v.layout ? QString() : QString::fromStdString(no_layout_text(v, ans))},
      {"plan", resolved_plan_json(v.plan)}};
}

void print_scenario_layout(const ParallelRequest& r, const ParallelAnswer& ans) {
  const ParallelView& v = *ans.scenario;
  if (!v.dropped.empty()) std::printf("\nSet aside: %s\n", v.dropped.c_str());
  if (v.layout) {
    std::printf("\nRuns (%s): ", v.chosen ? "chosen in the panel" : "the fastest that fits");
    print_layout(*v.layout);
    // The plan's own MFU range says it below when the plan runs at this MFU.
    if (v.budget.source != MfuSource::predicted) print_track_record(v.track_record, v.layout->mfu);
    print_emitted(r, ans, v.layout->layout);
  } else {
    std::printf("\nNo layout runs: %s\n", no_layout_text(v, ans).c_str());
  }
  print_resolved_plan(v.plan);
}

int run_parallel_scenario(Args& a, const std::string& path) {
  ParallelRequest r;
  r.json = a.flag("--json");
  r.top = a.integer("--top", 10, 1, 1'000'000, "layouts");
  r.emit_to = a.choice("--emit", "none", {"none", "megatron", "torchtitan"});
  const ScenarioFlags flags = read_scenario_flags(a, "parallel");
  a.finish();
  std::vector<ScenarioOverride> overrides;
  const Scenario s = read_scenario(path, "parallel", flags, overrides);
  save_scenario_if_asked(flags, s);
  // A scenario whose job cannot be formed is refused with training_job()'s
  // reason, as the panel says it.
  SearchResult search;
  try {
    search = scenario_layouts(s);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(path + ": " + e.what());
  }
  ParallelAnswer ans;
  ans.scenario = make_parallel_view(s, &search);
  const ParallelView& v = *ans.scenario;
  ans.locks = s.parallel.locks_text();
  ans.considered = static_cast<std::int64_t>(search.layouts.size());
  ans.fitting = search.fitting;
  ans.pareto = static_cast<std::int64_t>(search.pareto.size());
  for (std::size_t i = 0; i < search.layouts.size() && static_cast<std::int64_t>(i) < r.top; ++i)
    ans.shown.push_back(search.layouts[i]);
  r.job = v.job;
  r.software = s.parallel.software;
  if (!s.parallel.cluster_profile.empty()) r.profile_path = s.parallel.cluster_profile;
  if (r.emit_to != "none") {
    if (!v.layout)
      throw std::invalid_argument("--emit: no layout runs (" + no_layout_text(v, ans) + ")");
    ans.flags = r.emit_to == "megatron" ? emit_megatron(v.job, v.layout->layout)
                                        : emit_torchtitan(v.job, v.layout->layout);
  }
  if (r.json) {
    QJsonObject o = parallel_json(r, ans);
    o["overrides"] = overrides_json(overrides);
    print_json(o);
    return 0;
  }
  std::printf("Scenario: %s (%s)\n", v.subject.c_str(), path.c_str());
  print_overrides(overrides);
  std::printf("Locks: %s\n", ans.locks.empty()
                                 ? "none (every axis searched)"
                                 : (ans.locks + " (as --layout; the rest searched)").c_str());
  print_parallel(r, ans);
  return 0;
}

}  // namespace napkin::cli
