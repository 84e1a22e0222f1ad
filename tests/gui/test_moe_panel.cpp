// The MoE router panel on the kit: the animation (play, pause, step, reset,
// scrub), controls bound to the scenario's MoeSettings (one undo step per
// change, saved with the scenario), the one health rule with its thresholds
// in the verdict's tooltip, integer expert ticks, and a pinned baseline.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QFile>
#include <QLabel>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>
#include <QUndoStack>
#include <cmath>

#include "PlotWidget.h"
#include "ReadoutGrid.h"
#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "format.h"
#include "moe.h"
#include "moe/MoePanel.h"
#include "moe/MoeRun.h"
#include "moe/MoeTransport.h"
#include "moe_health.h"
#include "scenario.h"
#include "shell/MainWindow.h"

using napkin::MainWindow;
using napkin::MoePanel;

namespace {

// Types a value into a control's spin box and presses Enter: a real user edit.
void type(napkin::SliderSpin* s, double v) {
  auto* spin = s->spinBox();
  spin->setFocus();
  spin->selectAll();
  QTest::keyClicks(spin, QString::number(v, 'g', 8));
  QTest::keyClick(spin, Qt::Key_Enter);
}

void click(QAbstractButton* b) { QTest::mouseClick(b, Qt::LeftButton); }

void setAlphaZero(MoePanel* p, bool zero) {
  QCheckBox* c = p->controls().aux_zero;
  if (c->isChecked() != zero) QTest::mouseClick(c, Qt::LeftButton, {}, QPoint(6, c->height() / 2));
  ASSERT_EQ(c->isChecked(), zero);
}

std::int64_t deadCount(MoePanel* p) {
  std::int64_t n = 0;
  for (bool d : p->deadBars()) n += d ? 1 : 0;
  return n;
}

double maxOverMean(MoePanel* p) {
  double m = 0;
  for (double x : p->barValues()) m = std::max(m, x);  // routed ÷ fair share
  return m;
}

QLabel* value(MoePanel* p, napkin::ReadoutGrid::Row row) {
  return p->readouts().grid()->valueLabel(row);
}
QString text(MoePanel* p, napkin::ReadoutGrid::Row row) { return p->readouts().text(row); }

void expectClean(MoePanel* p) {
  for (const QString& t : p->readoutTexts()) {
    EXPECT_FALSE(t.contains(QStringLiteral("nan"), Qt::CaseInsensitive)) << t.toStdString();
    EXPECT_FALSE(t.contains(QStringLiteral("inf"), Qt::CaseInsensitive)) << t.toStdString();
    EXPECT_FALSE(t.trimmed().endsWith(QLatin1Char(':'))) << "empty: " << t.toStdString();
  }
}

// Ticks the axis draws (the ticker's labels over its current range).
std::vector<double> ticks(QCPAxis* axis) {
  QVector<double> t;
  QVector<double> sub;
  QVector<QString> labels;
  axis->ticker()->generate(axis->range(), QLocale(), QLatin1Char('g'), 6, t, &sub, &labels);
  return {t.begin(), t.end()};
}

}  // namespace

TEST(MoePanel, StartsWithTheRunOfRecord) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  EXPECT_EQ(p->run()->currentStep(), w.model()->scenario().moe.steps);
  EXPECT_EQ(p->run()->shownStep(), p->run()->currentStep());
  EXPECT_EQ(p->plots().size(), 6u);
  expectClean(p);
}

TEST(MoePanel, PlayAdvancesPauseStops) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  w.showPanel(QStringLiteral("moe"));
  MoePanel* p = w.panel<MoePanel>();
  const std::int64_t before = p->run()->currentStep();
  click(p->transport()->play);
  EXPECT_TRUE(p->run()->isPlaying());
  QTRY_VERIFY(p->run()->currentStep() > before);  // the timer drives the run
  click(p->transport()->pause);
  EXPECT_FALSE(p->run()->isPlaying());
  const std::int64_t paused = p->run()->currentStep();
  QTest::qWait(50);
  EXPECT_EQ(p->run()->currentStep(), paused);
  // Playing is view state: nothing went on the undo stack.
  EXPECT_EQ(w.model()->undoStack()->count(), 0);
}

