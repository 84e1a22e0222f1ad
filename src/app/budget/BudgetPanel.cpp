#include "budget/BudgetPanel.h"
#include "Text.h"

#include <QCheckBox>
#include <QFutureWatcher>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPlainTextEdit>
#include <QScrollArea>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrent>
#include <algorithm>

#include "AdaptiveRow.h"
#include "CheckList.h"
#include "ControlColumn.h"
#include "MessageLabel.h"
#include "PanelPage.h"
#include "ScenarioModel.h"
#include "WheelPassThrough.h"
#include "budget/plots/AttentionPlot.h"
#include "budget/plots/EpochsPlot.h"
#include "budget/plots/FrontierPlot.h"
#include "budget/plots/GoodputPlot.h"
#include "budget/plots/HistogramPlot.h"
#include "budget/plots/KvCachePlot.h"
#include "budget/plots/LifetimePlot.h"
#include "budget/plots/MemoryPlot.h"
#include "budget/plots/TornadoPlot.h"
#include "format.h"

namespace napkin {

namespace {
constexpr int kSideBySide = 860;      // px: read-outs beside the checks from here up
constexpr QSize kPlotCell(280, 240);  // the smallest plot worth reading
constexpr int kTextFollowMs = 60;     // checks and memo during a drag: ~16 updates a second

}  // namespace

BudgetPanel::BudgetPanel(ScenarioModel* model, QWidget* parent) : ScenarioPanel(model, parent) {
  // The view the controls show derived values from, computed once before them.
  view_ = make_budget_view(model_->scenario());
  controls_ = BudgetControls::declare(
      column_, model_, [this] { return view_.report.split.params; },
      [this]() -> const BudgetView& { return view_; });

  // Everything the panel shows scrolls as one page on a small screen.
  QVBoxLayout* v = nullptr;
  QWidget* results = resultsPage(this, column_, &v)->widget();

  message_ = new MessageLabel(results);
  v->addWidget(message_);
  auto* top = new AdaptiveRow(kSideBySide, results);
  auto* grid = new ReadoutGrid;
  grid->setMaxColumns(2);
  checks_ = new CheckList;
  checks_->setMinimumHeight(80);
  checks_->setAccessibleName(tr("Sanity checks"));
  top->addWidget(titledBox(tr("Read-outs"), grid, top), 3);
  top->addWidget(titledBox(tr("Sanity checks"), checks_, top), 2);
  v->addWidget(top);
  auto* ranges_grid = new ReadoutGrid;
  ranges_grid->setObjectName(QStringLiteral("rangesGrid"));
  ranges_grid->setMaxColumns(2);
  ranges_box_ = titledBox(tr("Ranges"), ranges_grid, results);
  ranges_box_->setObjectName(QStringLiteral("rangesBox"));
  ranges_box_->hide();
  v->addWidget(ranges_box_);
  readouts_ = std::make_unique<BudgetReadouts>(grid, ranges_grid);

  goodput_plot_ = new GoodputPlot;
  epochs_plot_ = new EpochsPlot;
  histogram_plot_ = new HistogramPlot;
  tornado_plot_ = new TornadoPlot;
  memory_plot_ = new MemoryPlot;
  plots_ = {goodput_plot_,   epochs_plot_,      histogram_plot_,  tornado_plot_,   memory_plot_,
            new KvCachePlot, new AttentionPlot, new LifetimePlot, new FrontierPlot};
  recommendation_ = new QPlainTextEdit;
  recommendation_->setObjectName(QStringLiteral("recommendationText"));
  recommendation_->setReadOnly(true);
  passWheelAtEnds(recommendation_);  // at its end the wheel scrolls the page, not nothing
  recommendation_->setFrameShape(QFrame::NoFrame);
  recommendation_->setAccessibleName(tr("What I would train"));
  recommendation_->viewport()->setAutoFillBackground(false);
  recommendation_->setStyleSheet(
      QStringLiteral("background: transparent; color: palette(window-text);"));
  QFont small = recommendation_->font();
  small.setPointSizeF(small.pointSizeF() * 0.92);
  recommendation_->setFont(small);
  recommendation_box_ = titledBox(tr("What I would train"), recommendation_, results);
  // The answer first, then the run's plots, then the model's.
  std::vector<QWidget*> cells{recommendation_box_};
  cells.insert(cells.end(), plots_.begin(), plots_.end());
  addPlotGrid(v, QStringLiteral("plotGrid"), cells, kPlotCell);

  text_timer_ = new QTimer(this);
  text_timer_->setSingleShot(true);
  text_timer_->setInterval(kTextFollowMs);
  connect(text_timer_, &QTimer::timeout, this, &BudgetPanel::updateTexts);
  refresh();
}

BudgetPanel::~BudgetPanel() = default;

void BudgetPanel::gestureChanged(bool on) {
  ScenarioPanel::gestureChanged(on);
  checks_->setHoldHeight(on);
  message_->setHold(on);
  if (!on && ranges_stale_) {  // released: the ranges exactly, on this thread
    requestRefresh();
    return;
  }
  if (!on && text_timer_->isActive()) {  // released: the texts are exact now
    text_timer_->stop();
    updateTexts();
  }
}

std::vector<PlotWidget*> BudgetPanel::plots() const { return {plots_.begin(), plots_.end()}; }

void BudgetPanel::refresh() {
  const Scenario& s = model_->scenario();
  // The Monte Carlo (10,000 draws) follows a drag off the UI thread; any
  // other edit computes it here, so what is shown is exact.
  const bool off_thread = model_->inGesture() && s.ranges.any();
  // During a drag the last ranges stay, marked as updating, until the new ones arrive.
  const std::optional<RangeReport> shown = off_thread ? view_.ranges : std::nullopt;
  BudgetView next =
      make_budget_view(s, shown ? &*shown : nullptr,
                       {.ranges = !off_thread, .previous = &view_});  // the one model call
  showError(next.error);
  if (!next.valid()) {  // the last plan stays on screen under the reason
    view_.error = next.error;
    column_->sync();
    return;
  }
  view_ = std::move(next);
  ++ranges_generation_;
  ranges_stale_ = off_thread;
  if (off_thread) startRanges();
  // After the view: boxes showing a derived value (train tokens, checkpoint
  // write) show this scenario's, not the previous one's.
  column_->sync();
  controls_.plan.updateEnabled(view_);
  showTrainPrecisionRefusal(controls_.train_precision, qs(view_.plan.fp8_refusal));
  showMfuInUse();
  readouts_->show(view_);
  for (BudgetPlot* p : plots_) p->drawView(view_);
  showRanges();
  scheduleTexts();
}

void BudgetPanel::scheduleTexts() {
  if (!model_->inGesture())
    updateTexts();
  else if (!text_timer_->isActive())
    text_timer_->start();
}

void BudgetPanel::showError(const std::string& error) {
  const QString msg = error.empty() ? QString() : tr("No plan for these inputs: %1").arg(qs(error));
  message_->setMessage(msg);
}

QString BudgetPanel::message() const { return message_->text(); }

void BudgetPanel::showRanges() {
  const bool any = view_.scenario.ranges.any();
  readouts_->showRanges(view_);
  ranges_box_->setVisible(any && view_.ranges.has_value());
  histogram_plot_->drawView(view_);
  tornado_plot_->drawView(view_);
  histogram_plot_->setPending(ranges_stale_);
  tornado_plot_->setPending(ranges_stale_);
}

void BudgetPanel::startRanges() {
  if (ranges_running_) return;  // the finished job starts the latest
  ranges_running_ = true;
  const std::uint64_t gen = ranges_generation_;
  const Scenario s = view_.scenario;
  const TrainInputs plan = view_.plan_inputs;
  auto* watcher = new QFutureWatcher<std::optional<RangeReport>>(this);
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, gen] {
    watcher->deleteLater();
    ranges_running_ = false;
    const std::optional<RangeReport> r = watcher->result();
    if (gen == ranges_generation_) {
      ranges_stale_ = false;
      showArrivedRanges(r);
    } else if (ranges_stale_) {
      // Closer than nothing while the next one runs (still marked as updating).
      if (view_.ranges.has_value() || r.has_value()) showArrivedRanges(r);
      startRanges();
    }
  });
  watcher->setFuture(QtConcurrent::run([s, plan] { return budget_ranges(s, plan); }));
}

