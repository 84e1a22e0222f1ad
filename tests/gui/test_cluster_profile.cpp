// Issue 25 in the Parallelism panel: a cluster profile loaded from its
// "Cluster profile" button replaces the published constants in one undo
// step, the read-outs say calibrated, the Budget MFU says on how many runs;
// a profile of another chip or a malformed one is refused with the reason.
#include <gtest/gtest.h>

#include <QAbstractItemView>
#include <QApplication>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPointer>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolButton>
#include <QUndoStack>
#include <set>

#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "atomic_writer.h"
#include "calibration.h"
#include "hardware.h"
#include "measured_runs.h"
#include "parallel/CalibrateRunsDialog.h"
#include "parallel/ParallelPanel.h"
#include "parallel/plots/ResidualPlot.h"
#include "plan.h"

using namespace napkin;

namespace {

// The ten vTrain calibration rows of tests/io/test_calibration.cpp.
QString writeProfile(const QTemporaryDir& dir) {
  const RunDefaults defaults = {{"chip", "A100-80"},
                                {"vocab", "50304"},
                                {"recompute", "full"},
                                {"framework", "megatron-deepspeed"}};
  const MeasuredRuns all =
      load_runs_file(std::string(NAPKIN_TEST_DATA) + "/vtrain/single_node_runs.csv", defaults);
  const std::set<std::int64_t> lines = {21, 59, 63, 74, 78, 103, 106, 123, 237, 242};
  std::vector<MeasuredRun> rows;
  for (const MeasuredRun& r : all.runs)
    if (lines.count(r.line)) rows.push_back(r);
  const Network& dgx = cluster_by_name("dgx-a100").network;
  ConstantFitOptions o;
  o.bootstrap = 10;
  const Calibration c = calibrate_step_time(
      rows, o, {}, custom_network(8, dgx.intra_node_bytes_per_s / 1e9, 12.5, dgx));
  const QString path = dir.filePath(QStringLiteral("a100.profile.json"));
  QString error;
  EXPECT_TRUE(write_file_atomically(path, QByteArray::fromStdString(profile_to_json(c)), &error))
      << error.toStdString();
  return path;
}

}  // namespace