TEST(MoePanel, HiddenPanelDoesNotAnimate) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();  // never shown
  const std::int64_t before = p->run()->currentStep();
  p->run()->play();
  QTest::qWait(50);
  EXPECT_EQ(p->run()->currentStep(), before);
  p->run()->pause();
}

TEST(MoePanel, SingleStepAndReset) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  const std::int64_t before = p->run()->currentStep();
  click(p->transport()->step);
  EXPECT_EQ(p->run()->currentStep(), before + 1);
  EXPECT_EQ(p->run()->shownStep(), before + 1);
  click(p->transport()->reset);
  EXPECT_EQ(p->run()->currentStep(), 0);
  EXPECT_TRUE(p->transport()->stepLabel->text().contains(QStringLiteral("step 0")));
  EXPECT_EQ(text(p, p->readouts().verdict), QStringLiteral("not started"));
  expectClean(p);
}

TEST(MoePanel, AlphaZeroCollapsesAlphaOnePercentDoesNot) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  setAlphaZero(p, true);
  click(p->transport()->reset);
  p->run()->advance(600);
  EXPECT_GT(maxOverMean(p), 3.0);
  EXPECT_GE(deadCount(p), 1);
  EXPECT_EQ(text(p, p->readouts().verdict), QStringLiteral("COLLAPSED"));

  setAlphaZero(p, false);  // α back to the slider's 0.01
  EXPECT_DOUBLE_EQ(p->run()->params().aux_weight, 0.01);
  click(p->transport()->reset);
  p->run()->advance(600);
  EXPECT_LT(p->run()->simulation().current().recent_max_over_mean, 1.1);
  EXPECT_LT(maxOverMean(p), 2.0);
  EXPECT_EQ(deadCount(p), 0);
  EXPECT_EQ(text(p, p->readouts().verdict), QStringLiteral("healthy"));
}

TEST(MoePanel, ChangingExpertsRestartsAndSaysSo) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  ASSERT_GT(p->run()->currentStep(), 0);
  type(p->controls().experts, 16);
  EXPECT_EQ(w.model()->scenario().moe.n_experts, 16);
  EXPECT_EQ(p->run()->params().n_experts, 16);
  EXPECT_EQ(p->run()->currentStep(), 0);
  const QString s = p->transport()->statusLabel->text();
  EXPECT_TRUE(s.contains(QStringLiteral("Restarted"))) << s.toStdString();
  EXPECT_TRUE(s.contains(QStringLiteral("E = 16"))) << s.toStdString();
  p->run()->advance(3);
  EXPECT_EQ(p->barValues().size(), 16u);
}

// Past the slider's 256 experts, inside the registry's 1,024: taken, and a
// capacity of one slot is said in the singular.
TEST(MoePanel, ATypedExpertCountBeyondTheSliderIsTaken) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  type(p->controls().experts, 512);
  EXPECT_EQ(w.model()->scenario().moe.n_experts, 512);
  EXPECT_EQ(text(p, p->readouts().capacity), QStringLiteral("1 slot"));
  type(p->controls().experts, 2048);  // beyond: refused, the 512 kept
  EXPECT_EQ(w.model()->scenario().moe.n_experts, 512);
}

TEST(MoePanel, ChangingAlphaContinuesAndSaysSo) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  const std::int64_t at = p->run()->currentStep();
  setAlphaZero(p, false);
  EXPECT_EQ(p->run()->currentStep(), at);
  const QString s = p->transport()->statusLabel->text();
  EXPECT_TRUE(s.contains(QStringLiteral("Continuing from step %1").arg(at))) << s.toStdString();
  EXPECT_TRUE(s.contains(QStringLiteral("α = 0.01"))) << s.toStdString();
  type(p->controls().aux, 0.05);
  EXPECT_DOUBLE_EQ(p->run()->params().aux_weight, 0.05);
  EXPECT_TRUE(p->transport()->statusLabel->text().contains(QStringLiteral("α = 0.05")));
  p->run()->advance(1);
  EXPECT_EQ(p->run()->currentStep(), at + 1);
}

