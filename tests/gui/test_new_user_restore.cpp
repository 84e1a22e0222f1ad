// Issue 27, what a new user hit (continued): work that comes back different
// after a crash or a reopen, and numbers shown unrounded.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHelpEvent>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTextDocument>
#include <QToolTip>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "PanelPage.h"
#include "PlotWidget.h"
#include "ReadableTooltips.h"
#include "ReadoutGrid.h"
#include "ReflowGrid.h"
#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "WheelPassThrough.h"
#include "autosave_cleanup.h"
#include "moe/MoePanel.h"
#include "moe/MoeReadouts.h"
#include "moe/MoeRun.h"
#include "moe/MoeTransport.h"
#include "parallel/LayoutTableModel.h"
#include "parallel/ParallelPanel.h"
#include "report/ReportHtml.h"
#include "report/ReportWriter.h"
#include "roofline/RooflinePanel.h"
#include "roofline/ServingReadouts.h"
#include "roofline/plots/KvHeadsPlot.h"
#include "scenario_json.h"
#include "session_lock.h"
#include "shell/BaselineController.h"
#include "shell/FileActions.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

using testing_util::removeAutosaves;

}  // namespace

// Item 3: after kill -9, Recover brings back the file the edits belong to and
// the pinned baseline, not "Untitled*" with no baseline.
TEST(NewUser, CrashRecoveryKeepsTheFileNameAndThePinnedBaseline) {
  QSettings().clear();
  removeAutosaves();
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("llama.napkin.json"));
  Scenario plan_a;
  plan_a.days = 45;
  Scenario edited = plan_a;
  edited.days = 61;
  QString autosave;
  {
    auto* w = new MainWindow(MainWindow::Session::restore);
    ASSERT_TRUE(w->model()->replace(plan_a, QStringLiteral("plan A")));
    ASSERT_TRUE(w->saveTo(path));
    w->baseline()->pin(plan_a, QStringLiteral("before the edit"));
    ASSERT_TRUE(w->model()->replace(edited, QStringLiteral("edit")));
    w->autosave();
    autosave = w->autosavePath();
    ASSERT_TRUE(QFileInfo::exists(autosave));
    w->setAttribute(Qt::WA_DeleteOnClose, false);
    delete w;  // the crash: no closeEvent, no session saved
  }
  MainWindow again(MainWindow::Session::restore);
  again.setRecoverPrompt([](const QString&) { return true; });
  QCoreApplication::processEvents();
  EXPECT_EQ(again.model()->scenario(), edited);
  EXPECT_TRUE(again.model()->isModified());
  EXPECT_EQ(again.model()->filePath(), path);
  EXPECT_TRUE(again.windowTitle().contains(QStringLiteral("llama.napkin.json")))
      << again.windowTitle().toStdString();
  ASSERT_TRUE(again.baseline()->isPinned());
  EXPECT_EQ(*again.baseline()->baseline(), plan_a);
  EXPECT_EQ(again.baseline()->label(), QStringLiteral("before the edit"));
  EXPECT_FALSE(QFileInfo::exists(autosave));
  EXPECT_FALSE(QFileInfo::exists(SessionLock::contextPathFor(autosave)));
  again.setSavePrompt([] { return QMessageBox::Discard; });
  again.close();
  EXPECT_FALSE(QFileInfo::exists(SessionLock::contextPathFor(again.autosavePath())));
  removeAutosaves();
  QSettings().clear();
}

