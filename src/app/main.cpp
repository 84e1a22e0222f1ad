#include <QApplication>
#include <QCommandLineParser>
#include <QThreadPool>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include "hardware_json.h"
#include "plan.h"
#include "process_guard.h"
#include "scenario_json.h"
#include "shell/MainWindow.h"

namespace {

// The command line: a scenario to open, or a report or screenshot to write
// and exit.
struct Options {
  QCommandLineOption shot{QStringLiteral("screenshot"),
                          QStringLiteral("Render the window to a PNG and exit."),
                          QStringLiteral("FILE")};
  QCommandLineOption panel{QStringLiteral("panel"),
                           QStringLiteral("budget, isoflops, moe, roofline or parallel; with "
                                          "--screenshot, PANEL/TAB picks a tab by its first word "
                                          "(roofline/serving)."),
                           QStringLiteral("PANEL"), QStringLiteral("budget")};
  QCommandLineOption scenario{QStringLiteral("scenario"), QStringLiteral("Open a scenario file."),
                              QStringLiteral("FILE")};
  QCommandLineOption size{QStringLiteral("size"), QStringLiteral("Window size for --screenshot."),
                          QStringLiteral("WxH"), QStringLiteral("1280x800")};
  QCommandLineOption report{QStringLiteral("report"),
                            QStringLiteral("Write the PDF report and exit."),
                            QStringLiteral("FILE")};
  QCommandLineOption page{QStringLiteral("page-size"),
                          QStringLiteral("Report page size: a4 or letter."),
                          QStringLiteral("SIZE")};
  QCommandLineOption baseline{
      QStringLiteral("baseline"),
      QStringLiteral("Pin this scenario as plan A, the baseline (with --report: the report opens "
                     "with plan A vs plan B)."),
      QStringLiteral("FILE")};
  QCommandLineOption edit{
      QStringLiteral("edit"),
      QStringLiteral("With --report and --scenario: this scenario replaces the opened one as a "
                     "change not saved to it (napkin-cli report gives its flags so), and the "
                     "cover names what changed."),
      QStringLiteral("FILE")};
  QCommandLineOption chip_file{
      QStringLiteral("chip-file"),
      QStringLiteral("Add the chip a JSON file describes (as napkin-cli --chip-file); may be "
                     "given more than once."),
      QStringLiteral("FILE")};
};

int fail(const QString& message) {
  std::fprintf(stderr, "napkin: %s\n", message.toLocal8Bit().constData());
  return 2;
}

// --report: the scenario (and baseline) rendered to a PDF, offscreen.
int write_report(const QCommandLineParser& parser, const Options& o, const QString& scenario_file) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  if (!scenario_file.isEmpty() && !w.openFile(scenario_file)) return fail(w.lastError());
  if (parser.isSet(o.edit)) {
    if (scenario_file.isEmpty()) return fail(QStringLiteral("--edit needs --scenario FILE"));
    try {
      const napkin::Scenario edited =
          napkin::load_scenario_file(parser.value(o.edit).toLocal8Bit().toStdString());
      if (!w.model()->replace(edited, QStringLiteral("Changes from the command line")))
        return fail(QStringLiteral("--edit: the edited scenario was refused"));
    } catch (const std::exception& e) {
      return fail(QStringLiteral("--edit: ") + QString::fromLocal8Bit(e.what()));
    }
  }
  if (parser.isSet(o.baseline) && !w.openBaseline(parser.value(o.baseline)))
    return fail(w.lastError());
  if (parser.isSet(o.page)) {
    const QString p = parser.value(o.page).toLower();
    if (p != QLatin1String("a4") && p != QLatin1String("letter"))
      return fail(QStringLiteral("--page-size must be a4 or letter; got \"%1\"").arg(p));
    w.setReportPageSize(QPageSize(p == QLatin1String("a4") ? QPageSize::A4 : QPageSize::Letter));
  }
  w.resize(1280, 800);
  if (!w.exportReport(parser.value(o.report))) return fail(w.lastError());
  return 0;
}

// --screenshot: one panel (or tab) at --size, to a PNG.
int take_screenshot(const QCommandLineParser& parser, const Options& o,
                    const QString& scenario_file) {
  const QStringList wh = parser.value(o.size).split(QLatin1Char('x'));
  bool ok_w = false, ok_h = false;
  const int w = wh.size() == 2 ? wh[0].toInt(&ok_w) : 0;
  const int h = wh.size() == 2 ? wh[1].toInt(&ok_h) : 0;
  if (!ok_w || !ok_h || w < 320 || h < 240 || w > 8192 || h > 8192)
    return fail(QStringLiteral("--size must be WxH with 320 ≤ W, 240 ≤ H ≤ 8192; got \"%1\"")
                    .arg(parser.value(o.size)));
  return napkin::MainWindow::screenshot(parser.value(o.shot), parser.value(o.panel), scenario_file,
                                        QSize(w, h));
}

