// Issue 28, item 11, at the app's level: a named pipe where the last session's
// file was must not stall the launch (reading it would wait for a writer);
// the window opens, says why the session was not restored and keeps working.
// A named pipe chosen with Open… or from the recent list is refused at once,
// with what it is, and the scenario is left as it was.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <QAction>
#include <QCoreApplication>
#include <QMenu>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>

#include "ScenarioModel.h"
#include "autosave_cleanup.h"
#include "scenario.h"
#include "shell/MainWindow.h"

using namespace napkin;
using napkin::testing_util::removeAutosaves;

namespace {

QString makeFifo(const QTemporaryDir& dir, const char* name) {
  const QString path = dir.filePath(QString::fromLatin1(name));
  EXPECT_EQ(::mkfifo(path.toLocal8Bit().constData(), 0600), 0);
  return path;
}

QAction* action(const MainWindow& w, const char* name) {
  return w.findChild<QAction*>(QString::fromLatin1(name));
}

}  // namespace

TEST(SessionFifo, AFifoAsTheLastSessionsFileDoesNotStallTheLaunch) {
  QSettings().clear();
  removeAutosaves();
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString fifo = makeFifo(dir, "session.napkin.json");
  {
    // As after Quit → Discard on a file: the session names the file only.
    QSettings st;
    st.remove(QStringLiteral("session/scenario"));
    st.setValue(QStringLiteral("session/modified"), false);
    st.setValue(QStringLiteral("session/path"), fifo);
  }
  MainWindow w(MainWindow::Session::restore);
  w.setRecoverPrompt([](const QString&) { return false; });
  w.show();
  QCoreApplication::processEvents();
  // Said at once, as what the file is; not after a wait for a writer.
  const QString said = w.statusBar()->currentMessage();
  EXPECT_TRUE(said.contains(QStringLiteral("could not be restored"))) << said.toStdString();
  EXPECT_TRUE(said.contains(QStringLiteral("named pipe"))) << said.toStdString();
  EXPECT_TRUE(said.contains(fifo)) << said.toStdString();
  EXPECT_FALSE(said.contains(QStringLiteral("nothing wrote"))) << said.toStdString();
  // The defaults, untitled, and the window works: an edit is one undo step.
  EXPECT_EQ(w.model()->scenario(), Scenario{});
  EXPECT_TRUE(w.model()->filePath().isEmpty());
  ASSERT_TRUE(w.model()->replace(
      [] {
        Scenario s;
        s.n_chips = 2048;
        return s;
      }(),
      QStringLiteral("chips")));
  EXPECT_EQ(w.model()->scenario().n_chips, 2048);
  const QString saved = dir.filePath(QStringLiteral("saved.napkin.json"));
  EXPECT_TRUE(w.saveTo(saved)) << w.lastError().toStdString();
  w.setSavePrompt([] { return QMessageBox::Discard; });
  w.close();
  QSettings().clear();
  removeAutosaves();
}

TEST(SessionFifo, OpeningAFifoIsRefusedWithWhatItIs) {
  QSettings().clear();
  removeAutosaves();
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString fifo = makeFifo(dir, "pipe.napkin.json");
  MainWindow w(MainWindow::Session::fresh);
  Scenario before;
  before.n_chips = 4096;
  ASSERT_TRUE(w.model()->replace(before, QStringLiteral("chips")));
  w.setSavePrompt([] { return QMessageBox::Discard; });
  w.setPathPrompt([&](MainWindow::PathPurpose, const QString&) { return fifo; });
  QAction* open = action(w, "actionOpen");
  ASSERT_NE(open, nullptr);
  open->trigger();
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("named pipe"))) << w.lastError().toStdString();
  EXPECT_TRUE(w.lastError().contains(fifo)) << w.lastError().toStdString();
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("nothing was opened")))
      << w.lastError().toStdString();
  EXPECT_EQ(w.model()->scenario(), before);
  // A folder is refused the same way, naming it a folder.
  w.setPathPrompt([&](MainWindow::PathPurpose, const QString&) { return dir.path(); });
  open->trigger();
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("a folder"))) << w.lastError().toStdString();
  EXPECT_EQ(w.model()->scenario(), before);
  for (QMessageBox* box : w.findChildren<QMessageBox*>()) box->close();
  QSettings().clear();
}
