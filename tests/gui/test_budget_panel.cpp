// The Budget Planner panel driven like a user: sliders, combos, presets,
// import, undo; the read-outs must equal the model's numbers.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QRegularExpression>
#include <QSlider>
#include <QTest>
#include <QUndoStack>

#include "CheckList.h"
#include "PlotWidget.h"
#include "SliderSpin.h"
#include "budget.h"
#include "budget/BudgetPanel.h"
#include "budget/plots/GoodputPlot.h"
#include "budget/plots/HistogramPlot.h"
#include "budget/plots/TornadoPlot.h"
#include "budget_view.h"
#include "format.h"
#include "goodput.h"
#include "gui_test_util.h"
#include "hardware.h"
#include "parallel_view.h"
#include "shell/MainWindow.h"
#include "train_plan.h"

using namespace napkin;

namespace {

QString text(BudgetPanel* p, ReadoutGrid::Row BudgetReadouts::*row) {
  return p->readouts().text(p->readouts().*row);
}

QString expectedFlops(const Scenario& s) {
  return QString::fromStdString(
      format_sci(budget_to_flops(chip_by_name(s.chip), s.n_chips, s.days, s.mfu)) + " FLOPs");
}

void expectReadable(BudgetPanel* p, const std::string& where) {
  for (const QString& t : p->readoutTexts()) {
    EXPECT_FALSE(t.trimmed().isEmpty()) << where;
    EXPECT_FALSE(t.contains(QLatin1String("nan"), Qt::CaseInsensitive))
        << where << ": " << t.toStdString();
    EXPECT_FALSE(t.contains(QLatin1String("inf"), Qt::CaseSensitive) &&
                 !t.contains(QLatin1String("info")))
        << where << ": " << t.toStdString();
    EXPECT_FALSE(t.contains(QStringLiteral("\u2014"))) << where << ": " << t.toStdString();
  }
}

}  // namespace

TEST(BudgetPanel, DefaultScenarioShowsTheSeedAnswer) {
  MainWindow w(MainWindow::Session::fresh);
  BudgetPanel* p = w.panel<BudgetPanel>();
  EXPECT_EQ(text(p, &BudgetReadouts::flops), QStringLiteral("1.026e+24 FLOPs"));
  EXPECT_EQ(text(p, &BudgetReadouts::params), QStringLiteral("92.5B params"));
  EXPECT_EQ(text(p, &BudgetReadouts::tokens), QStringLiteral("1.85T tokens"));
  EXPECT_EQ(text(p, &BudgetReadouts::rental), QStringLiteral("$1,800,000"));
  EXPECT_EQ(text(p, &BudgetReadouts::per1e21), QStringLiteral("$1,753.65"));
  EXPECT_TRUE(text(p, &BudgetReadouts::energy).startsWith(QStringLiteral("604.8 MWh")));
  expectReadable(p, "default");
}

TEST(BudgetPanel, ChipSliderChangesFlopsToTheModelsValue) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  QSlider* slider = p->controls().chips->slider();
  slider->setFocus();
  QTest::keyClick(slider, Qt::Key_PageUp);
  const Scenario& s = w.model()->scenario();
  EXPECT_GT(s.n_chips, 1000);
  EXPECT_EQ(text(p, &BudgetReadouts::flops), expectedFlops(s));
  QTest::keyClick(slider, Qt::Key_End);
  EXPECT_EQ(w.model()->scenario().n_chips, 100000);
  EXPECT_EQ(text(p, &BudgetReadouts::flops), expectedFlops(w.model()->scenario()));
  QTest::keyClick(slider, Qt::Key_Home);
  EXPECT_EQ(w.model()->scenario().n_chips, 1);
  EXPECT_EQ(text(p, &BudgetReadouts::flops), expectedFlops(w.model()->scenario()));
}

TEST(BudgetPanel, TypingInTheSpinBoxAcceptsScientificNotation) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  SciSpinBox* spin = w.panel<BudgetPanel>()->controls().served_tokens->spinBox();
  spin->setFocus();
  spin->selectAll();
  QTest::keyClicks(spin, QStringLiteral("3e15"));
  QTest::keyClick(spin, Qt::Key_Return);
  EXPECT_DOUBLE_EQ(w.model()->scenario().serving.served_tokens, 3e15);
}