// Item 2: a played, collapsed MoE run saved to a file comes back as that run
// (its seed, knobs and step), not as a fresh 300-step run reading "healthy";
// the status line says it was recomputed.
TEST(NewUser, ASavedMoeRunReopensAsItWas) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("moe.napkin.json"));
  std::int64_t played = 0;
  QString verdict;
  double max_over_mean = 0;
  {
    MainWindow w(MainWindow::Session::fresh);
    MoePanel* p = w.panel<MoePanel>();
    ASSERT_EQ(p->run()->currentStep(), 300);
    p->run()->advance(984);
    played = p->run()->currentStep();
    ASSERT_EQ(played, 1284);
    verdict = p->readouts().text(p->readouts().verdict);
    max_over_mean = p->run()->simulation().current().recent_max_over_mean;
    ASSERT_TRUE(w.saveTo(path));
  }
  MainWindow again(MainWindow::Session::fresh);
  ASSERT_TRUE(again.openFile(path));
  MoePanel* p = again.panel<MoePanel>();
  p->run()->waitForRecording();
  QCoreApplication::processEvents();
  EXPECT_EQ(again.model()->scenario().moe.steps, played);
  EXPECT_EQ(p->run()->currentStep(), played);
  EXPECT_EQ(p->readouts().text(p->readouts().verdict), verdict);
  EXPECT_DOUBLE_EQ(p->run()->simulation().current().recent_max_over_mean, max_over_mean);
  EXPECT_TRUE(p->transport()->statusLabel->text().contains(QStringLiteral("from step 0")))
      << p->transport()->statusLabel->text().toStdString();
}

// Item 2: the scrub position comes back too. A run scrubbed back to step 500
// of 1,284 reopens on step 500 (moe.shown_step), not live at its last step;
// Live then follows the last step, and a live run saves shown_step 0.
TEST(NewUser, ASavedMoeRunReopensOnTheStepItWasScrubbedTo) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("scrubbed.napkin.json"));
  double shown_max_over_mean = 0;
  {
    MainWindow w(MainWindow::Session::fresh);
    MoePanel* p = w.panel<MoePanel>();
    p->run()->advance(984);
    ASSERT_EQ(p->run()->currentStep(), 1284);
    p->transport()->scrub->setValue(500);  // the user drags the history slider back
    ASSERT_EQ(p->run()->shownStep(), 500);
    shown_max_over_mean = p->run()->shownStats()->max_over_mean;
    EXPECT_EQ(savedDocument(w).moe.shown_step, 500);  // what autosave and Save write
    ASSERT_TRUE(w.saveTo(path));
    EXPECT_EQ(w.model()->scenario().moe.shown_step,
              0);  // view state: the edit history is untouched
  }
  const Scenario saved = load_scenario_file(path.toStdString());
  EXPECT_EQ(saved.moe.steps, 1284);
  EXPECT_EQ(saved.moe.shown_step, 500);

  MainWindow again(MainWindow::Session::fresh);
  ASSERT_TRUE(again.openFile(path));
  MoePanel* p = again.panel<MoePanel>();
  p->run()->waitForRecording();
  QCoreApplication::processEvents();
  ASSERT_EQ(p->run()->currentStep(), 1284);
  EXPECT_EQ(p->run()->shownStep(), 500);
  EXPECT_EQ(p->transport()->scrub->value(), 500);
  EXPECT_EQ(p->transport()->scrub->maximum(), 1284);
  EXPECT_DOUBLE_EQ(p->run()->shownStats()->max_over_mean, shown_max_over_mean);
  EXPECT_TRUE(p->readoutTexts().join(QLatin1Char('\n')).contains(QStringLiteral("500")));
  const QString status = p->transport()->statusLabel->text();
  EXPECT_TRUE(status.contains(QStringLiteral("Showing step 500"))) << status.toStdString();
  // Live: back to the last step, and a live run saves shown_step 0.
  p->transport()->live->click();
  EXPECT_EQ(p->run()->shownStep(), 1284);
  EXPECT_EQ(savedDocument(again).moe.shown_step, 0);
  // Reset to step 0: nothing to show, the document's run of record stands.
  p->run()->reset();
  const Scenario after_reset = savedDocument(again);
  EXPECT_EQ(after_reset.moe.shown_step, 0);
  EXPECT_NO_THROW(after_reset.validate());
}

