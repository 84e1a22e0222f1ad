#include "cli_runner.h"

#include <QJsonDocument>
#include <QProcess>
#include <cstdlib>

namespace {
// napkin-cli finds the report's renderer through NAPKIN_APP (in the build
// tree it is not beside napkin-cli); every test's child inherits it.
const bool kAppVariableSet = ::setenv("NAPKIN_APP", NAPKIN_APP, 1) == 0;
}  // namespace

CliResult run_cli(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(NAPKIN_CLI), args);
  CliResult r;
  if (!p.waitForFinished(120000)) {
    p.kill();
    p.waitForFinished();
    r.err = QStringLiteral("timed out");
    return r;
  }
  r.exit_code = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
  const QByteArray out = p.readAllStandardOutput();
  r.out = QString::fromUtf8(out);
  r.err = QString::fromUtf8(p.readAllStandardError());
  QJsonParseError e{};
  const QJsonDocument d = QJsonDocument::fromJson(out, &e);
  r.json_ok = e.error == QJsonParseError::NoError && d.isObject();
  if (r.json_ok) r.json = d.object();
  return r;
}
