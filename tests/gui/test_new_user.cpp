// Issue 27, what a new user hit, driven as that user: a batch the layout
// search changed, locks that leave no layout, a clicked row that no longer
// fits; each screen must say what happened and why.
#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSlider>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

#include "PlotWidget.h"
#include "ReadoutGrid.h"
#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "budget/BudgetPanel.h"
#include "budget/plots/GoodputPlot.h"
#include "gui_test_util.h"
#include "parallel/ParallelPanel.h"
#include "parallel_view.h"
#include "roofline/RooflinePanel.h"
#include "roofline/ServingReadouts.h"
#include "shell/BaselineController.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

void type(SciSpinBox* spin, const QString& text) {
  spin->setFocus();
  spin->selectAll();
  QTest::keyClicks(spin, text);
  QTest::keyClick(spin, Qt::Key_Return);
}

struct Window {
  MainWindow w{MainWindow::Session::fresh};
  Window() {
    w.resize(1280, 800);
    w.show();
  }
  BudgetPanel* budget() { return w.panel<BudgetPanel>(); }
  ParallelPanel* parallel() { return w.panel<ParallelPanel>(); }
  void settle() {
    parallel()->waitForSearch();
    w.settle();
    QCoreApplication::processEvents();
  }
  Readout budgetMfu() { return budget()->readouts().grid()->readout(budget()->readouts().mfu); }
  Readout parallelRow(ReadoutGrid::Row ParallelReadouts::*row) {
    return parallel()->readouts().grid()->readout(parallel()->readouts().*row);
  }
  void predicted() {
    ASSERT_TRUE(w.showPanel(QStringLiteral("parallel")));
    pick(parallel()->controls().mfu_source, QStringLiteral("predicted (this layout)"));
    ASSERT_EQ(w.model()->scenario().parallel.mfu_source, MfuSource::predicted);
  }
};

}  // namespace

