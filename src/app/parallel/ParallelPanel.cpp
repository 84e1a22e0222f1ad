#include "parallel/ParallelPanel.h"
#include "Text.h"

#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QEventLoop>
#include <QFileDialog>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

#include "ControlColumn.h"
#include "MenuButton.h"
#include "PanelPage.h"
#include "PlotWidget.h"
#include "ScenarioModel.h"
#include "calibration.h"
#include "format.h"
#include "framework_config.h"
#include "hardware.h"
#include "parallel/CalibrateRunsDialog.h"
#include "parallel/LayoutTableModel.h"
#include "parallel/plots/MfuHeatmapPlot.h"
#include "parallel/plots/ScheduleGanttPlot.h"
#include "parallel/plots/StageMemoryPlot.h"
#include "parallel/plots/StepTimePlot.h"

namespace napkin {

namespace {
constexpr QSize kPlotCell(280, 240);  // the smallest plot worth reading
constexpr int kTableHeight = 190;     // about seven rows; the table scrolls

}  // namespace

ParallelPanel::ParallelPanel(ScenarioModel* model, QWidget* parent) : ScenarioPanel(model, parent) {
  controls_ = ParallelControls::declare(column_, model_);

  QVBoxLayout* v = nullptr;
  QWidget* results = resultsPage(this, column_, &v)->widget();

  auto* grid = new ReadoutGrid;
  grid->setMaxColumns(3);
  readouts_ = std::make_unique<ParallelReadouts>(grid);
  v->addWidget(titledBox(tr("Read-outs"), grid, results));

  // The ranked layouts, with the tools above them.
  auto* layouts = new QWidget(results);
  auto* lv = new QVBoxLayout(layouts);
  lv->setContentsMargins(0, 0, 0, 0);
  lv->setSpacing(2);
  lv->addLayout(buildTools(layouts));
  // The search's state on a line of its own: beside four buttons it would
  // push the page wider than a 1,024-px window.
  auto* state = new QHBoxLayout;
  state->addWidget(busy_);
  state->addWidget(status_, 1);
  lv->addLayout(state);
  buildTable(layouts);
  lv->addWidget(table_);
  v->addWidget(titledBox(tr("Layouts, fastest first"), layouts, results));

  plots_ = {new StageMemoryPlot, new StepTimePlot, new ScheduleGanttPlot, new MfuHeatmapPlot};
  addPlotGrid(v, QStringLiteral("plotGrid"), {plots_.begin(), plots_.end()}, kPlotCell, 2);

  connect(table_, &QTableView::clicked, this, &ParallelPanel::choose);
  connect(table_, &QTableView::activated, this, &ParallelPanel::choose);
  connect(fastest_, &QPushButton::clicked, this, [this] {
    model_->edit(tr("Run the fastest layout that fits"), kParallelChosen,
                 [](Scenario& s) { s.parallel.chosen.reset(); });
  });
  connect(show_all_, &QCheckBox::toggled, this, [this](bool on) {
    filter_->setShowAll(on);
    selectShown();
  });

  firstSearch();
  refresh();
}

// The buttons above the table: fastest, cluster profile, launch flags, show all.
QHBoxLayout* ParallelPanel::buildTools(QWidget* layouts) {
  auto* tools = new QHBoxLayout;
  fastest_ = new QPushButton(tr("Fastest that fits"), layouts);
  fastest_->setObjectName(QStringLiteral("parallelFastest"));
  fastest_->setToolTip(tr("Forget the chosen row: run the fastest layout that fits"));
  show_all_ = new QCheckBox(tr("Show layouts that do not fit"), layouts);
  show_all_->setObjectName(QStringLiteral("parallelShowAll"));
  status_ = new QLabel(layouts);
  status_->setObjectName(QStringLiteral("parallelSearchStatus"));
  status_->setWordWrap(true);  // "No layout: …" names the lock that leaves none
  busy_ = new QProgressBar(layouts);
  busy_->setRange(0, 0);  // indeterminate
  busy_->setMaximumWidth(90);
  busy_->setMaximumHeight(12);
  busy_->setTextVisible(false);
  busy_->setVisible(false);
  copy_flags_ =
      menuButton(layouts, QStringLiteral("parallelCopyFlags"), tr("Copy launch flags"),
                 tr("Copy the arguments that run the chosen layout in Megatron-LM or torchtitan"));
  copy_flags_->menu()->addAction(tr("Megatron-LM arguments"), this,
                                 [this] { copyLaunchFlags(false); });
  copy_flags_->menu()->addAction(tr("torchtitan TOML"), this, [this] { copyLaunchFlags(true); });
  profile_ = menuButton(layouts, QStringLiteral("parallelClusterProfile"), tr("Cluster profile"),
                        tr("Time every layout with constants fitted to your cluster's measured "
                           "runs (napkin-cli calibrate -o PROFILE.json) instead of the "
                           "hardware table's published ones"));
  QMenu* profile_menu = profile_->menu();
  profile_menu->addAction(tr("Load cluster profile…"), this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Load cluster profile"), QString(),
                                     tr("Cluster profiles (*.json);;All files (*)"));
    if (path.isEmpty()) return;
    const QString error = loadClusterProfile(path);
    if (!error.isEmpty()) QMessageBox::warning(this, tr("Cluster profile"), error);
  });
  profile_menu->addAction(tr("Calibrate on measured runs…"), this,
                          [this] { openCalibrateDialog(); });
  profile_menu->addAction(tr("Clear (published constants)"), this,
                          [this] { clearClusterProfile(); });
  tools->addWidget(fastest_);
  tools->addWidget(profile_);
  tools->addWidget(copy_flags_);
  tools->addWidget(show_all_);
  tools->addStretch(1);
  return tools;
}

