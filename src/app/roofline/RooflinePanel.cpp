#include "roofline/RooflinePanel.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QScrollArea>
#include <QTabWidget>
#include <QTableWidget>
#include <QTextBrowser>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "ControlColumn.h"
#include "MenuButton.h"
#include "MessageLabel.h"
#include "PanelPage.h"
#include "ScenarioModel.h"
#include "roofline/RooflineTexts.h"
#include "roofline/ServingRunControls.h"
#include "roofline/plots/DecodeWallPlot.h"
#include "roofline/plots/DepthWidthPlot.h"
#include "roofline/plots/DisaggregationPlot.h"
#include "roofline/plots/KvHeadsPlot.h"
#include "roofline/plots/LatencyPlot.h"
#include "roofline/plots/MfuBudgetPlot.h"
#include "roofline/plots/ModelSizesPlot.h"
#include "roofline/plots/PrecisionCostPlot.h"
#include "roofline/plots/RooflineChart.h"
#include "roofline/plots/ServingFrontierPlot.h"
#include "roofline/plots/ServingMemoryPlot.h"
#include "roofline/plots/ServingTimePlot.h"
#include "roofline/plots/TilePlot.h"

namespace napkin {

namespace {
constexpr QSize kPlotCell(420, 280);  // the smallest plot whose labels do not collide
}  // namespace

RooflinePanel::RooflinePanel(ScenarioModel* model, QWidget* parent) : ScenarioPanel(model, parent) {
  controls_ = RooflineControls::declare(column_, model_);
  auto* root = panelRoot(this, column_);

  auto* right = new QVBoxLayout;
  right->setSpacing(4);
  auto* grid = new ReadoutGrid;
  readouts_ = std::make_unique<RooflineReadouts>(grid);
  auto* top = new QWidget(this);
  auto* tv = new QVBoxLayout(top);
  tv->setContentsMargins(0, 0, 0, 0);
  tv->setSpacing(2);
  tv->addWidget(grid);
  message_ = new MessageLabel(top);
  tv->addWidget(message_);
  right->addWidget(titledBox(tr("Read-outs"), top, this), 0);

  tabs_ = new QTabWidget(this);
  tabs_->setObjectName(QStringLiteral("subTabs"));
  tabs_->setDocumentMode(true);
  // Roofline & decode.
  auto* roof = new RooflineChart;
  auto* wall = new DecodeWallPlot;
  tab_plots_[kRooflineTab] = {roof, wall};
  operations_ = makeOperationsTable(this);
  makeTab(kRooflineTab, tr("Roofline && decode"), {roof, wall}, nullptr);
  // MFU budget.
  auto* mfu = new MfuBudgetPlot;
  tab_plots_[kMfuTab] = {mfu};
  agenda_ = new QTextBrowser;
  agenda_->setObjectName(QStringLiteral("agenda"));
  agenda_->setOpenLinks(false);
  agenda_->setFrameShape(QFrame::StyledPanel);
  agenda_->setAccessibleName(tr("The agenda"));
  makeTab(kMfuTab, tr("MFU budget"), {mfu, agenda_});
  // Latency napkin.
  auto* latency = new LatencyPlot;
  auto* sizes = new ModelSizesPlot;
  tab_plots_[kLatencyTab] = {latency, sizes};
  makeTab(kLatencyTab, tr("Latency napkin"), {latency, sizes});
  // Co-design levers.
  auto* tile = new TilePlot;
  auto* kv = new KvHeadsPlot;
  auto* depth = new DepthWidthPlot;
  tab_plots_[kCodesignTab] = {tile, kv, depth};
  dimensions_ = new QLabel;
  dimensions_->setObjectName(QStringLiteral("tile_note"));
  dimensions_->setWordWrap(true);
  dimensions_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  dimensions_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  makeTab(kCodesignTab, tr("Co-design levers"), {tile, kv, depth, dimensions_});
  // Serving layout.
  serving_plots_ = {new ServingMemoryPlot, new ServingTimePlot, new DisaggregationPlot,
                    new PrecisionCostPlot, new ServingFrontierPlot};
  auto* sgrid = new ReadoutGrid;
  serving_readouts_ = std::make_unique<ServingReadouts>(sgrid);
  auto* above = new QWidget;
  auto* av = new QVBoxLayout(above);
  av->setContentsMargins(0, 0, 0, 0);
  serving_status_ = new QLabel(above);
  serving_status_->setObjectName(QStringLiteral("servingStatus"));
  serving_status_->setWordWrap(true);
  serving_flags_ = menuButton(above, QStringLiteral("servingCopyFlags"), tr("Copy launch flags"),
                              tr("Copy the commands that serve the layout shown in vLLM or "
                                 "TensorRT-LLM (napkin-cli serve --emit)"));
  serving_flags_->menu()->addAction(tr("vLLM serve command"), this,
                                    [this] { copyServingFlags(ServingFlagsEngine::vllm); });
  serving_flags_->menu()->addAction(tr("TensorRT-LLM build commands"), this,
                                    [this] { copyServingFlags(ServingFlagsEngine::tensorrt_llm); });
  serving_flags_->setEnabled(false);  // until a layout is shown
  auto* status_row = new QHBoxLayout;
  status_row->addWidget(serving_status_, 1);
  status_row->addWidget(serving_flags_, 0, Qt::AlignTop);
  av->addLayout(status_row);
  av->addWidget(sgrid);
  av->addWidget(serving_readouts_->notes());
  makeTab(kServingTab, tr("Serving layout"), {serving_plots_.begin(), serving_plots_.end()}, above);
  right->addWidget(tabs_, 1);
  root->addLayout(right, 1);

  watcher_ = new QFutureWatcher<ServingPanelView>(this);
  connect(watcher_, &QFutureWatcher<ServingPanelView>::finished, this,
          &RooflinePanel::onServingDone);
  connect(tabs_, &QTabWidget::currentChanged, this, [this](int t) {
    if (t >= 0 && t < kTabCount && stale_[static_cast<std::size_t>(t)]) drawTab(t);
  });
  refresh();
}

void RooflinePanel::gestureChanged(bool on) {
  ScenarioPanel::gestureChanged(on);
  message_->setHold(on);
  if (!on && queued_ && !in_flight_) {  // released: search for where the drag ended
    queued_.reset();
    requestServing();
  }
}

RooflinePanel::~RooflinePanel() {
  watcher_->disconnect(this);
  watcher_->waitForFinished();
}

QWidget* RooflinePanel::makeTab(Tab tab, const QString& title, const std::vector<QWidget*>& cells,
                                QWidget* above) {
  QVBoxLayout* v = nullptr;
  auto* scroll = scrollingPage(tabs_, QStringLiteral("tabScroll%1").arg(static_cast<int>(tab)), &v);
  v->setContentsMargins(0, 2, 0, 0);
  if (above) v->addWidget(above);
  addPlotGrid(v, QStringLiteral("plotGrid%1").arg(static_cast<int>(tab)), cells, kPlotCell);
  if (tab == kRooflineTab) v->addWidget(operations_);
  tabs_->addTab(scroll, title);
  return scroll;
}

std::vector<PlotWidget*> RooflinePanel::plots() const {
  std::vector<PlotWidget*> out;
  for (const auto& tab : tab_plots_) out.insert(out.end(), tab.begin(), tab.end());
  out.insert(out.end(), serving_plots_.begin(), serving_plots_.end());
  return out;
}

QCheckBox* RooflinePanel::overlayBox(const QString& chip) const {
  for (const auto& [name, b] : controls_.overlays)
    if (qs(name) == chip) return b;
  return nullptr;
}

void RooflinePanel::refresh() {
  column_->sync();
  const Scenario& s = model_->scenario();
  for (const auto& [name, b] : controls_.overlays) b->setEnabled(name != s.chip);
  showServingRunInUse(controls_, s);
  rebuildView();
  QString msg;
  if (!view_.error.empty())
    msg = tr("Cannot compute these inputs: %1").arg(qs(view_.error));
  else if (view_.budgetBelowOverhead())
    msg = tr("The latency budget (%1) is at or below the fixed overhead (%2): no amount of "
             "hardware meets it.")
              .arg(secondsText(view_.inputs.turn.budget_seconds),
                   secondsText(view_.inputs.turn.overhead_seconds));
  message_->setMessage(msg);
  readouts_->show(view_);
  stale_.fill(true);
  drawTab(tabs_->currentIndex());
  requestServing();
}

void RooflinePanel::rebuildView() {
  // The one model call; on a refusal the last valid plots stay, with the reason.
  RooflineView next = make_roofline_view(model_->scenario(), serving_);
  if (next.error.empty()) {
    view_ = std::move(next);
  } else {
    view_.error = next.error;
    view_.serving = serving_;
  }
}

const ServingPanelView& RooflinePanel::servingView() const {
  static const ServingPanelView none;
  return view_.serving ? *view_.serving : none;
}

void RooflinePanel::drawTab(int tab) {
  if (tab < 0 || tab >= kTabCount) return;
  stale_[static_cast<std::size_t>(tab)] = false;
  for (RooflinePanelPlot* p : tab_plots_[static_cast<std::size_t>(tab)]) p->drawView(view_);
  switch (tab) {
    case kRooflineTab: fillOperationsTable(operations_, view_); break;
    case kMfuTab: {
      const QString html = agendaHtml(view_);
      if (agenda_->property("html").toString() != html) {
        agenda_->setProperty("html", html);
        agenda_->setHtml(html);
      }
      break;
    }
    case kCodesignTab: {
      const QString html = dimensionsHtml(view_);
      if (dimensions_->text() != html) dimensions_->setText(html);
      break;
    }
    case kServingTab:
      if (view_.serving)
        for (ServingPlot* p : serving_plots_) p->drawView(*view_.serving);
      break;
    default: break;
  }
}

// ------------------------------------------------------------ serving view

bool RooflinePanel::servingPending() const { return in_flight_ || queued_.has_value(); }

void RooflinePanel::requestServing() {
  const Scenario& s = model_->scenario();
  if (serving_ && same_serving_inputs(serving_->scenario, s) && !queued_) return;
  // During a slider drag the search waits for the release: on a busy
  // machine a worker searching on every tick takes the core the drag needs.
  if (in_flight_ || model_->inGesture()) {
    queued_ = s;  // the latest wins; started when the one in flight ends
    serving_status_->setText(tr("Searching layouts\u2026"));
    return;
  }
  queued_.reset();
  running_generation_ = ++generation_;
  serving_status_->setText(tr("Searching layouts\u2026"));
  in_flight_ = true;
  watcher_->setFuture(QtConcurrent::run([s] { return make_serving_panel_view(s); }));
}

void RooflinePanel::onServingDone() {
  if (!in_flight_) return;  // already taken by settleServing()
  ServingPanelView v = watcher_->result();
  in_flight_ = false;
  if (queued_) {  // a newer scenario is waiting: start it, show this one meanwhile
    const Scenario next = *queued_;
    queued_.reset();
    running_generation_ = ++generation_;
    in_flight_ = true;
    watcher_->setFuture(QtConcurrent::run([next] { return make_serving_panel_view(next); }));
  } else {
    serving_status_->setText(v.valid() ? QString() : tr("No serving layout: %1").arg(qs(v.error)));
  }
  serving_ = std::make_shared<const ServingPanelView>(std::move(v));
  rebuildView();
  showServing();
}

void RooflinePanel::showServing() {
  if (!view_.serving) return;
  serving_flags_->setEnabled(view_.serving->valid());
  serving_readouts_->show(*view_.serving,
                          view_.valid() ? view_.data.chips_for_budget : std::nullopt);
  if (tabs_->currentIndex() == kServingTab)
    for (ServingPlot* p : serving_plots_) p->drawView(*view_.serving);
  else
    stale_[kServingTab] = true;
}

QString RooflinePanel::copyServingFlags(ServingFlagsEngine engine) {
  if (!view_.serving || !view_.serving->valid()) return QString();
  const ServingPanelView& v = *view_.serving;
  const ServingResult& shown = v.view.chosen;
  ServingInputs in = v.inputs.inputs.search.serving;
  in.layout = shown.layout;
  try {
    const EmittedFlags f =
        emit_serving_flags(engine, in, shown.batch, "MODEL",
                           v.inputs.max_tokens_per_step.value_or(0), v.inputs.chunked_prefill);
    QString text = qs(f.text);
    text +=
        tr("# note: MODEL is the Hugging Face id or path of %1\n").arg(qs(v.scenario.model_name));
    if (!shown.fits)
      text += tr("# note: this layout does not fit in memory (%1 of %2)\n")
                  .arg(qs(format_bytes(shown.memory.total_bytes)),
                       qs(format_bytes(shown.memory.usable_bytes)));
    for (const std::string& c : f.caveats)
      text += QStringLiteral("# note: ") + qs(c) + QLatin1Char('\n');
    QApplication::clipboard()->setText(text);
    serving_status_->setText(engine == ServingFlagsEngine::vllm
                                 ? tr("vLLM serve command copied")
                                 : tr("TensorRT-LLM build commands copied"));
    return text;
  } catch (const std::invalid_argument& e) {
    serving_status_->setText(qs(e.what()));
    return QString();
  }
}

void RooflinePanel::settleServing() {
  refreshIfStale();
  while (in_flight_) {
    watcher_->waitForFinished();
    onServingDone();
  }
}

// ------------------------------------------------------------------ baseline

void RooflinePanel::setBaseline(const Scenario* baseline) {
  if (baseline)
    baseline_ = make_roofline_view(
        *baseline, std::make_shared<const ServingPanelView>(make_serving_panel_view(*baseline)));
  else
    baseline_.reset();
  const RooflineView* b = baseline_ ? &*baseline_ : nullptr;
  const ServingPanelView* bs = b ? b->serving.get() : nullptr;
  readouts_->setBaseline(b);
  serving_readouts_->setBaseline(bs);
  for (const auto& tab : tab_plots_)
    for (RooflinePanelPlot* p : tab) p->drawBaseline(b);
  for (ServingPlot* p : serving_plots_) p->drawBaseline(bs);
}

// ---------------------------------------------------------------- read-outs

QString RooflinePanel::readoutText(const QString& key) const {
  const QString t = readouts_->text(key);
  return t.isEmpty() ? serving_readouts_->text(key) : t;
}

QString RooflinePanel::message() const { return message_->text(); }

QStringList RooflinePanel::readoutTexts() const {
  QStringList out;
  for (const ReadoutGrid* g : {readouts_->grid(), serving_readouts_->grid()})
    for (int i = 0; i < g->rowCount(); ++i) out << g->text({i});
  for (int r = 0; r < operations_->rowCount(); ++r)
    for (int c = 0; c < operations_->columnCount(); ++c) out << operations_->item(r, c)->text();
  out << agendaHtml(view_) << dimensionsHtml(view_);
  return out;
}

ReportSection RooflinePanel::reportSection() const {
  auto* self = const_cast<RooflinePanel*>(this);
  self->settleServing();
  for (int t = 0; t < kTabCount; ++t) self->drawTab(t);
  ReportSection s;
  s.title = title();
  s.summary = tr("Intensity vs ridge on %1, the MFU budget, the latency napkin, the co-design "
                 "levers and the serving layout (%2).")
                  .arg(qs(view_.scenario.chip), qs(servingView().view.precision));
  s.tables = readouts_->tables();
  s.tables.push_back(operationsReport(view_));
  s.tables.push_back(agendaReport(view_));
  s.tables.push_back(dimensionsReport(view_));
  for (const ReportTable& t : serving_readouts_->tables()) s.tables.push_back(t);
  s.formulas = {
      {QStringLiteral("attainable = min(peak, bandwidth × intensity)"), tr("the roofline")},
      {QStringLiteral("prefill = 2N·tokens / (chips × peak × MFU)"), tr("compute-bound")},
      {QStringLiteral("decode = (N·b + KV) × tokens / (chips × bandwidth)"), tr("memory-bound")},
      {QStringLiteral("step = max(FLOPs / peak, bytes / HBM) + TP all-reduces + PP hops"),
       tr("a decode step of a serving layout")},
      {QStringLiteral("$ / M tokens = price / (tokens/s per chip × 3600) × 1e6"),
       tr("the cost of a token")},
      {QStringLiteral("frontier: (TPOT P50, tokens/s per chip) at concurrency 1, 2, 4, …"),
       tr("offline runs of the engine's scheduler, the chosen layout")}};
  s.charts = plots();
  s.charts_per_row = 1;  // labelled points and notes need the width
  return s;
}

QString RooflinePanel::helpText() {
  return tr(
      "<h3>Roofline &amp; inference co-design</h3>"
      "<p>Linked to the scenario's chip, chip count, model and serving settings; every control "
      "is saved with the scenario and each change is one undo step.</p>"
      "<p><b>Read-outs</b>: the chip's ridge point (peak ÷ bandwidth); prefill and decode "
      "intensity with their verdicts; the KV cache's share of a decode step's bytes; MFU, HFU "
      "and the biggest lever; the turn on the scenario's chips; chips for the latency budget "
      "(<i>none</i> when no slice up to the largest meets it); chips to hold the weights at "
      "their precision; and what to deploy.</p>"
      "<p><b>Roofline &amp; decode</b>: attainable FLOP/s = min(peak, bandwidth × intensity); "
      "tick an overlay to compare chips. Points left of the dotted ridge are memory-bound, right "
      "of it compute-bound. The decode wall approaches an asymptote below the ridge.</p>"
      "<p><b>MFU budget</b>: the step's wall-clock by busy unit; MFU is the matmul share, the "
      "rest is the agenda. HFU counts recompute and is always ≥ MFU.</p>"
      "<p><b>Latency napkin</b>: overhead + prefill + decode at 1 … 1,024 chips against the "
      "budget; when no slice meets it, the answer is a smaller model.</p>"
      "<p><b>Co-design levers</b>: tile efficiency, KV heads, depth vs width.</p>"
      "<p><b>Serving layout</b>: the serving chips split as TP × PP (× EP): memory per chip, "
      "the step's parts with communication (switchable), the smallest slice meeting the "
      "budget, prefill and decode pools against one shared pool, and $ and J per token against "
      "the weight precision.</p>"
      "<p>Right-click a plot to save it (PNG, vector PDF) or its data (CSV).</p>");
}

}  // namespace napkin