TEST(BudgetPanel, OneDragIsOneUndoStep) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  QSlider* slider = w.panel<BudgetPanel>()->controls().days->slider();
  const double before = w.model()->scenario().days;
  const int steps_before = w.model()->undoStack()->count();
  slider->setSliderDown(true);  // press: the gesture starts
  for (int pos = slider->value(); pos < slider->value() + 300; pos += 10)
    slider->setValue(pos + 10);
  slider->setSliderDown(false);  // release
  EXPECT_GT(w.model()->scenario().days, before + 50);
  EXPECT_EQ(w.model()->undoStack()->count(), steps_before + 1);
  w.model()->undoStack()->undo();
  EXPECT_DOUBLE_EQ(w.model()->scenario().days, before);
  EXPECT_DOUBLE_EQ(w.panel<BudgetPanel>()->controls().days->value(), before);
  EXPECT_EQ(text(w.panel<BudgetPanel>(), &BudgetReadouts::flops),
            expectedFlops(w.model()->scenario()));
  w.model()->undoStack()->redo();
  EXPECT_GT(w.model()->scenario().days, before + 50);
}

TEST(BudgetPanel, DerivedBoxesFollowEveryChangeIncludingUndo) {
  // "Train tokens" and the checkpoint write time show values derived from the
  // view until typed: they must be this scenario's, never the previous one's.
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  auto* p = w.panel<BudgetPanel>();
  SliderSpin* train = p->controls().plan.train_tokens;
  auto derived = [&] { return p->view().plan_inputs.tokens(); };
  EXPECT_DOUBLE_EQ(train->value(), derived());
  const double at_start = derived();
  QSlider* chips = p->controls().chips->slider();
  chips->setSliderDown(true);
  for (int k = 0; k < 12; ++k) chips->setValue(chips->value() + 1);
  chips->setSliderDown(false);
  ASSERT_NE(derived(), at_start);
  EXPECT_DOUBLE_EQ(train->value(), derived());
  w.model()->undoStack()->undo();
  EXPECT_DOUBLE_EQ(derived(), at_start);
  EXPECT_DOUBLE_EQ(train->value(), at_start);
  w.model()->undoStack()->redo();
  EXPECT_DOUBLE_EQ(train->value(), derived());
}

TEST(BudgetPanel, PresetUpdatesShapeAndParameterReadout) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  QComboBox* preset = w.panel<BudgetPanel>()->controls().preset;
  const int i = preset->findText(QStringLiteral("Llama-2-7B"));
  ASSERT_GE(i, 0);
  preset->setFocus();
  while (preset->currentIndex() != i)
    QTest::keyClick(preset, preset->currentIndex() < i ? Qt::Key_Down : Qt::Key_Up);
  EXPECT_EQ(w.model()->scenario().shape.d_ff, 11008);
  EXPECT_EQ(text(w.panel<BudgetPanel>(), &BudgetReadouts::model), QStringLiteral("6.74B params"));
  EXPECT_EQ(w.panel<BudgetPanel>()->controls().layers->value(), 32);
  // The Chinchilla-optimal preset sizes a dense model near N for this budget.
  QTest::keyClick(preset, Qt::Key_End);
  const double n = static_cast<double>(count_params(w.model()->scenario().shape).total);
  EXPECT_NEAR(n / w.panel<BudgetPanel>()->view().report.split.params, 1.0, 0.03);
}

TEST(BudgetPanel, ImportedConfigUpdatesShapeAndReadout) {
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.importConfig(QStringLiteral(NAPKIN_TEST_DATA "/configs/mixtral-8x7b.json")));
  EXPECT_EQ(w.model()->scenario().shape.n_experts, 8);
  EXPECT_EQ(text(w.panel<BudgetPanel>(), &BudgetReadouts::model),
            QStringLiteral("46.70B (12.88B act.)"));
  EXPECT_EQ(w.panel<BudgetPanel>()->controls().experts->value(), 8);
  w.model()->undoStack()->undo();
  EXPECT_EQ(w.model()->scenario().shape.n_experts, 0);
}

TEST(BudgetPanel, KvHeadsComboOffersDivisorsAndMovesTheKvReadout) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  QComboBox* kv = w.panel<BudgetPanel>()->controls().kv_heads;
  EXPECT_EQ(kv->count(), 7);  // divisors of 64
  const QString before = text(w.panel<BudgetPanel>(), &BudgetReadouts::kv);
  kv->setFocus();
  QTest::keyClick(kv, Qt::Key_Home);  // 1 KV head: MQA
  EXPECT_EQ(w.model()->scenario().shape.n_kv_heads, 1);
  EXPECT_NE(text(w.panel<BudgetPanel>(), &BudgetReadouts::kv), before);
}

