// The IsoFLOPs panel driven like a user, continued: the Chinchilla CSV and the
// import dialog, the shared scenario, a pinned baseline, the report section,
// slider extremes and destruction mid-run.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QProgressDialog>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QTimer>
#include <QUndoStack>
#include <atomic>
#include <chrono>
#include <cmath>
#include <functional>
#include <string>
#include <thread>

#include "PlotWidget.h"
#include "ReadoutGrid.h"
#include "SliderSpin.h"
#include "budget.h"
#include "format.h"
#include "hardware.h"
#include "isoflops/IsoflopsPanel.h"
#include "isoflops/LadderImportDialog.h"
#include "isoflops_test_util.h"
#include "scaling.h"
#include "shell/MainWindow.h"

using namespace napkin;
using namespace napkin::test;

TEST(IsoflopsPanel, TheChinchillaCsvFitsTheReplicationsE) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const int before = w.model()->undoStack()->count();
  ASSERT_TRUE(loadWithDialog(p, csvPath())) << p->statusText().toStdString();
  EXPECT_EQ(w.model()->undoStack()->count(), before + 1);  // one step
  ASSERT_TRUE(settings(w).loaded.has_value());
  EXPECT_EQ(settings(w).loaded->file_name, "svg_extracted_data.csv");
  EXPECT_EQ(p->shown().view().points.size(), 240u);  // loss < 3.4469, as the paper
  EXPECT_FALSE(p->shown().ladder.synthetic);
  EXPECT_FALSE(p->controls().noise->isEnabled());
  EXPECT_TRUE(p->controls().source->text().contains(QStringLiteral("svg_extracted_data.csv")));
  ASSERT_TRUE(waitIdle(p));
  ASSERT_EQ(p->fitState(), JobState::current) << p->statusText().toStdString();
  auto number = [p](const char* key) {
    return text(p, key).section(QLatin1Char(' '), 0, 0).toDouble();
  };
  EXPECT_NEAR(number("E"), 1.817, 2e-3) << text(p, "E").toStdString();
  EXPECT_NEAR(number("alpha"), 0.347, 3e-3);
  EXPECT_NEAR(number("beta"), 0.367, 3e-3);
  EXPECT_TRUE(text(p, "bias").contains(QStringLiteral("synthetic only")));
  EXPECT_TRUE(text(p, "a").endsWith(QStringLiteral("(law)")));
  EXPECT_TRUE(text(p, "ci").startsWith(QLatin1Char('[')));
  expectReadable(p, "chinchilla csv");
  EXPECT_TRUE(p->controls().loss_cut->isChecked());
  EXPECT_TRUE(p->controls().max_loss->isEnabled());
  QTest::mouseClick(p->controls().use_synthetic, Qt::LeftButton);
  EXPECT_TRUE(p->shown().ladder.synthetic);
  EXPECT_FALSE(settings(w).loaded.has_value());
  EXPECT_EQ(p->shown().view().points.size(), 30u);
  // The synthetic ladder is not cut: the checkbox reads off and says the cut
  // is kept; the scenario keeps it for the next loaded ladder.
  EXPECT_TRUE(settings(w).loss_cut.enabled);
  EXPECT_FALSE(p->controls().loss_cut->isChecked());
  EXPECT_FALSE(p->controls().loss_cut->isEnabled());
  EXPECT_TRUE(p->controls().loss_cut->toolTip().startsWith(
      QStringLiteral("The synthetic ladder is not cut. The cut below 3.4469 nats is kept")))
      << p->controls().loss_cut->toolTip().toStdString();
  EXPECT_FALSE(p->controls().max_loss->isEnabled());
  EXPECT_TRUE(p->controls().max_loss->isUnused());
  // Both are undo steps: back to the CSV ladder, then to the synthetic one.
  w.model()->undoStack()->undo();
  EXPECT_EQ(p->shown().view().points.size(), 240u);
  EXPECT_TRUE(p->controls().loss_cut->isChecked());  // the kept cut is back
  EXPECT_TRUE(p->controls().loss_cut->isEnabled());
  EXPECT_FALSE(p->controls().loss_cut->toolTip().startsWith(QStringLiteral("The synthetic")));
  EXPECT_TRUE(p->controls().max_loss->isEnabled());
  EXPECT_FALSE(p->controls().max_loss->isUnused());
  w.model()->undoStack()->undo();
  EXPECT_EQ(p->shown().view().points.size(), 30u);
}