void BudgetPanel::showArrivedRanges(const std::optional<RangeReport>& ranges) {
  if (!view_.valid()) return;  // refresh() shows why
  // The plan is the one shown: only the ranges (and the memo's sentence on them) change.
  set_arrived_ranges(view_, ranges ? &*ranges : nullptr);
  showRanges();
  scheduleTexts();  // the memo quotes the ranges
}

void BudgetPanel::updateTexts() {
  std::vector<CheckItem> checks;
  for (const Check& c : view_.checks) checks.push_back({qs(c.name), c.ok, qs(c.detail)});
  checks_->setChecks(checks);
  const QString memo = qs(view_.report.recommendation);
  if (recommendation_->toPlainText() != memo) recommendation_->setPlainText(memo);
  recommendation_box_->setToolTip(QString::fromStdString(view_.plan_subject));
  recommendation_box_->setTitle(view_.plan_too_long
                                    ? tr("What I would train \u2014 caution: a long plan")
                                    : tr("What I would train"));
}

void BudgetPanel::setBaseline(const Scenario* baseline) {
  if (baseline)
    baseline_ = make_budget_view(*baseline, nullptr, {.previous = &view_});
  else
    baseline_.reset();
  const BudgetView* b = baseline_ ? &*baseline_ : nullptr;
  readouts_->setBaseline(b);
  for (BudgetPlot* p : plots_) p->drawBaseline(b);
}

