// napkin-cli diff: two plans side by side (issue 13) — the inputs that differ
// and the headline outputs of both with their change and the better plan.
#include <QJsonArray>
#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "cli_common.h"
#include "cli_long_run.h"
#include "cli_scenario.h"
#include "compare.h"
#include "scenario_fields.h"
#include "scenario_json.h"

namespace napkin::cli {

namespace {

QJsonValue number_or_null(const std::optional<double>& v) {
  return v ? QJsonValue(*v) : QJsonValue(QJsonValue::Null);
}

std::string value_text(const std::optional<double>& v, const std::string& display, Unit u) {
  if (v) return format_quantity(*v, u);
  // "none: no slice …" → "none"; an error → "n/a".
  return display.rfind("none", 0) == 0 ? "none" : "n/a";
}

std::string better_text(Winner w) {
  switch (w) {
    case Winner::a: return "A";
    case Winner::b: return "B";
    case Winner::same: return "same";
    case Winner::none: return "-";
  }
  return "-";
}

int run_diff(Args& a) {
  const bool json = a.flag("--json");
  const auto path_a = a.positional();
  const auto path_b = a.positional();
  if (!path_a || !path_b)
    throw UsageError("needs two scenario files: diff A.napkin.json B.napkin.json [--json]");
  const double max_seconds = a.real("--max-seconds", 0, 0, 1e7, "s (0: no limit)");
  a.finish();
  // One clock for both plans: their ladder fits report progress, stop on
  // Ctrl+C and at --max-seconds.
  LongRun run("fit steps", 0, json, max_seconds);
  const Scenario sa = read_scenario(*path_a, "diff");
  const Scenario sb = read_scenario(*path_b, "diff");
  run.update(0);

  const std::vector<InputDifference> inputs = differing_inputs(sa, sb);
  std::vector<OutputComparison> outputs;
  const FitProgressFn progress = [&run](std::int64_t done, std::int64_t total) {
    return run.keep_going(done, total);
  };
  try {
    std::vector<HeadlineOutput> ha = headline_outputs(sa, progress);
    outputs = compare_outputs(ha, headline_outputs(sb, progress));
  } catch (const Cancelled&) {
    run.stop_reason();
    throw;
  }

  if (json) {
    QJsonArray in;
    for (const InputDifference& d : inputs)
      in.append(QJsonObject{{"name", QString::fromStdString(d.name)},
                            {"a", QString::fromStdString(d.a)},
                            {"b", QString::fromStdString(d.b)}});
    QJsonArray out;
    for (const OutputComparison& c : outputs) {
      const std::string_view unit = to_string(c.unit);
      out.append(
          QJsonObject{{"name", QString::fromStdString(c.name)},
                      {"unit", QString::fromUtf8(unit.data(), static_cast<qsizetype>(unit.size()))},
                      {"a", number_or_null(c.a)},
                      {"b", number_or_null(c.b)},
                      {"delta", number_or_null(c.delta)},
                      {"ratio", number_or_null(c.ratio)},
                      {"better", c.better == Winner::none
                                     ? QJsonValue(QJsonValue::Null)
                                     : QJsonValue(QString::fromUtf8(to_string(c.better).data()))}});
    }
    print_json(QJsonObject{{"inputs", in}, {"outputs", out}});
    return 0;
  }

  std::printf("A: %s\nB: %s\n\n", path_a->c_str(), path_b->c_str());
  if (inputs.empty()) {
    std::printf("No input differs (%zu compared).\n", scenario_fields().size());
  } else {
    std::printf("Inputs that differ (%zu of %zu):\n", inputs.size(), scenario_fields().size());
    std::size_t w = 6, wa = 24;
    for (const InputDifference& d : inputs) {
      w = std::max(w, code_points(d.name) + 2);
      wa = std::max(wa, code_points(d.a) + 2);
    }
    std::printf("  %s%s%s\n", pad_right("input", w).c_str(), pad_right("A", wa).c_str(), "B");
    for (const InputDifference& d : inputs)
      std::printf("  %s%s%s\n", pad_right(d.name, w).c_str(), pad_right(d.a, wa).c_str(),
                  d.b.c_str());
  }
  std::printf("\nHeadline outputs:\n");
  std::printf("  %s%s%s%s%s%s\n", pad_right("output", 30).c_str(), pad_right("A", 24).c_str(),
              pad_right("B", 24).c_str(), pad_right("change (B \u2212 A)", 24).c_str(),
              pad_right("B/A", 9).c_str(), "better");
  for (const OutputComparison& c : outputs) {
    char ratio[32] = "-";
    if (c.ratio) std::snprintf(ratio, sizeof ratio, "%.3f", *c.ratio);
    std::printf("  %s%s%s%s%s%s\n", pad_right(c.name, 30).c_str(),
                pad_right(value_text(c.a, c.a_display, c.unit), 24).c_str(),
                pad_right(value_text(c.b, c.b_display, c.unit), 24).c_str(),
                pad_right(c.delta ? format_delta(*c.delta, c.unit) : "-", 24).c_str(),
                pad_right(ratio, 9).c_str(), better_text(c.better).c_str());
  }
  std::printf(
      "\nbetter: the plan with the better value (\"-\": the output has no better "
      "direction, or one plan has none)\n");
  std::printf("\nDetails:\n");
  for (const OutputComparison& c : outputs)
    std::printf("  %s\n    A: %s\n    B: %s\n", c.name.c_str(), c.a_display.c_str(),
                c.b_display.c_str());
  return 0;
}

}  // namespace

std::vector<Command> compare_commands() {
  return {{"diff", "diff A.napkin.json B.napkin.json [--max-seconds S] [--json]", run_diff}};
}

}  // namespace napkin::cli
