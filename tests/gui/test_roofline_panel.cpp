// The Roofline panel driven like a user: sliders, combos, the shared
// scenario; the read-outs must equal the model's numbers for the scenario.
#include <gtest/gtest.h>

#include <algorithm>

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QRegularExpression>
#include <QSlider>
#include <QStyle>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>

#include "PlotItems.h"
#include "PlotWidget.h"
#include "SliderSpin.h"
#include "format.h"
#include "framework_config.h"
#include "gui_test_util.h"
#include "hardware.h"
#include "roofline/RooflinePanel.h"
#include "roofline_view.h"
#include "scenario_json.h"
#include "shell/MainWindow.h"
#include "validate.h"

using namespace napkin;

namespace {

QString text(RooflinePanel* p, const char* key) {
  const QString t = p->readoutText(QString::fromLatin1(key));
  EXPECT_FALSE(t.isEmpty()) << key;
  return t;
}

QString chips(std::int64_t n) {
  return QString::fromStdString(format_grouped(n)) +
         (n == 1 ? QStringLiteral(" chip") : QStringLiteral(" chips"));
}

// The panel's latency verdicts against the model's for the same scenario.
void expectBudgetReadoutsMatchModel(RooflinePanel* p, const Scenario& s, const std::string& where) {
  const RooflinePanelData d = roofline_panel(roofline_scenario(s));
  EXPECT_EQ(text(p, "chips_hold"),
            chips(d.chips_to_hold_weights) + QStringLiteral(" (") +
                QString::fromStdString(format_bytes(d.resident_weight_bytes)) + QStringLiteral(")"))
      << where;
  if (d.chips_for_budget)
    EXPECT_EQ(text(p, "chips_budget"), chips(*d.chips_for_budget)) << where;
  else
    EXPECT_TRUE(text(p, "chips_budget").startsWith(QStringLiteral("none"))) << where;
}

void expectReadable(RooflinePanel* p, const std::string& where) {
  for (const QString& t : p->readoutTexts()) {
    EXPECT_FALSE(t.contains(QLatin1String("nan"), Qt::CaseInsensitive))
        << where << ": " << t.toStdString();
    EXPECT_FALSE(t.contains(QLatin1String("inf"), Qt::CaseSensitive))
        << where << ": " << t.toStdString();
  }
  for (const char* key : {"ridge", "prefill", "decode", "kv_share", "model", "mfu", "hfu", "lever",
                          "turn", "chips_budget", "chips_hold", "deploy"})
    EXPECT_FALSE(text(p, key).trimmed().isEmpty()) << where << ": " << key;
  for (PlotWidget* plot : p->plots()) {
    const QString csv = plot->dataCsv();
    EXPECT_FALSE(csv.contains(QLatin1String("nan"), Qt::CaseInsensitive))
        << where << " " << plot->title().toStdString();
    EXPECT_FALSE(csv.contains(QLatin1String("inf"), Qt::CaseInsensitive))
        << where << " " << plot->title().toStdString();
  }
}

void press(QSlider* s, Qt::Key key) {
  s->setFocus();
  QTest::keyClick(s, key);
}

void pick(QComboBox* c, Qt::Key key) {
  c->setFocus();
  QTest::keyClick(c, key);
}

}  // namespace

TEST(RooflinePanel, HasThirteenPlotsOnFiveSubTabs) {
  EXPECT_TRUE(RooflinePanel::helpText().contains(QStringLiteral("ridge")));
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_NE(w.panel<RooflinePanel>(), nullptr);
  EXPECT_EQ(w.panel<RooflinePanel>()->plots().size(), 13u);
  EXPECT_EQ(w.panel<RooflinePanel>()->subTabs()->count(), 5);
}