TEST(BudgetPanel, NoReadoutShowsNanInfOrEmptyAtAnySliderExtreme) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  for (SliderSpin* c : p->findChildren<SliderSpin*>()) {
    for (int key : {Qt::Key_End, Qt::Key_Home, Qt::Key_End}) {
      c->slider()->setFocus();
      QTest::keyClick(c->slider(), static_cast<Qt::Key>(key));
      expectReadable(p, c->objectName().toStdString() + (key == Qt::Key_End ? " max" : " min"));
      EXPECT_EQ(text(p, &BudgetReadouts::flops), expectedFlops(w.model()->scenario()))
          << c->objectName().toStdString();
    }
  }
  for (PlotWidget* plot : p->plots()) EXPECT_FALSE(plot->dataCsv().contains(QLatin1String("nan")));
}

TEST(BudgetPanel, PlotsHaveDataHoverAndCsv) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  QCoreApplication::processEvents();
  BudgetPanel* panel = w.panel<BudgetPanel>();
  const auto plots = panel->plots();
  ASSERT_EQ(plots.size(), 9u);
  for (PlotWidget* plot : plots) {
    // The histogram and the tornado have data once a range is on (their own test).
    if (plot == panel->histogramPlot() || plot == panel->tornadoPlot()) continue;
    const QString csv = plot->dataCsv();
    EXPECT_GT(csv.count(QLatin1Char('\n')), 4) << plot->title().toStdString();
    plot->replot();
  }
  // Hovering the KV plot over the scenario curve reads out a point.
  PlotWidget* kv = plots[5];
  QCPGraph* g = kv->graph(1);
  const double x = g->data()->at(20)->key, y = g->data()->at(20)->value;
  kv->hoverAt(QPointF(kv->xAxis->coordToPixel(x), kv->yAxis->coordToPixel(y)));
  EXPECT_TRUE(kv->hoverText().contains(QStringLiteral("context (tokens)")))
      << kv->hoverText().toStdString();
  EXPECT_TRUE(kv->hoverText().contains(QStringLiteral("GB")) ||
              kv->hoverText().contains(QStringLiteral("MB")));
}

TEST(BudgetPanel, PlotsFollowADarkPalette) {
  MainWindow w(MainWindow::Session::fresh);
  QPalette dark;
  dark.setColor(QPalette::Window, QColor(37, 37, 38));
  dark.setColor(QPalette::Base, QColor(30, 30, 30));
  dark.setColor(QPalette::WindowText, QColor(220, 220, 220));
  dark.setColor(QPalette::Text, QColor(220, 220, 220));
  w.setPalette(dark);
  w.resize(1280, 800);
  w.show();
  QCoreApplication::processEvents();
  for (PlotWidget* p : w.panel<BudgetPanel>()->plots()) {
    EXPECT_EQ(p->xAxis->tickLabelColor(), QColor(220, 220, 220)) << p->title().toStdString();
    const QImage img = p->toPixmap(300, 200).toImage();
    EXPECT_LT(QColor(img.pixel(2, 2)).lightness(), 60) << p->title().toStdString();
  }
  if (qEnvironmentVariableIsSet("NAPKIN_SAVE_SCREENSHOTS"))
    w.grab().save(QStringLiteral("/tmp/budget-dark.png"));
}

TEST(BudgetPanel, ABaselineShowsChangesAndGhostCurves) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  const BudgetReadouts& r = p->readouts();
  Scenario a = w.model()->scenario();  // 1,000 H100 for 30 days
  p->setBaseline(&a);
  EXPECT_EQ(r.grid()->deltaText(r.flops), QStringLiteral("= baseline"));
  Scenario b = a;
  b.n_chips = 2000;
  ASSERT_TRUE(w.model()->replace(b, QStringLiteral("twice the chips")));
  EXPECT_TRUE(r.grid()->deltaText(r.flops).startsWith(QStringLiteral("+100.0 %")))
      << r.grid()->deltaText(r.flops).toStdString();
  EXPECT_TRUE(r.grid()->deltaText(r.rental).startsWith(QStringLiteral("+100.0 %")));
  int ghosts = 0;
  for (PlotWidget* plot : p->plots()) {
    ghosts += plot->ghostCount();
    EXPECT_TRUE(plot->baselineVisible());
  }
  EXPECT_GE(ghosts, 9);
  p->setBaseline(nullptr);
  EXPECT_TRUE(r.grid()->deltaText(r.flops).isEmpty());
  for (PlotWidget* plot : p->plots()) EXPECT_FALSE(plot->baselineVisible());
}

