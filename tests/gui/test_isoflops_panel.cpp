// The IsoFLOPs & scaling-laws panel driven like a user: sliders, toggles, the
// CSV loader, the shared scenario; the read-outs must equal the model's
// numbers, and the off-thread fit and bootstrap must deliver (or be cancelled,
// or be discarded when stale) without ever showing nan.
#include <gtest/gtest.h>

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
#include <QPushButton>
#include <QSignalSpy>
#include <QSlider>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>
#include <QUndoStack>
#include <cmath>
#include <functional>

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

TEST(IsoflopsPanel, FirstViewShowsAFinishedFitAndTheModelsExponents) {
  MainWindow w(MainWindow::Session::fresh);
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  EXPECT_EQ(p->plots().size(), 6u);
  // The synchronous first fit: nothing is pending when the window opens.
  EXPECT_EQ(p->fitState(), JobState::current);
  EXPECT_EQ(p->bootstrapState(), JobState::current);

  const SyntheticLadderSpec spec = synthetic_ladder_spec(settings(w));
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
  EXPECT_EQ(text(p, "E"), QString::number(fit.law.E, 'f', 4) + QStringLiteral(" nats"));
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
  const auto points0 = p->shown().view().points;

  QSlider* noise = p->controls().noise->slider();
  noise->setFocus();
  QTest::keyClick(noise, Qt::Key_PageUp);
  EXPECT_GT(settings(w).synthetic.noise, 0.005);
  EXPECT_NE(p->shown().view().points[0].loss, points0[0].loss);
  EXPECT_NE(text(p, "a"), a0);
  typeInto(p->controls().noise, QStringLiteral("0.5"));  // shown in %
  EXPECT_DOUBLE_EQ(settings(w).synthetic.noise, 0.005);
  EXPECT_EQ(text(p, "a"), a0);

  typeInto(p->controls().seed, QStringLiteral("7"));
  EXPECT_EQ(settings(w).seed, 7u);
  EXPECT_NE(p->shown().view().points[3].loss, points0[3].loss);
  const QString a7 = text(p, "a");
  EXPECT_NE(a7, a0);
  typeInto(p->controls().seed, QStringLiteral("0"));
  EXPECT_EQ(text(p, "a"), a0);
  for (std::size_t i = 0; i < points0.size(); ++i)
    EXPECT_EQ(p->shown().view().points[i].loss, points0[i].loss);
  typeInto(p->controls().seed, QStringLiteral("7"));
  EXPECT_EQ(text(p, "a"), a7);
  expectReadable(p, "seed 7");
}

TEST(IsoflopsPanel, ASliderChangeIsOneUndoStepAndSurvivesSaveAndReopen) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString file = dir.filePath(QStringLiteral("iso.napkin.json"));
  QString a_seed3;
  {
    MainWindow w(MainWindow::Session::fresh);
    w.show();
    w.showPanel(QStringLiteral("isoflops"));
    IsoflopsPanel* p = w.panel<IsoflopsPanel>();
    QUndoStack* undo = w.model()->undoStack();
    const int before = undo->count();
    // A drag of the span slider: many moves, one step.
    QSlider* span = p->controls().span->slider();
    span->setSliderDown(true);
    for (int i = 1; i <= 12; ++i) span->setValue(span->value() + 20);
    span->setSliderDown(false);
    EXPECT_EQ(undo->count(), before + 1);
    const double span_after = settings(w).synthetic.size_span_decades;
    EXPECT_NE(span_after, 1.5);
    // The value used is the value shown: a tenth of a decade.
    EXPECT_NEAR(span_after * 10, std::round(span_after * 10), 1e-9);
    EXPECT_TRUE(undo->undoText().contains(QStringLiteral("Size span")))
        << undo->undoText().toStdString();
    undo->undo();
    EXPECT_DOUBLE_EQ(settings(w).synthetic.size_span_decades, 1.5);
    EXPECT_DOUBLE_EQ(p->controls().span->value(), 1.5);
    undo->redo();
    EXPECT_DOUBLE_EQ(settings(w).synthetic.size_span_decades, span_after);
    // A typed seed, a combo and a check box: one step each.
    const int before_seed = undo->count();
    typeInto(p->controls().seed, QStringLiteral("3"));
    selectIndex(p->controls().estimator, 1);
    QTest::mouseClick(p->controls().bias, Qt::LeftButton);
    EXPECT_EQ(undo->count(), before_seed + 3);
    EXPECT_EQ(settings(w).fit.estimator, Estimator::ls_log);
    EXPECT_TRUE(settings(w).synthetic.bias_on);
    a_seed3 = text(p, "a");
    ASSERT_TRUE(w.saveTo(file));
  }
  MainWindow w(MainWindow::Session::fresh);
  ASSERT_TRUE(w.openFile(file));
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  EXPECT_EQ(settings(w).seed, 3u);
  EXPECT_EQ(settings(w).fit.estimator, Estimator::ls_log);
  EXPECT_TRUE(settings(w).synthetic.bias_on);
  EXPECT_NE(settings(w).synthetic.size_span_decades, 1.5);
  EXPECT_DOUBLE_EQ(p->controls().seed->value(), 3);
  EXPECT_EQ(p->controls().estimator->currentIndex(), 1);
  EXPECT_TRUE(p->controls().bias->isChecked());
  EXPECT_EQ(text(p, "a"), a_seed3);
}