// The ranked layouts' table, sortable, one row selected at a time.
void ParallelPanel::buildTable(QWidget* layouts) {
  table_model_ = new LayoutTableModel(this);
  filter_ = new LayoutFilter(this);
  filter_->setSourceModel(table_model_);
  table_ = new QTableView(layouts);
  table_->setObjectName(QStringLiteral("parallelLayouts"));
  table_->setModel(filter_);
  table_->setSortingEnabled(true);
  table_->sortByColumn(LayoutTableModel::kRank, Qt::AscendingOrder);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->setVisible(false);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  // Widths are fitted once (below); fitting on every new search would measure every row.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setMinimumHeight(kTableHeight);
  table_->setMaximumHeight(kTableHeight);
  table_->setAccessibleName(tr("Layouts"));
}

// The first search runs in the constructor, so the panel opens complete;
// the columns are fitted to it once, never narrower than a later search needs.
void ParallelPanel::firstSearch() {
  const Scenario& s = model_->scenario();
  searched_ = searchKey(s);
  try {
    search_ = scenario_layouts(s);
  } catch (const std::invalid_argument& e) {
    search_error_ = e.what();
  }
  table_model_->setLayouts(search_.layouts);
  table_->resizeColumnsToContents();
  // A later search may take longer steps than the first one ("4,123 s",
  // "12.5 days") and list more layouts (a rank of 22146): the step and rank
  // columns are never narrower than those.
  const auto at_least = [this](int column, const QString& widest) {
    table_->setColumnWidth(column, std::max(table_->columnWidth(column),
                                            table_->fontMetrics().horizontalAdvance(widest) + 16));
  };
  at_least(LayoutTableModel::kStep, QStringLiteral("888.8 days"));
  at_least(LayoutTableModel::kRank, QStringLiteral("88888"));
  // A MoE model's EP may name its experts' own TP ("32 (ETP 1)").
  at_least(LayoutTableModel::kEp, tr("%1 (ETP %2)").arg(88).arg(8));
}

ParallelPanel::~ParallelPanel() {
  if (watcher_) watcher_->waitForFinished();
}

void ParallelPanel::gestureChanged(bool on) {
  ScenarioPanel::gestureChanged(on);
  if (!on && table_stale_) {  // released: the table follows the last search
    table_stale_ = false;
    table_model_->setLayouts(search_.layouts);
    selectShown();
  }
}

std::vector<PlotWidget*> ParallelPanel::plots() const { return {plots_.begin(), plots_.end()}; }

