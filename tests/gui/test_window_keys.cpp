// The window's keys and hints, as a new user meets them: application
// shortcuts while a value is being typed, a refused value explained in the
// status bar, Save As on Ctrl+Shift+S, a status-bar hint on every menu item,
// and the Budget panel's checks that say what they are about.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QFile>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <stdexcept>

#include <QTabWidget>
#include "CheckList.h"
#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "budget/BudgetPanel.h"
#include "choices.h"
#include "isoflops/IsoflopsPanel.h"
#include "parallel/ParallelPanel.h"
#include "scenario.h"
#include "shell/BaselineController.h"
#include "shell/CliCommand.h"
#include "shell/CompareDock.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

struct Window {
  MainWindow w{MainWindow::Session::fresh};
  std::vector<MainWindow::PathPurpose> asked;
  QString answer;
  Window() {
    w.setPathPrompt([this](MainWindow::PathPurpose p, const QString&) {
      asked.push_back(p);
      return answer;
    });
    w.resize(1280, 800);
    w.show();
    QApplication::setActiveWindow(&w);
    EXPECT_TRUE(QTest::qWaitForWindowActive(&w));
  }
  SciSpinBox* chips() { return w.panel<BudgetPanel>()->controls().chips->spinBox(); }
  void type(SciSpinBox* spin, const QString& text) {
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, text);
    QTest::keyClick(spin, Qt::Key_Return);
  }
};

}  // namespace