TEST(IsoflopsPanel, HuberDeltaShowsTheNumberTheFitUses) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  SliderSpin* delta = p->controls().delta;
  auto shown = [&] { return delta->spinBox()->valueFromText(delta->spinBox()->text()); };
  EXPECT_DOUBLE_EQ(settings(w).fit.huber_delta, 1e-3);
  EXPECT_DOUBLE_EQ(shown(), 1e-3);
  EXPECT_EQ(delta->spinBox()->text(), QStringLiteral("0.0010"));
  delta->spinBox()->setFocus();
  QTest::keyClick(delta->spinBox(), Qt::Key_Up);
  EXPECT_DOUBLE_EQ(settings(w).fit.huber_delta, delta->value());
  EXPECT_DOUBLE_EQ(shown(), delta->value());
  EXPECT_DOUBLE_EQ(delta->value(), 1.3e-3);  // a tenth of a decade, two digits
  typeInto(delta, QStringLiteral("1e-3"));
  EXPECT_DOUBLE_EQ(settings(w).fit.huber_delta, 1e-3);
  EXPECT_DOUBLE_EQ(shown(), 1e-3);
  // The slider lands on two-digit values too.
  QSlider* s = delta->slider();
  s->setFocus();
  QTest::keyClick(s, Qt::Key_PageUp);
  const double v = settings(w).fit.huber_delta;
  EXPECT_DOUBLE_EQ(shown(), v);
  const double mantissa = v / std::pow(10.0, std::floor(std::log10(v)));
  EXPECT_NEAR(mantissa * 10, std::round(mantissa * 10), 1e-6) << v;
  // Out of range: refused, and the status bar says why.
  QSignalSpy refused(p, &Panel::statusMessage);
  typeInto(delta, QStringLiteral("5"));
  EXPECT_EQ(settings(w).fit.huber_delta, v);
  ASSERT_GE(refused.count(), 1);
  EXPECT_TRUE(refused.last().at(0).toString().contains(QStringLiteral("Huber δ")))
      << refused.last().at(0).toString().toStdString();
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

  QCheckBox* bias = p->controls().bias;
  QTest::mouseClick(bias, Qt::LeftButton);
  ASSERT_TRUE(settings(w).synthetic.bias_on);
  EXPECT_NE(text(p, "n_opt"), n0);
  EXPECT_NE(text(p, "a"), a0);
  // The read-out predicted where N_opt would go.
  EXPECT_TRUE(text(p, "bias").startsWith(text(p, "n_opt").section(QLatin1Char(' '), 0, 0)))
      << text(p, "bias").toStdString() << " vs " << text(p, "n_opt").toStdString();
  QTest::mouseClick(bias, Qt::LeftButton);
  EXPECT_EQ(text(p, "n_opt"), n0);

  ASSERT_TRUE(waitIdle(p));
  const double e_clean = text(p, "E").section(QLatin1Char(' '), 0, 0).toDouble();
  QCheckBox* offset = p->controls().offset;
  QTest::mouseClick(offset, Qt::LeftButton);
  ASSERT_TRUE(settings(w).synthetic.offset_on);
  EXPECT_EQ(text(p, "n_opt"), n0);
  EXPECT_EQ(text(p, "a"), a0);
  EXPECT_TRUE(text(p, "offset").startsWith(QStringLiteral("unchanged")));
  // The fit absorbs the offset into E.
  ASSERT_TRUE(waitIdle(p));
  EXPECT_NEAR(text(p, "E").section(QLatin1Char(' '), 0, 0).toDouble() - e_clean,
              settings(w).synthetic.offset_nats, 0.01);
  expectReadable(p, "offset");
}