TEST(ClusterProfile, LoadedFromTheParallelismPanelItRunsCalibrated) {
  ScenarioModel model;
  ParallelPanel panel{&model};
  panel.resize(1280, 800);
  panel.show();
  model.edit(QStringLiteral("chip"), 1, [](Scenario& s) {
    s.chip = "A100-80";
    s.n_chips = 64;
    s.shape = ModelShape{24, 2048, 8192, 16, 16, 128, 50304};
    s.training.seq_len = 2048;
    s.parallel.mfu_source = MfuSource::predicted;
  });
  panel.waitForSearch();
  QTemporaryDir dir;
  const QString path = writeProfile(dir);
  ASSERT_NE(panel.profileButton(), nullptr);
  ASSERT_NE(panel.profileButton()->menu(), nullptr);
  EXPECT_EQ(panel.profileButton()->menu()->actions().size(), 3);  // load, calibrate, clear
  const QString cluster_before = panel.readouts().text(panel.readouts().cluster);
  EXPECT_FALSE(cluster_before.contains(QStringLiteral("calibrated")));

  const int steps = model.undoStack()->count();
  EXPECT_TRUE(panel.loadClusterProfile(path).isEmpty());
  panel.waitForSearch();
  QCoreApplication::processEvents();
  EXPECT_EQ(model.undoStack()->count(), steps + 1);
  const Scenario& s = model.scenario();
  ASSERT_TRUE(s.parallel.calibrated.has_value());
  EXPECT_EQ(s.parallel.calibrated->runs, 10);
  EXPECT_TRUE(s.parallel.calibrated_interval.has_value());
  EXPECT_EQ(s.parallel.cluster_profile, path.toStdString());
  EXPECT_TRUE(
      panel.readouts().text(panel.readouts().cluster).contains(QStringLiteral("calibrated")));
  const ResolvedPlan plan = resolve_plan(s);
  EXPECT_NE(plan.mfu_text().find("calibrated on 10 runs"), std::string::npos) << plan.mfu_text();
  EXPECT_NE(plan.mfu_text().find("used with software modern"), std::string::npos)
      << plan.mfu_text();
  // The profile was fitted under megatron-deepspeed; the plan runs `modern`:
  // the read-out says so in amber, and stops saying it under the same software.
  const ParallelReadouts& ro = panel.readouts();
  EXPECT_TRUE(ro.text(ro.cluster).endsWith(QStringLiteral("(calibrated under other software)")))
      << ro.text(ro.cluster).toStdString();
  EXPECT_EQ(ro.grid()->readout(ro.cluster).tone, Tone::warn);
  EXPECT_TRUE(
      ro.grid()->readout(ro.cluster).note.contains(QStringLiteral("used with software modern")));
  model.edit(QStringLiteral("software"), 1,
             [](Scenario& x) { x.parallel.software = "megatron-deepspeed"; });
  panel.waitForSearch();
  QCoreApplication::processEvents();
  EXPECT_EQ(ro.text(ro.cluster), QStringLiteral("A100-80's usual node (calibrated)"));
  EXPECT_EQ(ro.grid()->readout(ro.cluster).tone, Tone::normal);
  model.undoStack()->undo();

  model.undoStack()->undo();
  QCoreApplication::processEvents();
  EXPECT_FALSE(model.scenario().parallel.calibrated.has_value());
  model.undoStack()->redo();
  panel.clearClusterProfile();
  QCoreApplication::processEvents();
  EXPECT_FALSE(model.scenario().parallel.calibrated.has_value());
  EXPECT_TRUE(model.scenario().parallel.cluster_profile.empty());

  // Refused, with the reason, and nothing changes.
  const int before = model.undoStack()->count();
  model.edit(QStringLiteral("chip"), 1, [](Scenario& x) { x.chip = "H100"; });
  const QString other_chip = panel.loadClusterProfile(path);
  EXPECT_TRUE(other_chip.contains(QStringLiteral("was calibrated on A100-80")))
      << other_chip.toStdString();
  const QString bad = dir.filePath(QStringLiteral("bad.json"));
  QString error;
  ASSERT_TRUE(write_file_atomically(
      bad, QByteArrayLiteral("{\"format\":\"napkin-cluster-profile\"}"), &error));
  const QString malformed = panel.loadClusterProfile(bad);
  EXPECT_TRUE(malformed.contains(QStringLiteral("version"))) << malformed.toStdString();
  EXPECT_EQ(model.undoStack()->count(), before + 1);  // the chip edit only
  EXPECT_FALSE(model.scenario().parallel.calibrated.has_value());
}