TEST(IsoflopsPanel, ARefusedFitNamesTheRunThatMayBeATypo) {
  QTemporaryDir tmp;
  const QString path = tmp.filePath(QStringLiteral("flat.csv"));
  QFile f(path);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  // N = 1 parameter among runs of billions pulls the law flat.
  f.write(
      "N,D,loss\n1,1e9,3.0\n1e9,2e10,2.5\n2e9,1e10,2.45\n4e8,5e10,2.6\n1e9,1e11,2.3\n"
      "3e9,3e10,2.3\n");
  f.close();
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  ASSERT_TRUE(loadWithDialog(p, path)) << p->statusText().toStdString();
  ASSERT_TRUE(waitIdle(p));
  EXPECT_EQ(p->fitState(), JobState::failed) << p->statusText().toStdString();
  const QString status = p->statusText();
  EXPECT_TRUE(status.contains(QStringLiteral("not determine a physical law")))
      << status.toStdString();
  EXPECT_TRUE(status.contains(
      QStringLiteral("check run 1 of 6 (N = 1.00e+00, 9.0 decades below the median N)")))
      << status.toStdString();
}

TEST(IsoflopsPanel, TheImportDialogMapsColumnsListsSkippedRowsAndLoads) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("runs.csv"));
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    // Parameters in millions, compute in FLOPs, loss in bits, odd names.
    f.write(
        "size_M,compute,val_bits,note\n"
        "100,1e19,4.0,a\n200,1e19,3.9,b\n400,1e19,3.95,c\n"
        "100,1e20,3.7,d\n200,1e20,3.5,e\n400,1e20,3.45,f\n800,1e20,3.5,g\n"
        "abc,1e20,3.6,bad\n-5,1e20,3.6,neg\n100,1e21,9.0,high\n");
  }
  // "Load ladder CSV…" asks for the file, then opens the dialog.
  p->setCsvPathPrompt([path] { return path; });
  QTest::mouseClick(p->controls().load_csv, Qt::LeftButton);
  LadderImportDialog* d = p->importDialog();
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->preview()->columnCount(), 4);
  EXPECT_EQ(d->preview()->item(0, 0)->text(), QStringLiteral("100"));
  // Map the columns the header does not name plainly.
  selectIndex(d->nColumn(), d->nColumn()->findData(QStringLiteral("size_M")));
  selectIndex(d->tokensColumn(), d->tokensColumn()->findData(QStringLiteral("compute")));
  selectIndex(d->tokensKind(), 1);  // training FLOPs: D = C/6N
  selectIndex(d->lossColumn(), d->lossColumn()->findData(QStringLiteral("val_bits")));
  selectIndex(d->lossUnit(), 1);  // bits
  const LadderColumns c = d->columns();
  EXPECT_EQ(c.n_params, "size_M");
  EXPECT_EQ(c.tokens, "compute");
  EXPECT_EQ(c.tokens_kind, TokensKind::flops);
  EXPECT_EQ(c.loss_unit, LossUnit::bits);
  // Millions: the N scale.
  d->nScale()->setValue(1e6);
  EXPECT_EQ(d->columns().n_params_scale, 1e6);
  // The bad rows are listed with why; the loss cut names the too-high run.
  ASSERT_TRUE(waitFor([d] { return !d->importing(); }));
  ASSERT_TRUE(d->result().has_value());
  const QString skipped = d->skippedText();
  EXPECT_TRUE(skipped.contains(QStringLiteral("line 9: non-numeric"))) << skipped.toStdString();
  EXPECT_TRUE(skipped.contains(QStringLiteral("line 10: non-positive"))) << skipped.toStdString();
  EXPECT_TRUE(skipped.contains(QStringLiteral("line 11: over the loss cut")))
      << skipped.toStdString();
  EXPECT_TRUE(d->summary().contains(QStringLiteral("7 of 10 rows"))) << d->summary().toStdString();
  if (qEnvironmentVariableIsSet("NAPKIN_SAVE_SCREENSHOTS"))
    d->grab().save(QStringLiteral("/tmp/iso-import.png"));
  QPushButton* ok = d->buttons()->button(QDialogButtonBox::Ok);
  ASSERT_TRUE(ok->isEnabled());
  QTest::mouseClick(ok, Qt::LeftButton);
  ASSERT_TRUE(settings(w).loaded.has_value());
  const LoadedLadder& l = *settings(w).loaded;
  EXPECT_EQ(l.file_name, "runs.csv");
  EXPECT_EQ(l.data_rows, 10);
  EXPECT_EQ(l.points.size(), 8u);  // readable rows, the loss cut applies on use
  EXPECT_DOUBLE_EQ(l.points[0].n_params, 1e8);
  EXPECT_NEAR(l.points[0].loss, 4.0 * std::log(2.0), 1e-12);
  EXPECT_NEAR(l.points[0].n_tokens, 1e19 / (6 * 1e8), 1e3);
  EXPECT_EQ(p->shown().view().points.size(), 7u);
  expectReadable(p, "mapped csv");

  // A file that is not there: the reason in words, the ladder kept.
  EXPECT_FALSE(p->loadLadderCsv(dir.filePath(QStringLiteral("missing.csv"))));
  EXPECT_TRUE(p->statusText().contains(QStringLiteral("Could not load the ladder CSV")))
      << p->statusText().toStdString();
  EXPECT_EQ(p->shown().view().points.size(), 7u);
  // A mapping without a loss column cannot be loaded, and says why.
  ASSERT_TRUE(p->loadLadderCsv(path));
  d = p->importDialog();
  selectIndex(d->lossColumn(), 0);
  EXPECT_FALSE(d->buttons()->button(QDialogButtonBox::Ok)->isEnabled());
  EXPECT_TRUE(d->summary().contains(QStringLiteral("loss"))) << d->summary().toStdString();
  QTest::mouseClick(d->buttons()->button(QDialogButtonBox::Cancel), Qt::LeftButton);
  EXPECT_EQ(l.points.size(), settings(w).loaded->points.size());
}

