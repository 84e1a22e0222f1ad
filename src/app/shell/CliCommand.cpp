#include "shell/CliCommand.h"

#include <QRegularExpression>

namespace napkin {

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

}  // namespace napkin
