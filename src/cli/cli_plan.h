// The plan as it will really run, for napkin-cli: the goodput command, and
// what the budget command gains — goodput flags, ranges (low:likely:high),
// the serving limit, and "train this model" (--params / --config).
#pragma once

#include <QJsonArray>
#include <QJsonObject>
#include <optional>
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

// "Train this model" when --params or --config is given: runs it and returns
// the exit status; nullopt otherwise (the budget command goes on).
std::optional<int> run_train_model_if_asked(Args& a, bool json);

// The budget's goodput, data, serving and recommended-run keys, and
// `ranges` when any input is a range.
void add_plan_json(QJsonObject& o, const BudgetReport& r, const PlanFlags& flags);
// The same as readable sections.
void print_plan_text(const BudgetReport& r, const PlanFlags& flags);

// Shared with goodput (cli_goodput.cpp): a JSON number or null, and the
// goodput rows of the text output.
QJsonValue optional_json(const std::optional<double>& v);
void goodput_rows(const GoodputReport& g, const GoodputInputs& gi);

// The sanity checks of a budget or a run: JSON "checks" ({name, ok, detail}
// each), and the text section.
QJsonArray checks_json(const std::vector<Check>& checks);
void print_checks(const std::vector<Check>& checks);

}  // namespace napkin::cli
