// The kit's displays: read-outs (reflow, tones, the change from a baseline,
// copying, double-click selection), plots (tick labels that never overlap,
// integer ticks, hover labels off the ticks, log-safe markers, the redraw memo,
// baseline ghosts) and the reflowing plot grid.
#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QTest>
#include <QVBoxLayout>

#include "CheckList.h"
#include "MessageLabel.h"
#include "PlotItems.h"
#include "PlotWidget.h"
#include "ReadoutFormats.h"
#include "ReadoutGrid.h"
#include "ReflowGrid.h"

using namespace napkin;

namespace {

// Pixel boxes of an axis' tick labels, in the order of the ticks.
std::vector<QRectF> tickLabelBoxes(QCPAxis* axis) {
  std::vector<QRectF> out;
  const QFontMetricsF fm(axis->tickLabelFont());
  const QVector<double> ticks = axis->tickVector();
  const QVector<QString> labels = axis->tickVectorLabels();
  for (qsizetype i = 0; i < ticks.size(); ++i) {
    const double c = axis->coordToPixel(ticks[i]);
    const double w = fm.horizontalAdvance(labels[i]);
    if (axis->orientation() == Qt::Horizontal)
      out.emplace_back(c - w / 2, 0, w, fm.height());
    else
      out.emplace_back(0, c - fm.height() / 2, w, fm.height());
  }
  return out;
}

}  // namespace

TEST(ReadoutGrid, ReflowsToTheWidthItGets) {
  ReadoutGrid g;
  g.addSection(QStringLiteral("Budget"));
  std::vector<ReadoutGrid::Row> rows;
  for (int i = 0; i < 12; ++i)
    rows.push_back(g.add({.key = QStringLiteral("r%1").arg(i),
                          .name = QStringLiteral("Row %1").arg(i),
                          .widest = QStringLiteral("1.026e+24")}));
  for (const auto& r : rows)
    g.set(r, {.value = QStringLiteral("1.0"), .unit = QStringLiteral("FLOPs")});
  g.show();
  g.resize(g.minimumSizeHint().width(), 400);
  EXPECT_EQ(g.columns(), 1);
  const int one = g.heightForWidth(g.width());
  g.resize(g.sizeHint().width(), 400);
  EXPECT_EQ(g.columns(), 3);
  EXPECT_LT(g.heightForWidth(g.width()), one / 2);
  // Every value label lies inside the grid, whatever the width.
  for (int w : {g.minimumSizeHint().width(), 500, g.sizeHint().width()}) {
    g.resize(w, g.heightForWidth(w));
    for (const auto& r : rows) EXPECT_TRUE(g.rect().contains(g.valueLabel(r)->geometry())) << w;
  }
}

