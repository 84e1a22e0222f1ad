#include "isoflops/IsoflopsPanel.h"
#include "Text.h"

#include <QFileDialog>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSignalBlocker>
#include <QTimer>
#include <QVBoxLayout>
#include <stdexcept>

#include "AdaptiveRow.h"
#include "ControlColumn.h"
#include "PanelPage.h"
#include "ScenarioModel.h"
#include "format.h"
#include "isoflops/CsvRead.h"
#include "isoflops/LadderImportDialog.h"
#include "isoflops/plots/DecompositionPlot.h"
#include "isoflops/plots/DesignPlot.h"
#include "isoflops/plots/ExponentPlot.h"
#include "isoflops/plots/ForecastPlot.h"
#include "isoflops/plots/LadderPlot.h"
#include "isoflops/plots/RecipePlot.h"

namespace napkin {

namespace {

constexpr int kSideBySide = 900;       // px: read-outs beside the status from here up
constexpr QSize kPlotCell(300, 250);   // the smallest plot worth reading
constexpr int kDebounceMs = 150;       // the fit waits for the inputs to settle
constexpr int kTextFollowMs = 60;      // the status during a drag: ~16 updates a second
constexpr int kLoadLadderField = 260;  // undo field ids of the ladder source (see IsoflopsControls)

FitJobInputs fitInputs(const IsoflopsLadderView& l, const IsoflopsSettings& s) {
  return {l.view.points,   s.fit.estimator, s.fit.huber_delta,
          s.fit.resamples, s.seed,          l.view.target_flops};
}

}  // namespace

IsoflopsPanel::IsoflopsPanel(ScenarioModel* model, QWidget* parent) : ScenarioPanel(model, parent) {
  job_ = new FitJob(kDebounceMs, this);
  baseline_job_ = new FitJob(0, this);
  controls_ = IsoflopsControls::declare(column_, model_);

  QVBoxLayout* v = nullptr;
  QWidget* results = resultsPage(this, column_, &v)->widget();

  auto* top = new AdaptiveRow(kSideBySide, results);
  auto* grid = new ReadoutGrid;
  grid->setMaxColumns(3);
  readouts_ = std::make_unique<IsoflopsReadouts>(grid);
  top->addWidget(titledBox(tr("Read-outs"), grid, top), 3);

  // The status and the off-thread job.
  auto* side = new QWidget;
  auto* sv = new QVBoxLayout(side);
  sv->setContentsMargins(0, 0, 0, 0);
  status_ = new QPlainTextEdit(side);
  status_->setObjectName(QStringLiteral("statusText"));
  status_->setReadOnly(true);
  status_->setAccessibleName(tr("Status"));
  QFont small = status_->font();
  small.setPointSizeF(small.pointSizeF() * 0.92);
  status_->setFont(small);
  status_->setMinimumHeight(QFontMetrics(small).lineSpacing() * 4 + 12);
  status_->setMaximumHeight(QFontMetrics(small).lineSpacing() * 9 + 12);
  sv->addWidget(status_, 1);
  auto* jobRow = new QWidget(side);
  auto* jh = new QHBoxLayout(jobRow);
  jh->setContentsMargins(0, 0, 0, 0);
  job_label_ = new QLabel(jobRow);
  job_label_->setObjectName(QStringLiteral("jobLabel"));
  job_label_->setWordWrap(true);
  progress_ = new QProgressBar(jobRow);
  progress_->setObjectName(QStringLiteral("progressBar"));
  progress_->setFormat(QStringLiteral("%p %"));
  progress_->setMaximumWidth(140);
  cancel_ = new QPushButton(tr("Cancel"), jobRow);
  cancel_->setObjectName(QStringLiteral("cancelButton"));
  cancel_->setToolTip(
      tr("Stop the fit and bootstrap in progress; the interval is then not shown."));
  recompute_ = new QPushButton(tr("Recompute"), jobRow);
  recompute_->setObjectName(QStringLiteral("rerunButton"));
  recompute_->setToolTip(tr("Run the fit and the bootstrap again for the current inputs."));
  jh->addWidget(job_label_, 1);
  jh->addWidget(progress_);
  jh->addWidget(cancel_);
  jh->addWidget(recompute_);
  sv->addWidget(jobRow);
  top->addWidget(titledBox(tr("Status"), side, top), 2);
  v->addWidget(top);

  plots_ = {new LadderPlot,        new ExponentPlot, new ForecastPlot,
            new DecompositionPlot, new RecipePlot,   new DesignPlot};
  addPlotGrid(v, QStringLiteral("plotGrid"), {plots_.begin(), plots_.end()}, kPlotCell);

  connect(cancel_, &QPushButton::clicked, this, &IsoflopsPanel::cancelJob);
  connect(recompute_, &QPushButton::clicked, this, &IsoflopsPanel::recompute);
  connect(controls_.load_csv, &QPushButton::clicked, this, [this] {
    const QString path = csv_prompt_
                             ? csv_prompt_()
                             : QFileDialog::getOpenFileName(this, tr("Load ladder CSV"), QString(),
                                                            tr("CSV files (*.csv);;All files (*)"));
    if (!path.isEmpty()) loadLadderCsv(path);
  });
  connect(controls_.use_synthetic, &QPushButton::clicked, this, &IsoflopsPanel::useSyntheticLadder);
  connect(job_, &FitJob::stateChanged, this, &IsoflopsPanel::redraw);
  connect(job_, &FitJob::progressChanged, this, &IsoflopsPanel::updateJobUi);
  connect(job_, &FitJob::fitUpdated, this, &IsoflopsPanel::fitUpdated);
  connect(job_, &FitJob::bootstrapUpdated, this, &IsoflopsPanel::bootstrapUpdated);
  connect(baseline_job_, &FitJob::stateChanged, this, &IsoflopsPanel::updateBaseline);
  text_timer_ = new QTimer(this);
  text_timer_->setSingleShot(true);
  text_timer_->setInterval(kTextFollowMs);
  connect(text_timer_, &QTimer::timeout, this, &IsoflopsPanel::updateStatus);
  refresh();
  // The first fit runs here, synchronously, so the panel opens (and a
  // screenshot renders) with a finished forecast; later ones run off-thread.
  job_->runNow();
}

IsoflopsPanel::~IsoflopsPanel() {
  // The jobs wait for their threads before the widgets they report to go.
  delete job_;
  job_ = nullptr;
  delete baseline_job_;
  baseline_job_ = nullptr;
}

void IsoflopsPanel::gestureChanged(bool on) {
  ScenarioPanel::gestureChanged(on);
  if (!on && text_timer_->isActive()) {  // released: the status is exact now
    text_timer_->stop();
    updateStatus();
  }
}

std::vector<PlotWidget*> IsoflopsPanel::plots() const { return {plots_.begin(), plots_.end()}; }

void IsoflopsPanel::refresh() {
  const Scenario& s = model_->scenario();
  column_->sync();
  controls_.updateEnabled(s);
  IsoflopsShown next = make_isoflops_view(s, &job_->result());
  if (next.valid()) {
    view_error_.clear();
    shown_scenario_ = s;
    const QSignalBlocker once(job_);  // redrawn once, below
    // New fit inputs mark the results pending: the view is made with that state.
    if (job_->request(fitInputs(next.ladder, s.isoflops)))
      next = make_isoflops_view(s, &job_->result());
    shown_ = std::move(next);
  } else {
    view_error_ = qs(next.error);  // the previous view is kept
  }
  updateSource();
  draw();
}

void IsoflopsPanel::redraw() {
  if (!job_ || !shown_scenario_) return;  // no view yet (an invalid first scenario)
  // The fit's results arrived for the last scenario that gave a ladder.
  shown_ = make_isoflops_view(*shown_scenario_, &job_->result());
  draw();
}

void IsoflopsPanel::draw() {
  if (shown_.view().points.empty()) return;  // no view yet (an invalid first scenario)
  readouts_->show(shown_);
  // A law at the edge of its sliders can put an optimum outside the doubles;
  // the status says so instead of letting the exception escape.
  try {
    for (IsoflopsPlot* p : plots_) p->drawView(shown_);
  } catch (const std::exception& e) {
    view_error_ = qs(std::string(e.what()));
  }
  // The status is text that re-lays out on every change: during a slider
  // drag it follows at most every kTextFollowMs, and exactly on release.
  if (!model_->inGesture())
    updateStatus();
  else if (!text_timer_->isActive())
    text_timer_->start();
  updateJobUi();
}

void IsoflopsPanel::updateSource() {
  const IsoflopsSettings& s = model_->scenario().isoflops;
  QString text;
  if (s.loaded) {
    const LoadedLadder& l = *s.loaded;
    const LadderColumns& c = l.columns;
    text = tr("CSV ladder %1: %2 of %3 rows fitted (%4 unreadable, %5 over the loss cut), N from "
              "\"%6\", D %7, loss from \"%8\"%9.")
               .arg(qs(l.file_name))
               .arg(shown_.view().points.size())
               .arg(l.data_rows)
               .arg(l.skipped_rows())
               .arg(static_cast<qsizetype>(l.points.size()) -
                    static_cast<qsizetype>(shown_.view().points.size()))
               .arg(qs(c.n_params))
               .arg(c.tokens_kind == TokensKind::flops ? tr("= C/6N from \"%1\"").arg(qs(c.tokens))
                                                       : tr("from \"%1\"").arg(qs(c.tokens)))
               .arg(qs(c.loss))
               .arg(c.budget.empty() ? tr(", no budget labels")
                                     : tr(", budgets from \"%1\"").arg(qs(c.budget)));
  } else {
    const SyntheticLadderSettings& y = s.synthetic;
    text = tr("Synthetic ladder: %1 budgets × %2 sizes = %3 runs drawn from the ground-truth law "
              "below.")
               .arg(y.n_budgets)
               .arg(y.sizes_per_budget)
               .arg(y.n_budgets * y.sizes_per_budget);
  }
  if (!load_error_.isEmpty()) text = load_error_;
  controls_.source->setStyleSheet(load_error_.isEmpty() ? QString()
                                                        : QStringLiteral("color: #c62828;"));
  if (controls_.source->text() != text) controls_.source->setText(text);
}

void IsoflopsPanel::updateStatus() {
  const IsoflopsSettings& p = model_->scenario().isoflops;
  const IsoflopsShown& s = shown_;
  const IsoflopsView& v = s.view();
  const FitJobResult& r = job_->result();
  QStringList lines;
  if (!load_error_.isEmpty()) lines << tr("Error: %1").arg(load_error_);
  if (!view_error_.isEmpty())
    lines << tr("Error: %1 — the previous ladder is shown.").arg(view_error_);
  if (s.forecast.interval && s.boot_state == JobState::current) {
    try {
      const ExtrapolationRisk risk = extrapolation_risk(
          v.ladder_max_flops, v.target_flops, s.forecast.interval->high - s.forecast.interval->low);
      lines << tr("Risk: %1.").arg(qs(risk.statement));
    } catch (const std::invalid_argument& e) {
      lines << tr("Risk: n/a (%1).").arg(qs(std::string(e.what())));
    }
  }
  if (s.ladder.synthetic) {
    const SyntheticLadderSettings& y = p.synthetic;
    lines << tr("Synthetic ladder: %1 runs from %2, noise %3, seed %4%5%6%7.")
                 .arg(v.points.size())
                 .arg(y.law_preset == LawPreset::chinchilla_approach3 ? tr("Chinchilla Approach 3")
                      : y.law_preset == LawPreset::besiroglu2024      ? tr("Besiroglu et al. 2024")
                                                                      : tr("a custom law"))
                 .arg(qs(format_percent(y.noise, 2)))
                 .arg(p.seed)
                 .arg(y.bias_on ? tr(", LR-decay bias %1 nats (%2)")
                                      .arg(fixed(y.bias_nats, 3), qs(to_string(y.bias_mode)))
                                : QString())
                 .arg(y.offset_on ? tr(", offset %1 nats").arg(fixed(y.offset_nats, 3)) : QString())
                 .arg(y.outlier ? tr(", one diverged run") : QString());
  } else {
    lines << controls_.source->text();
  }
  for (const std::string& b : v.skipped) lines << tr("Budget %1 — skipped.").arg(qs(b));
  if (!v.exponents && !v.exponent_error.empty())
    lines << tr("Exponents: %1.").arg(qs(v.exponent_error));
  const ScheduleLesson& l = s.ladder.lesson;
  if (s.ladder.synthetic && !l.lesson_error.empty() && (!l.n_bias || !l.n_offset || !l.n_clean))
    lines << tr("Lesson: %1").arg(qs(l.lesson_error));
  if (r.fit_state == JobState::failed) lines << tr("Fit failed: %1").arg(qs(r.fit_error));
  if (r.fit_state == JobState::cancelled) lines << tr("Fit cancelled: press Recompute.");
  if (s.fit)
    lines << tr("Fit (%1): objective %2 over %3 runs, %4 L-BFGS starts%5%6")
                 .arg(qs(to_string(s.fit->estimator)))
                 .arg(qs(format_sci(s.fit->objective, 3)))
                 .arg(s.fit->n_points)
                 .arg(s.fit->starts)
                 .arg(s.fit->converged ? tr(", converged") : tr(", NOT converged"))
                 .arg(s.fitStale() ? tr(" — updating…") : QStringLiteral("."));  // not "…."
  if (r.boot_state == JobState::failed && r.fit_state != JobState::failed)
    lines << tr("Bootstrap failed: %1").arg(qs(r.boot_error));
  if (r.boot_state == JobState::cancelled)
    lines << tr("Bootstrap cancelled: no interval for these inputs; press Recompute to run it.");
  if (r.boot_state == JobState::current)
    lines << tr("Bootstrap: %1 resamples, %2 refitted, %3 degenerate skipped.")
                 .arg(r.n_successful + r.n_skipped)
                 .arg(r.n_successful)
                 .arg(r.n_skipped);
  const QString text = lines.join(QLatin1Char('\n'));
  if (status_->toPlainText() != text) status_->setPlainText(text);
}

void IsoflopsPanel::updateJobUi() {
  const FitJobResult& r = job_->result();
  const int total = job_->inputs().resamples;
  QString text;
  if (job_->isDebouncing()) {
    text = tr("Inputs changed: refitting when they settle…");
  } else if (r.fit_state == JobState::pending) {
    text = job_->isRunning()
               ? tr("Fitting the law (%1)…").arg(qs(to_string(job_->inputs().estimator)))
               : tr("Fit queued…");
  } else if (r.boot_state == JobState::pending) {
    text = tr("Bootstrap: %1 of %2 resamples…").arg(job_->progress()).arg(total);
  } else if (r.fit_state == JobState::cancelled || r.boot_state == JobState::cancelled) {
    text = tr("Cancelled: press Recompute for the interval");
  } else if (r.fit_state == JobState::failed || r.boot_state == JobState::failed) {
    text = tr("Failed: see the status above");
  } else {
    text = tr("Fit and bootstrap up to date");
  }
  if (job_label_->text() != text) job_label_->setText(text);
  cancel_->setEnabled(isBusy());
  recompute_->setEnabled(!isBusy());
  progress_->setRange(0, std::max(1, total));
  progress_->setValue(r.boot_state == JobState::current ? progress_->maximum()
                      : isBusy()                        ? job_->progress()
                                                        : 0);
}

QString IsoflopsPanel::statusText() const { return status_->toPlainText(); }

QStringList IsoflopsPanel::readoutTexts() const {
  QStringList out;
  const ReadoutGrid* g = readouts_->grid();
  for (int i = 0; i < g->rowCount(); ++i) out << g->text({i});
  out << status_->toPlainText() << job_label_->text();
  return out;
}

// ============================================================= the CSV ladder

bool IsoflopsPanel::loadLadderCsv(const QString& path) {
  try {
    // Off the UI thread, with progress and Cancel: a large file or a slow
    // pipe never freezes the window.
    CsvRead read = readCsvInBackground(path, this);
    if (read.cancelled) {
      load_error_ = tr("Reading the ladder CSV was cancelled. The previous ladder is kept.");
      updateSource();
      updateStatus();
      return false;
    }
    if (!read.error.isEmpty()) throw std::runtime_error(read.error.toStdString());
    std::string text = std::move(read.text);
    delete dialog_;
    dialog_ =
        new LadderImportDialog(std::move(text), path, model_->scenario().isoflops.loss_cut, this);
  } catch (const std::exception& e) {
    load_error_ = tr("Could not load the ladder CSV — %1. The previous ladder is kept.")
                      .arg(qs(std::string(e.what())));
    updateSource();
    updateStatus();
    return false;
  }
  load_error_.clear();
  connect(dialog_, &QDialog::accepted, this, &IsoflopsPanel::acceptImport);
  connect(dialog_, &QDialog::finished, this, [this] {
    dialog_->deleteLater();
    dialog_ = nullptr;
  });
  dialog_->setWindowModality(Qt::WindowModal);
  dialog_->open();
  updateSource();
  updateStatus();
  return true;
}

void IsoflopsPanel::acceptImport() {
  if (!dialog_ || !dialog_->result() || !dialog_->result()->usable()) return;
  const LoadedLadder ladder = dialog_->result()->ladder;
  const LossCut cut = dialog_->lossCut();
  model_->edit(tr("Load ladder %1").arg(qs(ladder.file_name)), kLoadLadderField, [&](Scenario& s) {
    s.isoflops.loaded = ladder;
    s.isoflops.loss_cut = cut;
  });
}

void IsoflopsPanel::useSyntheticLadder() {
  load_error_.clear();
  model_->edit(tr("Use synthetic ladder"), kLoadLadderField + 1,
               [](Scenario& s) { s.isoflops.loaded.reset(); });
  updateSource();
}

// ================================================================ baseline

void IsoflopsPanel::setBaseline(const Scenario* b) {
  baseline_.reset();
  baseline_scenario_.reset();
  if (b) {
    const IsoflopsShown view = make_isoflops_view(*b);
    if (view.valid()) {  // a baseline without a ladder shows no change
      baseline_scenario_ = *b;
      baseline_job_->request(fitInputs(view.ladder, b->isoflops));
    }
  }
  if (!baseline_scenario_) baseline_job_->cancel();
  updateBaseline();
}

void IsoflopsPanel::updateBaseline() {
  if (!baseline_job_) return;
  if (baseline_scenario_)
    baseline_ = make_isoflops_view(*baseline_scenario_, &baseline_job_->result());
  else
    baseline_.reset();
  const IsoflopsShown* b = baseline_ ? &*baseline_ : nullptr;
  readouts_->setBaseline(b);
  for (IsoflopsPlot* p : plots_) p->drawBaseline(b);
}

// ================================================================== report

ReportSection IsoflopsPanel::reportSection() const {
  ReportSection s;
  s.title = title();
  s.summary =
      tr("A ladder of small runs, one parabola per budget, the IsoFLOPs power laws, the "
         "parametric fit and its bootstrap forecast at the target compute.");
  s.tables = readouts_->tables();
  ReportTable ladder{tr("The ladder"), {}, false};
  const IsoflopsSettings& p = model_->scenario().isoflops;
  const IsoflopsView& v = shown_.view();
  ladder.rows.push_back({tr("Source"), p.loaded ? qs(p.loaded->file_name) : tr("synthetic"),
                         QString(),
                         p.loaded ? tr("embedded in the scenario") : tr("drawn from a known law")});
  ladder.rows.push_back({tr("Runs fitted"), QString::number(v.points.size()), tr("runs"), {}});
  ladder.rows.push_back(
      {tr("Budgets with a vertex"), QString::number(v.optima.size()), tr("budgets"), QString()});
  ladder.rows.push_back({tr("Budget range"),
                         qs(format_sci(v.ladder_min_flops, 2)) + QStringLiteral(" \u2013 ") +
                             qs(format_sci(v.ladder_max_flops, 2)),
                         tr("FLOPs"), QString()});
  if (shown_.fit)
    ladder.rows.push_back({tr("Estimator"), qs(to_string(shown_.fit->estimator)), QString(),
                           shown_.fit->converged ? tr("converged") : tr("not converged")});
  if (shown_.boot_state == JobState::current)
    ladder.rows.push_back({tr("Bootstrap resamples"), QString::number(shown_.n_successful),
                           tr("refits"), tr("%1 degenerate skipped").arg(shown_.n_skipped)});
  s.tables.push_back(ladder);
  s.formulas = {
      {QStringLiteral("L = E + A/N^α + B/D^β"), tr("the parametric loss law")},
      {QStringLiteral("log L̂ = LSE(a − α log N, b − β log D, e)"), tr("fitted on log loss")},
      {QStringLiteral("N_opt ∝ C^a, D_opt ∝ C^b, a + b = 1"), tr("IsoFLOPs power laws")},
      {QStringLiteral("Var(ŷ*) ∝ 1/n + (x* − x̄)²/Σ(x − x̄)²"),
       tr("extrapolation variance of a ladder design, x = log10 C")}};
  s.charts = plots();
  s.charts_per_row = 1;  // labelled points and notes need the width
  return s;
}

QString IsoflopsPanel::help() const {
  return tr(
      "<h3>IsoFLOPs &amp; scaling laws</h3>"
      "<p>Turn a ladder of cheap runs into a forecast for the run you can afford once.</p>"
      "<p><b>Left</b>: the ladder. By default it is synthetic: for each compute budget C, runs of "
      "several sizes N with D = C/6N tokens, their losses drawn from a ground-truth law L = E + "
      "A/N^α + B/D^β with seeded noise. Or load a CSV of real runs: a dialog previews the file, "
      "guesses which column is N, D (or the training compute C, with D = C/6N), the loss and an "
      "optional budget label, lets you change them and their units, and lists the rows it will "
      "skip and why. The loaded ladder is saved in the scenario. The Chinchilla Figure 4 data of "
      "Besiroglu et al. fits to E ≈ 1.817.</p>"
      "<p><b>Plots</b>: (1) loss vs N for each budget, with the fitted parabola in log10 N and "
      "its vertex (the budget's compute-optimal N); (2) the vertices' N_opt and D_opt vs C with "
      "the power laws N_opt ∝ C^a, D_opt ∝ C^b (a + b must be 1) and Kaplan's 0.73 and "
      "Chinchilla's 0.5 slopes; (3) the fitted law's optimal loss vs C out to the target C*, the "
      "bootstrap's 95 % band, and how many decades the forecast extrapolates; (4) the loss at C* "
      "split into E, A/N^α and B/D^β; (5) the fitted law against a candidate recipe, with the "
      "compute where they cross — the crossover is the decision, not the winner at one scale; "
      "(6) the extrapolation variance 1/n + (x* − x̄)²/Σ(x − x̄)² (x = log10 C) of alternative "
      "ladder designs: spread beats clustering.</p>"
      "<p><b>The Kaplan → Chinchilla lesson</b>: tick <i>Inject the LR-decay bias</i>. Runs read "
      "off a schedule planned for a longer horizon are penalized more the fewer tokens they saw, "
      "so the bias is not uniform: it tilts the vertices and moves the recommended N_opt "
      "(read-out <i>With bias</i>). A uniform offset (<i>With offset</i>) shifts every parabola "
      "up and moves nothing.</p>"
      "<p><b>Live vs settled</b>: the ladder, parabolas and exponents follow every slider tick. "
      "The parametric fit (Huber on log residuals by default) and the bootstrap run in the "
      "background once the inputs have been still for 150 ms; until then the values that depend "
      "on them are marked <i>updating…</i>. Cancel stops them; Recompute runs them again. The "
      "target C* follows the Budget panel's compute unless you untick <i>follows the Budget "
      "panel</i>. Every setting is part of the scenario: saved with it, and undoable.</p>"
      "<p>Hover a plot for values; right-click to save it (PNG, vector PDF) or its data "
      "(CSV).</p>");
}

}  // namespace napkin