// Item 1: at 3,000 chips a batch of 65,536 tokens runs as 3,072,000 (375 ×
// 8,192); the Parallelism read-outs and report say so, and the Budget planner
// says its predicted MFU is of that other batch.
TEST(NewUser, AnAdjustedBatchIsNamedInTheReadoutsTheReportAndTheBudget) {
  Window u;
  type(u.budget()->controls().chips->spinBox(), QStringLiteral("3000"));
  u.predicted();
  type(u.parallel()->controls().global_batch->spinBox(), QStringLiteral("65536"));
  u.settle();
  ASSERT_EQ(u.w.model()->scenario().parallel.global_batch_tokens, 65'536);
  const Readout batch = u.parallelRow(&ParallelReadouts::batch);
  EXPECT_EQ(batch.value, QStringLiteral("3,072,000 tokens (375 × 8,192)"));
  EXPECT_EQ(batch.tone, Tone::warn);
  bool reported = false;
  for (const ReportTable& t : u.parallel()->reportSection().tables)
    for (const ReportRow& r : t.rows)
      if (r.name == QStringLiteral("Global batch"))
        reported = r.value == batch.value && r.note.contains(QStringLiteral("asked 65,536"));
  EXPECT_TRUE(reported);

  ASSERT_TRUE(u.w.showPanel(QStringLiteral("budget")));
  u.settle();
  ASSERT_EQ(resolve_plan(u.w.model()->scenario()).mfu.source, MfuSource::predicted);
  const Readout mfu = u.budgetMfu();
  EXPECT_TRUE(mfu.note.contains(QStringLiteral("3,072,000 tokens"))) << mfu.note.toStdString();
  EXPECT_TRUE(mfu.note.contains(QStringLiteral("not the 65,536 asked"))) << mfu.note.toStdString();
  EXPECT_EQ(mfu.tone, Tone::warn);
  const QString memo = u.budget()->recommendation()->toPlainText();
  EXPECT_TRUE(memo.contains(QStringLiteral("not the 65,536 asked"))) << memo.toStdString();
}

// Item 4: TP 8 and PP 4 locked on 3,000 chips leave no layout; the panel and
// the Budget planner say why instead of "none fits" and a silent fallback.
TEST(NewUser, LocksThatLeaveNoLayoutSayWhy) {
  Window u;
  type(u.budget()->controls().chips->spinBox(), QStringLiteral("3000"));
  u.predicted();
  pick(u.parallel()->controls().tp, QStringLiteral("8"));
  pick(u.parallel()->controls().pp, QStringLiteral("4"));
  u.settle();
  const QString why = QStringLiteral("3,000 chips is not divisible by TP × PP = 32");
  const Readout layout = u.parallelRow(&ParallelReadouts::layout);
  EXPECT_EQ(layout.tone, Tone::fail);
  EXPECT_TRUE(layout.note.contains(why)) << layout.note.toStdString();
  auto* status = u.parallel()->findChild<QLabel*>(QStringLiteral("parallelSearchStatus"));
  ASSERT_NE(status, nullptr);
  EXPECT_TRUE(status->text().contains(why)) << status->text().toStdString();
  const Readout budget_mfu = u.parallelRow(&ParallelReadouts::budget_mfu);
  EXPECT_TRUE(budget_mfu.note.contains(why)) << budget_mfu.note.toStdString();

  ASSERT_TRUE(u.w.showPanel(QStringLiteral("budget")));
  u.settle();
  const Readout mfu = u.budgetMfu();
  EXPECT_TRUE(mfu.note.contains(QStringLiteral("prediction is unavailable")))
      << mfu.note.toStdString();
  EXPECT_TRUE(mfu.note.contains(why)) << mfu.note.toStdString();
  const QString memo = u.budget()->recommendation()->toPlainText();
  EXPECT_TRUE(memo.contains(why)) << memo.toStdString();
}

// Item 16: a row clicked at 1,000 chips cannot run at 1,024; it is set aside
// with a note, the fastest layout that fits runs, and the Budget planner says
// so instead of quietly falling back to the assumed MFU.
TEST(NewUser, AClickedRowThatCannotRunOnNewChipsIsSetAsideWithANote) {
  Window u;
  u.predicted();
  u.settle();
  QTableView* table = u.parallel()->table();
  ASSERT_GT(table->model()->rowCount(), 1);
  const QModelIndex second = table->model()->index(1, 0);
  QTest::mouseClick(table->viewport(), Qt::LeftButton, {}, table->visualRect(second).center());
  ASSERT_TRUE(u.w.model()->scenario().parallel.chosen);
  const Layout clicked = *u.w.model()->scenario().parallel.chosen;
  ASSERT_TRUE(u.w.showPanel(QStringLiteral("budget")));
  type(u.budget()->controls().chips->spinBox(), QStringLiteral("1024"));
  u.settle();
  ASSERT_EQ(u.w.model()->scenario().n_chips, 1024);
  ASSERT_NE(clicked.chips(), 1024);
  const Readout mfu = u.budgetMfu();
  EXPECT_EQ(resolve_plan(u.w.model()->scenario()).mfu.source, MfuSource::predicted);
  EXPECT_TRUE(mfu.note.contains(QStringLiteral("set aside"))) << mfu.note.toStdString();
  EXPECT_EQ(mfu.tone, Tone::warn);
  const QString memo = u.budget()->recommendation()->toPlainText();
  EXPECT_TRUE(memo.contains(QStringLiteral("set aside"))) << memo.toStdString();
  ASSERT_TRUE(u.w.showPanel(QStringLiteral("parallel")));
  u.settle();
  const Readout layout = u.parallelRow(&ParallelReadouts::layout);
  EXPECT_TRUE(layout.note.contains(QStringLiteral("set aside"))) << layout.note.toStdString();
  EXPECT_NE(u.parallelRow(&ParallelReadouts::fits).value, QStringLiteral("cannot run"));
  ASSERT_TRUE(u.parallel()->view().layout);
  EXPECT_TRUE(u.parallel()->view().layout->fits);
}

// Item 6: the serving layout on one chip holds 70B of bf16 weights in 80 GB:
// "too big", and then no latency and no price reads as a normal figure.
TEST(NewUser, AServingLayoutThatDoesNotFitIsNotPriced) {
  Window u;
  ASSERT_TRUE(u.w.showPanel(QStringLiteral("roofline")));
  auto* p = u.w.panel<RooflinePanel>();
  QSlider* chips = p->control(QStringLiteral("serving_chips"))->slider();
  chips->setFocus();
  QTest::keyClick(chips, Qt::Key_Home);
  p->settleServing();
  ASSERT_EQ(u.w.model()->scenario().serving.chips, 1);
  ASSERT_TRUE(p->servingView().valid()) << p->servingView().error;
  ASSERT_FALSE(p->servingView().view.chosen.memory.fits);
  const ServingReadouts& r = p->servingReadouts();
  EXPECT_TRUE(r.text(QStringLiteral("serving_total")).endsWith(QStringLiteral("too big")));
  for (const char* key : {"serving_ttft", "serving_tpot", "serving_turn", "serving_throughput",
                          "serving_dollars", "serving_joules", "energy_share"})
    EXPECT_EQ(r.text(QString::fromLatin1(key)), QStringLiteral("\u2014")) << key;
  // On the most chips it fits and is priced again.
  QTest::keyClick(chips, Qt::Key_End);
  p->settleServing();
  if (p->servingView().view.chosen.memory.fits) {
    EXPECT_NE(r.text(QStringLiteral("serving_dollars")), QStringLiteral("\u2014"));
  }
}

// Item 10: with no baseline there is nothing to compare; the menu item is
// disabled and the export refuses instead of writing a header-only file.
TEST(NewUser, ExportComparisonNeedsABaseline) {
  Window u;
  auto* action = u.w.findChild<QAction*>(QStringLiteral("exportCompareCsv"));
  ASSERT_NE(action, nullptr);
  EXPECT_FALSE(action->isEnabled());
  QTemporaryDir dir;
  const QString csv = dir.filePath(QStringLiteral("compare.csv"));
  EXPECT_FALSE(u.w.exportCompareCsv(csv));
  EXPECT_FALSE(QFile::exists(csv));
  EXPECT_TRUE(u.w.lastError().contains(QStringLiteral("baseline")))
      << u.w.lastError().toStdString();
  u.w.baseline()->pin(u.w.model()->scenario(), QStringLiteral("plan A"));
  EXPECT_TRUE(action->isEnabled());
  EXPECT_TRUE(u.w.exportCompareCsv(csv));
}

// Item 8: a change the numbers alone do not carry ("OK" → "binds" at the same
// size) reads "was …", not "= baseline"; a row of days and dollars gets a
// change for both.
TEST(NewUser, ADeltaNamesAVerdictChangeAndASecondNumber) {
  ReadoutGrid grid;
  const ReadoutGrid::Row verdict = grid.add({.key = QStringLiteral("v"),
                                             .name = QStringLiteral("Servable up to"),
                                             .better = Better::higher});
  grid.set(verdict, {.value = QStringLiteral("70B at bf16/bf16: binds"), .number = 7e10});
  grid.setBaseline(verdict, {.number = 7e10, .text = QStringLiteral("70B at bf16/bf16: OK")});
  EXPECT_EQ(grid.deltaText(verdict), QStringLiteral("was 70B at bf16/bf16: OK"));
  grid.setBaseline(verdict, {.number = 7e10, .text = QStringLiteral("70B at bf16/bf16: binds")});
  EXPECT_EQ(grid.deltaText(verdict), QStringLiteral("= baseline"));

  Window u;
  u.w.baseline()->pin(u.w.model()->scenario());
  type(u.budget()->controls().price->spinBox(), QStringLiteral("5"));  // same days, twice the $
  u.settle();
  const QString wall = u.budget()->readouts().grid()->deltaText(u.budget()->readouts().run_days);
  EXPECT_TRUE(wall.contains(QLatin1Char('$'))) << wall.toStdString();
  EXPECT_TRUE(wall.startsWith(QLatin1Char('+'))) << wall.toStdString();
}

// Item 8: MFU and HFU moving the same way are coloured the same way.
TEST(NewUser, MfuAndHfuChangesAreColouredAlike) {
  Window u;
  ASSERT_TRUE(u.w.showPanel(QStringLiteral("parallel")));
  Scenario a = u.w.model()->scenario();
  a.parallel.global_batch_tokens *= 4;  // another batch: another MFU and HFU
  u.parallel()->setBaseline(&a);
  const ReadoutGrid* g = u.parallel()->readouts().grid();
  const ParallelReadouts& r = u.parallel()->readouts();
  const auto* mfu = g->findChild<QLabel*>(QStringLiteral("delta_parallelMfu"));
  const auto* hfu = g->findChild<QLabel*>(QStringLiteral("delta_parallelHfu"));
  ASSERT_NE(mfu, nullptr);
  ASSERT_NE(hfu, nullptr);
  ASSERT_FALSE(g->deltaText(r.mfu).isEmpty());
  ASSERT_NE(g->deltaText(r.hfu), QStringLiteral("= baseline"));
  const bool mfu_up = g->deltaText(r.mfu).startsWith(QLatin1Char('+'));
  const bool hfu_up = g->deltaText(r.hfu).startsWith(QLatin1Char('+'));
  if (mfu_up == hfu_up) {
    EXPECT_EQ(mfu->palette().color(QPalette::WindowText),
              hfu->palette().color(QPalette::WindowText));
  }
  EXPECT_NE(hfu->palette().color(QPalette::WindowText),
            g->palette().color(QPalette::PlaceholderText));
}

// Item 17: the goodput annotation (three lines: the run, the optimum, the
// chosen interval) lies inside the plot's axes on the narrow plots of a
// 1,024 × 700 window, whole; on a wide plot it keeps its full size.
TEST(NewUser, TheGoodputNoteStaysInsideItsAxes) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  GoodputPlot* plot = w.panel<BudgetPanel>()->goodputPlot();
  QCPItemText* note = nullptr;
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(plot->item(i)); t && t->text() == plot->noteText())
      note = t;
  ASSERT_NE(note, nullptr);
  const double full_pt = note->font().pointSizeF();
  for (const QSize size :
       {QSize(1024, 700), QSize(1024, 768), QSize(1280, 800), QSize(1900, 1080)}) {
    w.resize(size);
    w.settle();
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    plot->replot();
    // Three lines, each clause on a line of its own where even the smallest
    // note size is too wide (the axes 195 px wide at 1280 × 800).
    EXPECT_GE(note->text().count(QLatin1Char('\n')), 2) << note->text().toStdString();
    const QRectF r(note->topLeft->pixelPosition(), note->bottomRight->pixelPosition());
    const QRect axes = plot->axisRect()->rect();
    EXPECT_TRUE(QRectF(axes).adjusted(-0.5, -0.5, 0.5, 0.5).contains(r))
        << size.width() << ": note " << r.left() << "," << r.top() << " " << r.width() << "x"
        << r.height() << " in axes " << axes.left() << "," << axes.top() << " " << axes.width()
        << "x" << axes.height();
    if (axes.width() > 500) {
      EXPECT_DOUBLE_EQ(note->font().pointSizeF(), full_pt);
    }
  }
}

