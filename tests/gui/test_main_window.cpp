// The main window: documents (save, open, errors), undo, navigation,
// session restore and the --screenshot command.
#include <gtest/gtest.h>

#include <QApplication>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLockFile>
#include <QMessageBox>
#include <QProcess>
#include <QPushButton>
#include <QSettings>
#include <QStatusBar>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QUndoStack>

#include "atomic_writer.h"
#include "autosave_cleanup.h"
#include "budget/BudgetPanel.h"
#include "scenario_json.h"
#include "shell/FileActions.h"
#include "shell/MainWindow.h"

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
  s.serving.context_len = 32768;
  s.serving.served_tokens = 3e15;
  s.serving.batch = 32;
  s.serving.prompt_tokens = 2048;
  s.serving.decode_tokens = 256;
  s.serving.latency_budget_seconds = 0.8;
  s.serving.overhead_seconds = 0.1;
  s.serving.weight_dtype = Dtype::fp8;
  return s;
}

using testing_util::removeAutosaves;

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
       "field \"hardware.chips\": expected a whole number in 1 – 10,000,000 chips, found -5"},
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
    EXPECT_TRUE(w.lastError().contains(QString::fromUtf8(b.says)))
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
  EXPECT_EQ(w.tabs()->count(), 5);
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
  removeAutosaves();
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("s.napkin.json"));
  {
    MainWindow w(MainWindow::Session::restore);
    ASSERT_TRUE(w.model()->replace(everyFieldChanged(), QStringLiteral("test")));
    w.setSavePrompt([] { return QMessageBox::Save; });
    w.setPathPrompt([&](MainWindow::PathPurpose, const QString&) { return path; });
    w.close();  // answered Save: the file and the session hold the scenario
  }
  MainWindow again(MainWindow::Session::restore);
  EXPECT_EQ(again.model()->scenario(), everyFieldChanged());
  EXPECT_FALSE(again.model()->isModified());
  EXPECT_EQ(again.model()->filePath(), path);
  again.close();
  QSettings().clear();
}

// Issue 12.5: Quit → Discard throws the changes away: the autosave goes and
// the next start opens the last saved state, or the defaults.
TEST(MainWindow, DiscardOnQuitRestoresTheLastSavedStateNextTime) {
  QSettings().clear();
  removeAutosaves();
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("saved.napkin.json"));
  Scenario saved;
  saved.n_chips = 2048;
  {
    MainWindow w(MainWindow::Session::restore);
    ASSERT_TRUE(w.model()->replace(saved, QStringLiteral("saved")));
    ASSERT_TRUE(w.saveTo(path));
    ASSERT_TRUE(w.model()->replace(everyFieldChanged(), QStringLiteral("thrown away")));
    w.autosave();
    ASSERT_TRUE(QFileInfo::exists(w.autosavePath()));
    const QString autosave = w.autosavePath();
    int asked = 0;
    w.setSavePrompt([&] {
      ++asked;
      return QMessageBox::Discard;
    });
    w.close();
    EXPECT_EQ(asked, 1);
    EXPECT_FALSE(QFileInfo::exists(autosave));
  }
  {
    MainWindow again(MainWindow::Session::restore);
    int offered = 0;
    again.setRecoverPrompt([&](const QString&) { return ++offered, true; });
    QCoreApplication::processEvents();
    EXPECT_EQ(offered, 0);
    EXPECT_EQ(again.model()->scenario(), saved);
    EXPECT_FALSE(again.model()->isModified());
    EXPECT_EQ(again.model()->filePath(), path);
    // Untitled changes, discarded: the defaults next time.
    again.newScenario();
    ASSERT_TRUE(again.model()->replace(everyFieldChanged(), QStringLiteral("untitled")));
    again.setSavePrompt([] { return QMessageBox::Discard; });
    again.close();
  }
  MainWindow third(MainWindow::Session::restore);
  EXPECT_EQ(third.model()->scenario(), Scenario{});
  EXPECT_FALSE(third.model()->isModified());
  EXPECT_TRUE(third.model()->filePath().isEmpty());
  third.close();
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
  removeAutosaves();
  Scenario edited = everyFieldChanged();
  QString autosave;
  {
    // A session that edits and then "crashes": the autosave is written, the window never closes.
    auto* w = new MainWindow(MainWindow::Session::restore);
    ASSERT_TRUE(w->model()->replace(edited, QStringLiteral("test")));
    w->autosave();
    autosave = w->autosavePath();
    ASSERT_TRUE(QFileInfo::exists(autosave));
    w->setAttribute(Qt::WA_DeleteOnClose, false);
    // Simulate the crash: destroy without closeEvent (its lock goes with it).
    delete w;
  }
  ASSERT_TRUE(QFileInfo::exists(autosave));
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
  EXPECT_FALSE(QFileInfo::exists(autosave));
  EXPECT_TRUE(QFileInfo::exists(again.autosavePath()));  // now this window's unsaved work
  again.setSavePrompt([] { return QMessageBox::Discard; });
  again.close();
  EXPECT_FALSE(QFileInfo::exists(again.autosavePath()));
  QSettings().clear();
}