TEST(ReadoutGrid, ShowsTheChangeFromABaselineColouredByWhichWayIsBetter) {
  ReadoutGrid g;
  const auto cost = g.add(
      {.key = QStringLiteral("cost"), .name = QStringLiteral("Rental"), .better = Better::lower});
  const auto flops = g.add({.key = QStringLiteral("flops"),
                            .name = QStringLiteral("Compute"),
                            .better = Better::higher,
                            .format = fmtSci});
  const auto chips = g.add({.key = QStringLiteral("chips"), .name = QStringLiteral("Chips")});
  g.set(cost, {.value = QStringLiteral("$2,000,000"), .number = 2e6});
  g.set(flops,
        {.value = QStringLiteral("1.28e+24"), .unit = QStringLiteral("FLOPs"), .number = 1.28e24});
  g.set(chips, {.value = QStringLiteral("1000"), .number = 1000});
  EXPECT_TRUE(g.deltaText(cost).isEmpty());
  const int w0 = g.sizeHint().width();
  g.setBaseline(cost, 1.6e6);
  g.setBaseline(flops, 1.024e24);
  g.setBaseline(chips, 1000);
  EXPECT_GT(g.sizeHint().width(), w0);  // room for the change
  EXPECT_EQ(g.deltaText(cost), QStringLiteral("+25.0 % (+4e+05)"));
  // A bare number takes the row's unit; one formatted with its own keeps it.
  EXPECT_EQ(g.deltaText(flops), QStringLiteral("+25.0 % (+2.56e23 FLOPs)"));
  EXPECT_EQ(g.deltaText(chips), QStringLiteral("= baseline"));
  const auto days = g.add({.key = QStringLiteral("days"), .name = QStringLiteral("Days")});
  g.set(days, {.value = QStringLiteral("4.3"), .unit = QStringLiteral("days"), .number = 4.3});
  g.setBaseline(days, 7.1);
  EXPECT_EQ(g.deltaText(days), QStringLiteral("\u221239.4 % (\u22122.8 days)"));
  const auto mfu = g.add(
      {.key = QStringLiteral("mfu"), .name = QStringLiteral("MFU"), .format = shows::points()});
  g.set(mfu, {.value = QStringLiteral("44.7 %"), .number = 0.447});
  g.setBaseline(mfu, 0.542);
  EXPECT_EQ(g.deltaText(mfu), QStringLiteral("\u221217.5 % (\u22129.5 pp)"));
  // A change below the row's precision: the relative change alone, not "+0.0".
  const auto wall = g.add({.key = QStringLiteral("wall"),
                           .name = QStringLiteral("Wall-clock"),
                           .format = shows::grouped(1)});
  g.set(wall, {.value = QStringLiteral("29.92"), .unit = QStringLiteral("days"), .number = 29.92});
  g.setBaseline(wall, 29.9);
  EXPECT_EQ(g.deltaText(wall), QStringLiteral("+0.1 %"));
  auto colour = [&](ReadoutGrid::Row r) {
    return g
        .findChild<QLabel*>(QStringLiteral("delta_") + (r.index == 0   ? QStringLiteral("cost")
                                                        : r.index == 1 ? QStringLiteral("flops")
                                                                       : QStringLiteral("chips")))
        ->palette()
        .color(QPalette::WindowText);
  };
  EXPECT_EQ(colour(cost), plot_color::fail);  // dearer is worse
  EXPECT_EQ(colour(flops), plot_color::ok);   // more compute is better
  g.clearBaselines();
  EXPECT_TRUE(g.deltaText(cost).isEmpty());
}

TEST(ReadoutGrid, TonesNotesAndCopy) {
  ReadoutGrid g;
  const auto s = g.addSection(QStringLiteral("Scenario model: Llama-3-70B"));
  const auto mem = g.add({.key = QStringLiteral("memory"),
                          .name = QStringLiteral("Memory / device"),
                          .tooltip = QStringLiteral("Weights + grads + optimizer")});
  g.set(mem, {.value = QStringLiteral("129 GB of 16 GB"),
              .note = QStringLiteral("ZeRO-3 over DP 64"),
              .tone = Tone::fail});
  EXPECT_EQ(g.valueLabel(mem)->palette().color(QPalette::WindowText), plot_color::fail);
  EXPECT_TRUE(g.valueLabel(mem)->toolTip().contains(QStringLiteral("ZeRO-3 over DP 64")));
  EXPECT_EQ(g.sectionTitle(s), QStringLiteral("Scenario model: Llama-3-70B"));
  EXPECT_EQ(g.text(mem), QStringLiteral("129 GB of 16 GB"));
  const auto rows = g.reportRows();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].note, QStringLiteral("ZeRO-3 over DP 64"));
  EXPECT_EQ(rows[0].tone, Tone::fail);
  EXPECT_TRUE(g.toTsv().contains(QStringLiteral("Memory / device\t129 GB of 16 GB")));
}