// Item 2: a shown step past the run of record is refused when the file is
// read, naming the field, the value and the range.
TEST(NewUser, AShownStepPastTheRunIsRefusedNamingIt) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("past.napkin.json"));
  Scenario s;
  s.moe.steps = 300;
  s.moe.shown_step = 299;
  save_scenario_file(s, path.toStdString());
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  QByteArray text = f.readAll();
  f.close();
  text.replace("\"shown_step\": 299", "\"shown_step\": 301");
  ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
  f.write(text);
  f.close();
  MainWindow w(MainWindow::Session::fresh);
  EXPECT_FALSE(w.openFile(path));
  const QString e = w.lastError();
  EXPECT_TRUE(e.contains(QStringLiteral("moe.shown_step"))) << e.toStdString();
  EXPECT_TRUE(e.contains(QStringLiteral("[0, 300]"))) << e.toStdString();
  EXPECT_TRUE(e.contains(QStringLiteral("found 301"))) << e.toStdString();
  // An edit that would leave it past the run is refused too.
  Scenario bad = w.model()->scenario();
  bad.moe.shown_step = bad.moe.steps + 1;
  EXPECT_FALSE(w.model()->replace(bad, QStringLiteral("scrub")));
}

// Item 2: a knob changed mid-run cannot be replayed from the file; saving says so.
TEST(NewUser, SavingAMoeRunRetunedMidRunSaysItReopensRecomputed) {
  QTemporaryDir dir;
  MainWindow w(MainWindow::Session::fresh);
  MoePanel* p = w.panel<MoePanel>();
  Scenario s = w.model()->scenario();
  s.moe.learning_rate = 20;
  ASSERT_TRUE(w.model()->replace(s, QStringLiteral("lr")));
  w.settle();
  ASSERT_EQ(p->run()->params().learning_rate, 20);
  p->run()->advance(10);
  QString note;
  const Scenario doc = savedDocument(w, &note);
  EXPECT_EQ(doc.moe.steps, 310);
  EXPECT_TRUE(note.contains(QStringLiteral("step 300"))) << note.toStdString();
  EXPECT_TRUE(note.contains(QStringLiteral("recomputed"))) << note.toStdString();
}

// Item 14: a spin box shows a value nobody typed rounded (five significant
// digits), not 0.473587601, 1.33333333 or 1.41107413e+12, and never "−0.00";
// leaving the box keeps the exact value.
TEST(NewUser, SpinBoxesShowRoundedNumbers) {
  SciSpinBox box;
  box.setAcceptedRange(-1e15, 1e15);
  box.setDisplayDecimals(2);
  const auto shown = [&](double v) {
    box.setValue(v);
    return box.text();
  };
  EXPECT_EQ(shown(0.473587601), QStringLiteral("0.47359"));
  EXPECT_EQ(shown(122.070313), QStringLiteral("122.07"));
  EXPECT_EQ(shown(1.0 / 0.75), QStringLiteral("1.3333"));
  EXPECT_EQ(shown(-1e-17), QStringLiteral("0.00"));
  EXPECT_EQ(shown(-0.0), QStringLiteral("0.00"));
  EXPECT_EQ(shown(0.25), QStringLiteral("0.25"));  // exact values as they are
  EXPECT_EQ(shown(4194304), QStringLiteral("4,194,304.00"));
  EXPECT_EQ(shown(0.123), QStringLiteral("0.123"));
  box.setValue(0.473587601);
  EXPECT_DOUBLE_EQ(box.valueFromText(box.text()), 0.473587601);  // leaving never edits
  box.setScientific(true);
  EXPECT_EQ(shown(1.41107413e12), QStringLiteral("1.4111e+12"));
  EXPECT_EQ(shown(2e12), QStringLiteral("2.00e+12"));
}