QString ParallelPanel::loadClusterProfile(const QString& path) {
  ClusterProfile profile;
  try {
    profile = load_profile_file(path.toStdString());
  } catch (const std::invalid_argument& e) {
    return QString::fromUtf8(e.what());
  }
  const std::string chip = model_->scenario().chip;
  if (profile.chip != chip)
    return tr("%1 was calibrated on %2, not on %3").arg(path, qs(profile.chip), qs(chip));
  const bool ok =
      model_->edit(tr("Use cluster profile"), kParallelClusterProfile, [&](Scenario& s) {
        s.parallel.cluster_profile = path.toStdString();
        s.parallel.calibrated = profile.calibrated();
        s.parallel.calibrated_interval = profile.interval();
      });
  return ok ? QString() : tr("The scenario refused the profile %1").arg(path);
}

CalibrateRunsDialog* ParallelPanel::openCalibrateDialog() {
  const Scenario& s = model_->scenario();
  std::optional<Network> network;
  try {
    network = s.parallel.network(chip_by_name(s.chip));
  } catch (const std::invalid_argument&) {
    // an unknown cluster name: the chip's node
  }
  auto* dialog = new CalibrateRunsDialog(network, this);
  dialog->setObjectName(QStringLiteral("calibrateRunsDialog"));
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setDefaults(QStringLiteral("chip=%1").arg(qs(s.chip)));
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (dialog->savedPath().isEmpty()) return;
    const QString error = loadClusterProfile(dialog->savedPath());
    if (!error.isEmpty()) QMessageBox::warning(this, tr("Cluster profile"), error);
  });
  dialog->setWindowModality(Qt::WindowModal);
  dialog->show();
  return dialog;
}

void ParallelPanel::clearClusterProfile() {
  model_->edit(tr("Clear cluster profile"), kParallelClusterProfile, [](Scenario& s) {
    s.parallel.cluster_profile.clear();
    s.parallel.calibrated.reset();
    s.parallel.calibrated_interval.reset();
  });
}

QString ParallelPanel::copyLaunchFlags(bool torchtitan) {
  if (!view_.valid() || !view_.layout) return QString();
  try {
    const EmittedFlags f = torchtitan ? emit_torchtitan(view_.job, view_.layout->layout)
                                      : emit_megatron(view_.job, view_.layout->layout);
    QString text = qs(f.text);
    for (const std::string& c : f.caveats)
      text += QStringLiteral("# note: ") + qs(c) + QLatin1Char('\n');
    QApplication::clipboard()->setText(text);
    status_->setText(torchtitan ? tr("torchtitan TOML copied")
                                : tr("Megatron-LM arguments copied"));
    return text;
  } catch (const std::invalid_argument& e) {
    status_->setText(qs(e.what()));
    return QString();
  }
}

StageMemoryPlot* ParallelPanel::memoryPlot() const {
  return static_cast<StageMemoryPlot*>(plots_.front());
}