TEST(RooflinePanel, ReadoutsEqualTheModelsNumbers) {
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = w.panel<RooflinePanel>();
  const Scenario& s = w.model()->scenario();
  const Chip& chip = chip_by_name(s.chip);
  const double ridge = ridge_point_flops_per_byte(chip);
  EXPECT_EQ(text(p, "ridge"), QString::fromStdString(format_grouped(ridge, ridge < 100 ? 1 : 0)) +
                                  QStringLiteral(" FLOP/B"));
  EXPECT_DOUBLE_EQ(p->data().ridge_flops_per_byte, ridge);
  expectBudgetReadoutsMatchModel(p, s, "default");
  // The seed's MFU budget: 35.7 %, lever memory; HFU = MFU × 8/6.
  EXPECT_EQ(text(p, "mfu"), QStringLiteral("35.7 %"));
  EXPECT_TRUE(text(p, "lever").startsWith(QStringLiteral("memory")));
  EXPECT_TRUE(text(p, "hfu").startsWith(QStringLiteral("47.6 %"))) << text(p, "hfu").toStdString();
  ASSERT_EQ(p->data().operations.size(), 5u);
  EXPECT_EQ(p->data().operations[2].name, "decode");
  EXPECT_TRUE(text(p, "decode").endsWith(QStringLiteral("memory-bound")));
  EXPECT_TRUE(text(p, "decode")
                  .startsWith(QString::fromStdString(
                      format_grouped(p->data().operations[2].intensity, 1))));
  EXPECT_TRUE(text(p, "prefill").endsWith(QStringLiteral("compute-bound")));
  expectReadable(p, "default");
}

TEST(RooflinePanel, SeedNapkinOnTpuV5e) {
  // The seed's agent: Llama3-70B-class on TPU v5e, 8k prefill, 128 decode, 1 s of which 0.25 s
  // overhead, batch 1 — chips to hold the weights: 9.
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.model()->edit(QStringLiteral("seed"), 1, [](Scenario& s) {
    s.chip = "TPU v5e";
    s.serving.batch = 1;
  }));
  RooflinePanel* p = w.panel<RooflinePanel>();
  EXPECT_EQ(text(p, "chips_hold").left(8), QStringLiteral("9 chips "));
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "seed v5e");
  EXPECT_EQ(text(p, "ridge"), QStringLiteral("241 FLOP/B"));
}

TEST(RooflinePanel, ChangingTheSharedChipUpdatesThePanel) {
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = w.panel<RooflinePanel>();
  const QString before = text(p, "ridge");
  ASSERT_TRUE(w.model()->edit(QStringLiteral("chip"), 1, [](Scenario& s) { s.chip = "TPU v5e"; }));
  EXPECT_NE(text(p, "ridge"), before);
  EXPECT_EQ(p->combo(QStringLiteral("chip"))->currentText(), QStringLiteral("TPU v5e"));
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  QComboBox* combo = p->combo(QStringLiteral("chip"));
  pick(combo, Qt::Key_Home);
  EXPECT_EQ(w.model()->scenario().chip, std::string(hardware_table().front().name));
  EXPECT_DOUBLE_EQ(p->data().ridge_flops_per_byte,
                   ridge_point_flops_per_byte(hardware_table().front()));
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "first chip");
  w.model()->undoStack()->undo();
  EXPECT_EQ(w.model()->scenario().chip, "TPU v5e");
  EXPECT_EQ(combo->currentText(), QStringLiteral("TPU v5e"));
}

TEST(RooflinePanel, EveryTextNamesTheScenariosChip) {  // issue 12.10
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = w.panel<RooflinePanel>();
  ASSERT_TRUE(w.model()->edit(QStringLiteral("chip"), 1, [](Scenario& s) { s.chip = "TPU v5e"; }));
  p->settleServing();
  QStringList all = p->readoutTexts();
  for (const ReadoutGrid* g : {p->readouts().grid(), p->servingReadouts().grid()})
    for (const ReportTable& t : g->reportTables()) {
      all << t.title;
      for (const ReportRow& r : t.rows) all << r.note;
    }
  const QString joined = all.join(QLatin1Char('\n'));
  EXPECT_FALSE(joined.contains(QStringLiteral("H100"))) << joined.toStdString();
  EXPECT_TRUE(joined.contains(QStringLiteral("TPU v5e")));
  for (PlotWidget* plot : p->plots())
    EXPECT_FALSE(plot->dataCsv().contains(QStringLiteral("H100")));
}

