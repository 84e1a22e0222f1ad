// The main window: documents (save, open, errors), undo, navigation,
// session restore and the --screenshot command.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QUndoStack>

#include "MainWindow.h"
#include "budget/BudgetPanel.h"
#include "scenario_json.h"

using namespace napkin;

namespace {

Scenario everyFieldChanged() {
  Scenario s;
  s.chip = "TPU v5p";
  s.n_chips = 4096;
  s.days = 45.5;
  s.mfu = 0.52;
  s.price_per_chip_hour_dollars = 3.1;
  s.kwh_price_dollars = 0.08;
  s.pue = 1.35;
  s.tokens_per_param = 35;
  s.tokens_available = 9e12;
  s.model_name = "Custom";
  s.shape = ModelShape{48, 6144, 16384, 48, 12, 128, 100352};
  s.shape.tied_embeddings = true;
  s.shape.gated = false;
  s.shape.qkv_bias = true;
  s.shape.n_experts = 16;
  s.shape.top_k = 2;
  s.shape.shared_experts = 1;
  s.shape.expert_d_ff = 4096;
  s.shape.n_dense_layers = 2;
  s.training =
      TrainingSetup{Optimizer::adafactor, Precision::fp32, 2, 128, Checkpointing::full, 4, 4096};
  s.serving = ServingSetup{32768, 3e15, 32, 2048, 256, 0.8, 0.1, Dtype::int8, Dtype::fp8};
  return s;
}

}  // namespace

TEST(MainWindow, SaveThenOpenRoundTripsEveryField) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("a.napkin.json"));
  MainWindow w(MainWindow::Session::fresh);
  const Scenario s = everyFieldChanged();
  ASSERT_TRUE(w.model()->replace(s, QStringLiteral("test")));
  EXPECT_TRUE(w.model()->isModified());
  ASSERT_TRUE(w.saveTo(path));
  EXPECT_FALSE(w.model()->isModified());
  EXPECT_TRUE(w.windowTitle().startsWith(QStringLiteral("a.napkin.json")));
  w.newScenario();
  EXPECT_EQ(w.model()->scenario(), Scenario{});
  ASSERT_TRUE(w.openFile(path));
  EXPECT_EQ(w.model()->scenario(), s);
  EXPECT_FALSE(w.model()->isModified());
  EXPECT_EQ(w.model()->undoStack()->count(), 0);
}

TEST(MainWindow, MalformedFileShowsAnErrorAndLeavesTheScenarioUntouched) {
  QTemporaryDir dir;
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.model()->replace(everyFieldChanged(), QStringLiteral("test")));
  const Scenario before = w.model()->scenario();
  struct Bad {
    const char* name;
    QByteArray bytes;
    const char* says;
  };
  const std::string good = scenario_to_json(Scenario{});
  const Bad bad[] = {
      {"truncated.json", QByteArray::fromStdString(good.substr(0, good.size() / 2)),
       "not valid JSON"},
      {"array.json", "[]", "expected a JSON object"},
      {"wrongformat.json", R"({"format":"other","version":1})", "field \"format\""},
      {"future.json", R"({"format":"napkin-scenario","version":99})", "newer Napkin"},
      {"chips.json", R"({"format":"napkin-scenario","version":1,"hardware":{"chips":-5}})",
       "field \"hardware.chips\": expected an integer in [1, 10000000], found -5"},
      {"chip.json", R"({"format":"napkin-scenario","version":1,"hardware":{"chip":"Z80"}})",
       "one of H100"},
      {"mfu.json", R"({"format":"napkin-scenario","version":1,"budget":{"mfu":"high"}})",
       "budget.mfu"},
      {"kv.json", R"({"format":"napkin-scenario","version":1,"model":{"heads":64,"kv_heads":7}})",
       "kv_heads"},
  };
  for (const Bad& b : bad) {
    const QString path = dir.filePath(QString::fromLatin1(b.name));
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(b.bytes);
    f.close();
    EXPECT_FALSE(w.openFile(path)) << b.name;
    EXPECT_TRUE(w.lastError().contains(QString::fromLatin1(b.says)))
        << b.name << ": " << w.lastError().toStdString();
    EXPECT_TRUE(w.lastError().contains(QString::fromLatin1(b.name))) << w.lastError().toStdString();
    EXPECT_EQ(w.model()->scenario(), before) << b.name;
  }
  EXPECT_FALSE(w.findChildren<QMessageBox*>(QStringLiteral("errorBox")).isEmpty());
  EXPECT_FALSE(w.openFile(dir.filePath(QStringLiteral("missing.json"))));
  EXPECT_EQ(w.model()->scenario(), before);
}

TEST(MainWindow, FailedSaveKeepsThePreviousFile) {
  QTemporaryDir dir;
  MainWindow w(MainWindow::Session::fresh);
  EXPECT_FALSE(w.saveTo(dir.filePath(QStringLiteral("no/such/dir/x.json"))));
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("no/such/dir")));
  EXPECT_TRUE(w.model()->filePath().isEmpty());
}