TEST(IsoflopsPanel, ChangingChipsInTheSharedScenarioMovesTheTarget) {
  MainWindow w(MainWindow::Session::fresh);
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const QString t0 = text(p, "target");
  const QString n0 = text(p, "n_opt");
  ASSERT_TRUE(w.model()->edit(QStringLiteral("chips"), 120, [](Scenario& s) { s.n_chips = 4000; }));
  const double C = targetOf(w.model()->scenario());
  EXPECT_EQ(text(p, "target"),
            QString::fromStdString(format_sci(C, 3)) + QStringLiteral(" FLOPs (Budget panel)"));
  EXPECT_NE(text(p, "target"), t0);
  EXPECT_NE(text(p, "n_opt"), n0);
  EXPECT_DOUBLE_EQ(p->targetFlops(), C);
  // The interval follows without a refit: it is read off the resample laws.
  EXPECT_FALSE(p->isBusy());
  EXPECT_TRUE(text(p, "ci").startsWith(QLatin1Char('[')));
  // Unfollowed, the manual target holds.
  QTest::mouseClick(p->controls().follow, Qt::LeftButton);
  EXPECT_TRUE(p->controls().target->isEnabled());
  const double manual = settings(w).manual_target_flops;
  EXPECT_DOUBLE_EQ(p->targetFlops(), manual);
  ASSERT_TRUE(
      w.model()->edit(QStringLiteral("chips"), 120, [](Scenario& s) { s.n_chips = 16000; }));
  EXPECT_DOUBLE_EQ(p->targetFlops(), manual);
  EXPECT_TRUE(text(p, "target").endsWith(QStringLiteral("(manual)")));
}