TEST(IsoflopsPanel, TheBootstrapRunsOffTheUiThreadAndItsIntervalAppears) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  QSignalSpy fits(p, &IsoflopsPanel::fitUpdated);
  QSignalSpy boots(p, &IsoflopsPanel::bootstrapUpdated);
  typeInto(p->controls().seed, QStringLiteral("3"));
  // The edit returned without fitting: the work is pending, the forecast marked.
  EXPECT_EQ(p->fitState(), JobState::pending);
  EXPECT_EQ(p->bootstrapState(), JobState::pending);
  EXPECT_TRUE(p->isBusy());
  EXPECT_TRUE(p->cancelButton()->isEnabled());
  EXPECT_EQ(tone(p, "forecast"), Tone::warn);
  // Issue 27 item 20: the fit being redone reads "updating…", not "updating….".
  EXPECT_TRUE(p->statusText().contains(QStringLiteral("updating\u2026")))
      << p->statusText().toStdString();
  EXPECT_FALSE(p->statusText().contains(QStringLiteral("\u2026.")))
      << p->statusText().toStdString();
  ASSERT_TRUE(waitFor([&] { return boots.count() > 0; }));
  EXPECT_GE(fits.count(), 1);
  EXPECT_EQ(p->bootstrapState(), JobState::current);
  EXPECT_FALSE(p->isBusy());
  // The interval is the model's, for this ladder and this seed.
  BootstrapOptions o;
  o.resamples = settings(w).fit.resamples;
  o.seed = 3;
  const BootstrapResult r = bootstrap_forecast(p->shown().view().points, p->targetFlops(), o);
  EXPECT_EQ(text(p, "ci"),
            QStringLiteral("[%1, %2] nats")
                .arg(QString::number(r.ci_low, 'f', 4), QString::number(r.ci_high, 'f', 4)));
  EXPECT_EQ(text(p, "E"), QString::number(r.fit.law.E, 'f', 4) + QStringLiteral(" nats"));
  EXPECT_EQ(tone(p, "forecast"), Tone::normal);
  EXPECT_EQ(p->progressBar()->value(), p->progressBar()->maximum());
  expectReadable(p, "after bootstrap");
}

TEST(IsoflopsPanel, CancelStopsTheBootstrapAndLeavesAClearState) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  // The seed's coordinate descent with many resamples: slow enough to catch.
  typeInto(p->controls().resamples, QStringLiteral("2000"));
  selectIndex(p->controls().estimator, 3);
  ASSERT_EQ(settings(w).fit.estimator, Estimator::seed_cd);
  ASSERT_TRUE(waitFor([p] { return p->progressBar()->value() > 0; }));
  ASSERT_EQ(p->bootstrapState(), JobState::pending);
  QSignalSpy boots(p, &IsoflopsPanel::bootstrapUpdated);
  QTest::mouseClick(p->cancelButton(), Qt::LeftButton);
  EXPECT_EQ(boots.count(), 1);
  EXPECT_EQ(p->bootstrapState(), JobState::cancelled);
  EXPECT_FALSE(p->isBusy());
  EXPECT_EQ(text(p, "ci"), QStringLiteral("cancelled"));
  EXPECT_TRUE(p->statusText().contains(QStringLiteral("Bootstrap cancelled")))
      << p->statusText().toStdString();
  EXPECT_FALSE(p->cancelButton()->isEnabled());
  EXPECT_TRUE(p->recomputeButton()->isEnabled());
  EXPECT_EQ(p->progressBar()->value(), 0);
  QTest::qWait(300);  // nothing from the cancelled job may land afterwards
  EXPECT_EQ(p->bootstrapState(), JobState::cancelled);
  expectReadable(p, "cancelled");
  // Recompute brings the interval back (with the fast estimator).
  selectIndex(p->controls().estimator, 0);
  typeInto(p->controls().resamples, QStringLiteral("200"));
  ASSERT_TRUE(waitIdle(p));
  EXPECT_EQ(p->bootstrapState(), JobState::current);
  EXPECT_TRUE(text(p, "ci").startsWith(QLatin1Char('[')));
}