TEST(RooflinePanel, DraggingTheLatencyBudgetIsOneUndoStep) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  ASSERT_TRUE(w.model()->edit(QStringLiteral("v5e"), 1, [](Scenario& s) { s.chip = "TPU v5e"; }));
  QSlider* slider = p->control(QStringLiteral("budget"))->slider();
  const QString before = text(p, "chips_budget");
  const int steps_before = w.model()->undoStack()->count();
  slider->setSliderDown(true);
  for (int i = 1; i <= 20; ++i) slider->setValue(slider->value() + 20);
  slider->setSliderDown(false);
  EXPECT_EQ(w.model()->undoStack()->count(), steps_before + 1);
  EXPECT_GT(w.model()->scenario().serving.latency_budget_seconds, 1.0);
  EXPECT_NE(text(p, "chips_budget"), before);
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "after drag");
  // What the slider shows is what is used: two significant digits.
  const double b = w.model()->scenario().serving.latency_budget_seconds;
  EXPECT_DOUBLE_EQ(b, std::stod(format_value(b)));
}

TEST(RooflinePanel, AControlChangeIsOneUndoStepAndRoundTripsSaveOpen) {  // issue 12.6
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("roof.napkin.json"));
  {
    MainWindow w(MainWindow::Session::fresh);
    w.show();
    w.showPanel(QStringLiteral("roofline"));
    RooflinePanel* p = w.panel<RooflinePanel>();
    const int steps = w.model()->undoStack()->count();
    press(p->control(QStringLiteral("step_floor"))->slider(), Qt::Key_PageUp);
    EXPECT_EQ(w.model()->undoStack()->count(), steps + 1);
    press(p->control(QStringLiteral("comms_s"))->slider(), Qt::Key_End);
    press(p->control(QStringLiteral("tile"))->slider(), Qt::Key_Home);
    pick(p->combo(QStringLiteral("kv_precision")), Qt::Key_End);
    pick(p->combo(QStringLiteral("engine")), Qt::Key_End);  // the last preset: jetstream
    QCheckBox* comm = p->controls().communication;
    QTest::mouseClick(comm, Qt::LeftButton, {}, QPoint(6, comm->height() / 2));
    QCheckBox* v5e = p->overlayBox(QStringLiteral("TPU v5e"));
    QTest::mouseClick(v5e, Qt::LeftButton, {}, QPoint(6, v5e->height() / 2));
    EXPECT_EQ(w.model()->undoStack()->count(), steps + 7);
    EXPECT_EQ(w.model()->scenario().serving.engine, "jetstream");
    const RooflineSettings& r = w.model()->scenario().roofline;
    EXPECT_GT(r.step_floor_seconds, 0);
    EXPECT_EQ(r.mfu.comms_seconds, 500);
    EXPECT_EQ(r.tile, 8);
    EXPECT_FALSE(r.serving_layout.communication);
    EXPECT_EQ(r.overlays, std::vector<std::string>{"TPU v5e"});
    EXPECT_EQ(w.model()->scenario().serving.kv_dtype, Dtype::fp4);  // the last format
    w.model()->undoStack()->undo();
    EXPECT_TRUE(w.model()->scenario().roofline.overlays.empty());
    w.model()->undoStack()->redo();
    ASSERT_TRUE(w.saveTo(path));
  }
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.openFile(path));
  RooflinePanel* p = w.panel<RooflinePanel>();
  const RooflineSettings& r = w.model()->scenario().roofline;
  EXPECT_EQ(r.mfu.comms_seconds, 500);
  EXPECT_EQ(r.tile, 8);
  EXPECT_FALSE(r.serving_layout.communication);
  EXPECT_FALSE(p->controls().communication->isChecked());
  EXPECT_TRUE(p->overlayBox(QStringLiteral("TPU v5e"))->isChecked());
  EXPECT_EQ(p->control(QStringLiteral("comms_s"))->value(), 500);
  EXPECT_EQ(p->control(QStringLiteral("tile"))->value(), 8);
  EXPECT_EQ(w.model()->scenario().serving.kv_dtype, Dtype::fp4);
  EXPECT_EQ(w.model()->scenario().serving.engine, "jetstream");
  EXPECT_EQ(p->combo(QStringLiteral("engine"))->currentText(), QStringLiteral("jetstream"));
}