QStringList BudgetPanel::readoutTexts() const {
  QStringList out;
  const ReadoutGrid* g = readouts_->grid();
  for (int i = 0; i < g->rowCount(); ++i) out << g->text({i});
  if (ranges_box_->isVisibleTo(this)) {
    const ReadoutGrid* r = readouts_->rangesGrid();
    for (int i = 0; i < r->rowCount(); ++i) out << r->text({i});
  }
  out << checks_->toPlainText() << recommendation_->toPlainText();
  return out;
}

ReportSection BudgetPanel::reportSection() const {
  ReportSection s;
  s.title = title();
  s.summary =
      tr("Chips × days × MFU → FLOPs → (N, D) → memory → serving → dollars and joules, and the "
         "planned run as it will really go: %1; goodput after crashes and checkpoints, the data "
         "limit (Muennighoff et al. 2023) and, when an input is a range, P10/P50/P90 from a "
         "seeded Monte Carlo.")
          .arg(QString::fromStdString(view_.plan_subject));
  // The budget, the Chinchilla answer, the scenario model, the checks, then
  // the planned run, its ranges (when on) and the data check.
  std::vector<ReportTable> readout_tables = readouts_->tables();
  const std::size_t first = std::min<std::size_t>(3, readout_tables.size());
  s.tables.assign(readout_tables.begin(), readout_tables.begin() + static_cast<long>(first));
  ReportTable checks{tr("Sanity checks"), {}, true};
  for (const Check& c : view_.checks)
    checks.rows.push_back({qs(c.name), c.ok ? tr("OK") : tr("FAIL"), QString(), qs(c.detail),
                           c.ok ? Tone::ok : Tone::fail});
  s.tables.push_back(checks);
  s.tables.insert(s.tables.end(), readout_tables.begin() + static_cast<long>(first),
                  readout_tables.end());
  s.formulas = {
      {QStringLiteral("C = chips × peak FLOP/s × MFU × days × 86,400 s"), tr("budget → FLOPs")},
      {QStringLiteral("C = 6ND; N = √(C / 6r), D = r·N"),
       tr("Chinchilla split, r tokens/parameter")},
      {QStringLiteral("FLOPs/step = 18BTDF + 24BTDNH (+ 12·B·H·T²·d_h per layer)"),
       tr("exact count, full-matrix mask")},
      {QStringLiteral("memory = 2N + 2N + 12N (+ B·T·d·L·16·2)"),
       tr("bf16 weights, grads, fp32 Adam; activations")},
      {QStringLiteral("KV bytes = 2·L·n_kv·d_h·T·B·2"), tr("per request at bf16")},
      {QStringLiteral("lifetime = 6N·D_train + 2N·D_served"), tr("training + serving FLOPs")},
      {QStringLiteral("L(N, D) = E + A/N^α + B/D^β"), tr("Besiroglu et al. 2024 constants")},
      {QStringLiteral("goodput = productive ÷ wall-clock; lost per crash = restart + τ/2"),
       tr("crashes at interruptions per 1,000 chip-days × chips")},
      {QStringLiteral("τ* = √(2 · write time · MTBF)"), tr("Young (1974) / Daly (2006)")},
      {QStringLiteral("D′ = U + U·R_D*·(1 − e^(−R/R_D*)), R_D* = 15.4"),
       tr("effective tokens, Muennighoff et al. 2023")},
      {QStringLiteral("P10 / P50 / P90 over 10,000 seeded draws"),
       tr("triangular or log-normal ranges; tornado one input at a time")}};
  ReportTable data_table{tr("Data check and serving"), {}, false};
  const RunReport& run = view_.run();
  // Sentences go in the note column; the value column holds a number.
  data_table.rows.push_back({tr("Planned run"), qs(format_count(run.params, 1)), tr("params"),
                             QString::fromStdString(view_.plan_subject), Tone::normal});
  data_table.rows.push_back(
      {tr("Epochs"), QString::fromStdString(format_grouped(run.epochs, 2)), tr("epochs"),
       tr("worth %1 fresh tokens (Muennighoff et al. 2023)")
           .arg(QString::fromStdString(format_count(run.effective_tokens, 2))),
       run.data_suffice ? Tone::ok : Tone::warn});
  const BudgetServing& serving = view_.serving;
  data_table.rows.push_back(
      {tr("Serving limit"),
       serving.largest_params ? qs(format_count(*serving.largest_params, 1)) : tr("none"),
       serving.largest_params ? tr("params") : QString(), QString::fromStdString(serving.text),
       serving.binds ? Tone::warn : Tone::ok});
  s.tables.push_back(data_table);
  s.charts = plots();
  return s;
}