TEST(MoePanel, ScrubbingShowsAPastStep) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  click(p->transport()->reset);
  p->run()->advance(50);
  QSlider* scrub = p->transport()->scrub;
  EXPECT_EQ(scrub->maximum(), 50);
  scrub->setValue(10);
  EXPECT_EQ(p->run()->shownStep(), 10);
  const napkin::StepStats& past = p->run()->simulation().history()[9];
  const auto bars = p->barValues();
  const double fair = 256.0 * 2.0 / static_cast<double>(past.routed.size());
  for (std::size_t e = 0; e < bars.size(); ++e)
    EXPECT_NEAR(bars[e], static_cast<double>(past.routed[e]) / fair, 1e-12);
  EXPECT_TRUE(p->transport()->stepLabel->text().contains(QStringLiteral("step 10 of 50")));
  p->run()->advance(5);  // the run goes on; the view stays on the scrubbed step
  EXPECT_EQ(p->run()->currentStep(), 55);
  EXPECT_EQ(p->run()->shownStep(), 10);
  click(p->transport()->live);
  EXPECT_EQ(p->run()->shownStep(), 55);
}

TEST(MoePanel, ParametersEqualModelForMixtral) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  EXPECT_TRUE(p->paramsNote()->text().contains(QStringLiteral("dense")));
  napkin::Scenario s = w.model()->scenario();
  for (const napkin::ModelPreset& m : napkin::model_presets())
    if (m.name == "Mixtral-8x7B") {
      s.shape = m.shape;
      s.model_name = std::string(m.name);
    }
  ASSERT_TRUE(s.shape.is_moe());
  ASSERT_TRUE(w.model()->replace(s, QStringLiteral("Mixtral")));
  const napkin::MoeModelParams mp = napkin::moe_model_params(s.shape);
  const auto& r = p->readouts();
  EXPECT_EQ(text(p, r.total),
            QString::fromStdString(napkin::format_count(static_cast<double>(mp.count.total), 2)));
  EXPECT_EQ(text(p, r.active),
            QString::fromStdString(napkin::format_count(static_cast<double>(mp.count.active), 2)));
  EXPECT_TRUE(
      text(p, r.sparsity)
          .startsWith(QString::fromStdString(napkin::format_grouped(mp.sparsity_ratio, 2))));
  EXPECT_EQ(text(p, r.total_bytes),
            QString::fromStdString(napkin::format_bytes(static_cast<double>(mp.total_bytes))));
  EXPECT_TRUE(p->paramsNote()->text().contains(QStringLiteral("Active for FLOPs")));
}

TEST(MoePanel, PipelineUtilizationIsMOverMPlusSMinusOne) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  EXPECT_TRUE(text(p, p->readouts().utilization).contains(QStringLiteral("8/11")));
  type(p->controls().chunks, 12);
  type(p->controls().stages, 6);
  const QString u = text(p, p->readouts().utilization);
  EXPECT_TRUE(u.startsWith(QString::fromStdString(napkin::format_percent(12.0 / 17.0))))
      << u.toStdString();
  EXPECT_TRUE(u.contains(QStringLiteral("12/17")));
}

TEST(MoePanel, CsvExportHasHeaderAndOneRowPerStep) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  click(p->transport()->reset);
  p->run()->advance(25);
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("trace.csv"));
  ASSERT_TRUE(p->run()->exportCsv(path));
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QStringList lines =
      QString::fromUtf8(f.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), 2 + 25);  // comment, header, rows
  EXPECT_TRUE(lines[1].startsWith(QStringLiteral("step,max_over_mean,")));
  EXPECT_TRUE(lines[2].startsWith(QStringLiteral("1,")));
  EXPECT_TRUE(lines.back().startsWith(QStringLiteral("25,")));
}

TEST(MoePanel, NoNanAtSliderExtremes) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  const auto& c = p->controls();
  for (napkin::SliderSpin* s :
       {c.experts, c.tokens, c.top_k, c.aux, c.z, c.capacity_factor, c.lr, c.prefill, c.link,
        c.latency, c.chunks, c.stages, c.compute_ms, c.transfer_ms, c.seed}) {
    for (int pos : {s->slider()->minimum(), s->slider()->maximum()}) {
      s->slider()->setValue(pos);
      p->run()->advance(2);
      expectClean(p);
      for (double v : p->barValues())
        EXPECT_TRUE(std::isfinite(v)) << s->objectName().toStdString();
    }
  }
  c.z_zero->setChecked(true);
  c.shared->setChecked(true);
  c.renormalize->setChecked(false);
  p->run()->advance(3);
  expectClean(p);
}

