// The report is built from each panel's curated section, in tab order: tables
// of (name, value, unit, note) and checks, formulas and charts; no UI status
// sentences and no widget walking for a panel on the kit.
#include <gtest/gtest.h>

#include <QProcess>
#include <QTemporaryDir>

#include "PlotWidget.h"
#include "budget/BudgetPanel.h"
#include "report/ReportHtml.h"
#include "roofline/RooflinePanel.h"
#include "shell/MainWindow.h"

using namespace napkin;

TEST(ReportSections, BudgetSectionIsCurated) {
  MainWindow w(MainWindow::Session::fresh);
  const ReportSection s = w.panel<BudgetPanel>()->reportSection();
  EXPECT_EQ(s.title, QStringLiteral("Budget planner"));
  // budget, Chinchilla answer, scenario model, checks, planned run, data check and serving
  ASSERT_EQ(s.tables.size(), 6u);
  EXPECT_EQ(s.tables[2].title, QStringLiteral("Scenario model: Llama-3-70B at ZeRO-3 over DP 64"));
  EXPECT_EQ(s.tables[0].rows[0].name, QStringLiteral("Compute C"));
  EXPECT_EQ(s.tables[0].rows[0].value, QStringLiteral("1.026e+24"));
  EXPECT_EQ(s.tables[0].rows[0].unit, QStringLiteral("FLOPs"));
  const ReportTable& checks = s.tables[3];
  EXPECT_TRUE(checks.verdicts);
  ASSERT_EQ(checks.rows.size(), w.panel<BudgetPanel>()->view().checks.size());
  for (const ReportRow& r : checks.rows) {
    EXPECT_TRUE(r.value == QStringLiteral("OK") || r.value == QStringLiteral("FAIL"));
    EXPECT_FALSE(r.note.isEmpty()) << r.name.toStdString();
  }
  EXPECT_EQ(s.charts.size(), 9u);
  EXPECT_GE(s.formulas.size(), 5u);
}

// The report's Roofline section carries the serving frontier chart with the
// panel's data.
TEST(ReportSections, RooflineSectionCarriesTheServingFrontier) {
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = w.panel<RooflinePanel>();
  p->settleServing();
  const ReportSection s = p->reportSection();
  const PlotWidget* frontier = nullptr;
  for (const PlotWidget* c : s.charts)
    if (c->objectName() == QStringLiteral("plot_serving_frontier")) frontier = c;
  ASSERT_NE(frontier, nullptr);
  ASSERT_FALSE(p->servingView().frontier.points.empty()) << p->servingView().frontier.error;
  EXPECT_GE(frontier->dataCsv().count(QLatin1Char('\n')),
            static_cast<qsizetype>(p->servingView().frontier.points.size()));
  bool formula = false;
  for (const auto& f : s.formulas)
    formula = formula || f.formula.startsWith(QStringLiteral("frontier"));
  EXPECT_TRUE(formula);
}

TEST(ReportSections, ThePdfHasEveryPanelInTabOrderAndNoStatusSentences) {
  QTemporaryDir dir;
  const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.exportReport(pdf));
  QProcess p;
  p.start(QStringLiteral("pdftotext"), {pdf, QStringLiteral("-")});
  ASSERT_TRUE(p.waitForFinished(60000));
  const QString t = QString::fromUtf8(p.readAllStandardOutput())
                        .replace(QChar(0xFB01), QLatin1String("fi"))
                        .replace(QChar(0xFB02), QLatin1String("fl"));
  qsizetype last = -1;
  int n = 1;
  for (Panel* panel : w.panels()) {
    const qsizetype at = t.indexOf(QStringLiteral("%1. %2").arg(n++).arg(panel->title()));
    EXPECT_GT(at, last) << panel->title().toStdString();
    last = at;
  }
  for (const char* s : {"Scenario model: Llama-3-70B at ZeRO-3", "scenario model fits per device",
                        "Chinchilla answer for this budget", "Sanity checks"})
    EXPECT_TRUE(t.contains(QString::fromUtf8(s))) << s;
  for (const char* s : {"press Play", "Tick \"", "Select any value"})
    EXPECT_FALSE(t.contains(QString::fromUtf8(s))) << s;
}

TEST(ReportSections, APinnedBaselineOpensTheReportWithPlanAVsPlanB) {
  QTemporaryDir dir;
  const QString pdf = dir.filePath(QStringLiteral("compare.pdf"));
  MainWindow w(MainWindow::Session::fresh);
  w.pinBaseline();
  Scenario b = w.model()->scenario();
  b.n_chips = 2000;
  b.days = 45;
  ASSERT_TRUE(w.model()->replace(b, QStringLiteral("plan B")));
  ASSERT_TRUE(w.exportReport(pdf));
  QProcess p;
  p.start(QStringLiteral("pdftotext"), {QStringLiteral("-layout"), pdf, QStringLiteral("-")});
  ASSERT_TRUE(p.waitForFinished(60000));
  const QString t = QString::fromUtf8(p.readAllStandardOutput())
                        .replace(QChar(0xFB00), QLatin1String("ff"))
                        .replace(QChar(0xFB01), QLatin1String("fi"));
  const qsizetype page = t.indexOf(QStringLiteral("Plan A vs plan B"));
  ASSERT_GE(page, 0) << t.left(800).toStdString();
  const qsizetype cover = t.indexOf(QStringLiteral("Napkin report"));
  EXPECT_LT(page, cover);  // the first page
  const QString first = t.mid(page, cover - page);
  for (const char* s : {"Inputs that differ", "Chips", "1,000", "2,000", "Days", "Headline outputs",
                        "Compute C", "Cost", "Better", "Plan A is better on"})
    EXPECT_TRUE(first.contains(QString::fromUtf8(s))) << s;
  // Without a baseline the report opens with its cover.
  w.unpinBaseline();
  ASSERT_TRUE(w.exportReport(pdf));
  p.start(QStringLiteral("pdftotext"), {pdf, QStringLiteral("-")});
  ASSERT_TRUE(p.waitForFinished(60000));
  EXPECT_FALSE(
      QString::fromUtf8(p.readAllStandardOutput()).contains(QStringLiteral("Plan A vs plan B")));
}

