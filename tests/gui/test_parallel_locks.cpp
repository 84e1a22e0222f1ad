// The Parallelism panel's axis locks take what a file and --layout take (up
// to each axis's limit, kLayoutLimits): a lock off the combo's list shows as
// itself, never as "auto" or another value.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QTemporaryDir>

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