// Item 7: a serving answer that is "none" says why in a line of its own that
// wraps to the page; the read-out column keeps a short "none".
TEST(NewUser, ServingNoneReasonsWrapBelowTheReadouts) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1024, 700);
  w.show();
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  Scenario s = w.model()->scenario();
  s.roofline.serving_layout.search_max_chips = 1;  // a 70B model on one chip: no slice serves it
  ASSERT_TRUE(w.model()->replace(s, QStringLiteral("one chip")));
  p->subTabs()->setCurrentIndex(RooflinePanel::kServingTab);
  p->settleServing();
  QCoreApplication::processEvents();
  const ServingReadouts& sr = p->servingReadouts();
  EXPECT_EQ(sr.grid()->text(sr.best), QStringLiteral("none"));
  EXPECT_EQ(sr.grid()->text(sr.efficient), QStringLiteral("none"));
  QLabel* notes = sr.notes();
  ASSERT_TRUE(notes->isVisible());
  EXPECT_TRUE(notes->wordWrap());
  const QString text = notes->text();
  EXPECT_TRUE(text.contains(QStringLiteral("Smallest slice and most efficient: none. ")))
      << text.toStdString();
  const QString reason = text.section(QStringLiteral("none. "), 1).section(QLatin1Char('\n'), 0, 0);
  EXPECT_GT(reason.size(), 10) << text.toStdString();  // a reason of its own
  for (ReadoutGrid::Row r : {sr.prefill_pool, sr.decode_pool, sr.shared_pool})
    EXPECT_LE(sr.grid()->text(r).size(), 60) << sr.grid()->text(r).toStdString();
  // Nothing runs off a 1,024-px window.
  EXPECT_LE(notes->mapTo(&w, QPoint(notes->width(), 0)).x(), w.width());
  EXPECT_LE(sr.grid()->mapTo(&w, QPoint(sr.grid()->width(), 0)).x(), w.width());
}

// Item 9: the Roofline tab's "For budget" and the serving search's smallest
// slice answer "how many chips" differently; the page says why, beside them.
TEST(NewUser, TwoChipCountsToServeAreExplained) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  p->settleServing();
  QCoreApplication::processEvents();
  const ServingReadouts& sr = p->servingReadouts();
  ASSERT_TRUE(p->data().chips_for_budget.has_value());
  const QString napkin =
      QLocale(QLocale::English).toString(static_cast<qlonglong>(*p->data().chips_for_budget));
  const QString text = sr.notes()->text();
  EXPECT_TRUE(text.contains(QStringLiteral("Why the Roofline tab says %1").arg(napkin)))
      << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("latency napkin"))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("TP \u00d7 PP \u00d7 EP"))) << text.toStdString();
}

// Item 12: the report's title groups the chip count ("2,048 × H100") and a
// layout string never breaks between an axis and its degree.
TEST(NewUser, ReportTitleIsGroupedAndLayoutsKeepTheirTokens) {
  Scenario s;
  s.n_chips = 2048;
  s.chip = "H100 SXM";
  EXPECT_TRUE(ReportWriter::documentTitle(s).contains(QStringLiteral("2,048 × H100 SXM")))
      << ReportWriter::documentTitle(s).toStdString();
  const QString html = reportEscape(QStringLiteral("TP 8 × PP 4 × DP 64, batch 1,024 <b>"));
  EXPECT_TRUE(html.contains(QStringLiteral("TP&nbsp;8 × PP&nbsp;4 × DP&nbsp;64")))
      << html.toStdString();
  EXPECT_TRUE(html.contains(QStringLiteral("&lt;b&gt;")));
}

// Item 19: a read-out's tooltip with a long note wraps (rich text) instead of
// running as one 1,500-px line.
TEST(NewUser, ReadoutTooltipsWrap) {
  ReadoutGrid grid;
  const ReadoutGrid::Row row =
      grid.add({.key = QStringLiteral("verdict"), .name = QStringLiteral("Verdict")});
  QString note;
  for (int i = 0; i < 30; ++i) note += QStringLiteral("a reason that goes on and on ");
  grid.set(row, {.value = QStringLiteral("COLLAPSED"), .note = note + QStringLiteral("<end>")});
  const QString tip = grid.valueLabel(row)->toolTip();
  EXPECT_TRUE(Qt::mightBeRichText(tip)) << tip.toStdString();
  EXPECT_TRUE(tip.contains(QStringLiteral("&lt;end&gt;")));
  QLabel shown(tip);  // what QToolTip does with rich text
  shown.setWordWrap(true);
  EXPECT_LT(shown.sizeHint().width(), 800);
}

