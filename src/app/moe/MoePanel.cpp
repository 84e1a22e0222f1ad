#include "moe/MoePanel.h"
#include "Text.h"

#include <QCoreApplication>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QScrollArea>
#include <QUndoStack>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "ControlColumn.h"
#include "PanelPage.h"
#include "ScenarioModel.h"
#include "format.h"
#include "moe/MoeRun.h"
#include "moe/MoeTransport.h"
#include "moe/plots/BufferPlot.h"
#include "moe/plots/ExpertSharePlot.h"
#include "moe/plots/LossPlot.h"
#include "moe/plots/PipelinePlot.h"
#include "moe/plots/TradeoffPlot.h"
#include "moe/plots/UtilizationPlot.h"

namespace napkin {

namespace {

constexpr QSize kPlotCell(300, 240);  // the smallest plot worth reading
constexpr int kSlowFrames = 4;        // capacity plots while playing: ~15 fps

QString count(std::int64_t v) { return qs(format_count(static_cast<double>(v), 1)); }
QString grouped(std::int64_t v) { return qs(format_grouped(static_cast<double>(v), 0)); }

// What changed between two sets of knobs, in the words of the controls.
QString changeText(const CollapseParams& a, const CollapseParams& b) {
  QStringList out;
  auto num = [](double v) { return QString::number(v, 'g', 3); };
  if (a.n_experts != b.n_experts) out << MoePanel::tr("E = %1").arg(b.n_experts);
  if (a.tokens_per_batch != b.tokens_per_batch)
    out << MoePanel::tr("%1 tokens per batch").arg(b.tokens_per_batch);
  if (a.seed != b.seed) out << MoePanel::tr("seed %1").arg(b.seed);
  if (a.top_k != b.top_k) out << MoePanel::tr("k = %1").arg(b.top_k);
  if (a.aux_weight != b.aux_weight) out << MoePanel::tr("α = %1").arg(num(b.aux_weight));
  if (a.z_weight != b.z_weight) out << MoePanel::tr("γ = %1").arg(num(b.z_weight));
  if (a.capacity_factor != b.capacity_factor)
    out << MoePanel::tr("capacity factor %1").arg(num(b.capacity_factor));
  if (a.learning_rate != b.learning_rate)
    out << MoePanel::tr("learning rate %1").arg(num(b.learning_rate));
  if (a.shared_expert != b.shared_expert)
    out << (b.shared_expert ? MoePanel::tr("a shared expert") : MoePanel::tr("no shared expert"));
  if (a.renormalize != b.renormalize)
    out << (b.renormalize ? MoePanel::tr("renormalized gates") : MoePanel::tr("raw gates"));
  return out.join(QStringLiteral(", "));
}

}  // namespace

MoePanel::MoePanel(ScenarioModel* model, QWidget* parent) : ScenarioPanel(model, parent) {
  const Scenario& s = model_->scenario();
  // The run of record: s.moe.steps steps from step 0, so the first view is a run;
  // it opens on the step the document was saved on.
  run_ = new MoeRun(s.moe.collapse_params(), s.moe.steps, s.moe.shown_step, this);
  replayed_steps_ = s.moe.steps;
  replayed_shown_ = s.moe.shown_step;

  controls_ = MoeControls::declare(column_, model_);
  auto* root = panelRoot(this, column_);

  auto* right = new QVBoxLayout;
  right->setSpacing(4);
  transport_ = new MoeTransport(run_, this);
  right->addWidget(transport_);

  // Everything the panel shows scrolls as one page on a small screen.
  QVBoxLayout* v = nullptr;
  auto* scroll = scrollingPage(this, QStringLiteral("resultsScroll"), &v);
  QWidget* results = scroll->widget();
  auto* grid = new ReadoutGrid;
  grid->setMaxColumns(4);
  readouts_ = std::make_unique<MoeReadouts>(grid);
  auto* readout_host = new QWidget;
  auto* rl = new QVBoxLayout(readout_host);
  rl->setContentsMargins(0, 0, 0, 0);
  rl->addWidget(grid);
  params_note_ = new QLabel(readout_host);
  params_note_->setObjectName(QStringLiteral("params_note"));
  params_note_->setWordWrap(true);
  rl->addWidget(params_note_);
  v->addWidget(titledBox(tr("Read-outs"), readout_host, results));

  share_plot_ = new ExpertSharePlot;
  plots_ = {share_plot_,    new UtilizationPlot, new LossPlot,
            new BufferPlot, new TradeoffPlot,    new PipelinePlot};
  addPlotGrid(v, QStringLiteral("plotGrid"), {plots_.begin(), plots_.end()}, kPlotCell);
  right->addWidget(scroll, 1);
  root->addLayout(right, 1);

  baseline_watcher_ = new QFutureWatcher<MoeRunOfRecord>(this);
  connect(baseline_watcher_, &QFutureWatcher<MoeRunOfRecord>::finished, this, [this] {
    if (baseline_generation_ < 0) return;  // unpinned meanwhile
    baseline_ = baseline_watcher_->result();
    showBaseline();
  });
  connect(run_, &MoeRun::advanced, this, &MoePanel::redrawRun);
  connect(run_, &MoeRun::recordingChanged, this, &MoePanel::redrawRun);
  connect(run_, &MoeRun::playingChanged, this, [this](bool playing) {
    // While the animation runs, the run's plots draw without antialiasing (a
    // frame's budget at E = 256); pausing redraws them at full quality.
    for (MoePlot* p : plots_)
      if (p->followsRun()) p->setDragMode(playing);
    if (!playing) redrawRun();  // paused: every plot exact
  });
  // A new document (opened, restored, new) opens on its run of record, as saved.
  connect(model_, &ScenarioModel::fileStateChanged, this, [this] {
    const Scenario& doc = model_->scenario();
    if (model_->undoStack()->count() != 0) return;
    if (!retuned_ && doc.moe.steps == replayed_steps_ && doc.moe.shown_step == replayed_shown_ &&
        changeText(run_->params(), doc.moe.collapse_params()).isEmpty())
      return;
    retuned_ = false;
    replayed_steps_ = doc.moe.steps;
    replayed_shown_ = doc.moe.shown_step;
    run_->replay(doc.moe.collapse_params(), doc.moe.steps, doc.moe.shown_step);
    if (!run_->isRecording()) transport_->setStatus(ranText(doc.moe));
    redrawRun();
  });
  if (!run_->isRecording())
    transport_->setStatus(
        s.moe.aux_on
            ? tr("Ran %1 steps with α = %2.").arg(run_->currentStep()).arg(s.moe.aux_weight) +
                  MoeRun::savedStepNote(s.moe.shown_step, run_->shownStep())
            : tr("Ran %1 steps with α = 0 (no balance loss). Untick \"α = 0\" to let the balance "
                 "loss fight the collapse, then Play; or Reset.")
                      .arg(run_->currentStep()) +
                  MoeRun::savedStepNote(s.moe.shown_step, run_->shownStep()));
  refresh();
}

QString MoePanel::ranText(const MoeSettings& m) const {
  return tr("Ran the scenario's %1 steps from step 0.").arg(grouped(m.steps)) +
         MoeRun::savedStepNote(m.shown_step, run_->shownStep());
}

MoePanel::~MoePanel() {
  baseline_generation_ = -1;
  baseline_watcher_->waitForFinished();
}

// A plot that follows the run stays in drag mode while the run plays.
void MoePanel::gestureChanged(bool on) {
  for (MoePlot* p : plots_) p->setDragMode(on || (p->followsRun() && run_->isPlaying()));
}

std::vector<PlotWidget*> MoePanel::plots() const { return {plots_.begin(), plots_.end()}; }

QString MoePanel::stampRun(Scenario& doc) const {
  // Still computing, or a run of other knobs: the document's own run of record stands.
  if (run_->isRecording()) return QString();
  if (!changeText(run_->params(), doc.moe.collapse_params()).isEmpty()) return QString();
  const std::int64_t steps = run_->currentStep();
  // Played since it was loaded: the run on screen becomes the run of record.
  if (steps >= 1 && steps != replayed_steps_)
    doc.moe.steps = std::min(steps, max_recorded_collapse_steps(doc.moe.collapse_params()));
  // The step looked at; 0 when live at the last step (or reset to step 0).
  const std::int64_t shown = run_->shownStep();
  doc.moe.shown_step = steps >= 1 && shown < steps ? std::min(shown, doc.moe.steps) : 0;
  if (steps < 1 || steps == replayed_steps_ || continued_run_ != run_->runId()) return QString();
  return tr("The MoE run's knobs changed at step %1; the file reopens on its %2 steps recomputed "
            "from step 0 with the knobs as saved.")
      .arg(QLocale().toString(static_cast<qlonglong>(continued_at_)))
      .arg(QLocale().toString(static_cast<qlonglong>(doc.moe.steps)));
}

void MoePanel::refresh() {
  column_->sync();
  controls_.syncEnabled(model_);
  const Scenario& s = model_->scenario();
  const CollapseParams before = run_->params();
  const CollapseParams after = s.moe.collapse_params();
  const QString what = changeText(before, after);
  if (!what.isEmpty()) {
    retuned_ = true;
    if (run_->setParams(after))
      transport_->setStatus(tr("Restarted at step 0: %1 (E, tokens per batch and seed define "
                               "the router and the experts, so the run starts over).")
                                .arg(what));
    else {
      if (run_->currentStep() > 0 && continued_run_ != run_->runId()) {
        continued_run_ = run_->runId();
        continued_at_ = run_->currentStep();
      }
      transport_->setStatus(tr("Continuing from step %1 with %2: the router and the experts "
                               "keep what they have learned.")
                                .arg(run_->currentStep())
                                .arg(what));
    }
  }
  showView(s);
  readouts_->showScenario(view_.scenario, s);
  const MoeModelParams& mp = view_.scenario.params;
  params_note_->setText(
      view_.scenario.is_moe
          ? tr("Active for FLOPs, total for memory: every token multiplies %1 parameters, but HBM "
               "must hold all %2.")
                .arg(count(mp.count.active), count(mp.count.total))
          : tr("The scenario's model is dense: total = active. Pick an MoE preset (Mixtral-8x7B, "
               "DeepSeek-V3) in the Budget panel. The communication read-outs assume its "
               "layers were MoE with k = %1.")
                .arg(view_.scenario.comm_top_k));
  drawRun();
}

void MoePanel::showView(const Scenario& s) {
  const MoeSlow run{run_->params(), run_->shownStats()};
  MoeView next = make_moe_view(s, &run);
  if (next.valid())
    view_ = std::move(next);
  else  // the scenario's settings were refused: the last view stays
    transport_->setStatus(qs(next.error));
}

void MoePanel::redrawRun() {
  showView(model_->scenario());
  drawRun();
}

void MoePanel::drawRun() {
  const StepStats* st = run_->shownStats();
  readouts_->showStep(view_.step, st, run_->params());
  const MoeFrame frame{run_->params(), run_->simulation().history(),
                       run_->runId(),  run_->shownStep(),
                       view_.step,     view_.scenario};
  // While playing, the capacity plots follow every kSlowFrames-th frame: a
  // frame's budget goes to the collapse plots a person is watching.
  const bool all = !run_->isPlaying() || ++frames_ % kSlowFrames == 0;
  for (MoePlot* p : plots_)
    if (all || p->everyFrame()) p->drawView(frame);
  transport_->sync();
}

void MoePanel::showEvent(QShowEvent* event) {
  Panel::showEvent(event);
  run_->setOnScreen(true);
}

void MoePanel::hideEvent(QHideEvent* event) {
  run_->setOnScreen(false);
  Panel::hideEvent(event);
}

void MoePanel::setBaseline(const Scenario* baseline) {
  if (!baseline) {
    baseline_generation_ = -1;
    baseline_.reset();
    showBaseline();
    return;
  }
  baseline_generation_ = std::max(baseline_generation_, 0) + 1;
  // A run of record can be thousands of steps at a large E: off the UI thread.
  baseline_watcher_->setFuture(
      QtConcurrent::run([b = *baseline] { return make_moe_run_of_record(b); }));
}

bool MoePanel::isBusy() const { return run_->isRecording(); }

bool MoePanel::baselinePending() const { return baseline_watcher_->isRunning(); }

void MoePanel::waitForBaseline() {
  baseline_watcher_->waitForFinished();
  QCoreApplication::sendPostedEvents(baseline_watcher_);
  QCoreApplication::processEvents();
}

void MoePanel::showBaseline() {
  const MoeRunOfRecord* b = baseline();
  readouts_->setBaseline(b);
  for (MoePlot* p : plots_) p->drawBaseline(b);
  redrawRun();
}

std::vector<double> MoePanel::barValues() const { return share_plot_->values(); }

std::vector<bool> MoePanel::deadBars() const {
  std::vector<bool> out;
  for (const ExpertLoad& l : view_.step.loads) out.push_back(l.state == ExpertState::dead);
  return out;
}

QStringList MoePanel::readoutTexts() const {
  QStringList out;
  const ReadoutGrid* g = readouts_->grid();
  for (int i = 0; i < g->rowCount(); ++i) out << g->name({i}) + QStringLiteral(": ") + g->text({i});
  out << transport_->stepLabel->text() << params_note_->text();
  return out;
}

ReportSection MoePanel::reportSection() const {
  ReportSection s;
  s.title = title();
  s.summary =
      tr("Top-k routing, load-balance and z-losses, capacity drops and router collapse "
         "(a seeded simulation of the router), total vs active parameters, and the "
         "all-to-all wall against pipelined prefill.");
  const CollapseParams& p = run_->params();
  auto num = [](double v) { return QString::number(v, 'g', 4); };
  ReportTable run{tr("The router run"), {}};
  run.rows = {
      {tr("Step shown"), qs(format_grouped(static_cast<double>(run_->shownStep()), 0)), tr("steps"),
       tr("of %1 run").arg(run_->currentStep())},
      {tr("Experts E"), QString::number(p.n_experts), tr("experts"), QString()},
      {tr("Top-k"), QString::number(p.top_k), tr("experts/token"), QString()},
      {tr("Tokens per batch"), QString::number(p.tokens_per_batch), tr("tokens"), QString()},
      {tr("Balance loss α"), num(p.aux_weight), QString(),
       p.aux_weight > 0 ? QString() : tr("off")},
      {tr("z-loss γ"), num(p.z_weight), QString(), p.z_weight > 0 ? QString() : tr("off")},
      {tr("Capacity factor"), num(p.capacity_factor), QStringLiteral("×"), QString()},
      {tr("Learning rate"), num(p.learning_rate), QString(), tr("router step size")},
      {tr("Shared expert"), p.shared_expert ? tr("yes") : tr("no"), QString(), QString()},
      {tr("Gates"), p.renormalize ? tr("renormalized") : tr("raw"), QString(), QString()},
      {tr("Seed"), QString::number(p.seed), QString(), QString()}};
  s.tables.push_back(run);
  for (const ReportTable& t : readouts_->tables()) s.tables.push_back(t);
  s.formulas = {{QStringLiteral("L_balance = E·Σ fᵢPᵢ"), tr("fᵢ over token-slots")},
                {QStringLiteral("capacity = ⌊cf × tokens × k / E⌋"), tr("slots per expert")},
                {QStringLiteral("all-to-all bytes = 2 × layers × tokens × d_model × 2 × k"),
                 tr("naive expert parallelism per prefill")},
                {QStringLiteral("utilization = M / (M + S − 1)"), tr("pipelined prefill")}};
  s.charts = plots();
  s.charts_per_row = 1;  // labelled points and notes need the width
  return s;
}

QString MoePanel::help() const {
  return tr("<h3>MoE router</h3>"
            "<p><b>Router collapse</b> animates a real feedback loop: a router (E × d weights) "
            "routes "
            "a seeded stream of tokens to its top-k experts; experts get better in proportion to "
            "the "
            "gate-weighted demand the router sends them; the router takes gradient steps on the "
            "task "
            "signal plus α·L_balance plus γ·L_z. Left alone (α = 0) the rich get richer: one "
            "expert "
            "takes a slot of nearly every token, max/mean climbs to E/k, the others die. With α ≈ "
            "0.01 "
            "the balance loss holds every expert near its fair share.</p>"
            "<p>The bars are each expert's routed slots at the shown step (before capacity) "
            "divided "
            "by the fair share T·k/E: blue healthy, orange over its buffer (slots dropped), grey "
            "dead. The dashed green line is the fair share, the dotted red line the buffer. Beside "
            "them: max/mean per step and smoothed, dead experts, L_balance (1.0 = balanced), L_z "
            "and "
            "the drop rate. The verdict is one rule (hover it for the thresholds).</p>"
            "<p><b>Controls</b> are part of the scenario: saved with it, each change one undo "
            "step. "
            "E, tokens per batch and the seed define the router and the experts: changing them "
            "restarts at step 0. Every other knob continues from the current state; the line under "
            "the transport says which happened. Play runs 60 frames per second; Step advances one "
            "step; History scrubs back through the recorded steps; Export CSV saves the traces. "
            "Playing is not part of the scenario: a saved scenario reopens on its first %1 "
            "steps.</p>"
            "<p><b>Capacity</b>: each expert's buffer at the shown step (real tokens, padding, "
            "dropped slots, first come first served in token order) and the trade-off of drop rate "
            "and wasted slots against the capacity factor for that step's routing.</p>"
            "<p><b>Parameters and communication</b>: total vs active parameters of the scenario's "
            "model (active for FLOPs, total for memory); the all-to-all bytes and seconds of naive "
            "expert parallelism per prefill; and pipelined prefill: shard layers across S stages "
            "and "
            "stream M chunks, so each hop overlaps the next chunk's compute. The Gantt chart shows "
            "chunks flowing through stages; the empty triangle is the bubble.</p>"
            "<p>With a baseline pinned, read-outs show the change from the baseline's run at its "
            "last step, and plots draw its curves dashed.</p>")
      .arg(model_->scenario().moe.steps);
}

}  // namespace napkin
