// The IsoFLOPs & scaling-laws panel driven like a user: sliders, toggles, the
// CSV loader, the shared scenario; the read-outs must equal the model's
// numbers, and the off-thread fit and bootstrap must deliver (or be cancelled,
// or be discarded when stale) without ever showing nan.
#include <gtest/gtest.h>

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <cmath>
#include <functional>

#include "IsoflopsPanel.h"
#include "MainWindow.h"
#include "PlotWidget.h"
#include "SliderSpin.h"
#include "budget.h"
#include "format.h"
#include "hardware.h"
#include "scaling.h"

using namespace napkin;

namespace {

constexpr int kGenerous = 180000;  // ms: async results on a loaded 2-core machine

QString text(IsoflopsPanel* p, const char* key) {
  return p->readout(QString::fromLatin1(key))->text();
}

// Processes events until `done` holds (no assertion on how long it takes).
bool waitFor(const std::function<bool()>& done, int timeout_ms = kGenerous) {
  QElapsedTimer t;
  t.start();
  while (!done()) {
    if (t.elapsed() > timeout_ms) return false;
    QTest::qWait(5);
  }
  return true;
}

bool waitIdle(IsoflopsPanel* p) {
  return waitFor([p] { return !p->isBusy(); });
}

void expectReadable(IsoflopsPanel* p, const std::string& where) {
  for (const char* key : {"target", "n_opt", "d_opt", "forecast", "ci", "decades", "a", "b", "sum",
                          "n_opt_law", "bias", "offset", "E", "A", "alpha", "B", "beta", "fit"}) {
    const QString t = text(p, key);
    EXPECT_FALSE(t.trimmed().isEmpty()) << where << ": " << key;
    EXPECT_FALSE(t.contains(QLatin1String("nan"), Qt::CaseInsensitive))
        << where << ": " << key << " = " << t.toStdString();
    EXPECT_FALSE(t.contains(QLatin1String("inf")))
        << where << ": " << key << " = " << t.toStdString();
    EXPECT_FALSE(t.contains(QStringLiteral("\u2014")))
        << where << ": " << key << " = " << t.toStdString();
  }
}

void typeInto(SliderSpin* s, const QString& value) {
  SciSpinBox* spin = s->spinBox();
  spin->setFocus();
  spin->selectAll();
  QTest::keyClicks(spin, value);
  QTest::keyClick(spin, Qt::Key_Return);
}

void selectIndex(QComboBox* c, int i) {
  c->setFocus();
  while (c->currentIndex() != i)
    QTest::keyClick(c, c->currentIndex() < i ? Qt::Key_Down : Qt::Key_Up);
}

double targetOf(const Scenario& s) {
  return budget_to_flops(chip_by_name(s.chip), s.n_chips, s.days, s.mfu);
}

QString csvPath() {
  return QStringLiteral(NAPKIN_TEST_DATA "/chinchilla_besiroglu2024/svg_extracted_data.csv");
}

}  // namespace

TEST(IsoflopsPanel, FirstViewShowsAFinishedFitAndTheModelsExponents) {
  MainWindow w(MainWindow::Session::fresh);
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  ASSERT_TRUE(IsoflopsPanel::isBuilt());
  EXPECT_EQ(p->plots().size(), 6u);
  // The synchronous first fit: nothing is pending when the window opens.
  EXPECT_EQ(p->fitState(), IsoflopsPanel::JobState::current);
  EXPECT_EQ(p->bootstrapState(), IsoflopsPanel::JobState::current);

  const SyntheticLadderSpec spec = p->syntheticSpec();
  EXPECT_EQ(spec.budgets_flops, (std::vector<double>{1e18, 1e19, 1e20, 1e21, 1e22}));
  EXPECT_EQ(spec.sizes_per_budget, 6);
  const auto ladder = synthetic_ladder(spec);
  const ScalingExponents e = fit_scaling_exponents(isoflop_optima(ladder));
  EXPECT_EQ(text(p, "a"), QString::number(e.a, 'f', 4));
  EXPECT_EQ(text(p, "b"), QString::number(e.b, 'f', 4));
  EXPECT_TRUE(text(p, "sum").startsWith(QStringLiteral("1.0000")));
  const double C = targetOf(w.model()->scenario());
  EXPECT_EQ(text(p, "n_opt"),
            QString::fromStdString(format_count(e.n_coefficient * std::pow(C, e.a), 2)) +
                QStringLiteral(" params"));
  EXPECT_EQ(text(p, "target"),
            QString::fromStdString(format_sci(C, 3)) + QStringLiteral(" FLOPs (Budget panel)"));
  const FitResult fit = fit_parametric(ladder);
  EXPECT_EQ(text(p, "E"), QString::number(fit.law.E, 'f', 4));
  EXPECT_EQ(text(p, "alpha"), QString::number(fit.law.alpha, 'f', 4));
  EXPECT_EQ(text(p, "forecast"),
            QString::number(optimal_loss(fit.law, C), 'f', 4) + QStringLiteral(" nats"));
  EXPECT_TRUE(text(p, "ci").startsWith(QLatin1Char('['))) << text(p, "ci").toStdString();
  EXPECT_TRUE(p->statusText().contains(QStringLiteral("Risk:"))) << p->statusText().toStdString();
  expectReadable(p, "first view");
}