std::optional<ParallelPanel::SearchKey> ParallelPanel::searchKey(const Scenario& s) {
  try {
    SearchKey k{training_job(s), s.parallel};
    k.settings.chosen.reset();
    k.settings.mfu_source = MfuSource::assumed;
    return k;
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

void ParallelPanel::refresh() {
  column_->sync();
  const Scenario& s = model_->scenario();
  const std::optional<SearchKey> key = searchKey(s);
  if (key != searched_ && !(running_ && key == running_key_)) startSearch();
  view_ = make_parallel_view(s, &search_);  // the layout re-evaluated for the current inputs
  readouts_->show(view_);
  for (ParallelPlot* p : plots_) p->drawView(view_);
  fastest_->setEnabled(s.parallel.chosen.has_value());
  const QString preset_sets = s.parallel.cluster != "custom"
                                  ? tr("Set by the cluster above; choose custom to edit")
                                  : QString();
  // Greyed, the rows show the numbers the plan runs on, not the custom ones
  // kept for when "custom" is chosen again.
  const std::optional<Network>& n = view_.network;
  // The fast domain by the chip's name for it: a TPU's is its ICI slice.
  const QString domain = qs(view_.domain_label);
  if (controls_.gpus_per_node->label()->text() != domain)
    controls_.gpus_per_node->label()->setText(domain);
  // The cluster's first item (no cluster chosen) names the chip's own system.
  const QString own_system = qs(view_.default_cluster_label);
  if (controls_.cluster->itemText(0) != own_system) controls_.cluster->setItemText(0, own_system);
  controls_.gpus_per_node->setUnused(
      preset_sets,
      n ? std::optional<double>(static_cast<double>(n->chips_per_node)) : std::nullopt);
  controls_.scale_up->setUnused(
      preset_sets, n ? std::optional<double>(n->intra_node_bytes_per_s / 1e9) : std::nullopt);
  controls_.scale_out->setUnused(
      preset_sets, n ? std::optional<double>(n->inter_node_bytes_per_s / 1e9) : std::nullopt);
  controls_.showFrameworkLimits(view_.preset, qs(view_.zero_stages_text));
  showTrainPrecisionRefusal(controls_.train_precision, qs(view_.fp8_refusal));
  copy_flags_->setEnabled(view_.valid() && view_.layout.has_value());
  selectShown();
  if (!running_) {
    status_->setText(
        !search_error_.empty() ? qs(search_error_)
        : !search_.none_reason.empty()
            ? tr("No layout: %1").arg(qs(search_.none_reason))
            : tr("%1 layouts, %2 fit").arg(search_.layouts.size()).arg(search_.fitting));
  }
}

void ParallelPanel::startSearch() {
  if (running_) {  // one search at a time: the newest inputs run when it ends
    ++generation_;
    return;
  }
  const Scenario s = model_->scenario();
  running_key_ = searchKey(s);
  running_ = true;
  const std::uint64_t gen = ++generation_;
  busy_->setVisible(true);
  status_->setText(tr("searching…"));
  watcher_ = new QFutureWatcher<Outcome>(this);
  connect(watcher_, &QFutureWatcher<Outcome>::finished, this, [this, w = watcher_] {
    const Outcome o = w->result();
    w->deleteLater();
    if (watcher_ == w) watcher_ = nullptr;
    searchDone(o);
  });
  watcher_->setFuture(QtConcurrent::run([s, gen] {
    Outcome o;
    o.generation = gen;
    try {
      o.result = scenario_layouts(s);
    } catch (const std::invalid_argument& e) {
      o.error = e.what();
    }
    return o;
  }));
}

void ParallelPanel::searchDone(const Outcome& o) {
  running_ = false;
  if (o.generation != generation_) {  // inputs changed meanwhile: search them
    startSearch();
    return;
  }
  busy_->setVisible(false);
  searched_ = running_key_;
  search_ = o.result;
  search_error_ = o.error;
  // During a slider drag the table (a model reset, a re-sort) follows on release;
  // the read-outs and plots use the new search at once.
  table_stale_ = model_->inGesture();
  if (!table_stale_) table_model_->setLayouts(search_.layouts);
  refresh();
  emit searchFinished();
}

void ParallelPanel::waitForSearch() {
  while (running_) {
    QEventLoop loop;
    connect(this, &ParallelPanel::searchFinished, &loop, &QEventLoop::quit);
    QTimer::singleShot(20, &loop, &QEventLoop::quit);
    loop.exec();
  }
}

const LayoutResult& ParallelPanel::layoutAtRow(int view_row) const {
  return table_model_->layout(filter_->mapToSource(filter_->index(view_row, 0)).row());
}

void ParallelPanel::choose(const QModelIndex& proxy_index) {
  if (selecting_ || !proxy_index.isValid()) return;
  const Layout l = table_model_->layout(filter_->mapToSource(proxy_index).row()).layout;
  if (model_->scenario().parallel.chosen == l) return;
  model_->edit(tr("Choose layout %1").arg(qs(to_string(l))), kParallelChosen,
               [l](Scenario& s) { s.parallel.chosen = l; });
}

void ParallelPanel::selectShown() {
  selecting_ = true;
  const int row = view_.layout ? table_model_->rowOf(view_.layout->layout) : -1;
  const QModelIndex index =
      row >= 0 ? filter_->mapFromSource(table_model_->index(row, 0)) : QModelIndex();
  if (index.isValid()) {
    table_->selectRow(index.row());
    table_->scrollTo(index);
  } else {
    table_->clearSelection();
  }
  selecting_ = false;
}

void ParallelPanel::setBaseline(const Scenario* baseline) {
  baseline_.reset();
  if (baseline) {
    try {
      const ParallelSlow layouts = scenario_layouts(*baseline);
      baseline_ = make_parallel_view(*baseline, &layouts);
    } catch (const std::invalid_argument&) {
      baseline_ = make_parallel_view(*baseline);
    }
  }
  const ParallelView* b = baseline_ ? &*baseline_ : nullptr;
  readouts_->setBaseline(b);
  for (ParallelPlot* p : plots_) p->drawBaseline(b);
}

ReportSection ParallelPanel::reportSection() const {
  ReportSection s;
  s.title = title();
  s.summary =
      tr("How a training step of the scenario's model splits over its chips: the layout "
         "it runs, the memory of each pipeline stage's rank, where the step's time goes "
         "and the MFU that follows.");
  s.tables = readouts_->tables();
  ReportTable stages{tr("Memory per rank by pipeline stage"), {}, false};
  for (const StageMemory& m : view_.stages) {
    auto b = [](std::int64_t v) { return fmtBytes(static_cast<double>(v)); };
    stages.rows.push_back(
        {tr("stage %1 (%2 layers)").arg(m.stage).arg(m.layers), b(m.total_bytes), QString(),
         tr("weights %1, grads %2, optimizer %3, activations %4, buffers %5, "
            "outside the tensors %6%7")
             .arg(b(m.weights_bytes), b(m.grads_bytes), b(m.optimizer_bytes),
                  b(m.activations_bytes), b(m.buffers_bytes), b(m.non_tensor_bytes()),
                  m.non_tensor_measured ? tr(" (measured)")
                  : m.non_tensor_xla    ? tr(" (XLA)")
                                        : QString()),
         m.total_bytes > view_.hbm_bytes ? Tone::fail : Tone::normal});
  }
  if (!stages.rows.empty()) s.tables.push_back(stages);
  if (view_.layout && view_.layout->valid) {
    ReportTable parts{tr("Where a step's time goes"), {}, false};
    const double step = view_.layout->step_seconds;
    for (const StepPart& p : step_parts(view_.layout->time))
      parts.rows.push_back({qs(p.name), qs(format_seconds(p.seconds)), QString(),
                            tr("%1 of the step").arg(qs(format_percent(p.seconds / step)))});
    parts.rows.push_back({tr("step"), qs(format_seconds(step)), QString(), QString()});
    s.tables.push_back(parts);
  }
  s.formulas = {
      {QStringLiteral("chips = DP × TP × PP × CP"), tr("a layout uses the whole cluster")},
      {QStringLiteral("bubble = (p − 1) / m, or (p − 1) / (v·m) interleaved"),
       tr("Narayanan et al. 2021, p stages, m micro-batches, v chunks")},
      {QStringLiteral("activations/layer = sbh(34 + 5as/h) / t (TP + SP)"),
       tr("Korthikanti et al. 2022, before recomputation")},
      {QStringLiteral("MFU = model FLOPs / (step × chips × peak)"), tr("no recompute counted")}};
  s.charts = plots();
  return s;
}

QString ParallelPanel::help() const {
  return tr(
      "<h3>Parallelism</h3>"
      "<p>How a training step of the scenario's model (Budget panel: model, chip, chips, "
      "sequence length, optimizer) splits over the chips: data (DP), tensor (TP), pipeline "
      "(PP, with virtual stages VPP for the interleaved schedule), context (CP) and expert "
      "(EP) parallelism, ZeRO, the micro-batch and activation recomputation.</p>"
      "<p><b>Left</b>: the step's set-up (global batch tokens, software generation, whether "
      "PP divides the layers and TP stays in a node), which MFU the Budget planner uses, and "
      "<b>locks</b>: fix any axis, or leave it auto for the search.</p>"
      "<p><b>The table</b> lists every layout the search finds, those that fit by step time "
      "(tick the box for the rest). Click a row to run it; <i>Fastest that fits</i> goes "
      "back to the search's best. Click a header to sort.</p>"
      "<p><b>Plots</b>: (a) memory per rank of each pipeline stage, stacked by part, against "
      "HBM; (b) where a step's time goes, part by part; (c) the pipeline schedule of the "
      "first micro-batches, the blank being the bubble; (d) the best MFU for each (TP, PP), "
      "✗ where nothing fits, the running layout outlined.</p>");
}

}  // namespace napkin