TEST(RooflinePanel, PrecisionChangesWeightsPerChipAndSaysWhich) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  p->settleServing();
  const QString bf16 = text(p, "serving_weights");
  EXPECT_TRUE(bf16.contains(QStringLiteral("bf16"))) << bf16.toStdString();
  EXPECT_TRUE(text(p, "weights").contains(QStringLiteral("bf16")));
  pick(p->combo(QStringLiteral("precision")), Qt::Key_End);  // fp4, the last format
  EXPECT_EQ(w.model()->scenario().serving.weight_dtype, Dtype::fp4);
  p->settleServing();
  const QString fp4 = text(p, "serving_weights");
  EXPECT_TRUE(fp4.contains(QStringLiteral("fp4"))) << fp4.toStdString();
  EXPECT_NE(fp4, bf16);
  EXPECT_LT(p->servingView().view.chosen.memory.weights_bytes,
            0.3 * roofline_panel(roofline_scenario(Scenario{})).resident_weight_bytes);
  EXPECT_TRUE(text(p, "weights").contains(QStringLiteral("fp4")));
  pick(p->combo(QStringLiteral("precision")), Qt::Key_Up);  // int4, the one before
  EXPECT_EQ(w.model()->scenario().serving.weight_dtype, Dtype::int4);
  p->settleServing();
  EXPECT_TRUE(text(p, "weights").contains(QStringLiteral("int4")));
  EXPECT_TRUE(
      text(p, "chips_hold")
          .startsWith(chips(
              roofline_panel(roofline_scenario(w.model()->scenario())).chips_to_hold_weights)));
}

TEST(RooflinePanel, TheServingViewsSearchAnswerIsTheModels) {
  MainWindow w(MainWindow::Session::fresh);
  RooflinePanel* p = w.panel<RooflinePanel>();
  for (const char* chip : {"H100", "TPU v5e"}) {
    ASSERT_TRUE(w.model()->edit(QStringLiteral("chip"), 1, [&](Scenario& s) { s.chip = chip; }));
    p->settleServing();
    const ScenarioServing in = scenario_serving(w.model()->scenario());
    const ServingView v = make_serving_view(in.model, in.inputs);
    ASSERT_TRUE(p->servingView().valid()) << p->servingView().error;
    if (v.search.best) {
      const LayoutCandidate& b = *v.search.best;
      EXPECT_EQ(text(p, "search_best"),
                QStringLiteral("%1 (%2), batch %3")
                    .arg(chips(b.chips), QString::fromStdString(describe(b.layout)))
                    .arg(b.max_batch))
          << chip;
      EXPECT_EQ(p->servingView().view.search.best->layout, b.layout) << chip;
    } else {
      EXPECT_EQ(text(p, "search_best"), QStringLiteral("none")) << chip << v.search.reason;
    }
  }
  // A budget at or below the overhead: none, and the reason.
  ASSERT_TRUE(w.model()->edit(QStringLiteral("b"), 1,
                              [](Scenario& s) { s.serving.latency_budget_seconds = 0.2; }));
  p->settleServing();
  EXPECT_EQ(text(p, "search_best"), QStringLiteral("none"));
  EXPECT_GT(p->servingView().view.chosen.memory.weights_bytes, 0);
}