// Issue 12 item 6: the run settings are part of the scenario: one undo step
// per change, saved and reopened with it.
TEST(MoePanel, SliderChangeIsOneUndoStepAndRoundTripsThroughSaveAndOpen) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("moe.napkin.json"));
  {
    MainWindow w(MainWindow::Session::fresh);
    w.resize(1280, 800);
    w.show();
    w.showPanel(QStringLiteral("moe"));
    MoePanel* p = w.panel<MoePanel>();
    QUndoStack* undo = w.model()->undoStack();
    const int before = undo->count();
    // A drag across the capacity-factor slider: many moves, one step.
    QSlider* cf = p->controls().capacity_factor->slider();
    cf->setSliderDown(true);
    for (int i = 1; i <= 10; ++i) cf->setValue(cf->minimum() + i * 3);
    cf->setSliderDown(false);
    EXPECT_EQ(undo->count(), before + 1);
    const double dragged = w.model()->scenario().moe.capacity_factor;
    EXPECT_NE(dragged, 1.25);
    EXPECT_NEAR(dragged * 20, std::round(dragged * 20), 1e-9);  // on the 0.05 ladder
    EXPECT_DOUBLE_EQ(p->run()->params().capacity_factor, dragged);
    type(p->controls().top_k, 3);
    EXPECT_EQ(undo->count(), before + 2);
    setAlphaZero(p, false);
    EXPECT_EQ(undo->count(), before + 3);
    EXPECT_TRUE(w.model()->scenario().moe.aux_on);
    undo->undo();
    EXPECT_FALSE(w.model()->scenario().moe.aux_on);
    EXPECT_TRUE(p->controls().aux_zero->isChecked());
    EXPECT_EQ(p->run()->params().aux_weight, 0.0);
    undo->redo();
    ASSERT_TRUE(w.saveTo(path));
  }
  MainWindow w2(MainWindow::Session::fresh);
  ASSERT_TRUE(w2.openFile(path));
  const napkin::MoeSettings& m = w2.model()->scenario().moe;
  EXPECT_EQ(m.top_k, 3);
  EXPECT_TRUE(m.aux_on);
  EXPECT_NE(m.capacity_factor, 1.25);
  MoePanel* p2 = w2.panel<MoePanel>();
  EXPECT_EQ(p2->controls().top_k->value(), 3);
  EXPECT_FALSE(p2->controls().aux_zero->isChecked());
  EXPECT_DOUBLE_EQ(p2->controls().capacity_factor->value(), m.capacity_factor);
  EXPECT_EQ(p2->run()->params().top_k, 3);
  // The file alone gives the same run: its run of record, replayed from step 0.
  EXPECT_EQ(p2->run()->currentStep(), m.steps);
  const napkin::MoeRunOfRecord record = napkin::make_moe_run_of_record(w2.model()->scenario());
  EXPECT_EQ(p2->run()->simulation().current().routed, record.history.back().routed);
  EXPECT_EQ(text(p2, p2->readouts().drop),
            QString::fromStdString(napkin::format_percent(record.history.back().drop_rate)));
}

TEST(MoePanel, SlidersLandOnValuesAPersonWouldType) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  QSlider* e = p->controls().experts->slider();
  for (int pos = e->minimum(); pos <= e->maximum(); ++pos) {
    e->setValue(pos);
    const auto n = w.model()->scenario().moe.n_experts;
    EXPECT_EQ(n & (n - 1), 0) << n;  // a power of two
  }
  QSlider* link = p->controls().link->slider();
  link->setValue((link->minimum() + link->maximum()) / 3);
  const double gbps = w.model()->scenario().moe.link_gbps;
  const double mant = gbps / std::pow(10.0, std::floor(std::log10(gbps)));
  EXPECT_TRUE(std::abs(mant - 1) < 1e-9 || std::abs(mant - 2) < 1e-9 || std::abs(mant - 5) < 1e-9 ||
              gbps == 3600)
      << gbps;
}

