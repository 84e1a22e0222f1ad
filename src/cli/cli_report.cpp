// napkin-cli report: the PDF report, headless. The report paints the app's own
// charts, so it is rendered by the napkin binary on the offscreen platform
// (no display needed) and napkin-cli itself stays free of GUI libraries.
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <cstdio>

#include "cli_common.h"

namespace napkin::cli {

namespace {

QString findApp() {
  const QString here = QCoreApplication::applicationDirPath();
  for (const QString& candidate :
       {here + QStringLiteral("/napkin"), QStringLiteral(NAPKIN_APP_BUILD_PATH)})
    if (QFileInfo(candidate).isExecutable()) return candidate;
  return {};
}

int run_report(Args& a) {
  auto out = a.value("-o");
  if (!out) out = a.value("--output");
  if (!out) throw UsageError("-o OUT.pdf is required");
  const auto scenario = a.value("--scenario");
  const std::string page = a.choice("--page-size", "default", {"default", "a4", "letter"});
  a.finish();
  const QString app = findApp();
  if (app.isEmpty()) {
    std::fprintf(stderr, "napkin-cli report: cannot find the napkin program beside napkin-cli\n");
    return 2;
  }
  QStringList args{QStringLiteral("--report"), QString::fromStdString(*out)};
  if (scenario) args << QStringLiteral("--scenario") << QString::fromStdString(*scenario);
  if (page != "default") args << QStringLiteral("--page-size") << QString::fromStdString(page);
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  p.setProcessEnvironment(env);
  p.start(app, args);
  if (!p.waitForFinished(120000)) {
    p.kill();
    p.waitForFinished();
    std::fprintf(stderr, "napkin-cli report: the renderer did not finish within 120 s\n");
    return 2;
  }
  const QString err = QString::fromLocal8Bit(p.readAllStandardError());
  if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    QString line;
    for (const QString& l : err.split(QLatin1Char('\n'), Qt::SkipEmptyParts))
      if (l.startsWith(QLatin1String("napkin: "))) line = l.mid(8);
    if (line.isEmpty()) line = QStringLiteral("the renderer failed (exit %1)").arg(p.exitCode());
    std::fprintf(stderr, "napkin-cli report: %s\n", line.toLocal8Bit().constData());
    return 2;
  }
  std::printf("wrote %s\n", out->c_str());
  return 0;
}

}  // namespace

std::vector<Command> report_commands() {
  return {{"report", "report [--scenario FILE] -o OUT.pdf [--page-size a4|letter]", run_report}};
}

}  // namespace napkin::cli
