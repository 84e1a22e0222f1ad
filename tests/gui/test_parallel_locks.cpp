// The Parallelism panel's axis locks take what a file and --layout take (up
// to each axis's limit, kLayoutLimits): a lock off the combo's list shows as
// itself, never as "auto" or another value. Its schedule and dispatch may be
// left to the software preset, as a file and the flags may.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QTemporaryDir>
#include <QUndoStack>

#include "ScenarioModel.h"
#include "gui_test_util.h"

#include "parallel.h"
#include "scenario.h"
#include "scenario_json.h"
#include "shell/MainWindow.h"

using namespace napkin;

TEST(ParallelLocks, ALockOffTheListShowsAsItself) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("locks.napkin.json"));
  Scenario s;
  s.parallel.tp = 128;
  s.parallel.vpp = 12;
  s.parallel.micro_batch = 3;
  s.parallel.pp = 7;  // not a divisor of the layers
  save_scenario_file(s, path.toStdString());
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.openFile(path));
  w.showPanel(QStringLiteral("parallel"));
  const std::pair<const char*, const char*> shown[] = {
      {"lockTp", "128"}, {"lockVpp", "12"}, {"lockMicroBatch", "3"}, {"lockPp", "7"}};
  for (const auto& [key, text] : shown) {
    const QComboBox* combo = w.findChild<QComboBox*>(QString::fromUtf8(key));
    ASSERT_NE(combo, nullptr) << key;
    EXPECT_EQ(combo->currentText().toStdString(), text) << key;
  }
  EXPECT_EQ(w.model()->scenario().parallel.tp, 128);
  EXPECT_EQ(w.model()->scenario().parallel.vpp, 12);
}

TEST(ParallelLocks, TheFileRefusesWhatTheLayoutFlagRefuses) {
  Scenario s;
  s.parallel.vpp = kLayoutLimits.vpp + 1;
  EXPECT_THROW(s.validate(), std::invalid_argument);
  s.parallel.vpp = kLayoutLimits.vpp;
  EXPECT_NO_THROW(s.validate());
  EXPECT_THROW((void)parse_layout("vpp=1025", 16), std::invalid_argument);
}

// The schedule and the expert dispatch are registered choices that may be
// left unset: their combos list "the software's" first, and picking it unsets
// the choice in one undo step.
TEST(ParallelLocks, TheSoftwaresScheduleAndDispatchAreTheUnsetOptions) {
  MainWindow w(MainWindow::Session::fresh);
  w.showPanel(QStringLiteral("parallel"));
  auto* schedule = w.findChild<QComboBox*>(QStringLiteral("parallelPipeSchedule"));
  auto* dispatch = w.findChild<QComboBox*>(QStringLiteral("parallelEpDispatch"));
  ASSERT_TRUE(schedule && dispatch);
  const Scenario& s = w.model()->scenario();
  EXPECT_EQ(schedule->itemText(0), QStringLiteral("the software's"));
  EXPECT_EQ(schedule->currentText(), QStringLiteral("the software's"));
  EXPECT_EQ(dispatch->itemText(0), QStringLiteral("the software's"));
  EXPECT_EQ(dispatch->count(), 3);
  pick(dispatch, QStringLiteral("flex (DeepEP, HybridEP)"));
  EXPECT_EQ(s.parallel.ep_dispatch, EpDispatch::deduplicated);
  EXPECT_EQ(w.model()->undoStack()->undoText(), QStringLiteral("Change expert dispatch"));
  pick(schedule, QStringLiteral("DualPipe"));
  EXPECT_EQ(s.parallel.pipe_schedule, PipeSchedule::dualpipe);
  pick(schedule, QStringLiteral("the software's"));
  EXPECT_FALSE(s.parallel.pipe_schedule);
  EXPECT_EQ(w.model()->undoStack()->undoText(), QStringLiteral("Change pipeline schedule"));
  w.model()->undoStack()->undo();  // the keys walked up through 1F1B
  QCoreApplication::processEvents();
  EXPECT_EQ(s.parallel.pipe_schedule, PipeSchedule::one_f_one_b);
  EXPECT_EQ(schedule->currentText(), QStringLiteral("1F1B"));
}