// Issue 18.5: a second window has its own autosave and never offers (or
// deletes) the work of a window that still runs.
TEST(MainWindow, TwoInstancesKeepTheirOwnAutosaves) {
  QSettings().clear();
  removeAutosaves();
  MainWindow first(MainWindow::Session::restore);
  ASSERT_TRUE(first.model()->replace(everyFieldChanged(), QStringLiteral("first")));
  first.autosave();
  ASSERT_TRUE(QFileInfo::exists(first.autosavePath()));

  MainWindow second(MainWindow::Session::restore);
  int offered = 0;
  second.setRecoverPrompt([&](const QString&) { return ++offered, false; });
  QCoreApplication::processEvents();
  EXPECT_EQ(offered, 0);  // the first window holds its lock: not a crash
  ASSERT_FALSE(second.autosavePath().isEmpty());
  EXPECT_NE(second.autosavePath(), first.autosavePath());
  EXPECT_TRUE(QFileInfo::exists(first.autosavePath()));

  Scenario other;
  other.days = 60;
  ASSERT_TRUE(second.model()->replace(other, QStringLiteral("second")));
  second.autosave();
  EXPECT_TRUE(QFileInfo::exists(second.autosavePath()));
  second.setSavePrompt([] { return QMessageBox::Discard; });
  second.close();
  EXPECT_FALSE(QFileInfo::exists(second.autosavePath()));
  EXPECT_TRUE(QFileInfo::exists(first.autosavePath()));  // untouched
  // A lock held by another live process: that autosave is not offered either.
  QLockFile held(MainWindow::autosaveFolder() + QStringLiteral("/autosave-elsewhere.lock"));
  ASSERT_TRUE(held.tryLock(0));
  write_file_atomically(
      MainWindow::autosaveFolder() + QStringLiteral("/autosave-elsewhere.napkin.json"),
      QByteArray::fromStdString(scenario_to_json(other)));
  {
    MainWindow third(MainWindow::Session::restore);
    third.setRecoverPrompt([&](const QString&) { return ++offered, false; });
    QCoreApplication::processEvents();
    EXPECT_EQ(offered, 0);
    third.close();
  }
  held.unlock();
  first.setSavePrompt([] { return QMessageBox::Discard; });
  first.close();
  EXPECT_FALSE(QFileInfo::exists(first.autosavePath()));
  removeAutosaves();
  QSettings().clear();
}

// Issue 17: File → Import model… takes a config.json or a checkpoint folder;
// a failure is one dialog that says what was wrong and what is accepted.
TEST(MainWindow, ImportModelTakesAConfigOrACheckpointFolder) {
  QTemporaryDir dir;
  MainWindow w(MainWindow::Session::fresh);
  const QString folder = dir.filePath(QStringLiteral("Meta-Llama-3-8B"));
  ASSERT_TRUE(QDir().mkpath(folder));
  ASSERT_TRUE(QFile::copy(QStringLiteral(NAPKIN_TEST_DATA "/configs/llama-3-8b.json"),
                          folder + QStringLiteral("/config.json")));
  ASSERT_TRUE(write_file_atomically(
      folder + QStringLiteral("/model.safetensors.index.json"),
      R"({"metadata":{"total_size":16060522496},"weight_map":{"model.norm.weight":"a.safetensors"}})"));
  ASSERT_TRUE(w.importModel(folder)) << w.lastError().toStdString();
  EXPECT_EQ(w.model()->scenario().shape.d_model, 4096);
  EXPECT_EQ(w.model()->scenario().shape.n_kv_heads, 8);
  EXPECT_EQ(w.model()->scenario().model_name, "llama (Meta-Llama-3-8B)");
  EXPECT_TRUE(w.lastImportMessage().contains(QStringLiteral("8,030,261,248")))
      << w.lastImportMessage().toStdString();
  EXPECT_TRUE(w.lastImportMessage().contains(QStringLiteral("checkpoint index")))
      << w.lastImportMessage().toStdString();
  EXPECT_EQ(w.model()->undoStack()->count(), 1);  // one undo step

  // A config.json file directly.
  ASSERT_TRUE(w.importModel(QStringLiteral(NAPKIN_TEST_DATA "/configs/qwen3-8b.json")));
  EXPECT_EQ(w.model()->scenario().shape.d_model, 4096);
  EXPECT_EQ(w.model()->scenario().model_name, "qwen3 (qwen3-8b.json)");

  // Errors: one dialog each, naming what is wrong.
  const Scenario before = w.model()->scenario();
  const QString empty = dir.filePath(QStringLiteral("empty"));
  ASSERT_TRUE(QDir().mkpath(empty));
  EXPECT_FALSE(w.importModel(empty));
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("config.json"))) << w.lastError().toStdString();
  EXPECT_EQ(w.findChildren<QMessageBox*>(QStringLiteral("errorBox")).size(), 1);
  const QString odd = dir.filePath(QStringLiteral("odd.json"));
  ASSERT_TRUE(write_file_atomically(odd, R"({"model_type":"mamba","hidden_size":1024})"));
  EXPECT_FALSE(w.importModel(odd));
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("not supported")))
      << w.lastError().toStdString();
  EXPECT_EQ(w.model()->scenario(), before);
}