TEST(IsoflopsPanel, AStaleResultIsDiscardedWhenTheInputsChangeMidRun) {
  MainWindow w(MainWindow::Session::fresh);
  w.show();
  w.showPanel(QStringLiteral("isoflops"));  // the user is on this panel
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  typeInto(p->controls().seed, QStringLiteral("11"));
  ASSERT_EQ(p->fitState(), JobState::pending);
  // Let the debounce start the job for seed 11, then keep the event loop away
  // while the job posts its results: they wait in the queue, stale.
  QTest::qWait(200);
  QThread::msleep(3000);
  // The inputs change before the queued results are seen.
  p->controls().seed->spinBox()->setValue(12);
  ASSERT_EQ(settings(w).seed, 12u);
  // Every fitted E the panel shows from here on must be seed 12's.
  QStringList shown;
  QObject::connect(p, &IsoflopsPanel::fitUpdated, p, [&] { shown << text(p, "E"); });
  ASSERT_TRUE(waitIdle(p));
  SyntheticLadderSpec spec11 = synthetic_ladder_spec(settings(w));
  spec11.seed = 11;
  const QString e11 = QString::number(fit_parametric(synthetic_ladder(spec11)).law.E, 'f', 4);
  BootstrapOptions o;
  o.resamples = settings(w).fit.resamples;
  o.seed = 12;
  const BootstrapResult r = bootstrap_forecast(p->shown().view().points, p->targetFlops(), o);
  const QString e12 = QString::number(r.fit.law.E, 'f', 4) + QStringLiteral(" nats");
  ASSERT_NE(e11 + QStringLiteral(" nats"), e12);
  ASSERT_FALSE(shown.isEmpty());
  for (const QString& e : shown)
    EXPECT_EQ(e, e12) << "a stale fit was shown; discarded " << p->discardedResults();
  EXPECT_EQ(text(p, "E"), e12);
  EXPECT_EQ(text(p, "ci"),
            QStringLiteral("[%1, %2] nats")
                .arg(QString::number(r.ci_low, 'f', 4), QString::number(r.ci_high, 'f', 4)));
}

// The slow path run at once (isoflops_slow_now: napkin-cli isoflops
// --scenario) gives what the panel shows once its job has finished off the
// UI thread: the same fit, bootstrap and forecast, before and after a change.
TEST(IsoflopsPanel, TheHeadlessSlowPathGivesWhatThePanelShows) {
  MainWindow w(MainWindow::Session::fresh);
  IsoflopsPanel* p = w.panel<IsoflopsPanel>();
  const auto expect_same = [&](const char* where) {
    ASSERT_TRUE(waitIdle(p)) << where;
    const IsoflopsSlow slow = isoflops_slow_now(w.model()->scenario());
    const IsoflopsShown cli = make_isoflops_view(w.model()->scenario(), &slow);
    const IsoflopsShown& app = p->shown();
    ASSERT_TRUE(app.fit && cli.fit) << where;
    EXPECT_EQ(cli.fit->law.E, app.fit->law.E) << where;
    EXPECT_EQ(cli.fit->law.alpha, app.fit->law.alpha) << where;
    EXPECT_EQ(cli.fit->law.beta, app.fit->law.beta) << where;
    EXPECT_EQ(cli.n_successful, app.n_successful) << where;
    ASSERT_TRUE(app.forecast.loss && app.forecast.interval) << where;
    EXPECT_EQ(*cli.forecast.loss, *app.forecast.loss) << where;
    EXPECT_EQ(cli.forecast.interval->low, app.forecast.interval->low) << where;
    EXPECT_EQ(cli.forecast.interval->high, app.forecast.interval->high) << where;
  };
  expect_same("first view");
  typeInto(p->controls().seed, QStringLiteral("7"));
  expect_same("seed 7");
}