// The user's chips and clusters, listed after the built-in ones (a file that
// cannot be read is named with its key and reason, the others still load),
// then --chip-file's: a chip given explicitly (napkin-cli report hands its
// own on), where a bad one is an error, as in napkin-cli. False on that error.
bool load_chips(const QCommandLineParser& parser, const Options& o) {
  for (const std::string& why : napkin::load_user_hardware(napkin::user_data_folder()).refused)
    std::fprintf(stderr, "napkin: ignored %s\n", why.c_str());
  for (const QString& file : parser.values(o.chip_file)) {
    try {
      napkin::register_chip_file(file.toLocal8Bit().toStdString());
    } catch (const std::invalid_argument& e) {
      std::fprintf(stderr, "napkin: --chip-file: %s\n", e.what());
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  // A reader that went away or a file-size limit is an error the writer
  // reports ("Broken pipe", "File too large"), not a signal that kills the app.
  napkin::reserve_standard_descriptors();
  napkin::ignore_write_signals();
  if (const std::string bad = napkin::non_utf8_argument(argc, argv); !bad.empty()) {
    std::fprintf(stderr, "napkin: %s\n", bad.c_str());
    return 2;
  }
  // A screenshot needs no display: render offscreen unless a platform was chosen.
  for (int i = 1; i < argc; ++i)
    if ((std::strcmp(argv[i], "--screenshot") == 0 || std::strcmp(argv[i], "--report") == 0) &&
        qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
      qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  Q_INIT_RESOURCE(napkin);  // the icon lives in the napkin_gui static library
  QApplication::setApplicationName(QStringLiteral("Napkin"));
  QApplication::setOrganizationName(QStringLiteral("Napkin"));
  QApplication::setApplicationVersion(QStringLiteral(NAPKIN_VERSION));

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("The arithmetic of LLM pre-training, as instruments."));
  const Options o;
  parser.addOptions(
      {o.shot, o.panel, o.scenario, o.size, o.report, o.page, o.baseline, o.edit, o.chip_file});
  // A file named alone (a file manager's "Open with", `napkin plan.napkin.json`)
  // is opened as --scenario would open it, never silently dropped.
  parser.addPositionalArgument(QStringLiteral("FILE"),
                               QStringLiteral("A scenario file to open (as --scenario)."),
                               QStringLiteral("[FILE]"));
  // As napkin-cli: a bad option exits with status 2 and one line (process()
  // would exit with 1).
  const QCommandLineOption help = parser.addHelpOption();
  const QCommandLineOption version = parser.addVersionOption();
  if (!parser.parse(QApplication::arguments())) {
    std::fprintf(stderr, "napkin: %s (see napkin --help)\n",
                 parser.errorText().toLocal8Bit().constData());
    return 2;
  }
  if (parser.isSet(help)) parser.showHelp(0);
  if (parser.isSet(version)) parser.showVersion();
  const QStringList files = parser.positionalArguments();
  if (files.size() > 1 || (files.size() == 1 && parser.isSet(o.scenario))) {
    std::fprintf(stderr, "napkin: one scenario file at a time; got %s (see napkin --help)\n",
                 (parser.isSet(o.scenario) ? QStringList{parser.value(o.scenario)} + files : files)
                     .join(QStringLiteral(", "))
                     .toLocal8Bit()
                     .constData());
    return 2;
  }
  const QString scenario_file = files.isEmpty() ? parser.value(o.scenario) : files.front();
  if (parser.isSet(o.edit) && !parser.isSet(o.report)) {
    std::fprintf(stderr, "napkin: --edit is for --report (see napkin --help)\n");
    return 2;
  }
  if (!load_chips(parser, o)) return 2;
  if (parser.isSet(o.report)) return write_report(parser, o, scenario_file);
  if (parser.isSet(o.shot)) return take_screenshot(parser, o, scenario_file);

  // The published runs a predicted MFU's range is read from: predicted once,
  // off the UI thread, before a panel asks.
  QThreadPool::globalInstance()->start([] { napkin::prepare_mfu_ranges(); });
  napkin::MainWindow window;
  if (!scenario_file.isEmpty()) window.openFile(scenario_file);
  if (parser.isSet(o.baseline)) window.openBaseline(parser.value(o.baseline));
  window.show();
  return QApplication::exec();
}
