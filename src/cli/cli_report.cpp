// napkin-cli report: the PDF report, headless. The report paints the app's own
// charts, so it is rendered by the napkin binary on the offscreen platform
// (no display needed) and napkin-cli itself stays free of GUI libraries.
#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <string>

#include "atomic_writer.h"
#include "cli_chip_files.h"
#include "cli_common.h"
#include "cli_scenario.h"
#include "inputs.h"
#include "read_file.h"
#include "scenario_json.h"

namespace napkin::cli {

namespace {

// The renderer is the napkin program the user can see: where NAPKIN_APP
// points, beside napkin-cli, or on PATH. Never a path compiled into the
// binary: a build folder may no longer exist, or be writable by others.
QString findApp(QString* why) {
  const QString chosen = qEnvironmentVariable("NAPKIN_APP");
  if (!chosen.isEmpty()) {
    if (QFileInfo(chosen).isExecutable() && QFileInfo(chosen).isFile())
      return QFileInfo(chosen).absoluteFilePath();
    *why = QStringLiteral("NAPKIN_APP names %1, which is not an executable program").arg(chosen);
    return {};
  }
  const QString beside = QCoreApplication::applicationDirPath() + QStringLiteral("/napkin");
  if (QFileInfo(beside).isExecutable() && QFileInfo(beside).isFile()) return beside;
  const QString on_path = QStandardPaths::findExecutable(QStringLiteral("napkin"));
  if (!on_path.isEmpty()) return on_path;
  *why = QStringLiteral(
      "cannot find the napkin program (it renders the report): not beside napkin-cli, not on "
      "PATH; set NAPKIN_APP to its path");
  return {};
}

// A value for the renderer's command line as one "--name=VALUE" word, with a
// file name made absolute: Qt's own option parser never sees a word that
// starts with '-' (a file called "-platformpluginpath" stays a file name).
QString fileArg(const char* name, const std::string& path) {
  return QStringLiteral("--%1=%2").arg(QLatin1String(name),
                                       QFileInfo(QString::fromStdString(path)).absoluteFilePath());
}

// What the renderer said on failure: its "napkin: " line, else its last
// lines, else its exit status.
QString rendererMessage(const QString& err, const QProcess& p) {
  QStringList lines = err.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  for (const QString& l : lines)
    if (l.startsWith(QLatin1String("napkin: "))) return l.mid(8);
  if (p.exitStatus() != QProcess::NormalExit)
    return QStringLiteral("the renderer crashed") +
           (lines.isEmpty() ? QString() : QStringLiteral(": ") + lines.last());
  if (!lines.isEmpty())
    return QStringLiteral("the renderer failed (exit %1): %2")
        .arg(p.exitCode())
        .arg(lines.mid(std::max<qsizetype>(0, lines.size() - 3)).join(QStringLiteral(" / ")));
  return QStringLiteral("the renderer failed (exit %1)").arg(p.exitCode());
}

// --page-size in any case, as the app takes it (A4, a4, Letter): "a4",
// "letter" or "default".
std::string page_size(Args& a) {
  const std::string page_as_typed = a.text("--page-size", "default");
  std::string page = page_as_typed;
  std::transform(page.begin(), page.end(), page.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (page != "default" && page != "a4" && page != "letter")
    throw UsageError("--page-size must be one of a4, letter (in any case); got " +
                     cli::quoted(page_as_typed));
  return page;
}

// The renderer's failure in the user's terms: its private file named by the
// folder it was in (a file-size limit or a full temporary folder is the
// user's to fix) and OUT said untouched; the absolute paths it was given said
// as the user typed them.
QString failureLine(const QString& err, const QProcess& p, const QString& rendered,
                    const std::string& out, const std::optional<std::string>& scenario,
                    const std::optional<std::string>& baseline) {
  QString line = rendererMessage(err, p);
  const bool about_rendered = line.contains(rendered);
  line.replace(rendered, QStringLiteral("the report being rendered in ") + QDir::tempPath());
  if (about_rendered) {
    line.replace(QStringLiteral(" (any previous file is untouched)"), QString());
    line += QStringLiteral("; %1 was not touched").arg(QString::fromStdString(out));
  }
  for (const auto& typed : {scenario, baseline})
    if (typed)
      line.replace(QFileInfo(QString::fromStdString(*typed)).absoluteFilePath(),
                   QString::fromStdString(*typed));
  for (const std::string& typed : chip_files())
    line.replace(QFileInfo(QString::fromStdString(typed)).absoluteFilePath(),
                 QString::fromStdString(typed));
  return line;
}

// The rendered PDF to OUT ("-": standard output) through the atomic writer,
// once it is whole; 0, or 2 with the reason on stderr.
int deliver(const QString& rendered, const std::string& out) {
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
                 bytes.size(), QDir::tempPath().toLocal8Bit().constData(), out.c_str());
    return 2;
  }
  const bool to_stdout = out == "-";
  QString e;
  if (!write_file_atomically(
          to_stdout ? QStringLiteral("/dev/stdout") : QString::fromStdString(out),
          QByteArray(bytes.data(), static_cast<qsizetype>(bytes.size())), &e)) {
    std::fprintf(stderr, "napkin-cli report: %s\n", e.toLocal8Bit().constData());
    return 2;
  }
  if (!to_stdout) std::printf("wrote %s\n", out.c_str());
  return 0;
}

int run_report(Args& a) {
  auto out = a.value("-o");
  if (!out) out = a.value("--output");
  if (!out) throw UsageError("-o OUT.pdf is required");
  const auto scenario = a.value("--scenario");
  const auto baseline = a.value("--baseline");
  const std::string page = page_size(a);
  // Every registered input's flag, as in the panels' commands: the report is
  // every panel's.
  const ScenarioFlags flags = read_scenario_flags(a, "report");
  a.finish();
  std::vector<ScenarioOverride> overrides;
  std::optional<Scenario> edited;
  if (scenario) {
    edited = read_scenario(*scenario, "report", flags, overrides);
  } else if (!flags.inputs.empty() || flags.chip || flags.save_to) {
    const std::string flag = !flags.inputs.empty() ? std::string(flags.inputs.front().input->flag)
                             : flags.chip          ? std::string("--chip")
                                                   : std::string("--save");
    throw UsageError(flag + " changes a saved scenario: give it with --scenario FILE");
  }
  QString why;
  const QString app = findApp(&why);
  if (app.isEmpty()) {
    std::fprintf(stderr, "napkin-cli report: %s\n", why.toLocal8Bit().constData());
    return 2;
  }
  if (edited) save_scenario_if_asked(flags, *edited);
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
  QStringList args{fileArg("report", rendered.toStdString())};
  if (scenario) args << fileArg("scenario", *scenario);
  // The flags' changes reach the renderer as an edit of the file it opens,
  // not as a new file: the cover then names the file and what was changed.
  if (!overrides.empty()) {
    const QString path = tmp.filePath(QStringLiteral("edited.napkin.json"));
    save_scenario_file(*edited, path.toStdString());
    args << fileArg("edit", path.toStdString());
  }
  if (baseline) args << fileArg("baseline", *baseline);
  // A chip the scenario names may come from --chip-file: the renderer reads it too.
  for (const std::string& chip : chip_files()) args << fileArg("chip-file", chip);
  if (page != "default") args << QStringLiteral("--page-size=") + QString::fromStdString(page);
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
  if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
    const QString line = failureLine(QString::fromLocal8Bit(p.readAllStandardError()), p, rendered,
                                     *out, scenario, baseline);
    std::fprintf(stderr, "napkin-cli report: %s\n", line.toLocal8Bit().constData());
    return 2;
  }
  if (*out != "-") print_overrides(overrides);
  return deliver(rendered, *out);
}

}  // namespace

std::vector<Command> report_commands() {
  // --baseline A.json pins plan A: the report opens with "Plan A vs plan B".
  return {{"report",
           "report [--scenario FILE [the flag of any scenario input or choice (--chips, --days, "
           "--mfu, --request-rate, --engine, --optimizer, ...) or --chip, replacing the file's "
           "value; the cover names them] "
           "[--save FILE (the scenario so changed)]] [--baseline A.json] -o OUT.pdf|- "
           "[--page-size a4|letter]",
           run_report}};
}

}  // namespace napkin::cli