TEST(RooflinePanel, ABaselineShowsChangesAndGhosts) {  // issue 13
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  const RooflineReadouts& r = p->readouts();
  Scenario a = w.model()->scenario();
  p->setBaseline(&a);
  EXPECT_EQ(r.grid()->deltaText(r.ridge), QStringLiteral("= baseline"));
  Scenario b = a;
  b.chip = "TPU v5e";
  b.serving.weight_dtype = Dtype::int8;
  ASSERT_TRUE(w.model()->replace(b, QStringLiteral("v5e int8")));
  EXPECT_FALSE(r.grid()->deltaText(r.ridge).isEmpty());
  EXPECT_NE(r.grid()->deltaText(r.ridge), QStringLiteral("= baseline"));
  EXPECT_TRUE(r.grid()->deltaText(r.weights).startsWith(QStringLiteral("\u2212")) ||
              r.grid()->deltaText(r.weights).startsWith(QStringLiteral("-")))
      << r.grid()->deltaText(r.weights).toStdString();
  p->settleServing();
  const ServingReadouts& sr = p->servingReadouts();
  EXPECT_FALSE(sr.grid()->deltaText(sr.weights).isEmpty());
  int ghosts = 0;
  for (PlotWidget* plot : p->plots()) {
    ghosts += plot->ghostCount();
    EXPECT_TRUE(plot->baselineVisible()) << plot->title().toStdString();
  }
  EXPECT_GE(ghosts, 12);
  // The roofline places plan A's operations too.
  EXPECT_TRUE(p->plots()[0]->dataCsv().contains(QStringLiteral("baseline decode")));
  p->setBaseline(nullptr);
  EXPECT_TRUE(r.grid()->deltaText(r.ridge).isEmpty());
  EXPECT_TRUE(sr.grid()->deltaText(sr.weights).isEmpty());
  for (PlotWidget* plot : p->plots()) EXPECT_FALSE(plot->baselineVisible());
}

TEST(RooflinePanel, UnreachableBudgetReadsNone) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  // A per-step floor of 10 ms × 128 decode tokens = 1.28 s > 1 s − 0.25 s: no slice meets it.
  press(p->control(QStringLiteral("step_floor"))->slider(), Qt::Key_End);
  EXPECT_FALSE(p->data().chips_for_budget.has_value());
  EXPECT_EQ(text(p, "chips_budget"), QStringLiteral("none (\u2264 65,536 chips)"));
  EXPECT_TRUE(text(p, "deploy").startsWith(QStringLiteral("none")));
  expectReadable(p, "floor");
  press(p->control(QStringLiteral("step_floor"))->slider(), Qt::Key_Home);
  EXPECT_TRUE(p->data().chips_for_budget.has_value());
  press(p->control(QStringLiteral("max_chips"))->slider(), Qt::Key_Home);
  EXPECT_EQ(text(p, "chips_budget"), QStringLiteral("none (\u2264 1 chip)"));
}

TEST(RooflinePanel, BudgetAtOrBelowOverheadIsStatedNotCrashed) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  press(p->control(QStringLiteral("budget"))->slider(), Qt::Key_Home);  // 0.05 s < 0.25 s
  EXPECT_EQ(text(p, "chips_budget"), QStringLiteral("none (budget \u2264 overhead)"));
  EXPECT_TRUE(p->message().contains(QStringLiteral("overhead")));
  EXPECT_TRUE(text(p, "ridge").endsWith(QStringLiteral("FLOP/B")));
  expectReadable(p, "budget below overhead");
  press(p->control(QStringLiteral("budget"))->slider(), Qt::Key_End);
  EXPECT_TRUE(p->message().isEmpty());
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "budget max");
}

