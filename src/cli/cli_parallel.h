// napkin-cli parallel, shared by its two sources: the layout planner's flags
// (cli_parallel.cpp) and a saved scenario's Parallelism panel
// (cli_parallel_scenario.cpp, parallel --scenario FILE).
#pragma once

#include <QJsonObject>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli_common.h"
#include "framework_config.h"
#include "parallel.h"
#include "parallel_view.h"

namespace napkin::cli {

// What `parallel` was asked: the job, and how to search and report it.
struct ParallelRequest {
  bool json = false;
  TrainingJob job;
  std::string software;  // the preset's name; job.software may differ by flags
  std::optional<std::string> profile_path;
  std::optional<std::string> layout_text;
  std::int64_t top = 10;
  bool uneven = false;
  std::string emit_to;
};

// The layouts to show, best first, and what the search counted.
struct ParallelAnswer {
  std::vector<LayoutResult> shown;
  std::int64_t considered = 0, fitting = 0, pareto = 0;
  std::vector<std::string> searched;  // axes a partial --layout left to the search
  bool partial = false;
  std::optional<EmittedFlags> flags;  // --emit's, for the layout detailed
  // With --scenario: the panel's view of the saved scenario, whose layout
  // (the one chosen in the panel, else the fastest that fits) is detailed.
  std::optional<ParallelView> scenario;
  std::string locks;  // the scenario's locks as a partial --layout ("" none)
};

QJsonObject layout_json(const LayoutResult& r);
void print_layout(const LayoutResult& r);
QJsonObject parallel_json(const ParallelRequest& r, const ParallelAnswer& ans);
void print_parallel(const ParallelRequest& r, const ParallelAnswer& ans);
// --emit's flags for `l` and their caveats (nothing without --emit).
void print_emitted(const ParallelRequest& r, const ParallelAnswer& ans, const Layout& l);

// What --scenario adds: the layout the scenario runs and the plan's MFU and
// batch, in the JSON object and as text after the table.
void add_scenario_json(QJsonObject& o, const ParallelAnswer& ans);
void print_scenario_layout(const ParallelRequest& r, const ParallelAnswer& ans);

// parallel --scenario FILE [--top N] [--emit megatron|torchtitan] [--json].
int run_parallel_scenario(Args& a, const std::string& path);

}  // namespace napkin::cli