TEST(IsoflopsPanel, ABaselineShowsChangesAndGhostsAndVanishesOnUnpin) {
  MainWindow w(MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const IsoflopsReadouts& r = p->readouts();
  const Scenario a = w.model()->scenario();
  p->setBaseline(&a);
  ASSERT_TRUE(waitFor([p] { return !p->baselineBusy(); }));
  EXPECT_EQ(r.grid()->deltaText(r.n_opt), QStringLiteral("= baseline"));
  EXPECT_EQ(r.grid()->deltaText(r.E), QStringLiteral("= baseline"));
  // B: twice the noise and the bias on.
  QTest::mouseClick(p->controls().bias, Qt::LeftButton);
  EXPECT_FALSE(r.grid()->deltaText(r.n_opt).isEmpty());
  EXPECT_NE(r.grid()->deltaText(r.n_opt), QStringLiteral("= baseline"));
  EXPECT_NE(r.grid()->deltaText(r.a), QStringLiteral("= baseline"));
  ASSERT_TRUE(waitIdle(p));
  EXPECT_NE(r.grid()->deltaText(r.E), QStringLiteral("= baseline"));
  int ghosts = 0;
  for (PlotWidget* plot : p->plots()) {
    ghosts += plot->ghostCount();
    EXPECT_TRUE(plot->baselineVisible()) << plot->title().toStdString();
    EXPECT_FALSE(plot->dataCsv().contains(QLatin1String("nan")));
  }
  EXPECT_GE(ghosts, 6);
  if (qEnvironmentVariableIsSet("NAPKIN_SAVE_SCREENSHOTS"))
    w.grab().save(QStringLiteral("/tmp/iso-baseline.png"));
  p->setBaseline(nullptr);
  EXPECT_TRUE(r.grid()->deltaText(r.n_opt).isEmpty());
  EXPECT_TRUE(r.grid()->deltaText(r.E).isEmpty());
  for (PlotWidget* plot : p->plots()) EXPECT_FALSE(plot->baselineVisible());
}

TEST(IsoflopsPanel, TheReportSectionIsCuratedTables) {
  MainWindow w(MainWindow::Session::fresh);
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const ReportSection s = p->reportSection();
  EXPECT_EQ(s.charts.size(), 6u);
  ASSERT_GE(s.tables.size(), 4u);
  bool forecast = false;
  for (const ReportTable& t : s.tables)
    for (const ReportRow& row : t.rows) {
      EXPECT_FALSE(row.name.isEmpty());
      EXPECT_FALSE(row.value.contains(QStringLiteral("press")));
      EXPECT_FALSE(row.value.contains(QLatin1String("nan")));
      if (row.name == QStringLiteral("Forecast L*")) forecast = row.unit == QStringLiteral("nats");
    }
  EXPECT_TRUE(forecast);
}

TEST(IsoflopsPanel, SliderExtremesNeverShowNanOrEmptyReadouts) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const IsoflopsControls& c = p->controls();
  QTest::mouseClick(c.bias, Qt::LeftButton);
  QTest::mouseClick(c.offset, Qt::LeftButton);
  QTest::mouseClick(c.outlier, Qt::LeftButton);
  QTest::mouseClick(c.follow, Qt::LeftButton);
  for (SliderSpin* control : {c.E, c.A, c.alpha, c.B, c.beta, c.budgets, c.budget_min, c.budget_max,
                              c.sizes, c.span, c.noise, c.seed, c.bias_nats, c.offset_nats, c.delta,
                              c.target, c.cand_a, c.cand_b, c.resamples}) {
    QSlider* s = control->slider();
    s->setFocus();
    for (Qt::Key k : {Qt::Key_End, Qt::Key_Home, Qt::Key_End}) {
      QTest::keyClick(s, k);
      expectReadable(p, control->objectName().toStdString() + (k == Qt::Key_End ? " max" : " min"));
    }
  }
  typeInto(c.resamples, QStringLiteral("20"));
  ASSERT_TRUE(waitIdle(p));
  expectReadable(p, "extremes, settled");
  // Whatever failed says so in the status line instead of in numbers.
  EXPECT_FALSE(p->statusText().isEmpty());
  for (PlotWidget* plot : p->plots()) EXPECT_FALSE(plot->dataCsv().contains(QLatin1String("nan")));
}

TEST(IsoflopsPanel, DestroyingThePanelMidRunCancelsAndWaits) {
  auto* w = new MainWindow(MainWindow::Session::fresh);
  IsoflopsPanel* p = w->panel<IsoflopsPanel>();
  typeInto(p->controls().resamples, QStringLiteral("2000"));
  ASSERT_TRUE(waitFor([p] { return p->progressBar()->value() > 0; }));
  delete w;  // must not crash or leave a job writing into a dead panel
  QTest::qWait(50);
  SUCCEED();
}