TEST(IsoflopsPanel, NoiseAndSeedChangeTheLadderAndTheSameSeedGivesTheSameReadout) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const QString a0 = text(p, "a");
  const auto points0 = p->ladderView().points;

  QSlider* noise = p->control(QStringLiteral("noise"))->slider();
  noise->setFocus();
  QTest::keyClick(noise, Qt::Key_PageUp);
  EXPECT_GT(p->params().noise, 0.005);
  EXPECT_NE(p->ladderView().points[0].loss, points0[0].loss);
  EXPECT_NE(text(p, "a"), a0);
  typeInto(p->control(QStringLiteral("noise")), QStringLiteral("0.5"));  // shown in %
  EXPECT_DOUBLE_EQ(p->params().noise, 0.005);
  EXPECT_EQ(text(p, "a"), a0);

  typeInto(p->control(QStringLiteral("seed")), QStringLiteral("7"));
  EXPECT_EQ(p->params().seed, 7);
  EXPECT_NE(p->ladderView().points[3].loss, points0[3].loss);
  const QString a7 = text(p, "a");
  EXPECT_NE(a7, a0);
  typeInto(p->control(QStringLiteral("seed")), QStringLiteral("0"));
  EXPECT_EQ(text(p, "a"), a0);
  for (std::size_t i = 0; i < points0.size(); ++i)
    EXPECT_EQ(p->ladderView().points[i].loss, points0[i].loss);
  typeInto(p->control(QStringLiteral("seed")), QStringLiteral("7"));
  EXPECT_EQ(text(p, "a"), a7);
  expectReadable(p, "seed 7");
}

TEST(IsoflopsPanel, TheBiasTogglesMovesNoptAndTheUniformOffsetDoesNot) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const QString n0 = text(p, "n_opt");
  const QString a0 = text(p, "a");
  // The lesson read-outs are there before any toggle.
  EXPECT_TRUE(text(p, "bias").contains(QStringLiteral("moved \u2212")))
      << text(p, "bias").toStdString();
  EXPECT_TRUE(text(p, "offset").startsWith(QStringLiteral("unchanged")))
      << text(p, "offset").toStdString();

  QCheckBox* bias = p->checkBox(QStringLiteral("bias"));
  QTest::mouseClick(bias, Qt::LeftButton);
  ASSERT_TRUE(p->params().bias_on);
  EXPECT_NE(text(p, "n_opt"), n0);
  EXPECT_NE(text(p, "a"), a0);
  // The read-out predicted where N_opt would go.
  EXPECT_TRUE(text(p, "bias").startsWith(text(p, "n_opt").section(QLatin1Char(' '), 0, 0)))
      << text(p, "bias").toStdString() << " vs " << text(p, "n_opt").toStdString();
  QTest::mouseClick(bias, Qt::LeftButton);
  EXPECT_EQ(text(p, "n_opt"), n0);

  ASSERT_TRUE(waitIdle(p));
  const double e_clean = text(p, "E").toDouble();
  QCheckBox* offset = p->checkBox(QStringLiteral("offset"));
  QTest::mouseClick(offset, Qt::LeftButton);
  ASSERT_TRUE(p->params().offset_on);
  EXPECT_EQ(text(p, "n_opt"), n0);
  EXPECT_EQ(text(p, "a"), a0);
  EXPECT_TRUE(text(p, "offset").startsWith(QStringLiteral("unchanged")));
  // The fit absorbs the offset into E.
  ASSERT_TRUE(waitIdle(p));
  EXPECT_NEAR(text(p, "E").toDouble() - e_clean, p->params().offset_nats, 0.01);
  expectReadable(p, "offset");
}

