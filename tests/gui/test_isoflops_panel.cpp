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

#include "MainWindow.h"
#include "PlotWidget.h"
#include "ReadoutGrid.h"
#include "SliderSpin.h"
#include "budget.h"
#include "format.h"
#include "hardware.h"
#include "isoflops/IsoflopsPanel.h"
#include "isoflops/LadderImportDialog.h"
#include "scaling.h"

using namespace napkin;

namespace {

constexpr int kGenerous = 180000;  // ms: async results on a loaded 2-core machine

QString text(IsoflopsPanel* p, const char* key) {
  return p->readouts().text(QString::fromLatin1(key));
}
Tone tone(IsoflopsPanel* p, const char* key) {
  const IsoflopsReadouts& r = p->readouts();
  return r.grid()->readout(r.row(QString::fromLatin1(key))).tone;
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

const IsoflopsSettings& settings(MainWindow& w) { return w.model()->scenario().isoflops; }

QString csvPath() {
  return QStringLiteral(NAPKIN_TEST_DATA "/chinchilla_besiroglu2024/svg_extracted_data.csv");
}

// Loads a CSV through the dialog with its guessed mapping, as a user who
// reads the preview and presses "Load ladder" would.
bool loadWithDialog(IsoflopsPanel* p, const QString& path) {
  if (!p->loadLadderCsv(path)) return false;
  LadderImportDialog* d = p->importDialog();
  if (!d) return false;
  QPushButton* ok = d->buttons()->button(QDialogButtonBox::Ok);
  if (!ok->isEnabled()) return false;
  QTest::mouseClick(ok, Qt::LeftButton);
  return true;
}

}  // namespace

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
  QTest::mouseClick(p->controls().use_synthetic, Qt::LeftButton);
  EXPECT_TRUE(p->shown().ladder.synthetic);
  EXPECT_FALSE(settings(w).loaded.has_value());
  EXPECT_EQ(p->shown().view().points.size(), 30u);
  // Both are undo steps: back to the CSV ladder, then to the synthetic one.
  w.model()->undoStack()->undo();
  EXPECT_EQ(p->shown().view().points.size(), 240u);
  w.model()->undoStack()->undo();
  EXPECT_EQ(p->shown().view().points.size(), 30u);
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
