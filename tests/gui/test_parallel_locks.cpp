// The Parallelism panel's axis locks take what a file and --layout take (up
// to each axis's limit, kLayoutLimits): a lock off the combo's list shows as
// itself, never as "auto" or another value. Its schedule and dispatch may be
// left to the software preset, as a file and the flags may.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QLabel>
#include <QStandardItem>
#include <QStandardItemModel>
#include <QTableView>
#include <QTemporaryDir>
#include <QUndoStack>

#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "gui_test_util.h"
#include "parallel/LayoutTableModel.h"
#include "parallel/ParallelPanel.h"

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

// The ZeRO shard lock: "all DP × CP" keeps every layout whole, a number makes
// the groups replicas (hybrid sharding), written in the ZeRO column as
// "3/8"; a framework without hybrid sharding greys the numbers and says why.
TEST(ParallelLocks, TheZeroShardLockChoosesHybridSharding) {
  MainWindow w(MainWindow::Session::fresh);
  w.showPanel(QStringLiteral("parallel"));
  auto* shard = w.findChild<QComboBox*>(QStringLiteral("lockShard"));
  auto* software = w.findChild<QComboBox*>(QStringLiteral("parallelSoftware"));
  ASSERT_TRUE(shard && software);
  EXPECT_EQ(shard->itemText(0), QStringLiteral("auto"));
  EXPECT_EQ(shard->itemText(1), QStringLiteral("all DP × CP"));
  const Scenario& s = w.model()->scenario();
  pick(shard, QStringLiteral("8"));
  EXPECT_EQ(s.parallel.shard, 8);
  EXPECT_EQ(w.model()->undoStack()->undoText(), QStringLiteral("Change ZeRO shard"));
  auto* panel = w.findChild<ParallelPanel*>();
  ASSERT_NE(panel, nullptr);
  panel->waitForSearch();
  const QAbstractItemModel* rows = panel->table()->model();
  ASSERT_GT(rows->rowCount(), 0);
  bool hybrid = false;
  for (int i = 0; i < rows->rowCount(); ++i) {
    EXPECT_EQ(panel->layoutAtRow(i).layout.zero_shard(), 8) << i;
    hybrid =
        hybrid ||
        rows->index(i, LayoutTableModel::kZero).data().toString().endsWith(QStringLiteral("/8"));
  }
  EXPECT_TRUE(hybrid);
  pick(shard, QStringLiteral("all DP × CP"));
  EXPECT_EQ(s.parallel.shard, 0);
  pick(shard, QStringLiteral("auto"));
  EXPECT_FALSE(s.parallel.shard);
  pick(software, QStringLiteral("megatron-2022"));
  auto* items = qobject_cast<QStandardItemModel*>(shard->model());
  ASSERT_NE(items, nullptr);
  const QStandardItem* eight = items->item(shard->findText(QStringLiteral("8")));
  EXPECT_FALSE(eight->isEnabled());
  EXPECT_EQ(eight->toolTip(), QStringLiteral("Megatron-LM 2022 has no hybrid sharding"));
  EXPECT_TRUE(items->item(shard->findText(QStringLiteral("all DP × CP")))->isEnabled());
}

// The cluster's first row names the chip's fast domain: a DGX's GPUs per
// node, a TPU's chips per ICI slice, as the read-out and the CLI do.
TEST(ParallelLocks, TheDomainRowIsNamedForTheChip) {
  MainWindow w(MainWindow::Session::fresh);
  w.showPanel(QStringLiteral("parallel"));
  auto* domain = w.findChild<SliderSpin*>(QStringLiteral("parallelGpusPerNode"));
  ASSERT_NE(domain, nullptr);
  // The cluster choice's first item is the chip's own system, by its name.
  auto* cluster = w.findChild<QComboBox*>(QStringLiteral("parallelCluster"));
  ASSERT_NE(cluster, nullptr);
  QCoreApplication::processEvents();
  EXPECT_EQ(domain->label()->text(), QStringLiteral("GPUs per node"));
  EXPECT_EQ(cluster->itemText(0), QStringLiteral("the chip's node"));
  EXPECT_EQ(cluster->currentIndex(), 0);
  ASSERT_TRUE(w.model()->edit(QStringLiteral("chip"), 1, [](Scenario& s) { s.chip = "TPU v5p"; }));
  QCoreApplication::processEvents();
  EXPECT_EQ(domain->label()->text(), QStringLiteral("Chips per ICI slice"));
  EXPECT_EQ(cluster->itemText(0), QStringLiteral("the chip's pod"));
  EXPECT_EQ(cluster->currentText(), QStringLiteral("the chip's pod"));
  w.model()->undoStack()->undo();
  QCoreApplication::processEvents();
  EXPECT_EQ(domain->label()->text(), QStringLiteral("GPUs per node"));
  EXPECT_EQ(cluster->itemText(0), QStringLiteral("the chip's node"));
}