TEST(MainWindow, UnsavedChangesPromptGuardsNew) {
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.model()->replace(everyFieldChanged(), QStringLiteral("test")));
  int asked = 0;
  w.setSavePrompt([&] {
    ++asked;
    return QMessageBox::Cancel;
  });
  w.close();  // cancelled: the window stays, the scenario stays
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(w.model()->scenario(), everyFieldChanged());
}

TEST(MainWindow, SidebarChoiceAndPanels) {
  MainWindow w(MainWindow::Session::fresh);
  EXPECT_EQ(w.tabs()->count(), 4);
  w.setSideNavigation(true);
  EXPECT_EQ(w.tabs()->tabPosition(), QTabWidget::West);
  w.setSideNavigation(false);
  EXPECT_EQ(w.tabs()->tabPosition(), QTabWidget::North);
  EXPECT_TRUE(w.showPanel(QStringLiteral("roofline")));
  EXPECT_EQ(w.tabs()->currentIndex(), 3);
  EXPECT_FALSE(w.showPanel(QStringLiteral("nope")));
}

TEST(MainWindow, RestoresTheLastSession) {
  QSettings().clear();
  {
    MainWindow w(MainWindow::Session::restore);
    ASSERT_TRUE(w.model()->replace(everyFieldChanged(), QStringLiteral("test")));
    w.setSavePrompt([] { return QMessageBox::Discard; });
    w.close();
  }
  MainWindow again(MainWindow::Session::restore);
  EXPECT_EQ(again.model()->scenario(), everyFieldChanged());
  EXPECT_TRUE(again.model()->isModified());
  QSettings().clear();
}

TEST(MainWindow, ScreenshotCommandWritesAPng) {
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("shot.png"));
  QProcess p;
  p.start(QStringLiteral(NAPKIN_APP), {QStringLiteral("--screenshot"), png,
                                       QStringLiteral("--size"), QStringLiteral("1400x900")});
  ASSERT_TRUE(p.waitForFinished(60000));
  EXPECT_EQ(p.exitCode(), 0) << p.readAllStandardError().toStdString();
  const QImage img(png);
  EXPECT_EQ(img.size(), QSize(1400, 900));
  p.start(QStringLiteral(NAPKIN_APP), {QStringLiteral("--screenshot"), png,
                                       QStringLiteral("--panel"), QStringLiteral("bogus")});
  ASSERT_TRUE(p.waitForFinished(60000));
  EXPECT_EQ(p.exitCode(), 2);
}

TEST(MainWindow, ExportReportWritesAPdfAndReportsFailures) {
  QTemporaryDir dir;
  MainWindow w(MainWindow::Session::fresh);
  const QString pdf = dir.filePath(QStringLiteral("r.pdf"));
  ASSERT_TRUE(w.exportReport(pdf));
  QFile f(pdf);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  EXPECT_TRUE(f.read(5).startsWith("%PDF-"));
  EXPECT_FALSE(w.exportReport(dir.filePath(QStringLiteral("nope/r.pdf"))));
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("nope/r.pdf"))) << w.lastError().toStdString();
  EXPECT_FALSE(QFileInfo::exists(dir.filePath(QStringLiteral("nope/r.pdf"))));
}

TEST(MainWindow, AutosaveIsOfferedBackAfterACrash) {
  QSettings().clear();
  QFile::remove(MainWindow::autosavePath());
  Scenario edited = everyFieldChanged();
  {
    // A session that edits and then "crashes": the autosave is written, the window never closes.
    auto* w = new MainWindow(MainWindow::Session::restore);
    ASSERT_TRUE(w->model()->replace(edited, QStringLiteral("test")));
    w->autosave();
    ASSERT_TRUE(QFileInfo::exists(MainWindow::autosavePath()));
    w->setAttribute(Qt::WA_DeleteOnClose, false);
    // Simulate the crash: destroy without closeEvent.
    w->setSavePrompt([] { return QMessageBox::Discard; });
    delete w;
  }
  ASSERT_TRUE(QFileInfo::exists(MainWindow::autosavePath()));
  MainWindow again(MainWindow::Session::restore);
  QString asked;
  again.setRecoverPrompt([&](const QString& when) {
    asked = when;
    return true;
  });
  QCoreApplication::processEvents();  // the offer is queued after construction
  EXPECT_FALSE(asked.isEmpty());
  EXPECT_EQ(again.model()->scenario(), edited);
  EXPECT_TRUE(again.model()->isModified());
  EXPECT_FALSE(QFileInfo::exists(MainWindow::autosavePath()));
  again.setSavePrompt([] { return QMessageBox::Discard; });
  again.close();
  EXPECT_FALSE(QFileInfo::exists(MainWindow::autosavePath()));
  QSettings().clear();
}