TEST(ReadoutGrid, DoubleClickSelectsTheWholeNumber) {
  ReadoutGrid g;
  const auto c = g.add({.key = QStringLiteral("flops"), .name = QStringLiteral("Compute C")});
  g.set(c, {.value = QStringLiteral("2.956e+24"), .unit = QStringLiteral("FLOPs")});
  g.resize(g.sizeHint());
  g.show();
  QLabel* l = g.valueLabel(c);
  const QFontMetrics fm(l->font());
  // Double-click on the "5" in the middle of the mantissa.
  const QPoint at(fm.horizontalAdvance(QStringLiteral("2.95")) - 2, l->height() / 2);
  QTest::mouseDClick(l, Qt::LeftButton, Qt::NoModifier, at);
  EXPECT_EQ(l->selectedText(), QStringLiteral("2.956e+24"));
}

TEST(PlotWidget, TickLabelsNeverOverlap) {
  PlotWidget p(QStringLiteral("t"));
  p.setXAxis(QStringLiteral("parameters N"), false, fmtSi);
  p.setYAxis(QStringLiteral("loss"), true, fmtSi);
  p.xAxis->setRange(1.0e9, 2.6e9);
  p.yAxis->setRange(1e3, 1e15);
  p.show();
  for (QSize size : {QSize(220, 180), QSize(320, 240), QSize(900, 600)}) {
    p.resize(size);
    QCoreApplication::processEvents();
    ASSERT_EQ(p.viewport().size(), size);
    p.replot(QCustomPlot::rpImmediateRefresh);
    p.replot(QCustomPlot::rpImmediateRefresh);  // the second layout sees the final axis rect
    for (QCPAxis* axis : {p.xAxis, p.yAxis}) {
      const auto boxes = tickLabelBoxes(axis);
      EXPECT_GE(boxes.size(), 2u) << size.width();
      for (std::size_t i = 1; i < boxes.size(); ++i)
        EXPECT_FALSE(boxes[i - 1].intersects(boxes[i]))
            << size.width() << ": "
            << axis->tickVectorLabels()[static_cast<qsizetype>(i - 1)].toStdString() << " / "
            << axis->tickVectorLabels()[static_cast<qsizetype>(i)].toStdString();
    }
  }
}

TEST(PlotWidget, IntegerTicksOnly) {
  PlotWidget p(QStringLiteral("experts"));
  p.setIntegerTicks(p.xAxis);
  p.resize(500, 300);
  p.show();
  QCoreApplication::processEvents();
  for (double hi : {7.6, 3.5, 40.0}) {
    p.xAxis->setRange(-0.6, hi);
    p.replot(QCustomPlot::rpImmediateRefresh);
    for (double t : p.xAxis->tickVector()) EXPECT_EQ(t, std::round(t)) << hi;
    EXPECT_GE(p.xAxis->tickVector().size(), 2) << hi;
  }
}

TEST(PlotWidget, HoverLabelStaysOffTheTickLabels) {
  PlotWidget p(QStringLiteral("hover"));
  p.setXAxis(QStringLiteral("x"), false, fmtSi);
  p.setYAxis(QStringLiteral("y"), false, fmtSi);
  QCPGraph* g = addCurve(&p, QStringLiteral("curve"), plotPen(plot_color::blue));
  setCurve(g, std::vector<double>{0, 1, 2, 3, 4}, std::vector<double>{0, 1, 2, 3, 4});
  QCPGraph* g2 = addCurve(&p, QStringLiteral("other"), plotPen(plot_color::red));
  setCurve(g2, std::vector<double>{0, 4}, std::vector<double>{4, 0});  // the other two corners
  p.xAxis->setRange(0, 4);
  p.yAxis->setRange(0, 4);
  p.resize(400, 300);
  p.show();
  QCoreApplication::processEvents();
  p.replot(QCustomPlot::rpImmediateRefresh);
  const QRect axes = p.axisRect()->rect();
  for (const auto& [x, y] : {std::pair{0.0, 0.0}, std::pair{4.0, 4.0}, std::pair{0.0, 4.0},
                             std::pair{4.0, 0.0}, std::pair{2.0, 2.0}}) {
    p.hoverAt(QPointF(p.xAxis->coordToPixel(x), p.yAxis->coordToPixel(y)));
    ASSERT_FALSE(p.hoverText().isEmpty())
        << x << "," << y << " at " << p.xAxis->coordToPixel(x) << "," << p.yAxis->coordToPixel(y)
        << " data " << g->data()->size() << " axes " << axes.width() << "x" << axes.height();
    EXPECT_TRUE(QRectF(axes).contains(p.hoverRect())) << x << "," << y;
  }
}

