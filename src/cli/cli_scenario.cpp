#include "cli_scenario.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <vector>

#include "cli_common.h"
#include "cli_plan.h"
#include "format.h"
#include "hardware.h"
#include "scenario_json.h"

namespace napkin::cli {

namespace {

// "4,096 chips", "40 %": the value as the input's control shows it.
std::string input_value_text(const ScenarioInput& in, double value) {
  // The lowest value may mean something else ("estimated" for a measured
  // figure left at 0): said as the control says it.
  if (value == in.lo && !in.special_text.empty()) return std::string(in.special_text);
  const double shown = value * in.display_factor;
  std::string text =
      in.scientific
          ? format_sci(shown, 3)
          : format_grouped(shown, in.type == InputType::count ? 0 : std::max(in.decimals, 0));
  const std::string_view unit = in.display_unit.empty() ? in.unit : in.display_unit;
  if (!unit.empty()) text += " " + std::string(unit);
  return text;
}

// "40 %", "40 % (range 30 % – 50 %)".
std::string with_range_text(const ScenarioInput& in, double value,
                            const std::optional<Spread>& spread) {
  std::string text = input_value_text(in, value);
  if (spread)
    text += " (range " + input_value_text(in, spread->low) + " – " +
            input_value_text(in, spread->high) + ")";
  return text;
}

}  // namespace

ScenarioFlags read_scenario_flags(Args& a, std::string_view command) {
  const std::vector<std::string_view> keys = scenario_command_inputs(command);
  ScenarioFlags f;
  for (const ScenarioInput& in : scenario_inputs()) {
    if (in.flag.empty()) continue;
    if (std::find(keys.begin(), keys.end(), in.key) == keys.end()) continue;
    if (input_range(in.key)) {
      if (const auto r = optional_range_of_input(a, in.key))
        f.inputs.push_back(
            {&in, r->likely,
             r->is_point() ? std::nullopt : std::optional<Spread>(Spread{r->low, r->high})});
    } else if (const auto v = a.optional_input(in.key)) {
      f.inputs.push_back({&in, *v, std::nullopt});
    }
  }
  for (std::string_view key : scenario_command_choices(command))
    if (auto name = a.optional_choice_input(key))
      f.choices.push_back({&scenario_choice(key), *name});
  f.chip = a.value("--chip");
  if (f.chip) {
    try {
      f.chip = std::string(chip_by_name(*f.chip).name);
    } catch (const std::invalid_argument& e) {
      throw UsageError("--" + std::string(e.what()));
    }
  }
  f.save_to = a.value("--save");
  if (f.save_to && f.save_to->empty()) throw UsageError("--save needs a file name");
  return f;
}

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

Scenario read_scenario(const std::string& path, std::string_view command,
                       const ScenarioFlags& flags, std::vector<ScenarioOverride>& applied) {
  Scenario s = read_scenario(path, command);
  applied.clear();
  for (const ScenarioFlags::Input& given : flags.inputs) {
    const ScenarioInput& in = *given.input;
    const bool was_set = input_is_set(in, s);
    const double was = in.get(s);
    const auto slot = input_range(in.key);
    const std::optional<Spread> was_spread = slot ? s.ranges.*slot : std::nullopt;
    applied.push_back({std::string(in.flag), std::string(in.key),
                       was_set ? with_range_text(in, was, was_spread) : std::string(in.unset_text),
                       with_range_text(in, given.value, given.spread),
                       was_set ? std::optional<double>(was) : std::nullopt, given.value,
                       slot != nullptr, was_spread, given.spread});
    edit_input(s, in, given.value);
    if (slot) s.ranges.*slot = given.spread;
  }
  for (const ScenarioFlags::Choice& given : flags.choices) {
    const ScenarioChoice& c = *given.choice;
    const std::string was = choice_shown(c, s);
    set_choice(c, s, given.name);
    applied.push_back(
        {std::string(c.flag), std::string(c.key), was, choice_shown(c, s), {}, {}, false, {}, {}});
  }
  if (flags.chip) {
    applied.push_back({"--chip", "hardware.chip", s.chip, *flags.chip, {}, {}, false, {}, {}});
    s.chip = *flags.chip;
  }
  if (!applied.empty()) {
    // The combination must be one the file itself could hold.
    try {
      s.validate();
    } catch (const std::invalid_argument& e) {
      std::string given;
      for (const ScenarioOverride& o : applied)
        given += (given.empty() ? "" : " ") + o.flag + " " + o.value_text;
      throw std::invalid_argument(path + " with " + given + ": " + e.what());
    }
    // A value the command would not read is refused, not silently dropped.
    for (const ScenarioOverride& o : applied)
      if (const std::string why = command_input_unused(s, command, o.key); !why.empty())
        throw std::invalid_argument(path + ": " + why + "; " + o.flag +
                                    " changes nothing it shows");
  }
  return s;
}

void save_scenario_if_asked(const ScenarioFlags& flags, const Scenario& s) {
  if (flags.save_to) save_scenario_file(s, *flags.save_to);
}

QJsonArray overrides_json(const std::vector<ScenarioOverride>& applied) {
  const auto range = [](const std::optional<Spread>& r) {
    return r ? QJsonValue(QJsonObject{{"low", r->low}, {"high", r->high}}) : QJsonValue();
  };
  QJsonArray a;
  for (const ScenarioOverride& o : applied) {
    QJsonObject j{{"flag", qs(o.flag)},
                  {"key", qs(o.key)},
                  {"file", o.file_value ? QJsonValue(*o.file_value) : qs(o.file_text)},
                  {"value", o.value ? QJsonValue(*o.value) : qs(o.value_text)}};
    if (o.has_range) {
      j["file_range"] = range(o.file_range);
      j["range"] = range(o.range);
    }
    a.append(j);
  }
  return a;
}

void print_overrides(const std::vector<ScenarioOverride>& applied) {
  if (applied.empty()) return;
  std::string line;
  for (const ScenarioOverride& o : applied)
    line += (line.empty() ? "" : "; ") + o.flag + " " + o.value_text +
            " (the file: " + o.file_text + ")";
  std::printf("Overrides: %s\n", line.c_str());
}

QJsonObject resolved_plan_json(const ResolvedPlan& p) {
  return QJsonObject{{"mfu", p.mfu.mfu},
                     {"mfu_source", QString::fromUtf8(p.mfu_source_name().data())},
                     {"mfu_text", QString::fromStdString(p.mfu_text())},
                     {"mfu_note", QString::fromStdString(p.mfu.note)},
                     {"mfu_low", p.mfu.mfu_low},
                     {"mfu_high", p.mfu.mfu_high},
                     {"mfu_range_text", QString::fromStdString(p.mfu.range_text())},
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
  if (const std::string range = p.mfu.range_text(); !range.empty())
    row("MFU range", range, kReportLabelWidth);
  row("compute C", format_sci(p.compute_flops) + " FLOPs", kReportLabelWidth);
  row("scenario model",
      format_count(p.run_tokens, 2) + " tokens in " + format_grouped(p.run_days, 1) +
          " days at that MFU (the Parallelism panel times it)",
      kReportLabelWidth);
}

}  // namespace napkin::cli
