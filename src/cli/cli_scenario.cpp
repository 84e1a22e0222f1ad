#include "cli_scenario.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "cli_common.h"
#include "format.h"
#include "scenario_json.h"

namespace napkin::cli {

Scenario read_scenario(const std::string& path, std::string_view command) {
  try {
    std::vector<std::string> warnings;
    Scenario s = load_scenario_file(path, &warnings);
    for (const std::string& w : warnings)
      std::fprintf(stderr, "napkin-cli %.*s: warning: %s\n", static_cast<int>(command.size()),
                   command.data(), w.c_str());
    return s;
  } catch (const std::exception& e) {
    std::string m = e.what();
    std::replace(m.begin(), m.end(), '\n', ' ');
    throw std::runtime_error(m);
  }
}

QJsonObject resolved_plan_json(const ResolvedPlan& p) {
  return QJsonObject{{"mfu", p.mfu.mfu},
                     {"mfu_source", QString::fromUtf8(p.mfu_source_name().data())},
                     {"mfu_text", QString::fromStdString(p.mfu_text())},
                     {"mfu_note", QString::fromStdString(p.mfu.note)},
                     {"compute_flops", p.compute_flops},
                     {"requested_batch_tokens", json_int(p.requested_batch_tokens)},
                     {"batch_sequences", json_int(p.batch_sequences)},
                     {"batch_tokens", json_int(p.batch_tokens)},
                     {"batch_adjusted", p.batch_adjusted},
                     {"run_tokens", p.run_tokens},
                     {"run_days", p.run_days}};
}

void print_resolved_plan(const ResolvedPlan& p) {
  std::printf("Plan (as every panel, the report and diff read it)\n");
  row("global batch",
      format_grouped(static_cast<double>(p.batch_tokens)) + " tokens (" +
          format_grouped(static_cast<double>(p.batch_sequences)) + " sequences)" +
          (p.batch_adjusted ? "; " + p.batch_text() : std::string()),
      kReportLabelWidth);
  row("Budget MFU", p.mfu_text(), kReportLabelWidth);
  if (!p.mfu.note.empty()) row("note", p.mfu.note, kReportLabelWidth);
  row("compute C", format_sci(p.compute_flops) + " FLOPs", kReportLabelWidth);
  row("scenario model",
      format_count(p.run_tokens, 2) + " tokens in " + format_grouped(p.run_days, 1) +
          " days at that MFU (the Parallelism panel times it)",
      kReportLabelWidth);
}

}  // namespace napkin::cli