TEST(BudgetPanel, EveryChangeFromTheBaselineIsShownWhole) {
  // At 1,024 px, doubling the days makes changes such as "+100.0 % (+$1,800,000)":
  // each must fit its label, none clipped.
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1024, 700);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  Scenario a = w.model()->scenario();
  p->setBaseline(&a);
  Scenario b = a;
  b.days = 60;
  ASSERT_TRUE(w.model()->replace(b, QStringLiteral("twice the days")));
  QCoreApplication::processEvents();
  const ReadoutGrid* g = p->readouts().grid();
  int shown = 0;
  for (QLabel* delta : g->findChildren<QLabel*>()) {
    if (!delta->objectName().startsWith(QStringLiteral("delta_")) || !delta->isVisibleTo(g))
      continue;
    ++shown;
    EXPECT_LE(delta->fontMetrics().horizontalAdvance(delta->text()), delta->width())
        << delta->objectName().toStdString() << ": " << delta->text().toStdString();
    EXPECT_LE(delta->geometry().right(), g->width()) << delta->objectName().toStdString();
  }
  EXPECT_GE(shown, 20);
}

TEST(BudgetPanel, APlanOverTwiceTheDaysIsFlagged) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  auto* box = qobject_cast<QGroupBox*>(p->recommendation()->parentWidget());
  ASSERT_NE(box, nullptr);
  Scenario s = w.model()->scenario();
  s.serving.served_tokens = 1e17;  // serving dominates: a small model trained for years
  ASSERT_TRUE(w.model()->replace(s, QStringLiteral("serve a lot")));
  ASSERT_TRUE(p->view().plan_too_long);
  EXPECT_TRUE(
      p->recommendation()->toPlainText().contains(QStringLiteral("more than twice the 30 days")));
  EXPECT_TRUE(box->title().contains(QStringLiteral("caution")));
  s.serving.served_tokens = 1e12;  // hardly served: the Chinchilla answer stands
  ASSERT_TRUE(w.model()->replace(s, QStringLiteral("serve little")));
  EXPECT_FALSE(p->view().plan_too_long);
  EXPECT_FALSE(box->title().contains(QStringLiteral("caution")));
}

TEST(BudgetPanel, ChecksFollowADragAndAreExactOnRelease) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  QSlider* slider = p->controls().chips->slider();
  const QString before = p->checks()->toPlainText();
  slider->setSliderDown(true);
  slider->setValue(slider->value() + 3);  // 1,000 → 10,000 chips
  // The read-outs follow at once; the checks within a few frames.
  EXPECT_EQ(text(p, &BudgetReadouts::flops), expectedFlops(w.model()->scenario()));
  QTest::qWait(150);
  EXPECT_NE(p->checks()->toPlainText(), before);
  slider->setValue(slider->value() + 1);
  slider->setSliderDown(false);  // release: exact at once
  const BudgetView v = make_budget_view(w.model()->scenario());
  EXPECT_TRUE(
      p->checks()->toPlainText().contains(QString::fromStdString(v.checks[0].detail).left(40)));
  EXPECT_EQ(p->recommendation()->toPlainText(), QString::fromStdString(v.report.recommendation));
}

// ------------------------------------------------ goodput, data, ranges, train this model

namespace {

// "P10 41.2 · P50 44.0 · P90 48.9 days" → {41.2, 44.0, 48.9}.
std::vector<double> percentiles(const QString& text) {
  std::vector<double> out;
  static const QRegularExpression re(QStringLiteral("P\\d0 \\$?([0-9,.]+)"));
  for (auto it = re.globalMatch(text); it.hasNext();)
    out.push_back(it.next().captured(1).remove(QLatin1Char(',')).toDouble());
  return out;
}

}  // namespace