// The same for every control: a control's long plain tooltip (a checkbox's
// explanation, a greyed slider's reason) is shown wrapped, while the widget
// keeps its plain text; a short one and a rich one are left to Qt.
TEST(NewUser, ControlTooltipsWrap) {
  installReadableTooltips();
  installReadableTooltips();  // once per application
  QWidget page;
  page.resize(400, 200);
  auto* box = new QCheckBox(QStringLiteral("Keep only runs with loss below the cut"), &page);
  QString tip;
  for (int i = 0; i < 12; ++i) tip += QStringLiteral("a reason that goes on and on ");
  box->setToolTip(tip + QStringLiteral("<end>\nsecond line"));
  page.show();
  auto hover = [](QWidget* w) {
    QHelpEvent help(QEvent::ToolTip, QPoint(5, 5), w->mapToGlobal(QPoint(5, 5)));
    QApplication::sendEvent(w, &help);
  };
  hover(box);
  ASSERT_TRUE(QToolTip::isVisible());
  const QString shown = QToolTip::text();
  EXPECT_TRUE(Qt::mightBeRichText(shown)) << shown.toStdString();
  EXPECT_TRUE(shown.contains(QStringLiteral("&lt;end&gt;<br>second line")));
  EXPECT_TRUE(box->toolTip().startsWith(QStringLiteral("a reason")));  // the widget's own
  QLabel label(shown);  // what QToolTip does with rich text
  label.setWordWrap(true);
  EXPECT_LT(label.sizeHint().width(), 800);
  QToolTip::hideText();
  box->setToolTip(QStringLiteral("Short."));
  hover(box);
  EXPECT_EQ(QToolTip::text(), QStringLiteral("Short."));
  QToolTip::hideText();
}

// Item 18: an axis whose labels have fewer digits than its step (the tornado's
// and histogram's days: "44 44 45 46 46") shows each label once, at its number.
TEST(NewUser, AxisTicksNeverRepeatALabel) {
  PlotWidget plot(QStringLiteral("days"));
  plot.setXAxis(QStringLiteral("wall-clock days"), false,
                [](double v) { return QLocale::c().toString(v, 'f', std::abs(v) < 10 ? 1 : 0); });
  plot.resize(420, 300);
  plot.xAxis->setRange(43.8, 46.2);
  plot.replot();
  const QVector<double> ticks = plot.xAxis->tickVector();
  const QVector<QString> labels = plot.xAxis->tickVectorLabels();
  ASSERT_GE(labels.size(), 2);
  for (qsizetype i = 1; i < labels.size(); ++i)
    EXPECT_NE(labels[i], labels[i - 1]) << labels[i].toStdString();
  for (qsizetype i = 0; i < ticks.size(); ++i)
    EXPECT_DOUBLE_EQ(labels[i].toDouble(), ticks[i]) << labels[i].toStdString();
}

// Item 20: the MoE panel names the preset as the Budget panel lists it.
TEST(NewUser, TheMoeNoteNamesThePresetAsListed) {
  MainWindow w(MainWindow::Session::fresh);
  const QString texts = w.panel<MoePanel>()->readoutTexts().join(QLatin1Char('\n'));
  EXPECT_FALSE(texts.contains(QStringLiteral("V3-like"))) << texts.toStdString();
  EXPECT_TRUE(texts.contains(QStringLiteral("DeepSeek-V3)"))) << texts.toStdString();
}

// Item 17: the layout table's step column holds a step of an hour or more
// ("4,123 s", not "4…").
TEST(NewUser, TheStepColumnHoldsLongSteps) {
  MainWindow w(MainWindow::Session::fresh);
  QTableView* table = w.panel<ParallelPanel>()->table();
  const int needed = table->fontMetrics().horizontalAdvance(QStringLiteral("4,123 s"));
  EXPECT_GT(table->columnWidth(LayoutTableModel::kStep), needed + 8);
}

// Item 17: the KV-heads chart at 0 requests says the weights do not fit.
TEST(NewUser, TheKvHeadsChartSaysWhyNoRequestFits) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  ASSERT_TRUE(w.showPanel(QStringLiteral("roofline")));
  RooflinePanel* p = w.panel<RooflinePanel>();
  Scenario s = w.model()->scenario();
  s.chip = "TPU v5e";  // 16 GB: a 70B model's weights overflow one 8-chip node
  ASSERT_TRUE(w.model()->replace(s, QStringLiteral("v5e")));
  p->subTabs()->setCurrentIndex(RooflinePanel::kCodesignTab);
  QCoreApplication::processEvents();
  auto* kv = p->findChild<KvHeadsPlot*>(QStringLiteral("plot_kv"));
  ASSERT_NE(kv, nullptr);
  bool none_fit = false;
  for (const GqaPoint& g : p->data().kv_heads)
    if (g.n_kv_heads == s.shape.n_kv_heads) none_fit = g.concurrent_requests == 0;
  ASSERT_TRUE(none_fit) << "the scenario should leave no room";
  EXPECT_TRUE(kv->noteText().contains(QStringLiteral("the weights")))
      << kv->noteText().toStdString();
  EXPECT_TRUE(kv->noteText().contains(QStringLiteral("leave no room")));
}