// The same plot when no precision is served (Llama 3 70B in a 1 s turn with
// TTFT ≤ 500 ms and TPOT ≤ 50 ms on H100 under vLLM, whose per-kernel times
// miss them at every precision): every label says "none" and the axes show no
// scale (they showed 0 to 1.5e-09 before).
TEST(NewUser, ThePrecisionCostPlotShowsNoScaleWhenNothingIsServed) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1900, 1080);
  w.show();
  ASSERT_TRUE(
      w.openFile(QStringLiteral(NAPKIN_TEST_DATA "/scenarios/llama3-70b-h100-30d.napkin.json")));
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  ASSERT_TRUE(
      w.model()->edit(QStringLiteral("engine"), 1, [](Scenario& s) { s.serving.engine = "vllm"; }));
  p->subTabs()->setCurrentIndex(RooflinePanel::kServingTab);
  p->settleServing();
  for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
  auto* plot = p->findChild<PlotWidget*>(QStringLiteral("plot_precision"));
  ASSERT_NE(plot, nullptr);
  int none = 0;
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(plot->item(i));
        t && t->visible() && t->text() == QStringLiteral("none"))
      ++none;
  ASSERT_EQ(none, 4);
  EXPECT_FALSE(plot->yAxis->tickLabels());
  EXPECT_FALSE(plot->yAxis2->tickLabels());
}

