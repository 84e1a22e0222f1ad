// A saved scenario read by a command (diff, serve --scenario): one line for
// any load error, the reader's warnings (unknown keys kept) on stderr.
#pragma once

#include <string>
#include <string_view>

#include <QJsonObject>

#include "plan.h"
#include "scenario.h"

namespace napkin::cli {

// Throws std::runtime_error with the reader's message on one line.
Scenario read_scenario(const std::string& path, std::string_view command);

// The plan as it will run (resolve_plan), as every panel, the report and diff
// read it: its MFU and source, C, the batch as asked and as run, the run's
// tokens and days. As JSON, and as the text section "Plan".
QJsonObject resolved_plan_json(const ResolvedPlan& p);
void print_resolved_plan(const ResolvedPlan& p);

}  // namespace napkin::cli
