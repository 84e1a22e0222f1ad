// Issue 27, item 12: the report's pages are filled, nothing runs off a page.
// The layout is checked where it is decided (ReportLayout::place), for the
// default scenario and with a pinned baseline, on A4 and Letter.
#include <gtest/gtest.h>

#include <QBuffer>
#include <QImage>
#include <QPdfWriter>
#include <QProcess>
#include <QTemporaryDir>

#include <qcustomplot.h>

#include "PlotWidget.h"
#include "ScenarioModel.h"
#include "report/ReportLayout.h"
#include "report/ReportWriter.h"
#include "shell/BaselineController.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

struct Pages {
  std::vector<ReportLayout::Placed> placed;
  double top = 0, bottom = 0;
  int count = 0;
  std::vector<double> filled;  // share of each page's content height in use
};

Pages laidOut(const ReportLayout& layout, double top, double bottom) {
  Pages p;
  p.placed = layout.place(top, bottom);
  p.top = top;
  p.bottom = bottom;
  for (const auto& b : p.placed) p.count = std::max(p.count, b.page + 1);
  p.filled.assign(static_cast<std::size_t>(p.count), 0.0);
  for (const auto& b : p.placed)
    p.filled[static_cast<std::size_t>(b.page)] += b.height / (bottom - top);
  return p;
}

// Every block on a page, whole or in slices that add up to it, in order.
void expectInsideAndWhole(const ReportLayout& layout, const Pages& p) {
  std::vector<double> shown(layout.size(), 0.0);
  int page = 0;
  for (const auto& b : p.placed) {
    EXPECT_GE(b.y, p.top - 1e-6);
    EXPECT_LE(b.y + b.height, p.bottom + 1e-6) << "block " << b.block << " on page " << b.page;
    EXPECT_GE(b.page, page);
    page = b.page;
    EXPECT_NEAR(b.offset, shown[b.block], 1e-6) << "block " << b.block;
    shown[b.block] += b.height;
  }
  for (std::size_t i = 0; i < layout.size(); ++i) {
    const ReportLayout::BlockInfo info = layout.info(i);
    if (info.page_break) continue;
    if (info.chart_row)  // a chart row may shrink a little to fit a page
      EXPECT_GE(shown[i], 0.8 * info.height) << "chart row " << i;
    else
      EXPECT_NEAR(shown[i], info.height, 1e-6) << "text block " << i;
  }
}

Pages reportPages(MainWindow& w, const QPageSize& size, std::unique_ptr<ReportLayout>* out) {
  QBuffer buffer;
  buffer.open(QIODevice::WriteOnly);
  QPdfWriter pdf(&buffer);
  pdf.setResolution(kReportDpi);
  pdf.setPageSize(size);
  pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
  ReportWriter writer(w.reportInput());
  *out = writer.layout(&pdf);
  return laidOut(**out, ReportLayout::contentTop(), ReportLayout::contentBottom(&pdf));
}

void expectFilledPages(MainWindow& w, int first_checked) {
  for (const QPageSize& size : {QPageSize(QPageSize::A4), QPageSize(QPageSize::Letter)}) {
    std::unique_ptr<ReportLayout> layout;
    const Pages p = reportPages(w, size, &layout);
    SCOPED_TRACE(size.name().toStdString());
    expectInsideAndWhole(*layout, p);
    // No text wider than the page's text column (cut off at the right).
    for (std::size_t i = 0; i < layout->size(); ++i)
      EXPECT_LE(layout->info(i).needed_width, layout->width() + 0.5) << "block " << i;
    // Pages between the first and the last are at least half full: a new
    // section follows on the page when much of it is free.
    for (int i = first_checked; i + 1 < p.count; ++i)
      EXPECT_GE(p.filled[static_cast<std::size_t>(i)], 0.5)
          << "page " << i + 1 << " of " << p.count;
  }
}

}  // namespace

TEST(ReportLayout, TextTallerThanAPageGoesOnBetweenLinesAndFillsThePages) {
  ReportLayout layout(600);
  QString rows;
  for (int i = 0; i < 120; ++i)
    rows += QStringLiteral(
                "<tr><td>row %1</td><td>a value</td><td>a note that is a little "
                "longer than the rest</td></tr>")
                .arg(i);
  layout.html(QStringLiteral("<h2>A short block</h2><p>One paragraph.</p>"));
  layout.charts({});
  layout.html(QStringLiteral("<h2>A long table</h2><table>") + rows + QStringLiteral("</table>"));
  const Pages p = laidOut(layout, 80, 1000);
  expectInsideAndWhole(layout, p);
  EXPECT_GE(p.count, 2);
  // The long table starts on the first page, below the charts, and every
  // page it fills is nearly full.
  EXPECT_EQ(p.placed[2].page, 0);
  for (int i = 0; i + 1 < p.count; ++i) EXPECT_GE(p.filled[static_cast<std::size_t>(i)], 0.9);
}