// "Cost of a token vs weight precision" at 1,900 × 1,080: each precision's
// label ($ per million tokens, chips) is whole inside the axes, overlaps no
// other label, and no J-per-token point is drawn over one (the J line runs at
// the bars' tops: both are proportional to chip-seconds per token).
TEST(NewUser, ThePrecisionCostLabelsOverlapNothing) {
  MainWindow w(MainWindow::Session::fresh);
  for (const QSize size : {QSize(1900, 1080), QSize(1024, 768)}) {
    w.resize(size);
    w.show();
    ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
    RooflinePanel* p = w.panel<RooflinePanel>();
    p->subTabs()->setCurrentIndex(RooflinePanel::kServingTab);
    p->settleServing();
    for (int i = 0; i < 3; ++i) QCoreApplication::processEvents();
    auto* plot = p->findChild<PlotWidget*>(QStringLiteral("plot_precision"));
    ASSERT_NE(plot, nullptr);
    plot->replot();
    const QRectF axes = QRectF(plot->axisRect()->rect()).adjusted(-0.5, -0.5, 0.5, 0.5);
    std::vector<QRectF> labels;
    for (int i = 0; i < plot->itemCount(); ++i)
      if (auto* t = qobject_cast<QCPItemText*>(plot->item(i));
          t && t->visible() && t->text().contains(QStringLiteral("chips")))
        labels.emplace_back(t->topLeft->pixelPosition(), t->bottomRight->pixelPosition());
    ASSERT_EQ(labels.size(), 4u) << size.width();
    QCPGraph* joules = nullptr;
    for (int i = 0; i < plot->graphCount(); ++i)
      if (plot->graph(i)->name() == QStringLiteral("J per token") &&
          plot->graph(i)->valueAxis() == plot->yAxis2 && !plot->graph(i)->data()->isEmpty() &&
          !joules)
        joules = plot->graph(i);
    ASSERT_NE(joules, nullptr);
    for (std::size_t a = 0; a < labels.size(); ++a) {
      EXPECT_TRUE(axes.contains(labels[a])) << size.width() << ": label " << a;
      for (std::size_t b = a + 1; b < labels.size(); ++b)
        EXPECT_FALSE(labels[a].intersects(labels[b])) << size.width() << ": " << a << ", " << b;
      for (const QCPGraphData& d : *joules->data()) {
        const QPointF at(plot->xAxis->coordToPixel(d.key), plot->yAxis2->coordToPixel(d.value));
        EXPECT_FALSE(labels[a].adjusted(-4, -4, 4, 4).contains(at))
            << size.width() << ": J point at x " << d.key << " under label " << a;
      }
    }
  }
}
