#include "shell/CliCommand.h"

#include <QRegularExpression>
#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

#include "Text.h"
#include "choices.h"
#include "inputs.h"
#include "plan.h"
#include "scenario.h"

namespace napkin {

namespace {

// The panel's command that takes flags beside --scenario: budget, parallel,
// isoflops, serve, and report for no panel; "" for the MoE router's.
std::string_view commandOf(const QString& panel_key) {
  if (panel_key == QLatin1String("budget")) return "budget";
  if (panel_key == QLatin1String("parallel")) return "parallel";
  if (panel_key == QLatin1String("isoflops")) return "isoflops";
  if (panel_key == QLatin1String("roofline")) return "serve";
  if (panel_key == QLatin1String("moe")) return {};
  return "report";
}

// A value as napkin-cli reads it: whole counts as integers, reals in their
// shortest round-trip form (the C locale's, whatever the user's).
QString flagValue(const ScenarioInput& in, double value) {
  if (in.type == InputType::count) return QString::number(static_cast<qint64>(std::llround(value)));
  const double v = input_flag_value(in, value);
  char text[64];
  const auto r = std::to_chars(text, text + sizeof text, v);
  return QString::fromLatin1(text, static_cast<qsizetype>(r.ptr - text));
}

}  // namespace

QString shellQuoted(const QString& text) {
  static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_@%+=:,./-]+$"));
  if (plain.match(text).hasMatch()) return text;
  QString quoted = text;
  quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
  return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString cliCommandFor(const QString& panel_key, const QString& path) {
  // A value that starts with a dash is given as --flag=VALUE.
  const QString scenario = (path.startsWith(QLatin1Char('-')) ? QStringLiteral("--scenario=")
                                                              : QStringLiteral("--scenario ")) +
                           shellQuoted(path);
  const auto command = [&scenario](const char* name) {
    return QStringLiteral("napkin-cli ") + QLatin1String(name) + QLatin1Char(' ') + scenario;
  };
  if (panel_key == QLatin1String("budget")) return command("budget");
  if (panel_key == QLatin1String("parallel")) return command("parallel");
  if (panel_key == QLatin1String("isoflops")) return command("isoflops");
  if (panel_key == QLatin1String("moe")) return command("moe collapse");
  if (panel_key == QLatin1String("roofline")) return command("serve");
  return command("report") + QStringLiteral(" -o napkin-report.pdf");
}

std::optional<QString> cliOverridesFor(const QString& panel_key, const Scenario& saved,
                                       const Scenario& current) {
  if (saved == current) return QString();
  const std::string_view command = commandOf(panel_key);
  if (command.empty()) return std::nullopt;
  Scenario carried = saved;
  QStringList flags;
  for (std::string_view key : scenario_command_inputs(command)) {
    const ScenarioInput& in = scenario_input(key);
    // An input left unset (derived where it is used): no flag unsets it.
    if (!input_is_set(in, current)) {
      if (input_is_set(in, saved)) return std::nullopt;
      continue;
    }
    const double v = in.get(current);
    // An input the Budget planner's ranges cover goes as low:likely:high.
    const auto range = input_range(key);
    const std::optional<Spread> spread = range ? current.ranges.*range : std::nullopt;
    if (input_is_set(in, saved) && v == in.get(saved) && (!range || spread == saved.ranges.*range))
      continue;
    edit_input(carried, in, v);
    if (range) carried.ranges.*range = spread;
    flags << qs(in.flag) + QLatin1Char(' ') +
                 (spread ? flagValue(in, spread->low) + QLatin1Char(':') + flagValue(in, v) +
                               QLatin1Char(':') + flagValue(in, spread->high)
                         : flagValue(in, v));
    if (!command_input_unused(current, command, key).empty()) return std::nullopt;
  }
  // The choices it takes: an option by its name; no flag unsets a choice.
  for (std::string_view key : scenario_command_choices(command)) {
    const ScenarioChoice& c = scenario_choice(key);
    const std::string name = c.get(current);
    if (name == c.get(saved)) continue;
    if (name.empty()) return std::nullopt;
    set_choice(c, carried, name);
    flags << qs(c.flag) + QLatin1Char(' ') + shellQuoted(qs(name));
  }
  if (current.chip != saved.chip) {
    carried.chip = current.chip;
    flags << QStringLiteral("--chip ") + shellQuoted(qs(current.chip));
    if (!command_input_unused(current, command, "hardware.chip").empty()) return std::nullopt;
  }
  if (!(carried == current)) return std::nullopt;
  return flags.join(QLatin1Char(' '));
}

}  // namespace napkin