// Issue 12 item 11: "healthy" at heavy drops. The verdict is the model's one
// rule (moe_health); its thresholds are in the tooltip.
TEST(MoePanel, VerdictAtACollapsedSettingWithThresholdsInTheTooltip) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  setAlphaZero(p, true);
  click(p->transport()->reset);
  QLabel* verdict = value(p, p->readouts().verdict);
  EXPECT_TRUE(verdict->toolTip().contains(QStringLiteral("25.0 %")))
      << verdict->toolTip().toStdString();
  EXPECT_TRUE(verdict->toolTip().contains(QStringLiteral("2.00 ×")));
  int unhealthy_under_old_rule = 0;
  for (int i = 0; i < 400; ++i) {
    p->run()->advance(1);
    const napkin::StepStats& s = p->run()->simulation().current();
    const napkin::MoeHealth h = napkin::moe_health(s);
    const QString want = h.verdict == napkin::MoeVerdict::collapsed  ? QStringLiteral("COLLAPSED")
                         : h.verdict == napkin::MoeVerdict::strained ? QStringLiteral("STRAINED")
                                                                     : QStringLiteral("healthy");
    ASSERT_EQ(verdict->text(), want) << "step " << s.step;
    if (s.drop_rate >= 0.30 || s.recent_max_over_mean >= 3.0) {
      ASSERT_NE(verdict->text(), QStringLiteral("healthy")) << "step " << s.step;
    }
    const bool old_collapsed = s.recent_max_over_mean > 3 || s.dead_experts > 0;
    if (!old_collapsed && s.drop_rate >= 0.10) {
      ++unhealthy_under_old_rule;
      EXPECT_NE(verdict->text(), QStringLiteral("healthy")) << "step " << s.step;
      EXPECT_TRUE(verdict->toolTip().contains(QStringLiteral("of slots dropped")))
          << verdict->toolTip().toStdString();
    }
  }
  EXPECT_GT(unhealthy_under_old_rule, 0);
  EXPECT_EQ(verdict->text(), QStringLiteral("COLLAPSED"));
  EXPECT_EQ(p->readouts().grid()->readout(p->readouts().verdict).tone, napkin::Tone::fail);
  // The tooltip: why (the reasons) and the rule (every threshold).
  EXPECT_TRUE(verdict->toolTip().contains(QStringLiteral("Strained")));
  EXPECT_TRUE(verdict->toolTip().contains(QStringLiteral("About:")));
}

// Issue 12 item 12: the expert axes have ticks at whole numbers only.
TEST(MoePanel, ExpertAxesHaveIntegerTicks) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  w.showPanel(QStringLiteral("moe"));
  MoePanel* p = w.panel<MoePanel>();
  for (double e : {8.0, 4.0, 2.0, 16.0}) {
    type(p->controls().experts, e);
    p->run()->advance(2);
    for (const char* key : {"plot_bars", "plot_buffers"}) {
      auto* plot = p->findChild<napkin::PlotWidget*>(QString::fromLatin1(key));
      ASSERT_NE(plot, nullptr);
      plot->replot();
      const auto t = ticks(plot->xAxis);
      ASSERT_FALSE(t.empty());
      for (double x : t) EXPECT_EQ(x, std::round(x)) << key << " E=" << e << " tick " << x;
    }
  }
  auto* gantt = p->findChild<napkin::PlotWidget*>(QStringLiteral("plot_gantt"));
  for (double y : ticks(gantt->yAxis)) EXPECT_EQ(y, std::round(y));
}