TEST(IsoflopsPanel, TheBootstrapRunsOffTheUiThreadAndItsIntervalAppears) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  QSignalSpy fits(p, &IsoflopsPanel::fitUpdated);
  QSignalSpy boots(p, &IsoflopsPanel::bootstrapUpdated);
  typeInto(p->control(QStringLiteral("seed")), QStringLiteral("3"));
  // The edit returned without fitting: the work is pending, the forecast marked.
  EXPECT_EQ(p->fitState(), IsoflopsPanel::JobState::pending);
  EXPECT_EQ(p->bootstrapState(), IsoflopsPanel::JobState::pending);
  EXPECT_TRUE(p->isBusy());
  EXPECT_TRUE(p->button(QStringLiteral("cancel"))->isEnabled());
  EXPECT_TRUE(
      p->readout(QStringLiteral("forecast"))->styleSheet().contains(QStringLiteral("color")));
  ASSERT_TRUE(waitFor([&] { return boots.count() > 0; }));
  EXPECT_GE(fits.count(), 1);
  EXPECT_EQ(p->bootstrapState(), IsoflopsPanel::JobState::current);
  EXPECT_FALSE(p->isBusy());
  // The interval is the model's, for this ladder and this seed.
  BootstrapOptions o;
  o.resamples = p->params().resamples;
  o.seed = 3;
  const BootstrapResult r = bootstrap_forecast(p->ladderView().points, p->targetFlops(), o);
  EXPECT_EQ(text(p, "ci"),
            QStringLiteral("[%1, %2] nats")
                .arg(QString::number(r.ci_low, 'f', 4), QString::number(r.ci_high, 'f', 4)));
  EXPECT_EQ(text(p, "E"), QString::number(r.fit.law.E, 'f', 4));
  EXPECT_TRUE(p->readout(QStringLiteral("forecast"))->styleSheet().isEmpty());
  EXPECT_EQ(p->progressBar()->value(), p->progressBar()->maximum());
  expectReadable(p, "after bootstrap");
}

TEST(IsoflopsPanel, CancelStopsTheBootstrapAndLeavesAClearState) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  // The seed's coordinate descent with many resamples: slow enough to catch.
  typeInto(p->control(QStringLiteral("resamples")), QStringLiteral("2000"));
  selectIndex(p->combo(QStringLiteral("estimator")), 3);
  ASSERT_EQ(p->params().estimator, Estimator::seed_cd);
  ASSERT_TRUE(waitFor([p] { return p->progressBar()->value() > 0; }));
  ASSERT_EQ(p->bootstrapState(), IsoflopsPanel::JobState::pending);
  QSignalSpy boots(p, &IsoflopsPanel::bootstrapUpdated);
  QTest::mouseClick(p->button(QStringLiteral("cancel")), Qt::LeftButton);
  EXPECT_EQ(boots.count(), 1);
  EXPECT_EQ(p->bootstrapState(), IsoflopsPanel::JobState::cancelled);
  EXPECT_FALSE(p->isBusy());
  EXPECT_EQ(text(p, "ci"), QStringLiteral("cancelled"));
  EXPECT_TRUE(p->statusText().contains(QStringLiteral("Bootstrap cancelled")))
      << p->statusText().toStdString();
  EXPECT_FALSE(p->button(QStringLiteral("cancel"))->isEnabled());
  EXPECT_TRUE(p->button(QStringLiteral("recompute"))->isEnabled());
  EXPECT_EQ(p->progressBar()->value(), 0);
  QTest::qWait(300);  // nothing from the cancelled job may land afterwards
  EXPECT_EQ(p->bootstrapState(), IsoflopsPanel::JobState::cancelled);
  expectReadable(p, "cancelled");
  // Recompute brings the interval back (with the fast estimator).
  selectIndex(p->combo(QStringLiteral("estimator")), 0);
  typeInto(p->control(QStringLiteral("resamples")), QStringLiteral("200"));
  ASSERT_TRUE(waitIdle(p));
  EXPECT_EQ(p->bootstrapState(), IsoflopsPanel::JobState::current);
  EXPECT_TRUE(text(p, "ci").startsWith(QLatin1Char('[')));
}