// A report of a scenario with changes not saved to its file says so on the
// cover and names them (the PDF is not what the file holds); saved again, the
// line goes.
TEST(ReportSections, TheCoverNamesChangesNotSavedToTheFile) {
  QTemporaryDir dir;
  const QString file = dir.filePath(QStringLiteral("plan.napkin.json"));
  const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.saveTo(file));
  Scenario b = w.model()->scenario();
  b.n_chips = 2000;
  ASSERT_TRUE(w.model()->replace(b, QStringLiteral("more chips")));
  const auto cover = [&] {
    EXPECT_TRUE(w.exportReport(pdf));
    QProcess p;
    p.start(QStringLiteral("pdftotext"),
            {QStringLiteral("-l"), QStringLiteral("1"), pdf, QStringLiteral("-")});
    EXPECT_TRUE(p.waitForFinished(60000));
    return QString::fromUtf8(p.readAllStandardOutput()).simplified();
  };
  const QString changed = cover();
  EXPECT_TRUE(changed.contains(
      QStringLiteral("Not as saved in plan.napkin.json: Chips 1,000 chips → 2,000 chips.")))
      << changed.left(600).toStdString();
  ASSERT_TRUE(w.saveTo(file));
  EXPECT_FALSE(cover().contains(QStringLiteral("Not as saved")));
}

TEST(ReportSections, TablesWithSentencesForNotesTakeThePagesWidth) {
  // Two tables of short notes share a row; a table whose notes are sentences
  // has the row to itself (in half a page they wrapped a word a line), and a
  // unit per something is not broken after its slash.
  const auto table = [](const QString& title, const QString& note) {
    return ReportTable{title,
                       {ReportRow{QStringLiteral("Tokens/s per chip"), QStringLiteral("1,176"),
                                  QStringLiteral("tokens/s"), note}}};
  };
  ReportSection sec;
  sec.title = QStringLiteral("Parallelism");
  sec.tables = {table(QStringLiteral("Speed"), QStringLiteral("short")),
                table(QStringLiteral("Memory"), QStringLiteral("short")),
                table(QStringLiteral("Memory per rank by pipeline stage"),
                      QStringLiteral("weights 14.7 GB, grads 29.5 GB, optimizer 884 MB, "
                                     "activations 24.8 GB, buffers 67.1 MB")),
                table(QStringLiteral("Alone"), QStringLiteral("short"))};
  const QStringList blocks = sectionBlocks(5, sec);
  ASSERT_EQ(blocks.size(), 3);
  EXPECT_TRUE(blocks[0].contains(QStringLiteral("Speed")) &&
              blocks[0].contains(QStringLiteral("Memory<")));
  EXPECT_TRUE(blocks[1].contains(QStringLiteral("Memory per rank")));
  EXPECT_FALSE(blocks[1].contains(QStringLiteral("width='50%'")));
  EXPECT_TRUE(blocks[2].contains(QStringLiteral("Alone")));
  EXPECT_TRUE(blocks[2].contains(QStringLiteral("width='50%'")));  // alone, but half the page
  EXPECT_TRUE(blocks[0].contains(QStringLiteral("tokens/\u2060s")));
  // A number keeps its unit on its line.
  EXPECT_TRUE(blocks[0].contains(QStringLiteral("1,176\u00a0tokens")));
}

namespace {

// The cover's inputs table of the default scenario on `chip`, at the assumed MFU.
QString inputs_html_on(const char* chip) {
  Scenario s;
  s.chip = chip;
  MfuChoice assumed;
  assumed.mfu = s.mfu;
  return inputsHtml(s, resolve_plan(s, assumed));
}

}  // namespace

// The report's chip names both capacities: the datasheet's and the device
// total the Parallelism panel fits layouts against, so neither reads as a typo
// of the other.
TEST(ReportSections, TheChipsMemoryNamesTheDatasheetAndTheDeviceTotal) {
  const QString html = inputs_html_on("H100");
  EXPECT_TRUE(html.contains(QStringLiteral("HBM / chip")) && html.contains(QStringLiteral("80 GB")))
      << html.toStdString();
  EXPECT_TRUE(html.contains(QStringLiteral("Device memory")) &&
              html.contains(QStringLiteral("85.0 GB")))
      << html.toStdString();
}

// The report says where the chip's numbers come from: the datasheet for a
// built-in chip, and for a user's chip what its file says of each value.
TEST(ReportSections, TheInputsNameTheChipsSource) {
  const QString html = inputs_html_on("H100-HBM2e");
  EXPECT_TRUE(html.contains(QStringLiteral("<b>Chip:</b>"))) << html.toStdString();
  EXPECT_TRUE(html.contains(QStringLiteral("500 W default limit"))) << html.toStdString();
  EXPECT_TRUE(html.contains(QStringLiteral("894 TFLOP/s"))) << html.toStdString();
}