TEST(BudgetPanel, AnMfuRangeShowsOrderedPercentilesAndTheHistogram) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  EXPECT_FALSE(p->rangesBox()->isVisible());
  EXPECT_EQ(p->histogramPlot()->barCount(), 0);
  const int steps = w.model()->undoStack()->count();
  QCheckBox* mfu = p->controls().plan.ranges[0].on;
  ASSERT_NE(mfu, nullptr);
  EXPECT_FALSE(p->controls().plan.ranges[0].low->isEnabled());
  QTest::mouseClick(mfu, Qt::LeftButton, {}, QPoint(8, mfu->height() / 2));
  ASSERT_TRUE(w.model()->scenario().ranges.mfu.has_value());
  EXPECT_EQ(w.model()->undoStack()->count(), steps + 1);
  EXPECT_TRUE(p->controls().plan.ranges[0].low->isEnabled());
  EXPECT_TRUE(p->rangesBox()->isVisible());
  const RangeReport& r = *p->view().ranges;
  for (ReadoutGrid::Row BudgetReadouts::*row :
       {&BudgetReadouts::range_days, &BudgetReadouts::range_dollars, &BudgetReadouts::range_energy,
        &BudgetReadouts::range_loss}) {
    const QString t = p->readouts().rangesGrid()->text(p->readouts().*row);
    const std::vector<double> v = percentiles(t);
    ASSERT_EQ(v.size(), 3u) << t.toStdString();
    EXPECT_LE(v[0], v[1]) << t.toStdString();
    EXPECT_LE(v[1], v[2]) << t.toStdString();
  }
  const std::vector<double> days =
      percentiles(p->readouts().rangesGrid()->text(p->readouts().range_days));
  EXPECT_NEAR(days[1], r.days.p.p50, 0.051);
  EXPECT_LT(days[0], days[2]);  // a real spread
  // The histogram has its draws and marks the same percentiles.
  EXPECT_GT(p->histogramPlot()->barCount(), 5);
  ASSERT_TRUE(p->histogramPlot()->marker(0) && p->histogramPlot()->marker(2));
  EXPECT_DOUBLE_EQ(*p->histogramPlot()->marker(0), r.days.p.p10);
  EXPECT_DOUBLE_EQ(*p->histogramPlot()->marker(1), r.days.p.p50);
  EXPECT_DOUBLE_EQ(*p->histogramPlot()->marker(2), r.days.p.p90);
  EXPECT_TRUE(p->histogramPlot()->noteText().contains(QStringLiteral("10,000 draws")));
  EXPECT_EQ(p->tornadoPlot()->barCount(), 1);
  EXPECT_EQ(p->tornadoPlot()->topInput(), QStringLiteral("MFU"));
  EXPECT_TRUE(p->recommendation()->toPlainText().contains(QStringLiteral("P50")));
  expectReadable(p, "MFU range");
  // Off again: the ranges go.
  QTest::mouseClick(mfu, Qt::LeftButton, {}, QPoint(8, mfu->height() / 2));
  EXPECT_FALSE(w.model()->scenario().ranges.any());
  EXPECT_FALSE(p->rangesBox()->isVisible());
}

TEST(BudgetPanel, TheGoodputPlotsOptimumIsYoungDaly) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  typeInto(p->controls().plan.interruptions, QStringLiteral("2"));
  ASSERT_EQ(w.model()->scenario().goodput.interruptions_per_1000_chip_days, 2.0);
  const RunReport& run = p->view().run();
  const auto yd =
      young_daly_interval_minutes(run.goodput_inputs.checkpoint_write_minutes,
                                  job_crashes_per_hour(2.0, w.model()->scenario().n_chips));
  ASSERT_TRUE(yd && p->goodputPlot()->optimumMinutes());
  EXPECT_DOUBLE_EQ(*p->goodputPlot()->optimumMinutes(), *yd);
  // The read-out says the same interval.
  EXPECT_TRUE(
      text(p, &BudgetReadouts::optimal_checkpoint)
          .startsWith(QStringLiteral("every %1 min")
                          .arg(QString::fromStdString(format_grouped(*yd, *yd < 10 ? 1 : 0)))))
      << text(p, &BudgetReadouts::optimal_checkpoint).toStdString();
}