TEST(PlotItems, MarkersAreSafeOnLogAxesAndCurvesDropBadPoints) {
  PlotWidget p(QStringLiteral("log"));
  p.setXAxis(QStringLiteral("x"), true, fmtSi);
  p.setYAxis(QStringLiteral("y"), true, fmtSi);
  p.xAxis->setRange(1, 1e6);
  p.yAxis->setRange(1e-3, 1e3);
  p.resize(400, 300);
  p.show();
  QCoreApplication::processEvents();
  VMarker v(&p, plotPen(plot_color::orange));
  HMarker h(&p, plotPen(plot_color::red));
  v.place(1e3);
  h.place(10);
  p.replot(QCustomPlot::rpImmediateRefresh);
  const QPointF a = v.item()->point1->pixelPosition(), b = v.item()->point2->pixelPosition();
  EXPECT_NEAR(a.x(), p.xAxis->coordToPixel(1e3), 0.5);
  EXPECT_TRUE(std::isfinite(a.y()) && std::isfinite(b.y()));
  EXPECT_NE(a.y(), b.y());
  const QPointF c = h.item()->point1->pixelPosition();
  EXPECT_NEAR(c.y(), p.yAxis->coordToPixel(10), 0.5);
  QCPGraph* g = addCurve(&p, QStringLiteral("c"), plotPen(plot_color::blue));
  setCurve(g, std::vector<double>{1, 10, -5, 100, 1000},
           std::vector<double>{1, std::nan(""), 3, 0, 5});
  EXPECT_EQ(g->data()->size(), 2);  // (1, 1) and (1000, 5)
  EXPECT_FALSE(p.dataCsv().contains(QStringLiteral("nan")));
}

TEST(PlotWidget, MemoAndBaselineGhosts) {
  PlotWidget p(QStringLiteral("memo"));
  EXPECT_TRUE(p.inputsChanged(1.0, std::string("H100"), std::vector<double>{1, 2}));
  EXPECT_FALSE(p.inputsChanged(1.0, std::string("H100"), std::vector<double>{1, 2}));
  EXPECT_TRUE(p.inputsChanged(1.0, std::string("TPU v5e"), std::vector<double>{1, 2}));
  p.invalidate();
  EXPECT_TRUE(p.inputsChanged(1.0, std::string("TPU v5e"), std::vector<double>{1, 2}));
  p.showLegendBelow();
  QCPGraph* g = addCurve(&p, QStringLiteral("N params"), plotPen(plot_color::blue, 2));
  QCPGraph* ghost = p.ghost(g);
  EXPECT_EQ(p.ghost(g), ghost);  // one ghost per graph
  EXPECT_EQ(ghost->pen().style(), Qt::DashLine);
  EXPECT_EQ(ghost->pen().color().rgb(), plot_color::blue.rgb());
  EXPECT_LT(ghost->pen().color().alpha(), 255);
  // Drawn over the grid lines and under the live curves.
  EXPECT_LT(ghost->layer()->index(), g->layer()->index());
  EXPECT_EQ(ghost->layer(), p.xAxis->grid()->layer());
  const QList<QCPLayerable*> grid_layer = ghost->layer()->children();
  EXPECT_GT(grid_layer.indexOf(ghost), grid_layer.indexOf(p.xAxis->grid()));
  bool legend_baseline = false;
  for (int i = 0; i < p.legend->itemCount(); ++i)
    if (auto* it = qobject_cast<QCPPlottableLegendItem*>(p.legend->item(i)))
      legend_baseline = legend_baseline || it->plottable()->name() == QStringLiteral("baseline");
  EXPECT_TRUE(legend_baseline);
  p.setBaselineVisible(false);
  EXPECT_FALSE(ghost->visible());
}