namespace {
void wheelOver(QWidget* w, int delta) {
  const QPointF at(w->width() / 2.0, w->height() / 2.0);
  QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QApplication::sendEvent(w, &e);
}
}  // namespace

// Item 13: the wheel over a plot (no zoom) or over a memo box at its end
// scrolls the page instead of being swallowed.
TEST(NewUser, TheWheelOverAPlotOrAMemoScrollsThePage) {
  QScrollArea page;
  auto* body = new QWidget;
  auto* v = new QVBoxLayout(body);
  auto* plot = new PlotWidget(QStringLiteral("a plot"));
  plot->setMinimumHeight(300);
  auto* memo = new QPlainTextEdit(QStringLiteral("a short memo"));
  memo->setMinimumHeight(120);
  passWheelAtEnds(memo);
  v->addWidget(plot);
  v->addWidget(memo);
  v->addSpacing(2000);
  page.setWidget(body);
  page.setWidgetResizable(true);
  page.resize(500, 400);
  page.show();
  QCoreApplication::processEvents();
  QScrollBar* bar = page.verticalScrollBar();
  ASSERT_GT(bar->maximum(), 0);
  wheelOver(plot, -120);
  const int after_plot = bar->value();
  EXPECT_GT(after_plot, 0);
  wheelOver(memo->viewport(), -120);
  EXPECT_GT(bar->value(), after_plot);
}

// Item 12: a baseline's bar tops are dashes as wide as asked and 2 px thick;
// QCustomPlot scales a custom scatter path by size ÷ 6, so anything but 6
// draws them 3× wide and 7 px thick on a PDF (the "black smudge").
TEST(NewUser, GhostBarTopsAreThinDashes) {
  PlotWidget plot(QStringLiteral("memory per rank"));
  QCPGraph* g = plot.addGraph();
  const QCPScatterStyle st = plot.ghostBarTops(g, 10)->scatterStyle();
  const double drawn = st.customPath().boundingRect().width() * st.size() / 6.0;
  EXPECT_DOUBLE_EQ(drawn, 20.0);
  EXPECT_DOUBLE_EQ(st.size(), 6.0);
}

// Item 7: a page of plots reflows from 1,900 px to 1,024 px and back with
// every plot inside the page (the page scrolls) — none cut off.
TEST(NewUser, APlotPageReflowsWithNothingCut) {
  QWidget window;
  auto* outer = new QVBoxLayout(&window);
  QVBoxLayout* page = nullptr;
  QScrollArea* scroll = scrollingPage(&window, QStringLiteral("page"), &page);
  outer->addWidget(scroll);
  auto* above = new QLabel(QStringLiteral("read-outs"));
  above->setMinimumHeight(300);
  page->addWidget(above);
  std::vector<QWidget*> plots;
  for (int i = 0; i < 4; ++i) plots.push_back(new PlotWidget(QStringLiteral("plot %1").arg(i)));
  ReflowGrid* grid = addPlotGrid(page, QStringLiteral("grid"), plots, QSize(420, 260), 3);
  window.show();
  for (const QSize size :
       {QSize(1900, 1080), QSize(1600, 900), QSize(1024, 700), QSize(1900, 700)}) {
    window.resize(size);
    for (int i = 0; i < 5; ++i) QCoreApplication::processEvents();
    for (QWidget* p : plots) {
      EXPECT_LE(p->geometry().bottom(), grid->height()) << size.width();
      EXPECT_GE(p->height(), 260) << size.width();
    }
    EXPECT_LE(grid->geometry().bottom(), scroll->widget()->height()) << size.width();
  }
}