QString BudgetPanel::help() const {
  return tr(
      "<h3>Budget Planner</h3>"
      "<p>Left: the scenario. Chips × days × MFU × peak FLOP/s gives the compute C; "
      "C = 6ND with D = r·N gives the Chinchilla-optimal N and D (r = tokens per parameter).</p>"
      "<p><b>Read-outs</b>, in three groups that say what they are about: the budget (C, days, "
      "dollars, energy), the Chinchilla answer it buys (N, D and its model states, 16 "
      "bytes/param for Adam), and the scenario's own model at its ZeRO stage and DP degree "
      "(parameters, memory per device, KV cache, attention share). Select a value to copy it; "
      "right-click to copy them all.</p>"
      "<p><b>Sanity checks</b>: the Chinchilla answer's states fit the cluster sharded (70 %), "
      "the scenario model fits a device, the corpus has D unique tokens, the weights fit one "
      "8-chip serving node with half its HBM left for KV, and the facility power fits the "
      "site.</p>"
      "<p><b>Plots</b>: (a) memory per device against the chip's HBM: every pipeline stage "
      "of the plan's layout when it has one (the predicted MFU's, or the Parallelism "
      "panel's chosen row), else ZeRO 0–3 over data parallelism alone; (b) KV "
      "cache per request vs context for MHA, the scenario's GQA and MQA against the HBM "
      "left after the weights; (c) attention's share of training FLOPs and 6ND's error vs "
      "sequence length; (d) lifetime FLOPs vs served tokens for the Chinchilla answer and "
      "the smaller model that reaches the same loss — the crossover is the decision; (e) "
      "N and D along the compute-optimal frontier. Hover a curve for its values; "
      "right-click to save the plot (PNG, vector PDF) or its data (CSV).</p>"
      "<p><b>The planned run</b> (the recommendation, or in <i>Train this model</i> mode the "
      "scenario's model on the tokens you give): goodput after crashes (interruptions per "
      "1,000 chip-days, default from Llama 3's 419 in 54 days on 16,384 GPUs), restarts and "
      "checkpoints, with the Young/Daly interval √(2·write·MTBF); epochs over the unique "
      "tokens and what they are worth (Muennighoff et al. 2023); the largest model the "
      "serving latency budget allows at the scenario's weight and KV precisions. Plots: "
      "goodput vs checkpoint interval, loss vs epochs (the law against the seed's toy), and "
      "with a range switched on, a histogram of days from 10,000 seeded draws with P10/P50/"
      "P90 and a tornado of which input moves the days most. During a drag the draws run "
      "off the UI thread; on release they are exact.</p>");
}

// The plan runs at a predicted MFU: the slider and its range are not used,
// and say so (Budget MFU "predicted" in the Parallelism panel); greyed, the
// slider shows the MFU the plan runs at, and the assumed one returns with
// "assumed".
void BudgetPanel::showMfuInUse() {
  const ResolvedPlan& plan = view_.plan;
  const bool predicted = plan.mfu.source == MfuSource::predicted;
  const QString why =
      predicted ? tr("Not used: the plan runs at the predicted MFU of the Parallelism panel's "
                     "layout, %1, shown here. Set \"Budget MFU\" to assumed there to plan "
                     "with the assumed value, %2.")
                      .arg(qs(plan.mfu_text()), qs(format_percent(model_->scenario().mfu)))
                : QString();
  if (controls_.mfu) controls_.mfu->setUnused(why, plan.mfu.mfu);
  // A predicted MFU brings its own range (a cluster profile's corners, or
  // the band of published runs like the plan's): the bounds show it, greyed.
  const RangeControls& range = controls_.plan.ranges[0];
  const std::string band = plan.mfu.band_text();
  const QString own = band.empty() ? QString()
                                   : tr("Not used: the predicted MFU's range is in use, %1: %2.")
                                         .arg(qs(band), qs(plan.mfu.range_text()));
  if (QCheckBox* on = range.on)
    setCheckUnused(on, !own.isEmpty() ? own
                       : predicted    ? tr("Not used: a predicted MFU has no range here (the range "
                                              "was given around the assumed value).")
                                      : QString());
  bool returned = false;  // the assumed range's bounds are used again
  for (auto [slider, value] :
       {std::pair{range.low, plan.mfu.mfu_low}, std::pair{range.high, plan.mfu.mfu_high}}) {
    if (!slider) continue;
    if (!own.isEmpty()) {
      slider->setUnused(own, value);
    } else if (slider->isUnused()) {
      slider->setUnused(QString());
      slider->setEnabled(model_->scenario().ranges.mfu.has_value());
      returned = true;
    }
  }
  if (returned) column_->sync();  // their own values, as the check box says
}

}  // namespace napkin