TEST(ReflowGrid, ThreeTwoOneColumns) {
  ReflowGrid grid;
  grid.setMinimumCell(QSize(300, 240));
  for (int i = 0; i < 6; ++i) grid.addWidget(new QWidget);
  EXPECT_EQ(grid.columnsFor(1000), 3);
  EXPECT_EQ(grid.columnsFor(700), 2);
  EXPECT_EQ(grid.columnsFor(400), 1);
  EXPECT_EQ(grid.heightForWidth(400), 6 * 240 + 5 * 4);
  grid.resize(700, grid.heightForWidth(700));
  EXPECT_EQ(grid.columns(), 2);
}

TEST(CheckList, HeldDuringADragItGrowsButNeverShrinksThenFitsOnRelease) {
  // A check that comes and goes with a slider's value must not resize every
  // plot below the list on every tick of a drag.
  QWidget page;
  auto* layout = new QVBoxLayout(&page);
  auto* list = new CheckList;
  QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  policy.setHeightForWidth(true);
  list->setSizePolicy(policy);  // the height it asks for, the rest to the stretch
  layout->addWidget(list);
  layout->addStretch();
  const auto checks = [](int n) {
    std::vector<CheckItem> out;
    for (int i = 0; i < n; ++i)
      out.push_back({QStringLiteral("check %1").arg(i), i % 2 == 0,
                     QStringLiteral("what check %1 is about and its threshold").arg(i)});
    return out;
  };
  page.resize(500, 900);
  list->setChecks(checks(3));
  page.show();
  QCoreApplication::processEvents();
  const int three = list->height();

  list->setHoldHeight(true);
  list->setChecks(checks(8));
  QCoreApplication::processEvents();
  const int eight = list->height();
  EXPECT_GT(eight, three);  // grows to show every check
  list->setChecks(checks(1));
  QCoreApplication::processEvents();
  EXPECT_EQ(list->height(), eight);  // held: no shrink while the drag goes on
  EXPECT_EQ(list->checks().size(), 1u);

  list->setHoldHeight(false);  // released: fits the one check
  QCoreApplication::processEvents();
  EXPECT_LT(list->height(), three);
  EXPECT_GE(list->height(), list->minimumHeight());
}

TEST(MessageLabel, ShownWhenThereIsOneAndHeldOpenThroughADrag) {
  QWidget page;
  auto* layout = new QVBoxLayout(&page);
  auto* message = new MessageLabel;
  layout->addWidget(message);
  layout->addStretch();
  page.show();
  EXPECT_FALSE(message->isVisible());
  message->setMessage(QStringLiteral("The latency budget is below the overhead."));
  EXPECT_TRUE(message->isVisible());
  message->setMessage(QString());
  EXPECT_FALSE(message->isVisible());

  // A drag across the edge: the room stays until the release, the text goes at once.
  message->setHold(true);
  message->setMessage(QStringLiteral("No plan for these inputs."));
  message->setMessage(QString());
  EXPECT_TRUE(message->isVisible());
  EXPECT_TRUE(message->text().isEmpty());
  message->setHold(false);
  EXPECT_FALSE(message->isVisible());

  // Released on a message: it stays.
  message->setHold(true);
  message->setMessage(QStringLiteral("No plan for these inputs."));
  message->setHold(false);
  EXPECT_TRUE(message->isVisible());
}