TEST(IsoflopsPanel, AStaleResultIsDiscardedWhenTheInputsChangeMidRun) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  typeInto(p->control(QStringLiteral("seed")), QStringLiteral("11"));
  ASSERT_EQ(p->fitState(), IsoflopsPanel::JobState::pending);
  // Let the debounce start the job for seed 11, then keep the event loop away
  // while the job posts its results: they wait in the queue, stale.
  QTest::qWait(200);
  QThread::msleep(3000);
  // The inputs change before the queued results are seen.
  p->control(QStringLiteral("seed"))->spinBox()->setValue(12);
  ASSERT_EQ(p->params().seed, 12);
  // Every fitted E the panel shows from here on must be seed 12's.
  QStringList shown;
  QObject::connect(p, &IsoflopsPanel::fitUpdated, p, [&] { shown << text(p, "E"); });
  ASSERT_TRUE(waitIdle(p));
  // Nothing computed for seed 11 was ever shown (the cancelled job's results
  // are dropped, and any that slip through fail the generation check).
  SyntheticLadderSpec spec11 = p->syntheticSpec();
  spec11.seed = 11;
  const QString e11 = QString::number(fit_parametric(synthetic_ladder(spec11)).law.E, 'f', 4);
  BootstrapOptions o;
  o.resamples = p->params().resamples;
  o.seed = 12;
  const BootstrapResult r = bootstrap_forecast(p->ladderView().points, p->targetFlops(), o);
  const QString e12 = QString::number(r.fit.law.E, 'f', 4);
  ASSERT_NE(e11, e12);
  ASSERT_FALSE(shown.isEmpty());
  for (const QString& e : shown)
    EXPECT_EQ(e, e12) << "a stale fit was shown; discarded " << p->discardedResults();
  EXPECT_EQ(text(p, "E"), e12);
  EXPECT_EQ(text(p, "ci"),
            QStringLiteral("[%1, %2] nats")
                .arg(QString::number(r.ci_low, 'f', 4), QString::number(r.ci_high, 'f', 4)));
}

TEST(IsoflopsPanel, TheChinchillaCsvFitsTheReplicationsE) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  ASSERT_TRUE(p->loadLadderCsv(csvPath())) << p->statusText().toStdString();
  EXPECT_EQ(p->ladderView().points.size(), 240u);  // loss < 3.4469, as the paper
  EXPECT_FALSE(p->ladderView().synthetic);
  EXPECT_FALSE(p->control(QStringLiteral("noise"))->isEnabled());
  ASSERT_TRUE(waitIdle(p));
  ASSERT_EQ(p->fitState(), IsoflopsPanel::JobState::current) << p->statusText().toStdString();
  EXPECT_NEAR(text(p, "E").toDouble(), 1.817, 2e-3) << text(p, "E").toStdString();
  EXPECT_NEAR(text(p, "alpha").toDouble(), 0.347, 3e-3);
  EXPECT_NEAR(text(p, "beta").toDouble(), 0.367, 3e-3);
  EXPECT_TRUE(text(p, "bias").contains(QStringLiteral("synthetic only")));
  EXPECT_TRUE(text(p, "a").endsWith(QStringLiteral("(law)")));
  EXPECT_TRUE(text(p, "ci").startsWith(QLatin1Char('[')));
  expectReadable(p, "chinchilla csv");
  QTest::mouseClick(p->button(QStringLiteral("useSynthetic")), Qt::LeftButton);
  EXPECT_TRUE(p->ladderView().synthetic);
  EXPECT_EQ(p->ladderView().points.size(), 30u);
}