TEST(ReportLayout, ASectionBreakStartsAPageOnlyWhenLittleIsFree) {
  ReportLayout layout(600);
  layout.html(QStringLiteral("<p>short</p>"));
  layout.sectionBreak(0.4);
  layout.html(QStringLiteral("<h2>Next section</h2><p>text</p>"));
  layout.pageBreak();
  layout.html(QStringLiteral("<p>after a hard break</p>"));
  const Pages p = laidOut(layout, 0, 1000);
  ASSERT_EQ(p.placed.size(), 3u);
  EXPECT_EQ(p.placed[0].page, 0);
  EXPECT_EQ(p.placed[1].page, 0);  // most of the page was free
  EXPECT_EQ(p.placed[2].page, 1);
}

TEST(ReportLayout, TheDefaultReportFillsItsPagesAndNothingRunsOff) {
  MainWindow w(MainWindow::Session::fresh);
  expectFilledPages(w, 0);
}

TEST(ReportLayout, TheReportWithABaselineFillsItsPagesAndNothingRunsOff) {
  MainWindow w(MainWindow::Session::fresh);
  w.pinBaseline();
  Scenario b = w.model()->scenario();
  b.n_chips = 3000;
  b.days = 45;
  ASSERT_TRUE(w.model()->replace(b, QStringLiteral("plan B")));
  ASSERT_NE(w.baseline()->baseline(), nullptr);
  expectFilledPages(w, 1);  // the comparison page stands alone
}

// Issue 27 (task c): --screenshot reaches a panel's tab ("roofline/serving"),
// and names the tabs when the word matches none.
TEST(ReportLayout, ScreenshotSelectsAPanelsTab) {
  QTemporaryDir dir;
  const QString roof = dir.filePath(QStringLiteral("roofline.png"));
  const QString serving = dir.filePath(QStringLiteral("serving.png"));
  QProcess p;
  for (const auto& [png, panel] : {std::pair{roof, QStringLiteral("roofline")},
                                   std::pair{serving, QStringLiteral("roofline/serving")}}) {
    p.start(QStringLiteral(NAPKIN_APP),
            {QStringLiteral("--screenshot"), png, QStringLiteral("--panel"), panel,
             QStringLiteral("--size"), QStringLiteral("1024x700")});
    ASSERT_TRUE(p.waitForFinished(120000));
    EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  }
  const QImage a(roof), b(serving);
  EXPECT_EQ(b.size(), QSize(1024, 700));
  EXPECT_NE(a, b);  // another tab on screen
  p.start(QStringLiteral(NAPKIN_APP), {QStringLiteral("--screenshot"), serving,
                                       QStringLiteral("--panel"), QStringLiteral("roofline/nope")});
  ASSERT_TRUE(p.waitForFinished(120000));
  EXPECT_EQ(p.exitCode(), 2);
  EXPECT_TRUE(
      QString::fromUtf8(p.readAllStandardError()).contains(QStringLiteral("Serving layout")));
}

// Item 12: an axis title is centred on the axis rect, not on the chart; with
// long tick labels on the left (the step-time chart's "recompute", "PP
// bubble"), a title wrapped to the chart's width still ran off its right
// edge on the page ("…, bubble 2.1 %, expose").
TEST(ReportLayout, AnAxisTitleStaysInsideItsChartOnThePage) {
  PlotWidget chart(QStringLiteral("Where a step's time goes"));
  const QString title =
      QStringLiteral("seconds into the step: 3.48 s, bubble 2.1 %, exposed comm 14.0 %");
  chart.setXAxis(title, false);
  chart.setYAxis(QString(), false);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i < 10; ++i) ticker->addTick(i, QStringLiteral("a long row name %1").arg(i));
  chart.yAxis->setTicker(ticker);
  chart.yAxis->setRange(-0.6, 9.6);
  const int w = 330, h = 230;
  const auto titles = ReportLayout::layOutChart(&chart, w, h);
  const QRectF rect = chart.axisRect()->rect();
  EXPECT_GT(rect.left(), 60);  // the tick labels' room, at the page's size
  EXPECT_LE(rect.right(), w);
  const QFontMetricsF fm(chart.xAxis->labelFont());
  const QStringList lines = chart.xAxis->label().split(QLatin1Char('\n'));
  EXPECT_GE(lines.size(), 2);
  for (const QString& line : lines) {
    const double half = fm.horizontalAdvance(line) / 2.0;
    EXPECT_GE(rect.center().x() - half, 0.0) << line.toStdString();
    EXPECT_LE(rect.center().x() + half, w) << line.toStdString();
  }
  for (const auto& [axis, was] : titles) axis->setLabel(was);
  EXPECT_EQ(chart.xAxis->label(), title);
}