// Issue 13: a pinned baseline shows deltas and ghosts; unpinning clears them.
TEST(MoePanel, BaselineDeltasAppearAndVanish) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  w.showPanel(QStringLiteral("moe"));
  MoePanel* p = w.panel<MoePanel>();
  const napkin::ReadoutGrid* g = p->readouts().grid();
  const napkin::Scenario a = w.model()->scenario();
  p->setBaseline(&a);
  p->waitForBaseline();
  ASSERT_NE(p->baseline(), nullptr);
  EXPECT_EQ(p->baseline()->history.size(), static_cast<std::size_t>(a.moe.steps));
  for (napkin::PlotWidget* pl : p->plots()) {
    EXPECT_GT(pl->ghostCount(), 0) << pl->title().toStdString();
    EXPECT_TRUE(pl->baselineVisible());
  }
  // Same scenario, same step: no change.
  EXPECT_EQ(g->deltaText(p->readouts().pipelined), QStringLiteral("= baseline"));
  // B: 4 stages → 8: the pipeline's read-outs change from A.
  type(p->controls().stages, 8);
  const QString d = g->deltaText(p->readouts().pipelined);
  EXPECT_FALSE(d.isEmpty());
  EXPECT_TRUE(d.startsWith(QLatin1Char('+'))) << d.toStdString();  // 550 → 750 ms
  EXPECT_TRUE(g->deltaText(p->readouts().utilization).startsWith(QStringLiteral("\u2212")))
      << g->deltaText(p->readouts().utilization).toStdString();
  auto* delta = p->findChild<QLabel*>(QStringLiteral("delta_pipelined"));
  ASSERT_NE(delta, nullptr);
  EXPECT_TRUE(delta->isVisible());
  // The baseline is computed once: a change does not recompute it.
  const napkin::MoeRunOfRecord* before = p->baseline();
  type(p->controls().chunks, 16);
  EXPECT_EQ(p->baseline(), before);
  EXPECT_FALSE(p->baselinePending());

  p->setBaseline(nullptr);
  EXPECT_EQ(p->baseline(), nullptr);
  EXPECT_TRUE(g->deltaText(p->readouts().pipelined).isEmpty());
  EXPECT_FALSE(delta->isVisible());
  for (napkin::PlotWidget* pl : p->plots()) EXPECT_FALSE(pl->baselineVisible());
}

TEST(MoePanel, ReportSectionIsTablesAndChartsWithoutUiSentences) {
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  const napkin::ReportSection s = p->reportSection();
  EXPECT_EQ(s.charts.size(), 6u);
  ASSERT_GE(s.tables.size(), 4u);
  bool verdict = false;
  for (const napkin::ReportTable& t : s.tables)
    for (const napkin::ReportRow& r : t.rows) {
      for (const QString& x : {r.name, r.value, r.unit, r.note}) {
        EXPECT_FALSE(x.contains(QStringLiteral("Play"))) << x.toStdString();
        EXPECT_FALSE(x.contains(QStringLiteral("press"), Qt::CaseInsensitive)) << x.toStdString();
        EXPECT_FALSE(x.contains(QStringLiteral("nan"), Qt::CaseInsensitive)) << x.toStdString();
      }
      if (r.name == QStringLiteral("Verdict")) {
        verdict = true;
        EXPECT_EQ(r.value, QStringLiteral("COLLAPSED"));
      }
    }
  EXPECT_TRUE(verdict);
  EXPECT_FALSE(s.summary.contains(QStringLiteral("Play")));
}

// Issue 27, defect 17 (the MoE legend): at the smallest window the app
// supports and at a wide one, every legend entry of every MoE plot is drawn
// whole inside its plot: no entry cut at the right, none narrower than its
// text needs (a legend takes only the columns its widest entry leaves room for).
TEST(MoePanel, LegendEntriesAreNeverCut) {
  for (const QSize size : {QSize(1024, 768), QSize(1900, 1080)}) {
    MainWindow w(MainWindow::Session::fresh);
    w.resize(size);
    w.show();
    ASSERT_TRUE(w.showPanel(QStringLiteral("moe")));
    MoePanel* p = w.panel<MoePanel>();
    QCoreApplication::processEvents();
    int entries = 0;
    for (napkin::PlotWidget* plot : p->plots()) {
      if (!plot->legend->visible()) continue;
      plot->replot();
      const QRect inside = plot->viewport();
      for (int i = 0; i < plot->legend->itemCount(); ++i) {
        QCPAbstractLegendItem* item = plot->legend->item(i);
        if (!item || !item->visible()) continue;
        ++entries;
        const QRect r = item->outerRect();
        const std::string where = plot->title().toStdString() + " at " +
                                  std::to_string(size.width()) + " px: entry " + std::to_string(i);
        EXPECT_LE(r.right(), inside.right() + 1) << where;
        EXPECT_GE(r.left(), inside.left() - 1) << where;
        EXPECT_GE(r.width(), item->minimumOuterSizeHint().width() - 1) << where;
      }
    }
    EXPECT_GE(entries, 6) << size.width();
  }
}