TEST(RooflinePanel, NothingShowsNanInfOrEmptyAtSliderExtremes) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  for (SliderSpin* c : p->findChildren<SliderSpin*>()) {
    for (Qt::Key key : {Qt::Key_End, Qt::Key_Home, Qt::Key_End}) {
      press(c->slider(), key);
      const std::string where =
          c->objectName().toStdString() + (key == Qt::Key_End ? " max" : " min");
      expectReadable(p, where);
      expectBudgetReadoutsMatchModel(p, w.model()->scenario(), where);
    }
  }
  p->settleServing();
  expectReadable(p, "serving at the extremes");
  for (QComboBox* c : p->findChildren<QComboBox*>())
    for (Qt::Key key : {Qt::Key_End, Qt::Key_Home}) {
      pick(c, key);
      expectReadable(p, c->objectName().toStdString());
    }
}

TEST(RooflinePanel, OverlaysAndPlotsHaveData) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  QCheckBox* v5e = p->overlayBox(QStringLiteral("TPU v5e"));
  ASSERT_NE(v5e, nullptr);
  QTest::mouseClick(v5e, Qt::LeftButton, {}, QPoint(6, v5e->height() / 2));
  EXPECT_TRUE(v5e->isChecked());
  ASSERT_EQ(p->data().overlays.size(), 1u);
  EXPECT_FALSE(p->overlayBox(QStringLiteral("H100"))->isEnabled());  // the chosen chip
  p->settleServing();
  for (int tab = 0; tab < p->subTabs()->count(); ++tab) {
    p->subTabs()->setCurrentIndex(tab);
    QCoreApplication::processEvents();
  }
  for (PlotWidget* plot : p->plots())
    EXPECT_GT(plot->dataCsv().count(QLatin1Char('\n')), 2) << plot->title().toStdString();
  EXPECT_TRUE(p->plots()[0]->dataCsv().contains(QStringLiteral("TPU v5e")));
  EXPECT_EQ(p->data().latency.size(), 11u);      // 1 … 1024 chips
  EXPECT_EQ(p->data().decode_wall.size(), 11u);  // batch 1 … 1024
  for (const DecodeIntensityPoint& d : p->data().decode_wall)
    EXPECT_LT(d.intensity, p->data().ridge_flops_per_byte);
}

TEST(RooflinePanel, HoverOnAnOperationShowsFlopsBytesAndVerdict) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  p->subTabs()->setCurrentIndex(0);
  QCoreApplication::processEvents();
  PlotWidget* roof = p->plots()[0];
  roof->replot();
  const PlacedOperation& decode = p->data().operations[2];
  roof->hoverAt(QPointF(roof->xAxis->coordToPixel(decode.intensity),
                        roof->yAxis->coordToPixel(decode.attainable_flops_per_s)));
  const QString h = roof->hoverText();
  EXPECT_TRUE(h.contains(QStringLiteral("decode"))) << h.toStdString();
  EXPECT_TRUE(h.contains(QStringLiteral("FLOPs:"))) << h.toStdString();
  EXPECT_TRUE(h.contains(QStringLiteral("bytes:"))) << h.toStdString();
  EXPECT_TRUE(h.contains(QStringLiteral("memory-bound"))) << h.toStdString();
}

TEST(RooflinePanel, MfuSlidersMoveTheBudgetAndLever) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  press(p->control(QStringLiteral("comms_s"))->slider(), Qt::Key_End);  // 500 s of comms
  EXPECT_TRUE(text(p, "lever").startsWith(QStringLiteral("comms")));
  EXPECT_EQ(
      text(p, "mfu"),
      QString::fromStdString(format_percent(mfu_budget(w.model()->scenario().roofline.mfu).mfu)));
  for (const char* k : {"vector_s", "memory_s", "comms_s", "optimizer_s"})
    press(p->control(QString::fromLatin1(k))->slider(), Qt::Key_Home);
  EXPECT_EQ(text(p, "mfu"), QStringLiteral("100.0 %"));
  EXPECT_EQ(text(p, "lever"), QStringLiteral("none (pure matmul)"));
  EXPECT_TRUE(text(p, "hfu").startsWith(QStringLiteral("over 100 %")));
}

