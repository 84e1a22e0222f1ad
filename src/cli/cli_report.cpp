// napkin-cli report: the PDF report, headless. The report paints the app's own
// charts, so it is rendered by the napkin binary on the offscreen platform
// (no display needed) and napkin-cli itself stays free of GUI libraries.
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <cstdio>

#include "atomic_writer.h"
#include "cli_common.h"
#include "read_file.h"

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
  const auto baseline = a.value("--baseline");
  const std::string page = a.choice("--page-size", "default", {"default", "a4", "letter"});
  a.finish();
  const QString app = findApp();
  if (app.isEmpty()) {
    std::fprintf(stderr, "napkin-cli report: cannot find the napkin program beside napkin-cli\n");
    return 2;
  }
  // The renderer writes into a private folder; the result then replaces OUT
  // through the atomic writer, so a full disk, a device, a FIFO or a symlink
  // at OUT is handled in one place and a failure leaves the old OUT intact.
  QTemporaryDir tmp(QDir::tempPath() + QStringLiteral("/napkin-report-XXXXXX"));
  if (!tmp.isValid()) {
    std::fprintf(stderr, "napkin-cli report: cannot create a temporary folder in %s: %s\n",
                 QDir::tempPath().toLocal8Bit().constData(),
                 tmp.errorString().toLocal8Bit().constData());
    return 2;
  }
  const QString rendered = tmp.filePath(QStringLiteral("report.pdf"));
  QStringList args{QStringLiteral("--report"), rendered};
  if (scenario) args << QStringLiteral("--scenario") << QString::fromStdString(*scenario);
  if (baseline) args << QStringLiteral("--baseline") << QString::fromStdString(*baseline);
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
    line.replace(rendered, QStringLiteral("the temporary report"));
    std::fprintf(stderr, "napkin-cli report: %s\n", line.toLocal8Bit().constData());
    return 2;
  }
  std::string bytes, error;
  if (!read_file_capped(rendered.toStdString(), std::int64_t{1} << 30, &bytes, &error)) {
    std::fprintf(stderr, "napkin-cli report: the rendered report: %s\n", error.c_str());
    return 2;
  }
  // A PDF ends with "%%EOF": a renderer whose writes failed (a full temporary
  // folder, a file-size limit) must not pass a truncated file on as a report.
  const std::size_t tail = bytes.size() > 1024 ? bytes.size() - 1024 : 0;
  if (bytes.rfind("%PDF-", 0) != 0 || bytes.find("%%EOF", tail) == std::string::npos) {
    std::fprintf(stderr,
                 "napkin-cli report: the renderer wrote an incomplete PDF (%zu bytes, no end "
                 "marker); is %s full? %s was not touched\n",
                 bytes.size(), QDir::tempPath().toLocal8Bit().constData(), out->c_str());
    return 2;
  }
  if (*out == "-") {  // standard output
    QString e;
    if (!write_file_atomically(QStringLiteral("/dev/stdout"),
                               QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())),
                               &e)) {
      std::fprintf(stderr, "napkin-cli report: %s\n", e.toLocal8Bit().constData());
      return 2;
    }
    return 0;
  }
  QString e;
  if (!write_file_atomically(QString::fromStdString(*out),
                             QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())), &e)) {
    std::fprintf(stderr, "napkin-cli report: %s\n", e.toLocal8Bit().constData());
    return 2;
  }
  std::printf("wrote %s\n", out->c_str());
  return 0;
}

}  // namespace

std::vector<Command> report_commands() {
  // --baseline A.json pins plan A: the report opens with "Plan A vs plan B".
  return {{"report",
           "report [--scenario FILE] [--baseline A.json] -o OUT.pdf|- [--page-size a4|letter]",
           run_report}};
}

}  // namespace napkin::cli
