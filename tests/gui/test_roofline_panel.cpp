// The Roofline panel driven like a user: sliders, combos, the shared
// scenario; the read-outs must equal the model's numbers.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QLabel>
#include <QRegularExpression>
#include <QSlider>
#include <QTabWidget>
#include <QTest>
#include <QUndoStack>

#include "MainWindow.h"
#include "PlotWidget.h"
#include "RooflinePanel.h"
#include "SliderSpin.h"
#include "format.h"
#include "hardware.h"
#include "roofline.h"

using namespace napkin;

namespace {

QString text(RooflinePanel* p, const char* key) {
  QLabel* l = p->readout(QString::fromLatin1(key));
  EXPECT_NE(l, nullptr) << key;
  return l ? l->text() : QString();
}

QString chips(std::int64_t n) {
  return QString::fromStdString(format_grouped(n)) +
         (n == 1 ? QStringLiteral(" chip") : QStringLiteral(" chips"));
}

// The turn the panel computes, rebuilt from the shared scenario and the
// panel's local inputs through the library's own roofline_panel() inputs.
TurnInputs turnFor(const RooflinePanel* p, const Scenario& s) {
  const RooflineScenario sc = p->rooflineScenario();
  TurnInputs t = sc.turn;
  const ParamCount n = count_params(s.shape);
  t.chip = s.chip;
  t.n_params = static_cast<double>(n.active);
  t.n_resident_params = static_cast<double>(n.total);
  t.prefill_tokens = s.serving.prompt_tokens;
  t.batch = s.serving.batch;
  t.bytes_per_param = s.serving.bytes_per_param();
  t.kv_bytes_per_request = kv_cache_bytes(s.shape.n_layers, s.shape.n_kv_heads, s.shape.d_head,
                                          s.serving.context_len, 1, 2);
  return t;
}

void expectBudgetReadoutsMatchModel(RooflinePanel* p, const Scenario& s, const std::string& where) {
  const TurnInputs t = turnFor(p, s);
  EXPECT_EQ(t.budget_seconds, s.serving.latency_budget_seconds) << where;
  EXPECT_EQ(text(p, "chips_hold"),
            chips(chips_to_hold_weights(t)) + QStringLiteral(" (") +
                QString::fromStdString(format_bytes(
                    static_cast<double>(count_params(s.shape).total) * s.serving.bytes_per_param())) +
                QStringLiteral(")"))
      << where;
  if (t.budget_seconds <= t.overhead_seconds) {
    EXPECT_TRUE(text(p, "chips_budget").startsWith(QStringLiteral("none"))) << where;
    return;
  }
  const std::optional<std::int64_t> need = chips_for_latency_budget(t);
  if (need)
    EXPECT_EQ(text(p, "chips_budget"), chips(*need)) << where;
  else
    EXPECT_TRUE(text(p, "chips_budget").startsWith(QStringLiteral("none"))) << where;
}

void expectReadable(RooflinePanel* p, const std::string& where) {
  for (const QString& t : p->readoutTexts()) {
    EXPECT_FALSE(t.contains(QLatin1String("nan"), Qt::CaseInsensitive))
        << where << ": " << t.toStdString();
    EXPECT_FALSE(t.contains(QLatin1String("inf"), Qt::CaseSensitive))
        << where << ": " << t.toStdString();
    EXPECT_FALSE(t.contains(QStringLiteral("\u2014"))) << where << ": " << t.toStdString();
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

}  // namespace

TEST(RooflinePanel, IsBuiltAndHasEightPlots) {
  EXPECT_TRUE(RooflinePanel::isBuilt());
  EXPECT_TRUE(RooflinePanel::helpText().contains(QStringLiteral("ridge")));
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_NE(w.panel<RooflinePanel>(), nullptr);
  EXPECT_EQ(w.panel<RooflinePanel>()->plots().size(), 8u);
  EXPECT_EQ(w.panel<RooflinePanel>()->subTabs()->count(), 4);
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
  EXPECT_TRUE(text(p, "lever").startsWith(QStringLiteral("memory")))
      << text(p, "lever").toStdString();
  EXPECT_TRUE(text(p, "hfu").startsWith(QStringLiteral("47.6 %"))) << text(p, "hfu").toStdString();
  // Decode and prefill verdicts are the placed operations'.
  OperationSetting ops;
  ops.prompt_tokens = s.serving.prompt_tokens;
  ops.decode_batch = s.serving.batch;
  ops.context_tokens = s.serving.context_len;
  ops.bytes_per_param = s.serving.bytes_per_param();
  const auto placed = place_operations(chip, s.shape, ops);
  ASSERT_EQ(placed.size(), 5u);
  EXPECT_EQ(placed[2].name, "decode");
  EXPECT_TRUE(text(p, "decode").endsWith(QStringLiteral("memory-bound")));
  EXPECT_TRUE(
      text(p, "decode").startsWith(QString::fromStdString(format_grouped(placed[2].intensity, 1))));
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
    s.serving.prompt_tokens = 8192;
    s.serving.decode_tokens = 128;
    s.serving.latency_budget_seconds = 1.0;
    s.serving.overhead_seconds = 0.25;
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
  EXPECT_DOUBLE_EQ(p->data().ridge_flops_per_byte,
                   ridge_point_flops_per_byte(chip_by_name("TPU v5e")));
  EXPECT_EQ(p->combo(QStringLiteral("chip"))->currentText(), QStringLiteral("TPU v5e"));
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "v5e");
  // The panel's own chip combo edits the shared scenario.
  w.show();
  w.showPanel(QStringLiteral("roofline"));  // the user is on this panel
  QComboBox* combo = p->combo(QStringLiteral("chip"));
  combo->setFocus();
  QTest::keyClick(combo, Qt::Key_Home);
  EXPECT_EQ(w.model()->scenario().chip, std::string(hardware_table().front().name));
  EXPECT_DOUBLE_EQ(p->data().ridge_flops_per_byte,
                   ridge_point_flops_per_byte(hardware_table().front()));
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "first chip");
  w.model()->undoStack()->undo();
  EXPECT_EQ(w.model()->scenario().chip, "TPU v5e");
  EXPECT_EQ(combo->currentText(), QStringLiteral("TPU v5e"));
}