TEST(ClusterProfile, TheCalibrateDialogPreviewsFitsOffTheUiThreadAndSaves) {
  ScenarioModel model;
  ParallelPanel panel{&model};
  panel.resize(1280, 800);
  panel.show();
  model.edit(QStringLiteral("chip"), 1, [](Scenario& s) {
    s.chip = "A100-80";
    s.n_chips = 64;
    s.parallel.cluster = "dgx-a100";
  });
  // A runs file of the ten calibration rows and one bad row.
  QFile all(QStringLiteral(NAPKIN_TEST_DATA "/vtrain/single_node_runs.csv"));
  ASSERT_TRUE(all.open(QIODevice::ReadOnly));
  const QList<QByteArray> lines = all.readAll().split('\n');
  QByteArray csv = lines[0] + '\n';
  for (int line : {21, 59, 63, 74, 78, 103, 106, 123, 237, 242}) csv += lines[line - 1] + '\n';
  csv += "not,a,run\n";
  QTemporaryDir dir;
  // The README's screenshot of the dialog (NAPKIN_SAVE_SCREENSHOTS names a
  // folder) shows the runs file's path: one in that folder, named for what it holds.
  const QString shots = qEnvironmentVariable("NAPKIN_SAVE_SCREENSHOTS");
  const QString runs = shots.isEmpty() ? dir.filePath(QStringLiteral("runs.csv"))
                                       : QDir(shots).filePath(QStringLiteral("vtrain-10-runs.csv"));
  QString error;
  ASSERT_TRUE(write_file_atomically(runs, csv, &error)) << error.toStdString();

  CalibrateRunsDialog* d = panel.openCalibrateDialog();
  ASSERT_NE(d, nullptr);
  EXPECT_TRUE(d->isVisible());
  d->setDefaults(
      QStringLiteral("chip=A100-80, vocab=50304, recompute=full, "
                     "framework=megatron-deepspeed"));
  ASSERT_TRUE(d->openRuns(runs).isEmpty());
  EXPECT_EQ(d->table()->rowCount(), 10);
  EXPECT_TRUE(d->skipped()->toPlainText().contains(QStringLiteral("line 12")))
      << d->skipped()->toPlainText().toStdString();
  EXPECT_TRUE(d->calibrateButton()->isEnabled());

  // Cancelled at once: nothing is fitted, the dialog can fit again.
  d->calibrate();
  EXPECT_TRUE(d->isRunning());
  EXPECT_TRUE(d->cancelButton()->isEnabled());
  d->cancel();
  d->waitForFit();
  EXPECT_FALSE(d->result().has_value());
  EXPECT_TRUE(d->status()->text().contains(QStringLiteral("Cancelled")));

  QTest::mouseClick(d->calibrateButton(), Qt::LeftButton);
  d->waitForFit();
  ASSERT_TRUE(d->result().has_value()) << d->status()->text().toStdString();
  EXPECT_EQ(d->result()->runs.size(), 10u);
  EXPECT_TRUE(d->status()->text().contains(QStringLiteral("Calibrated on 10 runs")));
  // A mean signed error carries its sign ("calibrated 6.3 % / +1.5 %").
  EXPECT_TRUE(d->status()->text().contains(QStringLiteral(" % / +")))
      << d->status()->text().toStdString();
  EXPECT_FALSE(d->table()->item(0, 5)->text().isEmpty());  // the calibrated step
  EXPECT_EQ(d->plot()->pointCount(), 20);                  // published and calibrated

  // The residuals are on screen once the dialog has laid itself out and
  // replotted: the status line (two lines at this width) whole, not cut.
  QCoreApplication::processEvents();
  d->plot()->replot();
  QLabel* status = d->status();
  EXPECT_GE(status->height(), status->heightForWidth(status->width()))
      << status->text().toStdString();
  const QString profile = dir.filePath(QStringLiteral("cluster.profile.json"));
  if (!shots.isEmpty())
    d->grab().save(QDir(shots).filePath(QStringLiteral("calibrate-dialog.png")));
  ASSERT_TRUE(d->saveProfile(profile).isEmpty());
  d->accept();
  QCoreApplication::processEvents();
  ASSERT_TRUE(model.scenario().parallel.calibrated.has_value());
  EXPECT_EQ(model.scenario().parallel.calibrated->runs, 10);
  EXPECT_EQ(model.scenario().parallel.cluster_profile, profile.toStdString());
  // The profile says what the runs ran under; the panel's software (modern)
  // is not it, and the cluster read-out says so.
  EXPECT_EQ(model.scenario().parallel.calibrated->framework, "megatron-deepspeed");
  const std::string cluster = model.scenario().parallel.cluster_text(chip_by_name("A100-80"));
  EXPECT_NE(cluster.find("calibrated on 10 runs under megatron-deepspeed"), std::string::npos)
      << cluster;
  EXPECT_NE(cluster.find("used with software modern"), std::string::npos) << cluster;
  model.edit(QStringLiteral("software"), 2,
             [](Scenario& s) { s.parallel.software = "megatron-deepspeed"; });
  EXPECT_EQ(model.scenario().parallel.calibration_warning(), "");

  // A file that is not a runs file: one message, the dialog keeps its runs.
  CalibrateRunsDialog* e = panel.openCalibrateDialog();
  const QString bad = dir.filePath(QStringLiteral("bad.csv"));
  ASSERT_TRUE(write_file_atomically(bad, QByteArrayLiteral("a,b\n1,2\n"), &error));
  EXPECT_FALSE(e->openRuns(bad).isEmpty());
  e->close();
}