// Issue 18: a failed write keeps the previous file byte for byte and says why.
TEST(MainWindow, FailedWritesKeepThePreviousFileAndSayWhy) {
  QTemporaryDir dir;
  MainWindow w(MainWindow::Session::fresh);
  // A folder where the file should be: the OS's reason is shown.
  const QString folder = dir.filePath(QStringLiteral("taken.napkin.json"));
  ASSERT_TRUE(QDir().mkpath(folder));
  EXPECT_FALSE(w.saveTo(folder));
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("taken.napkin.json")))
      << w.lastError().toStdString();
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("untouched")));
  // A full device: written through (never replaced), and the OS's reason is shown.
  if (QFileInfo(QStringLiteral("/dev/full")).exists()) {
    EXPECT_FALSE(w.exportReport(QStringLiteral("/dev/full")));
    EXPECT_TRUE(w.lastError().contains(QStringLiteral("No space left on device")))
        << w.lastError().toStdString();
    EXPECT_FALSE(QFileInfo(QStringLiteral("/dev/full")).isFile());
  }
  // A read-only folder: the old report survives.
  const QString ro = dir.filePath(QStringLiteral("ro"));
  ASSERT_TRUE(QDir().mkpath(ro));
  const QString pdf = ro + QStringLiteral("/r.pdf");
  ASSERT_TRUE(write_file_atomically(pdf, "the good old report"));
  QFile::setPermissions(ro, QFileDevice::ReadOwner | QFileDevice::ExeOwner);
  if (QFileInfo(ro).isWritable()) GTEST_SKIP() << "running as root: permissions do not bind";
  EXPECT_FALSE(w.exportReport(pdf));
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("r.pdf"))) << w.lastError().toStdString();
  QFile f(pdf);
  ASSERT_TRUE(f.open(QIODevice::ReadOnly));
  EXPECT_EQ(f.readAll(), QByteArray("the good old report"));
  QFile::setPermissions(ro,
                        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

// The Import model dialog picks a checkpoint folder with "Import this folder".
TEST(MainWindow, ImportDialogAcceptsAFolder) {
  QTemporaryDir dir;
  const QString folder = dir.filePath(QStringLiteral("ckpt"));
  ASSERT_TRUE(QDir().mkpath(folder));
  QString chosen;
  bool clicked = false;
  QTimer::singleShot(0, [&] {
    for (QWidget* top : QApplication::topLevelWidgets())
      if (auto* d = qobject_cast<QFileDialog*>(top); d && d->isVisible()) {
        d->setDirectory(folder);
        for (QPushButton* b : d->findChildren<QPushButton*>())
          if (b->text() == QStringLiteral("Import this &folder")) {
            clicked = true;
            b->click();
            return;
          }
        d->reject();
      }
  });
  chosen = chooseModelPath(nullptr);
  EXPECT_TRUE(clicked);
  EXPECT_EQ(QFileInfo(chosen).canonicalFilePath(), QFileInfo(folder).canonicalFilePath());
}

// Issue 25: File → Import training config… takes a framework's settings into
// the scenario in one undo step and names what the file does not say.
TEST(MainWindow, ImportsATrainingConfig) {
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.importTrainingConfig(
      QStringLiteral(NAPKIN_TEST_DATA "/frameworks/torchtitan-llama3-70b.toml")))
      << w.lastError().toStdString();
  const Scenario& s = w.model()->scenario();
  EXPECT_EQ(s.shape.n_layers, 80);
  EXPECT_EQ(s.n_chips, 256);
  EXPECT_EQ(s.training.seq_len, 8192);
  ASSERT_TRUE(s.parallel.chosen.has_value());
  EXPECT_EQ(s.parallel.chosen->tp, 8);
  EXPECT_EQ(w.model()->undoStack()->count(), 1);
  EXPECT_TRUE(w.lastImportMessage().contains(QStringLiteral("torchtitan")));

  ASSERT_TRUE(
      w.importTrainingConfig(QStringLiteral(NAPKIN_TEST_DATA "/frameworks/deepspeed-zero1.json")));
  EXPECT_TRUE(w.lastImportMessage().contains(QStringLiteral("model shape")))
      << w.lastImportMessage().toStdString();
  EXPECT_EQ(w.model()->scenario().shape.n_layers, 80);  // not in the file: kept

  const Scenario before = w.model()->scenario();
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("bad.toml"));
  ASSERT_TRUE(write_file_atomically(bad, "[training]\nseq_len 8192\n"));
  EXPECT_FALSE(w.importTrainingConfig(bad));
  EXPECT_TRUE(w.lastError().contains(QStringLiteral("line 2"))) << w.lastError().toStdString();
  EXPECT_EQ(w.model()->scenario(), before);
}