TEST(BudgetPanel, TrainThisModelGivesTheDaysOfTrainPlan) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  QComboBox* mode = p->controls().plan.mode;
  EXPECT_FALSE(p->controls().plan.train_tokens->isEnabled());
  mode->setFocus();
  QTest::keyClick(mode, Qt::Key_Down);
  ASSERT_EQ(w.model()->scenario().plan.mode, PlanMode::train_model);
  EXPECT_TRUE(p->controls().plan.train_tokens->isEnabled());
  typeInto(p->controls().plan.train_tokens, QStringLiteral("2e12"));
  const Scenario& s = w.model()->scenario();
  ASSERT_EQ(s.plan.train_tokens, 2e12);
  const RunReport expected = train_run(s.train_inputs(), budget_law());
  EXPECT_EQ(text(p, &BudgetReadouts::run_days),
            QString::fromStdString(format_grouped(expected.wall_clock_days, 1) + " days, " +
                                   format_dollars(expected.cost.rental_dollars)));
  EXPECT_EQ(text(p, &BudgetReadouts::run_loss),
            QString::fromStdString(format_grouped(expected.loss, 3)) + QStringLiteral(" nats"));
  const QString memo = p->recommendation()->toPlainText();
  EXPECT_TRUE(memo.startsWith(QStringLiteral("Train this model"))) << memo.toStdString();
  // Which model, which sharding.
  EXPECT_TRUE(p->readouts()
                  .grid()
                  ->sectionTitle(p->readouts().run)
                  .contains(QStringLiteral("Llama-3-70B")));
  EXPECT_TRUE(p->readouts()
                  .grid()
                  ->sectionTitle(p->readouts().run)
                  .contains(QStringLiteral("sharded over all 1,000 H100")));
  expectReadable(p, "train mode");
}

TEST(BudgetPanel, FiveTrillionUniqueTokensMakeTheMemoStateTheDataLimit) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  typeInto(p->controls().tokens_available, QStringLiteral("5e12"));
  ASSERT_EQ(w.model()->scenario().tokens_available, 5e12);
  const QString memo = p->recommendation()->toPlainText();
  EXPECT_TRUE(memo.contains(QStringLiteral("5.0T unique tokens"))) << memo.toStdString();
  EXPECT_TRUE(memo.contains(QStringLiteral("Data limit:"))) << memo.toStdString();
  EXPECT_TRUE(memo.contains(QStringLiteral("bf16 weights, bf16 KV"))) << memo.toStdString();
}

TEST(BudgetPanel, ARangeWithLowAboveHighIsRefusedWithAMessage) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  BudgetPanel* p = w.panel<BudgetPanel>();
  const RangeControls& mfu = p->controls().plan.ranges[0];
  QTest::mouseClick(mfu.on, Qt::LeftButton, {}, QPoint(8, mfu.on->height() / 2));
  ASSERT_TRUE(w.model()->scenario().ranges.mfu.has_value());
  const Spread before = *w.model()->scenario().ranges.mfu;
  const int steps = w.model()->undoStack()->count();
  typeInto(mfu.high, QStringLiteral("20"));  // 20 % while low is 30 %
  EXPECT_EQ(*w.model()->scenario().ranges.mfu, before);
  EXPECT_EQ(w.model()->undoStack()->count(), steps);
  QLabel* message = p->controls().plan.message;
  EXPECT_TRUE(message->isVisible());
  EXPECT_TRUE(message->text().contains(QStringLiteral("low 30 % is above high 20 %")))
      << message->text().toStdString();
  QCoreApplication::processEvents();  // the spin box shows the value in use again
  EXPECT_DOUBLE_EQ(mfu.high->value(), before.high);
  // A good value clears the message.
  typeInto(mfu.high, QStringLiteral("50"));
  EXPECT_EQ(w.model()->scenario().ranges.mfu->high, 0.5);
  EXPECT_FALSE(message->isVisible());
}