// A ladder CSV is read off the UI thread with a progress dialog and Cancel: a
// slow pipe that keeps writing does not freeze the window, the window keeps
// answering while it is read, and Cancel stops the read and keeps the ladder.
TEST(IsoflopsPanel, ALongCsvReadShowsProgressAndCanBeCancelled) {
  MainWindow w(MainWindow::Session::fresh);
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const std::size_t before = p->shown().view().points.size();
  QTemporaryDir dir;
  const QString fifo = dir.filePath(QStringLiteral("slow.csv"));
  ASSERT_EQ(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);  // the writer outlives the cancelled read
  std::atomic<bool> stop{false};
  std::thread writer([&] {
    const int fd = ::open(fifo.toLocal8Bit().constData(), O_WRONLY);
    if (fd < 0) return;
    std::string chunk = "N,D,loss\n";
    while (chunk.size() < 64 * 1024) chunk += "1000000000,20000000000,2.5\n";
    // 20 s at most; the read is cancelled long before.
    for (int i = 0; i < 1000 && !stop; ++i) {
      if (::write(fd, chunk.data(), chunk.size()) < 0) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ::close(fd);
  });
  int ticks = 0;
  QProgressDialog* seen = nullptr;
  QTimer poll;
  poll.setInterval(50);
  QObject::connect(&poll, &QTimer::timeout, [&] {
    ++ticks;  // the UI thread runs while the file is read
    if (auto* d = p->findChild<QProgressDialog*>(QStringLiteral("csvReadProgress"))) {
      seen = d;
      if (d->isVisible()) d->cancel();
    }
  });
  poll.start();
  EXPECT_FALSE(p->loadLadderCsv(fifo));
  poll.stop();
  stop = true;
  writer.join();
  ::sigaction(SIGPIPE, &old, nullptr);
  EXPECT_NE(seen, nullptr);
  EXPECT_GE(ticks, 1);  // the UI thread ran while the file was read (no timing asserted)
  EXPECT_TRUE(p->statusText().contains(QStringLiteral("cancelled")))
      << p->statusText().toStdString();
  EXPECT_EQ(p->importDialog(), nullptr);
  EXPECT_EQ(p->shown().view().points.size(), before);
}

// Task (issue 28): a 1,000,000-row ladder (about 28 MB) previews at once and
// is parsed off the UI thread. No timing is asserted: the result only ever
// arrives through the event loop, so right after the dialog is built it is
// still importing, and a zero timer started then fires before the rows are
// in; a new mapping stops the parse under way; the count comes with the rows.
TEST(IsoflopsPanel, AMillionRowLadderPreviewsAtOnceAndParsesOffTheUiThread) {
  std::string text = "N,D,loss\n";
  text.reserve(28'000'000);
  for (int i = 0; i < 1'000'000; ++i) text += "1000000000,20000000000,2.5\n";
  LadderImportDialog d(std::move(text), QStringLiteral("huge.csv"), LossCut{});
  EXPECT_EQ(d.preview()->rowCount(), 8);
  EXPECT_TRUE(d.importing());
  EXPECT_FALSE(d.result().has_value());
  EXPECT_FALSE(d.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
  EXPECT_FALSE(d.summary().contains(QStringLiteral("rows will be")));
  bool fired = false, importing_when_fired = false;
  QTimer::singleShot(0, &d, [&] {
    fired = true;
    importing_when_fired = d.importing();
  });
  // A new mapping (the loss cut on) stops the first parse and starts another.
  d.cutEnabled()->setChecked(!d.cutEnabled()->isChecked());
  EXPECT_TRUE(d.importing());
  ASSERT_TRUE(waitFor([&] { return !d.importing(); }));
  EXPECT_TRUE(fired);
  EXPECT_TRUE(importing_when_fired);  // the UI thread ran while the rows were parsed
  ASSERT_TRUE(d.result().has_value());
  EXPECT_EQ(d.result()->ladder.data_rows, 1'000'000);
  EXPECT_TRUE(d.buttons()->button(QDialogButtonBox::Ok)->isEnabled());
  EXPECT_TRUE(d.findChild<QLabel*>(QStringLiteral("head"))
                  ->text()
                  .contains(QStringLiteral("1000000 data rows")))
      << d.findChild<QLabel*>(QStringLiteral("head"))->text().toStdString();
  // Closing while a parse runs stops it; nothing arrives afterwards.
  d.cutEnabled()->setChecked(!d.cutEnabled()->isChecked());
  EXPECT_TRUE(d.importing());
  d.reject();
  EXPECT_FALSE(d.importing());
  EXPECT_FALSE(d.result().has_value());
}