TEST(RooflinePanel, DraggingTheLatencyBudgetChangesChipsNeeded) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));  // the user is on this panel
  RooflinePanel* p = w.panel<RooflinePanel>();
  ASSERT_TRUE(w.model()->edit(QStringLiteral("v5e"), 1, [](Scenario& s) { s.chip = "TPU v5e"; }));
  QSlider* slider = p->control(QStringLiteral("budget"))->slider();
  const QString before = text(p, "chips_budget");
  const int steps_before = w.model()->undoStack()->count();
  slider->setSliderDown(true);
  for (int i = 1; i <= 20; ++i)
    slider->setValue(slider->value() + 20);  // a drag to a larger budget
  slider->setSliderDown(false);
  EXPECT_EQ(w.model()->undoStack()->count(), steps_before + 1);  // one drag, one undo step
  EXPECT_GT(w.model()->scenario().serving.latency_budget_seconds, 1.0);
  EXPECT_NE(text(p, "chips_budget"), before);
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "after drag");
  // A tighter budget needs more chips than a looser one.
  press(slider, Qt::Key_End);
  const std::int64_t loose = p->data().chips_for_budget.value_or(-1);
  ASSERT_TRUE(w.model()->edit(QStringLiteral("b"), 1,
                              [](Scenario& s) { s.serving.latency_budget_seconds = 0.4; }));
  const std::int64_t tight = p->data().chips_for_budget.value_or(-1);
  EXPECT_GT(tight, loose);
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "tight");
}