TEST(BudgetPanel, TheReportHasGoodputTheDataCheckTheRangesAndTheNewCharts) {
  MainWindow w(MainWindow::Session::fresh);
  BudgetPanel* p = w.panel<BudgetPanel>();
  Scenario s = w.model()->scenario();
  s.ranges.price_per_chip_hour_dollars = Spread{2.0, 3.5};
  ASSERT_TRUE(w.model()->replace(s, QStringLiteral("price range")));
  const ReportSection r = p->reportSection();
  QStringList titles;
  for (const ReportTable& t : r.tables) titles << t.title;
  const QString all = titles.join(QLatin1Char('|'));
  EXPECT_TRUE(all.contains(QStringLiteral("Planned run"))) << all.toStdString();
  EXPECT_TRUE(all.contains(QStringLiteral("Ranges of the planned run"))) << all.toStdString();
  EXPECT_TRUE(all.contains(QStringLiteral("Data check"))) << all.toStdString();
  bool goodput = false;
  for (const ReportTable& t : r.tables)
    for (const ReportRow& row : t.rows) goodput |= row.name == QStringLiteral("Goodput");
  EXPECT_TRUE(goodput);
  // A value cell holds a number; the sentences that explain it are notes (a
  // sentence in the narrow value column reads as a ribbon of words).
  for (const ReportTable& t : r.tables)
    if (t.title.startsWith(QStringLiteral("Data check")))
      for (const ReportRow& row : t.rows) {
        EXPECT_LE(row.value.size(), 24)
            << row.name.toStdString() << ": " << row.value.toStdString();
        EXPECT_FALSE(row.note.isEmpty()) << row.name.toStdString();
      }
  EXPECT_EQ(r.charts.size(), 9u);
  EXPECT_GT(p->tornadoPlot()->barCount(), 0);
  EXPECT_EQ(p->tornadoPlot()->topInput(), QStringLiteral("Price"));
}

// Issue 14: choosing "predicted" on the Parallelism panel changes the MFU the
// Budget planner computes with, and its read-outs say so.
TEST(BudgetPanel, PredictedMfuFromTheParallelismPanelDrivesTheBudget) {
  MainWindow w(MainWindow::Session::fresh);
  BudgetPanel* p = w.panel<BudgetPanel>();
  auto note = [p] { return p->readouts().grid()->readout(p->readouts().mfu).note; };
  EXPECT_TRUE(note().contains(QStringLiteral("assumed"))) << note().toStdString();
  ASSERT_TRUE(w.showPanel(QStringLiteral("parallel")));
  auto* combo = w.findChild<QComboBox*>(QStringLiteral("parallelMfuSource"));
  ASSERT_NE(combo, nullptr);
  combo->setFocus();
  QTest::keyClick(combo, Qt::Key_Down);  // "predicted (this layout)"
  ASSERT_TRUE(w.showPanel(QStringLiteral("budget")));
  Scenario s = w.model()->scenario();
  ASSERT_EQ(s.parallel.mfu_source, MfuSource::predicted);
  const MfuChoice c = budget_mfu(s);
  ASSERT_EQ(c.source, MfuSource::predicted);
  const QString shown = note();
  EXPECT_TRUE(shown.contains(QStringLiteral("predicted"))) << shown.toStdString();
  EXPECT_TRUE(shown.contains(QString::fromStdString(c.layout))) << shown.toStdString();
  s.mfu = c.mfu;
  EXPECT_EQ(text(p, &BudgetReadouts::flops), expectedFlops(s));
  // Undo returns to the slider's MFU.
  w.model()->undoStack()->undo();
  EXPECT_TRUE(note().contains(QStringLiteral("assumed"))) << note().toStdString();
}

// Issue 26: the Objective, serving-chip and law combos set the scenario's
// lifetime objective, serving chip and law (the fitted law among them).
TEST(BudgetPanel, ObjectiveServingChipAndFittedLawControls) {
  MainWindow w(MainWindow::Session::fresh);
  BudgetPanel* p = w.panel<BudgetPanel>();
  auto choose = [p](const char* name, const QString& data) {
    auto* combo = p->findChild<QComboBox*>(QString::fromUtf8(name));
    if (!combo) return false;
    const int i = combo->findData(data);
    if (i < 0) return false;
    combo->setCurrentIndex(i);
    emit combo->activated(i);
    return true;
  };
  ASSERT_TRUE(choose("objective", QStringLiteral("dollars")));
  EXPECT_EQ(w.model()->scenario().plan.objective, Objective::dollars);
  ASSERT_TRUE(choose("serving_chip", QStringLiteral("H200")));
  EXPECT_EQ(w.model()->scenario().serving.chip, "H200");
  ASSERT_TRUE(choose("law", QStringLiteral("fitted")));
  EXPECT_EQ(w.model()->scenario().plan.law, LawChoice::fitted);
  const BudgetReport r = budget_report(w.model()->scenario().budget_inputs());
  EXPECT_NE(r.recommendation.find("Lifetime dollars over"), std::string::npos);
  EXPECT_NE(r.recommendation.find(w.model()->scenario().plan_law().name), std::string::npos);
}
