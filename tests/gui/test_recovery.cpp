// Issue 28, item 16: every autosave of a window that did not close cleanly is
// offered (not only the newest), a recovered scenario keeps the name of its
// document, and a "%1" in a model's name reaches the PDF's title as typed.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QTemporaryDir>

#include "autosave_cleanup.h"
#include "shell/MainWindow.h"

using namespace napkin;

namespace {

using testing_util::removeAutosaves;

// A window that edits `s` (saved first to `path` when given) and then
// "crashes": its autosave is written and it is destroyed without closing.
QString crashWith(const Scenario& s, const QString& path = {}) {
  // Restored windows autosave. No events are processed while it lives, so
  // its own offer of recovery (queued) never runs.
  auto* w = new MainWindow(MainWindow::Session::restore);
  if (!path.isEmpty()) {
    Scenario start;
    start.days = 12;
    EXPECT_TRUE(w->model()->replace(start, QStringLiteral("start")));
    EXPECT_TRUE(w->saveTo(path));
  }
  EXPECT_TRUE(w->model()->replace(s, QStringLiteral("edit")));
  w->autosave();
  const QString autosave = w->autosavePath();
  EXPECT_TRUE(QFileInfo::exists(autosave));
  w->setAttribute(Qt::WA_DeleteOnClose, false);
  delete w;
  return autosave;
}

}  // namespace

TEST(Recovery, EveryOrphanIsOfferedAndARecoveredDocumentKeepsItsName) {
  QSettings().clear();
  removeAutosaves();
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("plan.napkin.json"));
  Scenario named, untitled;
  named.days = 41;
  untitled.days = 17;
  const QString a = crashWith(named, path);
  const QString b = crashWith(untitled);
  QSettings().clear();

  // The first offered is declined: the second is still offered.
  {
    MainWindow w(MainWindow::Session::restore);
    QStringList asked;
    w.setRecoverPrompt([&](const QString& what) {
      asked << what;
      return asked.size() == 2;
    });
    QCoreApplication::processEvents();
    ASSERT_EQ(asked.size(), 2) << asked.join(QStringLiteral(" | ")).toStdString();
    EXPECT_TRUE(asked[0].contains(QStringLiteral("1 of 2"))) << asked[0].toStdString();
    EXPECT_TRUE(asked[1].contains(QStringLiteral("2 of 2"))) << asked[1].toStdString();
    EXPECT_TRUE(asked.join(QLatin1Char(' ')).contains(QStringLiteral("plan.napkin.json")));
    const bool got_named = asked[1].contains(QStringLiteral("plan.napkin.json"));
    EXPECT_EQ(w.model()->scenario(), got_named ? named : untitled);
    EXPECT_EQ(w.model()->filePath(), got_named ? path : QString());
    EXPECT_TRUE(w.model()->isModified());
    EXPECT_FALSE(QFileInfo::exists(a));
    EXPECT_FALSE(QFileInfo::exists(b));
    w.setSavePrompt([] { return QMessageBox::Discard; });
    w.close();
  }

  // The first is recovered: the other is kept as a file and said so.
  QSettings().clear();
  removeAutosaves();
  crashWith(named, path);
  crashWith(untitled);
  QSettings().clear();
  MainWindow w(MainWindow::Session::restore);
  int offered = 0;
  w.setRecoverPrompt([&](const QString&) { return ++offered, true; });
  QCoreApplication::processEvents();
  EXPECT_EQ(offered, 1);
  const QDir kept(MainWindow::autosaveFolder() + QStringLiteral("/recovered"));
  const QStringList files = kept.entryList({QStringLiteral("*.napkin.json")}, QDir::Files);
  ASSERT_EQ(files.size(), 1);
  EXPECT_TRUE(w.statusBar()->currentMessage().contains(files.front()))
      << w.statusBar()->currentMessage().toStdString();
  if (w.model()->filePath().isEmpty())  // the untitled one was newer: the named one was kept
    EXPECT_TRUE(files.front().startsWith(QStringLiteral("plan-"))) << files.front().toStdString();
  else
    EXPECT_EQ(w.model()->filePath(), path);
  w.setSavePrompt([] { return QMessageBox::Discard; });
  w.close();
  removeAutosaves();
  QSettings().clear();
}

TEST(Recovery, APercentOneInTheModelNameReachesThePdfTitleAsTyped) {
  QTemporaryDir dir;
  MainWindow w(MainWindow::Session::fresh);
  Scenario s;
  s.model_name = "Model %1 %2";
  ASSERT_TRUE(w.model()->replace(s, QStringLiteral("name")));
  const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
  ASSERT_TRUE(w.exportReport(pdf)) << w.lastError().toStdString();
  QFile f(pdf);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  const QByteArray bytes = f.readAll();
  EXPECT_TRUE(bytes.contains("Napkin report: Model %1 %2 on ")) << "title corrupted";
}