TEST(RooflinePanel, ServingControlsEditTheSharedScenario) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  press(p->control(QStringLiteral("batch"))->slider(), Qt::Key_End);
  EXPECT_EQ(w.model()->scenario().serving.batch, 1024);
  EXPECT_TRUE(text(p, "kv_share").endsWith(QStringLiteral("B=1,024")));
  press(p->control(QStringLiteral("prompt"))->slider(), Qt::Key_PageUp);
  EXPECT_GT(w.model()->scenario().serving.prompt_tokens, 8192);
  press(p->control(QStringLiteral("serving_chips"))->slider(), Qt::Key_PageUp);
  EXPECT_GT(w.model()->scenario().serving.chips, 8);
  pick(p->combo(QStringLiteral("layout")), Qt::Key_End);  // a split the user chose
  EXPECT_GT(w.model()->scenario().roofline.serving_layout.tp, 0);
  p->settleServing();
  EXPECT_FALSE(p->servingView().inputs.fastest_split);
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "serving");
}

// Saves a PNG of each sub-tab when NAPKIN_SHOTS names a directory (for looking, not asserting).
TEST(RooflinePanel, SubTabScreenshots) {
  const QString dir = qEnvironmentVariable("NAPKIN_SHOTS");
  if (dir.isEmpty()) GTEST_SKIP() << "set NAPKIN_SHOTS=/some/dir to save screenshots";
  MainWindow w(MainWindow::Session::fresh);
  const QString size = qEnvironmentVariable("NAPKIN_SHOTS_SIZE", QStringLiteral("1280x800"));
  w.resize(size.section(QLatin1Char('x'), 0, 0).toInt(), size.section(QLatin1Char('x'), 1).toInt());
  w.show();
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  if (qEnvironmentVariable("NAPKIN_SHOTS_VARIANT") == QLatin1String("baseline")) {
    Scenario a = w.model()->scenario();
    p->setBaseline(&a);
    w.model()->edit(QStringLiteral("v"), 1, [](Scenario& s) {
      s.chip = "TPU v5p";
      s.serving.weight_dtype = Dtype::int8;
    });
  }
  p->settleServing();
  for (int tab = 0; tab < p->subTabs()->count(); ++tab) {
    p->subTabs()->setCurrentIndex(tab);
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
    for (PlotWidget* plot : p->plots()) plot->replot(QCustomPlot::rpImmediateRefresh);
    const QString file =
        QDir(dir).filePath(QStringLiteral("roofline_%1_%2.png").arg(tab).arg(size));
    EXPECT_TRUE(w.grab().save(file)) << file.toStdString();
  }
}