TEST(WindowKeys, UndoAndRedoWorkWhileTheSpinBoxHasFocus) {
  Window t;
  t.type(t.chips(), QStringLiteral("3000"));
  ASSERT_EQ(t.w.model()->scenario().n_chips, 3000);
  ASSERT_TRUE(t.chips()->hasFocus());
  QTest::keyClick(t.chips(), Qt::Key_Z, Qt::ControlModifier);
  EXPECT_EQ(t.w.model()->scenario().n_chips, 1000);
  EXPECT_EQ(t.chips()->text(), QStringLiteral("1,000"));
  QTest::keyClick(t.chips(), Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
  EXPECT_EQ(t.w.model()->scenario().n_chips, 3000);
  QTest::keyClick(t.chips(), Qt::Key_Z, Qt::ControlModifier);
  EXPECT_EQ(t.w.model()->scenario().n_chips, 1000);
  QTest::keyClick(t.chips(), Qt::Key_Y, Qt::ControlModifier);
  EXPECT_EQ(t.w.model()->scenario().n_chips, 3000);
}

TEST(WindowKeys, SaveSaveAsAndExportWorkWhileTheSpinBoxHasFocus) {
  Window t;
  QTemporaryDir dir;
  t.type(t.chips(), QStringLiteral("2048"));
  // Ctrl+S on an untitled scenario asks for a name; Ctrl+Shift+S always does.
  t.answer = dir.filePath(QStringLiteral("a.napkin.json"));
  QTest::keyClick(t.chips(), Qt::Key_S, Qt::ControlModifier);
  ASSERT_EQ(t.asked.size(), 1u);
  EXPECT_EQ(t.asked[0], MainWindow::PathPurpose::save_as);
  EXPECT_TRUE(QFile::exists(t.answer));
  EXPECT_FALSE(t.w.model()->isModified());
  t.type(t.chips(), QStringLiteral("4096"));
  QTest::keyClick(t.chips(), Qt::Key_S, Qt::ControlModifier);  // has a file: no question
  EXPECT_EQ(t.asked.size(), 1u);
  EXPECT_FALSE(t.w.model()->isModified());
  t.answer = dir.filePath(QStringLiteral("b.napkin.json"));
  QTest::keyClick(t.chips(), Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier);
  ASSERT_EQ(t.asked.size(), 2u);
  EXPECT_EQ(t.asked[1], MainWindow::PathPurpose::save_as);
  EXPECT_TRUE(QFile::exists(t.answer));
  t.answer.clear();  // cancel the export dialog
  QTest::keyClick(t.chips(), Qt::Key_E, Qt::ControlModifier);
  ASSERT_EQ(t.asked.size(), 3u);
  EXPECT_EQ(t.asked[2], MainWindow::PathPurpose::export_report);
}

TEST(WindowKeys, BaselineImportAndCompareKeysWorkWhileTheSpinBoxHasFocus) {
  Window t;
  t.type(t.chips(), QStringLiteral("3000"));
  ASSERT_TRUE(t.chips()->hasFocus());
  QTest::keyClick(t.chips(), Qt::Key_B, Qt::ControlModifier);  // pin
  ASSERT_NE(t.w.baseline()->baseline(), nullptr);
  EXPECT_EQ(t.w.baseline()->baseline()->n_chips, 3000);
  QTest::keyClick(t.chips(), Qt::Key_B, Qt::ControlModifier | Qt::ShiftModifier);  // compare
  EXPECT_TRUE(t.w.compareDock()->isVisible());
  t.chips()->setFocus();
  QTest::keyClick(t.chips(), Qt::Key_U, Qt::ControlModifier | Qt::ShiftModifier);  // unpin
  EXPECT_EQ(t.w.baseline()->baseline(), nullptr);
  t.answer.clear();
  QTest::keyClick(t.chips(), Qt::Key_I, Qt::ControlModifier);  // import model
  ASSERT_EQ(t.asked.size(), 1u);
  EXPECT_EQ(t.asked[0], MainWindow::PathPurpose::import_config);
  QTest::keyClick(t.chips(), Qt::Key_1, Qt::ControlModifier);
  QTest::keyClick(t.chips(), Qt::Key_2, Qt::ControlModifier);  // panels
  EXPECT_EQ(t.w.tabs()->currentIndex(), 1);
}

TEST(WindowKeys, ARefusedValueIsExplainedInTheStatusBar) {
  Window t;
  for (const char* bad : {"abc", "1e9", "-5"}) {
    t.w.statusBar()->clearMessage();
    t.type(t.chips(), QString::fromLatin1(bad));
    EXPECT_EQ(t.w.model()->scenario().n_chips, 1000) << bad;
    const QString msg = t.w.statusBar()->currentMessage();
    EXPECT_TRUE(msg.startsWith(QStringLiteral("Chips:"))) << bad << ": " << msg.toStdString();
    EXPECT_TRUE(msg.contains(QStringLiteral("1 \u2013 10,000,000"))) << msg.toStdString();
  }
  EXPECT_TRUE(t.chips()->toolTip().contains(QStringLiteral("Accepted: 1 \u2013 10,000,000")));
}

TEST(WindowKeys, EveryMenuItemHasAStatusBarHint) {
  Window t;
  int items = 0;
  for (QAction* top : t.w.menuBar()->actions()) {
    QMenu* menu = top->menu();
    ASSERT_NE(menu, nullptr);
    for (QAction* a : menu->actions()) {
      if (a->isSeparator()) continue;
      if (a->menu() && a->menu()->actions().isEmpty()) continue;  // an empty Open Recent
      EXPECT_FALSE(a->statusTip().isEmpty()) << a->text().toStdString();
      a->showStatusText(&t.w);
      EXPECT_EQ(t.w.statusBar()->currentMessage(), a->statusTip()) << a->text().toStdString();
      ++items;
    }
  }
  EXPECT_GT(items, 12);
  // Save As has its shortcut.
  bool save_as = false;
  for (QAction* a : t.w.findChildren<QAction*>())
    if (a->text().startsWith(QStringLiteral("Save &As")))
      save_as = a->shortcut() == QKeySequence(QStringLiteral("Ctrl+Shift+S"));
  EXPECT_TRUE(save_as);
}

TEST(WindowKeys, BudgetReadoutsAndChecksSayWhatTheyAreAbout) {
  Window t;
  BudgetPanel* p = t.w.panel<BudgetPanel>();
  // The contradiction of a small chip: the scenario model does not fit a
  // device, while the Chinchilla answer's states fit the cluster sharded.
  Scenario s = t.w.model()->scenario();
  s.chip = "TPU v5e";
  s.n_chips = 5000;
  ASSERT_TRUE(t.w.model()->replace(s, QStringLiteral("small chips")));
  const BudgetReadouts& r = p->readouts();
  EXPECT_TRUE(r.text(r.memory).endsWith(QStringLiteral("too big")))
      << r.text(r.memory).toStdString();
  EXPECT_EQ(r.grid()->sectionTitle(r.scenario),
            QStringLiteral("Scenario model: Llama-3-70B at ZeRO-3 over DP 64"));
  const std::vector<CheckItem>& checks = p->checks()->checks();
  ASSERT_GE(checks.size(), 5u);
  EXPECT_TRUE(checks[0].ok);
  EXPECT_TRUE(checks[0].detail.startsWith(QStringLiteral("Chinchilla ")));
  EXPECT_TRUE(checks[0].detail.contains(QStringLiteral("states sharded over all 5,000 TPU v5e")))
      << checks[0].detail.toStdString();
  // The check and the read-out name the same model: N after goodput.
  const QString n_after = r.grid()->readout(r.effective).value.section(QLatin1Char(' '), 0, 0);
  EXPECT_TRUE(
      checks[0].detail.contains(QStringLiteral("Chinchilla %1 (after goodput)").arg(n_after)))
      << checks[0].detail.toStdString() << " vs " << n_after.toStdString();
  EXPECT_EQ(checks[1].name, QStringLiteral("scenario model fits per device"));
  EXPECT_FALSE(checks[1].ok);  // agrees with the read-out
  EXPECT_TRUE(checks[1].detail.contains(QStringLiteral("Llama-3-70B at ZeRO-3 over DP 64")));
  bool servable_threshold = false;
  for (const CheckItem& c : checks)
    if (c.name == QStringLiteral("servable"))
      servable_threshold = c.detail.contains(QStringLiteral("at most half of it"));
  EXPECT_TRUE(servable_threshold);
  EXPECT_FALSE(p->recommendation()->toPlainText().contains(QStringLiteral("seed Claim")));
}

TEST(WindowKeys, HuberDeltaShowsTheNumberTheFitUses) {
  Window t;
  ASSERT_TRUE(t.w.showPanel(QStringLiteral("isoflops")));
  IsoflopsPanel* p = t.w.panel<IsoflopsPanel>();
  SliderSpin* delta = p->controls().delta;
  auto used = [&] { return t.w.model()->scenario().isoflops.fit.huber_delta; };
  // One number: shown, held by the control and used by the fit.
  auto shown = [&] { return delta->spinBox()->valueFromText(delta->spinBox()->text()); };
  EXPECT_DOUBLE_EQ(used(), 1e-3);
  EXPECT_DOUBLE_EQ(delta->value(), 1e-3);
  EXPECT_DOUBLE_EQ(shown(), 1e-3);
  delta->spinBox()->setFocus();
  QTest::keyClick(delta->spinBox(), Qt::Key_Up);
  EXPECT_DOUBLE_EQ(used(), delta->value());
  EXPECT_DOUBLE_EQ(shown(), delta->value());
  EXPECT_DOUBLE_EQ(delta->value(), 1.3e-3);  // one step: a tenth of a decade, two digits
  // The default can be typed back.
  t.type(delta->spinBox(), QStringLiteral("1e-3"));
  EXPECT_DOUBLE_EQ(used(), 1e-3);
  EXPECT_DOUBLE_EQ(shown(), 1e-3);
}

// A refusal longer than the status bar's room ends in an ellipsis, not cut
// mid-word, and the whole of it is the bar's tooltip while it shows.
TEST(WindowKeys, ALongRefusalIsElidedAndWholeInTheTooltip) {
  Window t;
  t.w.resize(700, 500);
  t.w.show();
  QCoreApplication::processEvents();
  const std::string why(400, 'x');
  ASSERT_FALSE(t.w.model()->edit(QStringLiteral("chips"), 1,
                                 [&why](Scenario&) { throw std::invalid_argument(why); }));
  const QString shown = t.w.statusBar()->currentMessage();
  EXPECT_TRUE(shown.endsWith(QChar(0x2026))) << shown.toStdString();
  EXPECT_LE(t.w.statusBar()->fontMetrics().horizontalAdvance(shown), t.w.statusBar()->width());
  EXPECT_EQ(t.w.statusBar()->toolTip(),
            QStringLiteral("Not applied: ") + QString::fromStdString(why));
  // A short one fits whole and needs no tooltip.
  ASSERT_FALSE(t.w.model()->edit(QStringLiteral("chips"), 1,
                                 [](Scenario&) { throw std::invalid_argument("too many"); }));
  EXPECT_EQ(t.w.statusBar()->currentMessage(), QStringLiteral("Not applied: too many"));
  EXPECT_TRUE(t.w.statusBar()->toolTip().isEmpty());
}

// The Parallelism panel's Recompute lock is typed into like a spin box: the
// window's Undo and panel keys work while its text has focus.
TEST(WindowKeys, UndoWorksWhileAnEditableComboHasFocus) {
  Window t;
  t.w.showPanel(QStringLiteral("parallel"));
  QComboBox* rc = t.w.panel<ParallelPanel>()->controls().recompute;
  QLineEdit* edit = rc->lineEdit();
  ASSERT_NE(edit, nullptr);
  edit->setFocus();
  edit->selectAll();
  QTest::keyClicks(edit, QStringLiteral("full:2"));
  QTest::keyClick(edit, Qt::Key_Return);
  ASSERT_EQ(t.w.model()->scenario().parallel.recompute_lock_text(), "full:2");
  // Keys go where the window sends them: the focus widget (the combo, which
  // hands its line edit the text keys).
  QWidget* focus = QApplication::focusWidget();
  ASSERT_TRUE(focus == rc || focus == edit);
  QTest::keyClick(focus, Qt::Key_Z, Qt::ControlModifier);
  EXPECT_FALSE(t.w.model()->scenario().parallel.recompute);
  EXPECT_EQ(rc->currentText(), QStringLiteral("auto"));
  QTest::keyClick(focus, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
  EXPECT_EQ(t.w.model()->scenario().parallel.recompute_lock_text(), "full:2");
  QTest::keyClick(focus, Qt::Key_1, Qt::ControlModifier);  // the Budget planner
  EXPECT_EQ(t.w.tabs()->currentIndex(), 0);
}

namespace {

// What the status bar says in full (its tooltip when the message is elided).
QString statusText(MainWindow& w) {
  const QString tip = w.statusBar()->toolTip();
  return tip.isEmpty() ? w.statusBar()->currentMessage() : tip;
}

}  // namespace

// Edit → Copy napkin-cli command (Ctrl+Shift+C, from a spin box too): the
// command that prints the current panel's numbers from the saved file. An
// unsaved scenario copies nothing and says why; changes since the save are
// named.
TEST(WindowKeys, CopyNapkinCliCommandNamesTheSavedFileAndThePanel) {
  Window t;
  QClipboard* clipboard = QGuiApplication::clipboard();
  clipboard->setText(QStringLiteral("before"));
  const auto press = [&t] {
    t.chips()->setFocus();
    QTest::keyClick(t.chips(), Qt::Key_C, Qt::ControlModifier | Qt::ShiftModifier);
  };
  press();
  EXPECT_EQ(clipboard->text(), QStringLiteral("before"));
  EXPECT_TRUE(statusText(t.w).contains(QStringLiteral("save the scenario first")))
      << statusText(t.w).toStdString();

  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("Ann's plan.napkin.json"));
  ASSERT_TRUE(t.w.saveTo(path));
  QString quoted = path;
  quoted.replace(QStringLiteral("'"), QStringLiteral("'\\''"));
  press();
  EXPECT_EQ(clipboard->text(),
            QStringLiteral("napkin-cli budget --scenario '") + quoted + QLatin1Char('\''));
  EXPECT_TRUE(statusText(t.w).startsWith(QStringLiteral("Copied napkin-cli budget")));
  ASSERT_TRUE(t.w.showPanel(QStringLiteral("parallel")));
  t.w.findChild<QAction*>(QStringLiteral("actionCopyCliCommand"))->trigger();
  EXPECT_EQ(clipboard->text(),
            QStringLiteral("napkin-cli parallel --scenario '") + quoted + QLatin1Char('\''));
  ASSERT_TRUE(t.w.showPanel(QStringLiteral("budget")));
  // A change since the save that the command takes as a flag rides along.
  t.type(t.chips(), QStringLiteral("3000"));
  ASSERT_TRUE(t.w.model()->isModified());
  press();
  EXPECT_EQ(clipboard->text(), QStringLiteral("napkin-cli budget --scenario '") + quoted +
                                   QStringLiteral("' --chips 3000"));
  EXPECT_TRUE(
      statusText(t.w).contains(QStringLiteral("the changes since the last save as its "
                                              "flags")))
      << statusText(t.w).toStdString();
  // One it does not take: the command reads the file as saved, and says so.
  ASSERT_TRUE(t.w.model()->edit(QStringLiteral("ZeRO stage"), 999,
                                [](Scenario& s) { s.training.zero_stage = 2; }));
  press();
  EXPECT_EQ(clipboard->text(),
            QStringLiteral("napkin-cli budget --scenario '") + quoted + QLatin1Char('\''));
  EXPECT_TRUE(statusText(t.w).contains(QStringLiteral("save (Ctrl+S)")))
      << statusText(t.w).toStdString();
}

// The flags that carry unsaved changes: the command's inputs and --chip, in
// napkin-cli's number format; anything else, or a flag the command would
// refuse, leaves the file as saved.
TEST(WindowKeys, CliOverridesCarryTheChangesTheCommandTakes) {
  Scenario saved;
  Scenario now = saved;
  EXPECT_EQ(cliOverridesFor(QStringLiteral("budget"), saved, now), QString());
  now.n_chips = 4096;
  now.days = 45.5;
  now.chip = "H200";
  EXPECT_EQ(cliOverridesFor(QStringLiteral("budget"), saved, now),
            QStringLiteral("--chips 4096 --days 45.5 --chip H200"));
  EXPECT_EQ(cliOverridesFor(QStringLiteral("parallel"), saved, now), std::nullopt);  // --days
  now.days = saved.days;
  EXPECT_EQ(cliOverridesFor(QStringLiteral("parallel"), saved, now),
            QStringLiteral("--chips 4096 --chip H200"));
  EXPECT_EQ(cliOverridesFor(QStringLiteral("moe"), saved, now), std::nullopt);
  Scenario batch = saved;  // a registered input with no flag
  batch.parallel.global_batch_tokens = std::int64_t{1} << 20;
  EXPECT_EQ(cliOverridesFor(QStringLiteral("budget"), saved, batch), std::nullopt);
  Scenario run = saved;
  run.roofline.serving_layout.run_requests = 250;
  EXPECT_EQ(cliOverridesFor(QStringLiteral("roofline"), saved, run),
            QStringLiteral("--requests 250"));
  EXPECT_EQ(cliOverridesFor(QStringLiteral("budget"), saved, run), std::nullopt);
  // A choice the command takes goes by its option's name; one left to the
  // software (no flag unsets it) leaves the file as saved.
  Scenario engine = saved;
  set_choice(scenario_choice("serving.engine"), engine, "vllm");
  EXPECT_EQ(cliOverridesFor(QStringLiteral("roofline"), saved, engine),
            QStringLiteral("--engine vllm"));
  EXPECT_EQ(cliOverridesFor(QStringLiteral("budget"), saved, engine),
            QStringLiteral("--engine vllm"));
  Scenario schedule = saved;
  schedule.parallel.pipe_schedule = PipeSchedule::zb_h1;
  EXPECT_EQ(cliOverridesFor(QStringLiteral("parallel"), saved, schedule),
            QStringLiteral("--pipeline-schedule zb-h1"));
  EXPECT_EQ(cliOverridesFor(QStringLiteral("parallel"), schedule, saved), std::nullopt);
  // No panel: the report's command, which takes every panel's flags.
  now.roofline.serving_layout.run_requests = 250;
  EXPECT_EQ(cliOverridesFor(QString(), saved, now),
            QStringLiteral("--chips 4096 --requests 250 --chip H200"));
  // A flag in the unit the control shows: bytes/s as GB/s; a count of tokens
  // in napkin-cli's number format.
  Scenario storage = saved;
  storage.goodput.storage_bytes_per_s_per_chip = 2.5e8;
  storage.plan.train_tokens = 1e13;
  EXPECT_EQ(cliOverridesFor(QStringLiteral("budget"), saved, storage),
            QStringLiteral("--tokens 1e+13 --storage-gb-per-s-per-chip 0.25"));
  Scenario mfu = saved;
  mfu.mfu = 0.5;
  EXPECT_EQ(cliOverridesFor(QStringLiteral("budget"), saved, mfu), QStringLiteral("--mfu 0.5"));
  mfu.ranges.mfu = Spread{0.3, 0.6};  // a range goes as low:likely:high
  EXPECT_EQ(cliOverridesFor(QStringLiteral("budget"), saved, mfu),
            QStringLiteral("--mfu 0.3:0.5:0.6"));
  mfu.parallel.mfu_source = MfuSource::predicted;
  Scenario predicted = saved;
  predicted.parallel.mfu_source = MfuSource::predicted;
  EXPECT_EQ(cliOverridesFor(QStringLiteral("budget"), predicted, mfu), std::nullopt);
}

TEST(WindowKeys, CliCommandsQuoteForTheShell) {
  EXPECT_EQ(shellQuoted(QStringLiteral("/tmp/plan.napkin.json")),
            QStringLiteral("/tmp/plan.napkin.json"));
  EXPECT_EQ(shellQuoted(QStringLiteral("a b")), QStringLiteral("'a b'"));
  EXPECT_EQ(shellQuoted(QStringLiteral("$HOME;rm")), QStringLiteral("'$HOME;rm'"));
  EXPECT_EQ(shellQuoted(QStringLiteral("it's")), QStringLiteral("'it'\\''s'"));
  EXPECT_EQ(cliCommandFor(QStringLiteral("roofline"), QStringLiteral("/p.json")),
            QStringLiteral("napkin-cli serve --scenario /p.json"));
  EXPECT_EQ(cliCommandFor(QStringLiteral("isoflops"), QStringLiteral("/p.json")),
            QStringLiteral("napkin-cli isoflops --scenario /p.json"));
  EXPECT_EQ(cliCommandFor(QStringLiteral("moe"), QStringLiteral("/p.json")),
            QStringLiteral("napkin-cli moe collapse --scenario /p.json"));
  EXPECT_EQ(cliCommandFor(QStringLiteral("other"), QStringLiteral("/p.json")),
            QStringLiteral("napkin-cli report --scenario /p.json -o napkin-report.pdf"));
  // A value that starts with a dash is given as --flag=VALUE.
  EXPECT_EQ(cliCommandFor(QStringLiteral("budget"), QStringLiteral("-x.json")),
            QStringLiteral("napkin-cli budget --scenario=-x.json"));
}

// A model destroyed with unsaved changes says nothing as it goes (its undo
// stack announced the clean state's change from its destructor, into a window
// whose members and the model's path were already gone: found by ASan).
TEST(WindowKeys, AModelWithUnsavedChangesDiesSilently) {
  auto* model = new ScenarioModel;
  ASSERT_TRUE(model->edit(QStringLiteral("chips"), 1, [](Scenario& s) { s.n_chips = 3000; }));
  ASSERT_TRUE(model->isModified());
  int said = 0;
  QObject::connect(model, &ScenarioModel::fileStateChanged, [&said] { ++said; });
  delete model;
  EXPECT_EQ(said, 0);
}