// Chosen before the columns it lacks were typed, a runs file is read again
// when they are (on leaving "For every row"): the user need not choose it twice.
TEST(ClusterProfile, ColumnsTypedAfterChoosingTheFileApplyToIt) {
  ScenarioModel model;
  ParallelPanel panel{&model};
  panel.resize(1280, 800);
  panel.show();
  CalibrateRunsDialog* d = panel.openCalibrateDialog();
  ASSERT_NE(d, nullptr);
  const QString runs = QStringLiteral(NAPKIN_TEST_DATA "/vtrain/single_node_runs.csv");
  const QString first = d->openRuns(runs);
  // Without the chip (and vocab, recompute, framework) no row is a run.
  EXPECT_EQ(d->table()->rowCount(), 0) << first.toStdString();
  EXPECT_FALSE(d->calibrateButton()->isEnabled());
  auto* defaults = d->findChild<QLineEdit*>(QStringLiteral("calibrateRunsDefaults"));
  ASSERT_NE(defaults, nullptr);
  defaults->setText(
      QStringLiteral("chip=A100-80, vocab=50304, recompute=full, "
                     "framework=megatron-deepspeed"));
  emit defaults->editingFinished();  // as on leaving the box (Enter or Tab)
  EXPECT_GT(d->table()->rowCount(), 10);
  EXPECT_TRUE(d->calibrateButton()->isEnabled());
  EXPECT_TRUE(d->status()->text().contains(QStringLiteral("read")))
      << d->status()->text().toStdString();
  d->close();
}

// Issue 27: Enter in the dialog commits what was typed and presses no button.
// It pressed the dialog's default button: typed into "For every row" (which
// reads the 1,440-row file again) or on a cell of the preview, it started the
// 1,440-run fit, or opened the file chooser, or closed the dialog.
TEST(ClusterProfile, EnterInTheCalibrateDialogCommitsAndPressesNoButton) {
  ScenarioModel model;
  ParallelPanel panel{&model};
  panel.resize(1280, 800);
  panel.show();
  // Closing would delete it (WA_DeleteOnClose): watched, not dangling.
  QPointer<CalibrateRunsDialog> d = panel.openCalibrateDialog();
  ASSERT_NE(d, nullptr);
  d->activateWindow();
  // A file chooser opened by Enter would wait for the user: closed at once, and noted.
  bool chooser = false;
  QTimer closer;
  closer.setInterval(100);
  QObject::connect(&closer, &QTimer::timeout, [&] {
    if (QWidget* m = QApplication::activeModalWidget(); m && m != d) {
      chooser = true;
      m->close();
    }
  });
  closer.start();
  const QString runs = QStringLiteral(NAPKIN_TEST_DATA "/vtrain/single_node_runs.csv");
  d->openRuns(runs);  // lacks the chip: no run yet, the file is remembered
  auto* defaults = d->findChild<QLineEdit*>(QStringLiteral("calibrateRunsDefaults"));
  ASSERT_NE(defaults, nullptr);
  defaults->setFocus();
  defaults->clear();
  QTest::keyClicks(defaults, QStringLiteral("chip=A100-80, vocab=50304, recompute=full, "
                                            "framework=megatron-deepspeed"));
  QTest::keyClick(defaults, Qt::Key_Return);
  QCoreApplication::processEvents();
  ASSERT_TRUE(d) << "Enter closed the dialog";
  EXPECT_GT(d->table()->rowCount(), 1000);  // committed: the file is read with the columns
  EXPECT_FALSE(d->isRunning());
  EXPECT_TRUE(d->isVisible());
  EXPECT_FALSE(chooser);
  chooser = false;

  // On a cell of the preview, Return or the keypad's Enter; also once the
  // Calibrate button has had the focus (a button clicked becomes the default).
  for (QWidget* before :
       {static_cast<QWidget*>(d->table()), static_cast<QWidget*>(d->calibrateButton())}) {
    before->setFocus();
    d->table()->setCurrentCell(3, 2);
    d->table()->setFocus();
    for (int key : {Qt::Key_Return, Qt::Key_Enter}) {
      QTest::keyClick(d->table(), static_cast<Qt::Key>(key),
                      key == Qt::Key_Enter ? Qt::KeypadModifier : Qt::NoModifier);
      QCoreApplication::processEvents();
      ASSERT_TRUE(d) << "Enter closed the dialog, key " << key;
      EXPECT_FALSE(d->isRunning()) << "key " << key;
      EXPECT_TRUE(d->isVisible()) << "key " << key;
      EXPECT_FALSE(chooser) << "key " << key;
      chooser = false;
    }
  }
  d->cancel();
  d->waitForFit();
  d->close();
}