TEST(IsoflopsPanel, ABadCsvShowsAnErrorAndKeepsThePreviousLadder) {
  MainWindow w(MainWindow::Session::fresh);
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const auto before = p->ladderView().points;
  const QString a0 = text(p, "a");
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString bad = dir.filePath(QStringLiteral("bad.csv"));
  {
    QFile f(bad);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("N,D,loss\n1e9,2e10,3.1\n2e9,abc,3.0\n");
  }
  EXPECT_FALSE(p->loadLadderCsv(bad));
  EXPECT_TRUE(p->statusText().contains(QStringLiteral("Could not load the ladder CSV")))
      << p->statusText().toStdString();
  EXPECT_TRUE(p->statusText().contains(QStringLiteral("abc"))) << p->statusText().toStdString();
  EXPECT_TRUE(p->findChild<QLabel*>(QStringLiteral("sourceLabel"))
                  ->text()
                  .contains(QStringLiteral("Could not load")));
  EXPECT_TRUE(p->ladderView().synthetic);
  ASSERT_EQ(p->ladderView().points.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(p->ladderView().points[i].loss, before[i].loss);
  EXPECT_EQ(text(p, "a"), a0);
  EXPECT_FALSE(p->loadLadderCsv(dir.filePath(QStringLiteral("missing.csv"))));
  EXPECT_TRUE(p->ladderView().synthetic);
  // A good file after a bad one clears the error.
  ASSERT_TRUE(p->loadLadderCsv(csvPath()));
  EXPECT_FALSE(p->statusText().contains(QStringLiteral("Could not load")));
  expectReadable(p, "after bad csv");
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
  QTest::mouseClick(p->checkBox(QStringLiteral("follow")), Qt::LeftButton);
  EXPECT_TRUE(p->control(QStringLiteral("target"))->isEnabled());
  const double manual = p->params().manual_target;
  EXPECT_DOUBLE_EQ(p->targetFlops(), manual);
  ASSERT_TRUE(
      w.model()->edit(QStringLiteral("chips"), 120, [](Scenario& s) { s.n_chips = 16000; }));
  EXPECT_DOUBLE_EQ(p->targetFlops(), manual);
  EXPECT_TRUE(text(p, "target").endsWith(QStringLiteral("(manual)")));
}

TEST(IsoflopsPanel, SliderExtremesNeverShowNanOrEmptyReadouts) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  QTest::mouseClick(p->checkBox(QStringLiteral("bias")), Qt::LeftButton);
  QTest::mouseClick(p->checkBox(QStringLiteral("offset")), Qt::LeftButton);
  QTest::mouseClick(p->checkBox(QStringLiteral("outlier")), Qt::LeftButton);
  QTest::mouseClick(p->checkBox(QStringLiteral("follow")), Qt::LeftButton);
  for (const char* key : {"E", "A", "alpha", "B", "beta", "budgets", "budget_min", "budget_max",
                          "sizes", "span", "noise", "seed", "bias_nats", "offset_nats", "delta",
                          "target", "cand_a", "cand_b", "resamples"}) {
    QSlider* s = p->control(QString::fromLatin1(key))->slider();
    s->setFocus();
    for (Qt::Key k : {Qt::Key_End, Qt::Key_Home, Qt::Key_End}) {
      QTest::keyClick(s, k);
      expectReadable(p, std::string(key) + (k == Qt::Key_End ? " max" : " min"));
    }
  }
  typeInto(p->control(QStringLiteral("resamples")), QStringLiteral("20"));
  ASSERT_TRUE(waitIdle(p));
  expectReadable(p, "extremes, settled");
  // Whatever failed says so in the status line instead of in numbers.
  EXPECT_FALSE(p->statusText().isEmpty());
  for (PlotWidget* plot : p->plots()) EXPECT_FALSE(plot->dataCsv().contains(QLatin1String("nan")));
}

TEST(IsoflopsPanel, DestroyingThePanelMidRunCancelsAndWaits) {
  auto* w = new MainWindow(MainWindow::Session::fresh);
  IsoflopsPanel* p = w->panel<IsoflopsPanel>();
  typeInto(p->control(QStringLiteral("resamples")), QStringLiteral("2000"));
  ASSERT_TRUE(waitFor([p] { return p->progressBar()->value() > 0; }));
  delete w;  // must not crash or leave a job writing into a dead panel
  QTest::qWait(50);
  SUCCEED();
}