TEST(RooflinePanel, UnreachableBudgetReadsNone) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));  // the user is on this panel
  RooflinePanel* p = w.panel<RooflinePanel>();
  // A per-step floor of 10 ms × 128 decode tokens = 1.28 s > 1 s − 0.25 s: no slice meets it.
  press(p->control(QStringLiteral("step_floor"))->slider(), Qt::Key_End);
  EXPECT_FALSE(p->data().chips_for_budget.has_value());
  EXPECT_EQ(text(p, "chips_budget"), QStringLiteral("none (\u2264 65,536 chips)"));
  EXPECT_TRUE(text(p, "deploy").startsWith(QStringLiteral("none")));
  EXPECT_FALSE(text(p, "chips_budget").contains(QRegularExpression(QStringLiteral("^[0-9]"))));
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "floor");
  expectReadable(p, "floor");
  press(p->control(QStringLiteral("step_floor"))->slider(), Qt::Key_Home);
  EXPECT_TRUE(p->data().chips_for_budget.has_value());
  // The largest slice at one chip: a 70B model cannot meet 1 s on one chip.
  press(p->control(QStringLiteral("max_chips"))->slider(), Qt::Key_Home);
  EXPECT_EQ(text(p, "chips_budget"), QStringLiteral("none (\u2264 1 chip)"));
}

TEST(RooflinePanel, BudgetAtOrBelowOverheadIsStatedNotCrashed) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));  // the user is on this panel
  RooflinePanel* p = w.panel<RooflinePanel>();
  press(p->control(QStringLiteral("budget"))->slider(), Qt::Key_Home);  // 0.05 s < 0.25 s overhead
  EXPECT_EQ(text(p, "chips_budget"), QStringLiteral("none (budget \u2264 overhead)"));
  EXPECT_TRUE(p->message().contains(QStringLiteral("overhead")));
  EXPECT_TRUE(text(p, "ridge").endsWith(QStringLiteral("FLOP/B")));  // the rest still computes
  expectReadable(p, "budget below overhead");
  press(p->control(QStringLiteral("budget"))->slider(), Qt::Key_End);
  EXPECT_TRUE(p->message().isEmpty());
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "budget max");
}

TEST(RooflinePanel, NothingShowsNanInfOrEmptyAtSliderExtremes) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));  // the user is on this panel
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
  for (QComboBox* c : p->findChildren<QComboBox*>()) {
    for (Qt::Key key : {Qt::Key_End, Qt::Key_Home}) {
      c->setFocus();
      QTest::keyClick(c, key);
      expectReadable(p, c->objectName().toStdString());
    }
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
  QCoreApplication::processEvents();
  for (int tab = 0; tab < p->subTabs()->count(); ++tab) {
    p->subTabs()->setCurrentIndex(tab);
    QCoreApplication::processEvents();
  }
  for (PlotWidget* plot : p->plots()) {
    EXPECT_GT(plot->dataCsv().count(QLatin1Char('\n')), 3) << plot->title().toStdString();
  }
  EXPECT_TRUE(p->plots()[0]->dataCsv().contains(QStringLiteral("TPU v5e")));
  EXPECT_EQ(p->data().operations.size(), 5u);
  EXPECT_EQ(p->data().latency.size(), 11u);      // 1 … 1024 chips
  EXPECT_EQ(p->data().decode_wall.size(), 11u);  // batch 1 … 1024
  // The decode wall approaches the ridge and never reaches it.
  for (const DecodeIntensityPoint& d : p->data().decode_wall)
    EXPECT_LT(d.intensity, p->data().ridge_flops_per_byte);
}

TEST(RooflinePanel, HoverOnAnOperationShowsFlopsBytesIntensityAndAttainable) {
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
  EXPECT_TRUE(h.contains(QStringLiteral("intensity"))) << h.toStdString();
  EXPECT_TRUE(h.contains(QStringLiteral("attainable FLOP/s"))) << h.toStdString();
  EXPECT_TRUE(h.contains(QStringLiteral("memory-bound"))) << h.toStdString();
}