// The cluster rows greyed under a named cluster show the network the plan runs
// on (DGX A100: 8 GPUs, 300 / 25 GB/s), not the custom numbers kept for
// "custom" (450 / 50 by default); choosing "custom" starts from those numbers
// (one undo step) and the rows can be edited.
TEST(ClusterProfile, GreyedClusterRowsShowTheNetworkInUse) {
  ScenarioModel model;
  ASSERT_TRUE(model.edit(QStringLiteral("chip"), 1, [](Scenario& s) {
    s.chip = "A100-80";
    s.parallel.cluster = "dgx-a100";
  }));
  ParallelPanel panel(&model);
  panel.resize(1280, 800);
  panel.show();
  QCoreApplication::processEvents();
  auto* up = panel.findChild<SliderSpin*>(QStringLiteral("parallelScaleUp"));
  auto* out = panel.findChild<SliderSpin*>(QStringLiteral("parallelScaleOut"));
  auto* gpus = panel.findChild<SliderSpin*>(QStringLiteral("parallelGpusPerNode"));
  auto* cluster = panel.findChild<QComboBox*>(QStringLiteral("parallelCluster"));
  ASSERT_TRUE(up && out && gpus && cluster);
  EXPECT_EQ(model.scenario().parallel.scale_up_gb_per_s, 450);  // the custom numbers, unused
  EXPECT_FALSE(up->spinBox()->isEnabled());
  EXPECT_DOUBLE_EQ(up->value(), 300);
  EXPECT_DOUBLE_EQ(out->value(), 25);
  EXPECT_DOUBLE_EQ(gpus->value(), 8);
  // The chip's own node: the H100's 450 / 50.
  ASSERT_TRUE(model.edit(QStringLiteral("chip"), 1, [](Scenario& s) {
    s.chip = "H100";
    s.parallel.cluster.clear();
  }));
  QCoreApplication::processEvents();
  EXPECT_DOUBLE_EQ(up->value(), 450);
  ASSERT_TRUE(model.edit(QStringLiteral("chip"), 1, [](Scenario& s) {
    s.chip = "A100-80";
    s.parallel.cluster = "dgx-a100";
  }));
  QCoreApplication::processEvents();
  const int before = model.undoStack()->count();
  // Picked with the mouse from the open list, as a user would.
  cluster->showPopup();
  QAbstractItemView* list = cluster->view();
  const QModelIndex custom = list->model()->index(cluster->findData(QStringLiteral("custom")), 0);
  list->scrollTo(custom);
  QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualRect(custom).center());
  QCoreApplication::processEvents();
  EXPECT_EQ(model.undoStack()->count(), before + 1);
  EXPECT_EQ(model.scenario().parallel.cluster, "custom");
  EXPECT_DOUBLE_EQ(model.scenario().parallel.scale_up_gb_per_s, 300);
  EXPECT_DOUBLE_EQ(model.scenario().parallel.scale_out_gb_per_s, 25);
  EXPECT_TRUE(up->spinBox()->isEnabled());
  EXPECT_DOUBLE_EQ(up->value(), 300);
  EXPECT_DOUBLE_EQ(out->value(), 25);
}