// The Serving layout tab's latency-throughput frontier: the model's points
// for the chosen layout and engine, throughput rising and TPOT growing with
// the concurrency, and the P99-TTFT-limited request rate in the note.
TEST(RooflinePanel, ServingFrontierPlotsTheModelsFrontier) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  ASSERT_TRUE(w.model()->edit(QStringLiteral("engine"), 1, [](Scenario& s) {
    s.serving.engine = "vllm";
    s.serving.weight_dtype = Dtype::fp8;
    s.serving.prompt_tokens = 1024;  // a prompt whose P99 TTFT can meet 0.5 s
    s.serving.overhead_seconds = 0;
  }));
  p->subTabs()->setCurrentIndex(RooflinePanel::kServingTab);
  p->settleServing();
  QCoreApplication::processEvents();
  const ServingPanelView& v = p->servingView();
  ASSERT_TRUE(v.valid()) << v.error;
  const ServingFrontierView f =
      serving_frontier_view(scenario_serving(w.model()->scenario()),
                            w.model()->scenario().roofline.serving_layout.ttft_budget_seconds);
  ASSERT_GE(f.points.size(), 3u) << f.error;
  ASSERT_EQ(v.frontier.points.size(), f.points.size());
  for (std::size_t i = 0; i < f.points.size(); ++i) {
    EXPECT_DOUBLE_EQ(v.frontier.points[i].tpot_p50_seconds, f.points[i].tpot_p50_seconds);
    EXPECT_DOUBLE_EQ(v.frontier.points[i].output_tokens_per_second_per_chip,
                     f.points[i].output_tokens_per_second_per_chip);
  }
  EXPECT_GT(f.points.back().output_tokens_per_second_per_chip,
            f.points.front().output_tokens_per_second_per_chip);
  EXPECT_GT(f.points.back().tpot_p50_seconds, f.points.front().tpot_p50_seconds);
  EXPECT_GT(f.max_request_rate_per_second, 0);
  EXPECT_DOUBLE_EQ(v.frontier.max_request_rate_per_second, f.max_request_rate_per_second);

  // The serving-time bars stack a per-kernel engine's parts (GEMMs,
  // attention, element-wise, launches, communication) to the whole phase.
  PlotWidget* time_plot = p->findChild<PlotWidget*>(QStringLiteral("plot_serving_time"));
  ASSERT_NE(time_plot, nullptr);
  double prefill_share = 0, decode_share = 0;
  for (QCPBars* bars : time_plot->findChildren<QCPBars*>()) {
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
      (it->key < 0.5 ? prefill_share : decode_share) += it->value;
  }
  EXPECT_NEAR(prefill_share, 100.0, 0.5);
  EXPECT_NEAR(decode_share, 100.0, 0.5);

  PlotWidget* plot = p->findChild<PlotWidget*>(QStringLiteral("plot_serving_frontier"));
  ASSERT_NE(plot, nullptr);
  EXPECT_NE(std::find(p->plots().begin(), p->plots().end(), plot), p->plots().end());
  // One CSV row per point (after the header), no nan or inf.
  const QString csv = plot->dataCsv();
  EXPECT_GE(csv.count(QLatin1Char('\n')), static_cast<qsizetype>(f.points.size()));
  EXPECT_FALSE(csv.contains(QLatin1String("nan"), Qt::CaseInsensitive));
  EXPECT_FALSE(csv.contains(QLatin1String("inf"), Qt::CaseInsensitive));
  bool note = false;
  for (QCPItemText* t : plot->findChildren<QCPItemText*>())
    note = note || (t->text().contains(QStringLiteral("requests/s")) &&
                    t->text().contains(QStringLiteral("vllm")));
  EXPECT_TRUE(note);
}

// The tile side is a registered count: any side a file or a person gives
// (1 – 65,536 elements) is shown and used as given, not snapped to a list.
TEST(RooflinePanel, TheTileSideTakesAnySideAndShowsIt) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("tile.napkin.json"));
  Scenario s;
  s.roofline.tile = 100;
  save_scenario_file(s, path.toStdString());
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.openFile(path));
  w.showPanel(QStringLiteral("roofline"));
  RooflinePanel* p = w.panel<RooflinePanel>();
  p->subTabs()->setCurrentIndex(RooflinePanel::kCodesignTab);
  EXPECT_EQ(p->control(QStringLiteral("tile"))->value(), 100);
  const QLabel* note = p->findChild<QLabel*>(QStringLiteral("tile_note"));
  ASSERT_NE(note, nullptr);
  EXPECT_TRUE(note->text().contains(QStringLiteral("100-wide tile"))) << note->text().toStdString();
  typeInto(p->control(QStringLiteral("tile")), QStringLiteral("96"));
  EXPECT_EQ(w.model()->scenario().roofline.tile, 96);
  EXPECT_TRUE(note->text().contains(QStringLiteral("96-wide tile")));
}