TEST(RooflinePanel, MfuSlidersMoveTheBudgetAndLever) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));  // the user is on this panel
  RooflinePanel* p = w.panel<RooflinePanel>();
  press(p->control(QStringLiteral("comms_s"))->slider(), Qt::Key_End);  // 500 s of comms
  EXPECT_TRUE(text(p, "lever").startsWith(QStringLiteral("comms")));
  MfuBudgetInputs in = p->local().mfu;
  EXPECT_EQ(text(p, "mfu"), QString::fromStdString(format_percent(mfu_budget(in).mfu)));
  for (const char* k : {"vector_s", "memory_s", "comms_s", "optimizer_s"})
    press(p->control(QString::fromLatin1(k))->slider(), Qt::Key_Home);
  EXPECT_EQ(text(p, "mfu"), QStringLiteral("100.0 %"));  // a pure matmul loop
  EXPECT_EQ(text(p, "lever"), QStringLiteral("none (pure matmul)"));
  EXPECT_TRUE(text(p, "hfu").startsWith(QStringLiteral("over 100 %")));
}

TEST(RooflinePanel, ServingControlsEditTheSharedScenario) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("roofline"));  // the user is on this panel
  RooflinePanel* p = w.panel<RooflinePanel>();
  press(p->control(QStringLiteral("batch"))->slider(), Qt::Key_End);
  EXPECT_EQ(w.model()->scenario().serving.batch, 1024);
  EXPECT_TRUE(text(p, "kv_share").endsWith(QStringLiteral("B=1,024")));
  press(p->control(QStringLiteral("prompt"))->slider(), Qt::Key_PageUp);
  EXPECT_GT(w.model()->scenario().serving.prompt_tokens, 8192);
  QComboBox* prec = p->combo(QStringLiteral("precision"));
  prec->setFocus();
  QTest::keyClick(prec, Qt::Key_End);  // int4
  EXPECT_EQ(w.model()->scenario().serving.weight_dtype, Dtype::int4);
  expectBudgetReadoutsMatchModel(p, w.model()->scenario(), "int4");
}

// Saves a PNG of each sub-tab when NAPKIN_SHOTS names a directory (for looking, not asserting).
TEST(RooflinePanel, SubTabScreenshots) {
  const QString dir = qEnvironmentVariable("NAPKIN_SHOTS");
  if (dir.isEmpty()) GTEST_SKIP() << "set NAPKIN_SHOTS=/some/dir to save screenshots";
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  const QString variant = qEnvironmentVariable("NAPKIN_SHOTS_VARIANT");
  if (variant == QLatin1String("v5e"))
    w.model()->edit(QStringLiteral("v"), 1, [](Scenario& s) {
      s.chip = "TPU v5e";
      s.serving.batch = 1;
    });
  if (variant == QLatin1String("extreme")) {
    press(p->control(QStringLiteral("step_floor"))->slider(), Qt::Key_End);
    press(p->control(QStringLiteral("batch"))->slider(), Qt::Key_End);
    press(p->control(QStringLiteral("context"))->slider(), Qt::Key_End);
    press(p->control(QStringLiteral("prompt"))->slider(), Qt::Key_Home);
    for (const Chip& c : hardware_table()) {
      QCheckBox* b =
          p->overlayBox(QString::fromUtf8(c.name.data(), static_cast<qsizetype>(c.name.size())));
      if (b->isEnabled()) b->setChecked(true);
    }
  }
  if (variant == QLatin1String("impossible"))
    press(p->control(QStringLiteral("budget"))->slider(), Qt::Key_Home);
  for (int tab = 0; tab < p->subTabs()->count(); ++tab) {
    p->subTabs()->setCurrentIndex(tab);
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
    for (PlotWidget* plot : p->plots()) plot->replot(QCustomPlot::rpImmediateRefresh);
    const QString file =
        QDir(dir).filePath(QStringLiteral("roofline_%1%2.png").arg(tab).arg(variant));
    EXPECT_TRUE(w.grab().save(file)) << file.toStdString();
  }
}
