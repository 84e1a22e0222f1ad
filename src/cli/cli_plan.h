// The plan as it will really run, for napkin-cli: the goodput command, and
// what the budget command gains — goodput flags, ranges (low:likely:high),
// the serving limit, and "train this model" (--params / --config).
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <optional>
#include <string_view>
#include <vector>

#include "budget.h"
#include "cli_common.h"
#include "uncertainty.h"

namespace napkin::cli {

// The budget flags that can be ranges, and the Monte Carlo settings.
struct PlanFlags {
  PlanRanges ranges;  // likely values are the budget's point values
};

// Reads --mfu, --price and --tokens-available (each a number or
// low:likely:high), the goodput, serving-limit and Monte Carlo flags into
// `in` (likely values) and the returned ranges.
PlanFlags parse_plan_flags(Args& a, BudgetInputs& in);

// A registered input (inputs.h) given as its flag: a number or
// low:likely:high, each in the registry's range; nullopt when absent.
std::optional<Range> optional_range_of_input(Args& a, std::string_view input_key);

// "Train this model" when --params or --config is given: runs it and returns
// the exit status; nullopt otherwise (the budget command goes on).
std::optional<int> run_train_model_if_asked(Args& a, bool json);

// The budget's goodput, data, serving and recommended-run keys, and
// `ranges` when any input is a range.
void add_plan_json(QJsonObject& o, const BudgetReport& r, const PlanFlags& flags);
// The same as readable sections.
void print_plan_text(const BudgetReport& r, const PlanFlags& flags);

// The budget (cli_algebra.cpp) as one JSON object, and as text: C, the
// Chinchilla split, the checks, the cost, the plan and what I would train.
QJsonObject budget_json(const BudgetInputs& in, const BudgetReport& r, const PlanFlags& flags);
void print_budget(const BudgetInputs& in, const BudgetReport& r, const PlanFlags& flags);

// A run of "train this model": its JSON keys (params, tokens, flops, days,
// goodput, cost, loss, epochs, summary, ...) and its report rows from C to the
// checks, its loss forecast under `law_name`.
QJsonObject run_report_json(const RunReport& r);
void print_run_rows(const RunReport& r, const std::string& law_name);

// The Monte Carlo's P10/P50/P90 and tornado, as JSON and as a text section.
QJsonObject ranges_json(const RangeReport& r);
void print_ranges(const RangeReport& r);

// budget --scenario FILE [--json]: a saved scenario's Budget planner
// (cli_budget_scenario.cpp).
int run_budget_scenario(Args& a, const std::string& path);

// Shared with goodput (cli_goodput.cpp): a JSON number or null, and the
// goodput rows of the text output.
QJsonValue optional_json(const std::optional<double>& v);
void goodput_rows(const GoodputReport& g, const GoodputInputs& gi);

// The sanity checks of a budget or a run: JSON "checks" ({name, ok, detail}
// each), and the text section.
QJsonArray checks_json(const std::vector<Check>& checks);
void print_checks(const std::vector<Check>& checks);

}  // namespace napkin::cli
