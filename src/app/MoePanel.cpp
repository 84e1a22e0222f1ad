#include "MoePanel.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QGroupBox>
#include <QHideEvent>
#include <QLabel>
#include <QSaveFile>
#include <QSignalBlocker>
#include <QSlider>
#include <QTextStream>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "PanelRefresh.h"
#include "PlotWidget.h"
#include "ScenarioModel.h"
#include "format.h"
#include "moe_health.h"

namespace napkin {

namespace {

constexpr std::int64_t kMaxRecordedSteps = 5000;  // scrub history (≈ 30 MB at E = 256)
constexpr int kWarmupSteps = 300;                 // the first view is a run, not step 0
constexpr int kFrameMs = 16;                      // 60 fps
constexpr double kTickBudgetMs = 8;               // a tick steps at most this long

QString qs(const std::string& s) { return QString::fromStdString(s); }

const QColor kHealthy(76, 114, 176), kOverloaded(221, 132, 82), kDead(150, 150, 150),
    kKept(76, 114, 176), kPadding(205, 205, 205), kDropped(196, 78, 82), kRed(200, 30, 30),
    kGreen(44, 160, 44), kPurple(129, 114, 178), kOrange(255, 127, 14), kGray(110, 110, 110);

QPen pen(const QColor& c, double w = 1.6, Qt::PenStyle st = Qt::SolidLine) {
  QPen p(c, w);
  p.setStyle(st);
  return p;
}

QCPItemStraightLine* hline(QCustomPlot* p, const QPen& pn, QCPAxis* y = nullptr) {
  auto* l = new QCPItemStraightLine(p);
  l->setPen(pn);
  if (y) {
    l->point1->setAxes(p->xAxis, y);
    l->point2->setAxes(p->xAxis, y);
  }
  return l;
}
void placeH(QCPItemStraightLine* l, double y) {
  l->point1->setCoords(0, y);
  l->point2->setCoords(1, y);
}
void placeV(QCPItemStraightLine* l, double x) {
  l->point1->setCoords(x, 0);
  l->point2->setCoords(x, 1);
}

QCPItemText* note(QCustomPlot* p, Qt::Alignment align, double rx, double ry) {
  auto* t = new QCPItemText(p);
  t->setPositionAlignment(align);
  QFont f = p->font();
  f.setPointSizeF(8);
  t->setFont(f);
  t->setPadding(QMargins(3, 1, 3, 1));
  t->setBrush(QColor(255, 255, 255, 220));
  t->setPen(QPen(QColor(200, 200, 200)));
  t->position->setType(QCPItemPosition::ptAxisRectRatio);
  t->position->setCoords(rx, ry);
  return t;
}

QCPBars* makeBars(QCustomPlot* p, const QColor& c, const QString& name) {
  auto* b = new QCPBars(p->xAxis, p->yAxis);
  b->setName(name);
  b->setPen(Qt::NoPen);
  b->setBrush(c);
  b->setWidthType(QCPBars::wtPlotCoords);
  b->setWidth(0.8);
  return b;
}

// Writes `values` into a bar set whose keys are 0..n−1, in place when the
// size is unchanged (no reallocation on an animation tick).
void setBarValues(QCPBars* b, const std::vector<double>& values) {
  auto data = b->data();
  if (data->size() != static_cast<int>(values.size())) {
    QVector<double> k(static_cast<qsizetype>(values.size())), v(k.size());
    for (qsizetype i = 0; i < k.size(); ++i) {
      k[i] = static_cast<double>(i);
      v[i] = values[static_cast<std::size_t>(i)];
    }
    b->setData(k, v, true);
    return;
  }
  std::size_t i = 0;
  for (auto it = data->begin(); it != data->end(); ++it) it->value = values[i++];
}

double niceCeil(double v) {
  if (!(v > 0) || !std::isfinite(v)) return 1;
  const double e = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0})
    if (m * e >= v) return m * e;
  return 10 * e;
}

template <typename... T>
std::vector<double> key(T... values) {
  return {static_cast<double>(values)...};
}

QString num(double v, int decimals) {
  if (!std::isfinite(v)) return QStringLiteral("\u2014");
  return qs(format_grouped(v, decimals));
}

}  // namespace

MoePanel::MoePanel(ScenarioModel* model, QWidget* parent) : Panel(parent), model_(model) {
  ui.setupUi(this);
  local_.sim.aux_weight = 0.0;  // the first view: what a router left alone does
  sim_ = std::make_unique<CollapseSimulation>(local_.sim);
  timer_ = new QTimer(this);
  timer_->setTimerType(Qt::PreciseTimer);
  timer_->setInterval(kFrameMs);
  connect(timer_, &QTimer::timeout, this, &MoePanel::onTick);
  buildControls();
  buildTransport();
  buildCollapseTab();
  buildCapacityTab();
  buildCommTab();
  connect(model_, &ScenarioModel::changed, this, [this] {
    if (deferWhileHidden(this, scenario_stale_)) return;
    updateComm();
  });
  connect(model_, &ScenarioModel::gestureActive, this, [this](bool on) {
    for (PlotWidget* p : plots_) p->setDragMode(on);
  });
  connect(ui.tabs, &QTabWidget::currentChanged, this, [this](int) { refresh(); });
  sim_->run(kWarmupSteps);
  shown_ = sim_->steps_done();
  status_ = tr("Ran %1 steps with α = 0 (no balance loss): the router has collapsed. Tick "
               "\"α = 0\" off (α = 0.01) and press Play to watch the balance loss fight it, "
               "or Reset.")
                .arg(kWarmupSteps);
  refresh();
}

MoePanel::~MoePanel() { timer_->stop(); }

// ------------------------------------------------------------------ controls

QVBoxLayout* MoePanel::addGroup(const QString& title) {
  auto* box = new QGroupBox(title, ui.controlsHost);
  auto* layout = new QVBoxLayout(box);
  layout->setSpacing(2);
  layout->setContentsMargins(6, 4, 6, 4);
  ui.controlsLayout->addWidget(box);
  return layout;
}

SliderSpin* MoePanel::addSlider(QVBoxLayout* group, const QString& key,
                                const SliderSpin::Spec& spec, double value) {
  auto* w = new SliderSpin(spec, group->parentWidget());
  w->setObjectName(key);
  w->setValue(value);
  group->addWidget(w);
  sliders_.insert(key, w);
  return w;
}

QCheckBox* MoePanel::addCheck(QVBoxLayout* group, const QString& key, const QString& text,
                              const QString& tooltip, bool on) {
  auto* c = new QCheckBox(text, group->parentWidget());
  c->setObjectName(key);
  c->setToolTip(tooltip);
  c->setChecked(on);
  group->addWidget(c);
  checks_.insert(key, c);
  return c;
}

void MoePanel::buildControls() {
  using S = SliderSpin::Scale;
  const CollapseParams& p = local_.sim;
  QVBoxLayout* g = addGroup(tr("Router (restarts the run)"));
  auto* e = addSlider(g, QStringLiteral("experts"),
                      {tr("Experts E"), 2, 256, S::log, 0, true, false, 1, QString(),
                       tr("Routed experts E. The router is an E × d matrix; changing E "
                          "restarts the simulation (new router, new experts).")},
                      static_cast<double>(p.n_experts));
  connect(e, &SliderSpin::valueEdited, this, [this](double v) {
    local_.sim.n_experts = static_cast<std::int64_t>(v);
    if (local_.sim.top_k > local_.sim.n_experts) {
      local_.sim.top_k = local_.sim.n_experts;
      sliders_[QStringLiteral("top_k")]->setValue(static_cast<double>(local_.sim.top_k));
    }
    simParamsChanged(tr("E changed"));
  });
  auto* t = addSlider(g, QStringLiteral("tokens"),
                      {tr("Tokens/batch"), 32, 4096, S::log, 0, true, false, 1, QString(),
                       tr("Tokens routed per step (T). Slots = T × k; capacity = ⌊cf × T × k / "
                          "E⌋. Restarts the run (the token stream changes).")},
                      static_cast<double>(p.tokens_per_batch));
  connect(t, &SliderSpin::valueEdited, this, [this](double v) {
    local_.sim.tokens_per_batch = static_cast<std::int64_t>(v);
    simParamsChanged(tr("tokens per batch changed"));
  });
  auto* sd = addSlider(g, QStringLiteral("seed"),
                       {tr("Seed"), 0, 999, S::linear, 0, true, false, 1, QString(),
                        tr("Seed of the token stream, the router's initial weights and the "
                           "experts' initial head start. Same seed, same run, byte for byte.")},
                       0);
  connect(sd, &SliderSpin::valueEdited, this, [this](double v) {
    local_.sim.seed = static_cast<std::uint64_t>(v);
    simParamsChanged(tr("seed changed"));
  });

  g = addGroup(tr("Training knobs (continue the run)"));
  auto* k = addSlider(g, QStringLiteral("top_k"),
                      {tr("Top-k"), 1, 8, S::linear, 0, true, false, 1, QString(),
                       tr("Experts per token k (≤ E). Each token fills k slots; max/mean can "
                          "reach at most E / k.")},
                      static_cast<double>(p.top_k));
  connect(k, &SliderSpin::valueEdited, this, [this, k](double v) {
    local_.sim.top_k = std::min(static_cast<std::int64_t>(v), local_.sim.n_experts);
    if (static_cast<double>(local_.sim.top_k) != v)
      k->setValue(static_cast<double>(local_.sim.top_k));
    simParamsChanged(tr("k = %1").arg(local_.sim.top_k));
  });
  auto* a = addSlider(g, QStringLiteral("aux"),
                      {tr("Aux weight α"), 1e-4, 1, S::log, 4, false, false, 1, QString(),
                       tr("Weight α of the Switch load-balance loss L_balance = E·Σ fᵢ·Pᵢ (fᵢ: "
                          "share of slots, Pᵢ: mean router probability; 1.0 = balanced). ~0.01 "
                          "is the usual value; tick \"α = 0\" to switch it off.")},
                      0.01);
  auto* a0 = addCheck(g, QStringLiteral("aux_zero"), tr("α = 0 (no balance loss)"),
                      tr("Switches the load-balance loss off: the router is left alone."), true);
  a->setEnabled(false);
  connect(a, &SliderSpin::valueEdited, this, [this](double v) {
    local_.sim.aux_weight = v;
    simParamsChanged(tr("α = %1").arg(v, 0, 'g', 3));
  });
  connect(a0, &QCheckBox::toggled, this, [this, a](bool on) {
    a->setEnabled(!on);
    local_.sim.aux_weight = on ? 0.0 : a->value();
    simParamsChanged(tr("α = %1").arg(local_.sim.aux_weight, 0, 'g', 3));
  });
  auto* z = addSlider(g, QStringLiteral("z"),
                      {tr("z-loss γ"), 1e-5, 0.1, S::log, 5, false, false, 1, QString(),
                       tr("Weight γ of the router z-loss L_z = mean over tokens of "
                          "(log Σ exp logits)²: keeps logits small (bf16 overflow, softmax "
                          "saturation). Tick \"γ = 0\" to switch it off.")},
                      p.z_weight);
  auto* z0 = addCheck(g, QStringLiteral("z_zero"), tr("γ = 0 (no z-loss)"),
                      tr("Switches the router z-loss off."), false);
  connect(z, &SliderSpin::valueEdited, this, [this](double v) {
    local_.sim.z_weight = v;
    simParamsChanged(tr("γ = %1").arg(v, 0, 'g', 3));
  });
  connect(z0, &QCheckBox::toggled, this, [this, z](bool on) {
    z->setEnabled(!on);
    local_.sim.z_weight = on ? 0.0 : z->value();
    simParamsChanged(tr("γ = %1").arg(local_.sim.z_weight, 0, 'g', 3));
  });
  auto* cf = addSlider(g, QStringLiteral("capacity_factor"),
                       {tr("Capacity factor"), 1.0, 4.0, S::linear, 2, false, false, 1, QString(),
                        tr("Buffer slots per expert = ⌊cf × T × k / E⌋. Slots past the buffer "
                           "are dropped (first come, first served in token order). cf < 1 "
                           "drops even under perfect balance, so 1.0 is the minimum.")},
                       p.capacity_factor);
  connect(cf, &SliderSpin::valueEdited, this, [this](double v) {
    local_.sim.capacity_factor = v;
    simParamsChanged(tr("capacity factor %1").arg(v, 0, 'g', 3));
  });
  auto* lr = addSlider(g, QStringLiteral("lr"),
                       {tr("Learning rate"), 0.1, 300, S::log, 2, false, false, 1, QString(),
                        tr("Router step size (plain gradient descent on task + α·L_balance + "
                           "γ·L_z). Large values make the balance loss overshoot.")},
                       p.learning_rate);
  connect(lr, &SliderSpin::valueEdited, this, [this](double v) {
    local_.sim.learning_rate = v;
    simParamsChanged(tr("learning rate %1").arg(v, 0, 'g', 3));
  });
  auto* sh = addCheck(g, QStringLiteral("shared"), tr("Shared expert"),
                      tr("An always-on expert runs for every token: a token whose every slot is "
                         "dropped still gets an FFN instead of riding the residual unchanged."),
                      p.shared_expert);
  connect(sh, &QCheckBox::toggled, this, [this](bool on) {
    local_.sim.shared_expert = on;
    simParamsChanged(on ? tr("a shared expert") : tr("no shared expert"));
  });
  auto* rn = addCheck(g, QStringLiteral("renormalize"), tr("Renormalized gates"),
                      tr("Gates renormalized to sum to 1 over the kept top-k slots (Mixtral, "
                         "GShard). Off: raw softmax probabilities, which shrink the layer's "
                         "output. With k = 1 the raw probability is used either way."),
                      p.renormalize);
  connect(rn, &QCheckBox::toggled, this, [this](bool on) {
    local_.sim.renormalize = on;
    simParamsChanged(on ? tr("renormalized gates") : tr("raw gates"));
  });
  ui.controlsLayout->addStretch(1);
}

void MoePanel::buildTransport() {
  auto add = [this](const QString& key, const QString& text, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setObjectName(key);
    b->setText(text);
    b->setToolTip(tip);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setMinimumWidth(52);
    ui.transportLayout->addWidget(b);
    buttons_.insert(key, b);
    return b;
  };
  connect(add(QStringLiteral("play"), tr("▶ Play"),
              tr("Run the simulation, one frame per "
                 "16 ms (60 fps)")),
          &QToolButton::clicked, this, &MoePanel::play);
  connect(add(QStringLiteral("pause"), tr("❚❚ Pause"), tr("Stop the animation")),
          &QToolButton::clicked, this, &MoePanel::pause);
  connect(add(QStringLiteral("step"), tr("Step"), tr("Advance exactly one router step")),
          &QToolButton::clicked, this, &MoePanel::stepOnce);
  connect(add(QStringLiteral("reset"), tr("Reset"),
              tr("Back to step 0: a fresh router and "
                 "fresh experts with the current knobs")),
          &QToolButton::clicked, this, &MoePanel::reset);
  auto* sl = new QLabel(tr("Speed"), this);
  ui.transportLayout->addWidget(sl);
  speed_box_ = new QComboBox(this);
  speed_box_->setObjectName(QStringLiteral("speed"));
  for (int s : {1, 2, 5, 10, 20}) speed_box_->addItem(tr("%1 step/frame").arg(s), s);
  speed_box_->setCurrentIndex(1);
  speed_box_->setToolTip(tr("Router steps per animation frame (60 frames per second). A frame "
                            "never spends more than %1 ms stepping, so at large E the "
                            "effective speed may be lower.")
                             .arg(kTickBudgetMs));
  sl->setBuddy(speed_box_);
  connect(speed_box_, &QComboBox::activated, this,
          [this](int i) { speed_ = speed_box_->itemData(i).toInt(); });
  ui.transportLayout->addWidget(speed_box_);
  auto* scl = new QLabel(tr("History"), this);
  ui.transportLayout->addWidget(scl);
  scrub_ = new QSlider(Qt::Horizontal, this);
  scrub_->setObjectName(QStringLiteral("scrub"));
  scrub_->setToolTip(tr("Scrub back through the recorded steps (up to %1). The simulation "
                        "itself keeps its latest state; \"Live\" returns to it.")
                         .arg(kMaxRecordedSteps));
  scl->setBuddy(scrub_);
  ui.transportLayout->addWidget(scrub_, 1);
  connect(scrub_, &QSlider::valueChanged, this, [this](int v) {
    shown_ = v;
    follow_live_ = v >= sim_->steps_done();
    updateCollapse(false);
    if (ui.tabs->currentIndex() == 1) updateCapacity();
    updateScrub();
  });
  connect(add(QStringLiteral("live"), tr("Live"), tr("Show the latest step again")),
          &QToolButton::clicked, this, [this] {
            follow_live_ = true;
            shown_ = sim_->steps_done();
            refresh();
          });
  step_label_ = new QLabel(this);
  step_label_->setObjectName(QStringLiteral("readout_step"));
  QFont f = step_label_->font();
  f.setBold(true);
  step_label_->setFont(f);
  step_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  step_label_->setFixedSize(
      QFontMetrics(f).horizontalAdvance(QStringLiteral("step 5,000 of 5,000")) + 6,
      QFontMetrics(f).height() + 2);
  step_label_->setToolTip(tr("The step the bars show, of the steps run so far"));
  ui.transportLayout->addWidget(step_label_);
  readouts_.insert(QStringLiteral("step"), step_label_);
  connect(add(QStringLiteral("export"), tr("Export CSV…"),
              tr("Save the run's traces (one row per step) as CSV")),
          &QToolButton::clicked, this, [this] {
            const QString path = QFileDialog::getSaveFileName(
                this, tr("Export traces"), QStringLiteral("moe_collapse.csv"), tr("CSV (*.csv)"));
            if (path.isEmpty()) return;
            QString err;
            if (!exportCsv(path, &err))
              status_ = tr("Export failed: %1").arg(err);
            else
              status_ = tr("Exported %1 steps to %2").arg(sim_->steps_done()).arg(path);
            ui.statusLabel->setText(status_);
          });
  ui.statusLabel->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  ui.statusLabel->setFixedHeight(ui.statusLabel->fontMetrics().height() + 4);
  ui.statusLabel->setObjectName(QStringLiteral("readout_status"));
  readouts_.insert(QStringLiteral("status"), ui.statusLabel);
}

QLabel* MoePanel::addReadout(QGridLayout* grid, int row, int col, const QString& key,
                             const QString& name, const QString& tip, const QString& widest) {
  auto* n = new QLabel(name + QLatin1Char(':'), grid->parentWidget());
  n->setToolTip(tip);
  auto* v = new QLabel(grid->parentWidget());
  v->setObjectName(QStringLiteral("readout_") + key);
  v->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
  v->setToolTip(tip);
  v->setAccessibleName(name);
  QFont f = v->font();
  f.setBold(true);
  v->setFont(f);
  const QFontMetrics fm(f);
  v->setFixedSize(fm.horizontalAdvance(widest) + 6, fm.height() + 2);
  grid->addWidget(n, row, col);
  grid->addWidget(v, row, col + 1);
  readouts_.insert(key, v);
  return v;
}

// ------------------------------------------------------------ collapse tab

void MoePanel::buildCollapseTab() {
  bars_plot_ = new PlotWidget(tr("Expert token share"), ui.collapsePage);
  bars_plot_->setObjectName(QStringLiteral("plot_bars"));
  bars_plot_->setXAxis(tr("expert"), false);
  bars_plot_->setYAxis(tr("routed slots ÷ fair share (×)"), false);
  bars_[0] = makeBars(bars_plot_, kHealthy, tr("healthy"));
  bars_[1] = makeBars(bars_plot_, kOverloaded, tr("over its buffer (slots dropped)"));
  bars_[2] = makeBars(bars_plot_, kDead, tr("dead (gate share < 10 % of fair)"));
  fair_line_ = hline(bars_plot_, pen(kGreen, 1.2, Qt::DashLine));
  cap_line_ = hline(bars_plot_, pen(kRed, 1.2, Qt::DotLine));
  bars_note_ = note(bars_plot_, Qt::AlignRight | Qt::AlignTop, 0.995, 0.01);
  bars_plot_->showLegendBelow(3);
  bars_plot_->setMinimumHeight(250);
  plots_.push_back(bars_plot_);

  auto* box = new QGroupBox(tr("This step"), ui.collapsePage);
  auto* grid = new QGridLayout(box);
  grid->setHorizontalSpacing(8);
  grid->setVerticalSpacing(2);
  const QString w = QStringLiteral("255 of 256 (99.6 %)");
  int r = 0;
  addReadout(grid, r++, 0, QStringLiteral("max_mean"), tr("max/mean"),
             tr("Largest expert's routed slots ÷ the mean (T·k/E), on the router's assignments "
                "before capacity. 1.0 = balanced; E/k = every token's first choice is one "
                "expert."),
             w);
  addReadout(grid, r++, 0, QStringLiteral("recent"), tr("max/mean (~20 steps)"),
             tr("The same on an exponential average of the shares over ~20 steps: past one "
                "batch's sampling noise."),
             w);
  addReadout(grid, r++, 0, QStringLiteral("dead"), tr("Dead experts"),
             tr("Experts whose recent gate-weighted share is below a tenth of the fair 1/E: "
                "they get no tokens, or only as a near-zero-gate second choice."),
             w);
  addReadout(grid, r++, 0, QStringLiteral("l_balance"), tr("L_balance"),
             tr("E·Σ fᵢ·Pᵢ, f over slots (tokens × k): 1.0 balanced, up to E collapsed."), w);
  addReadout(grid, r++, 0, QStringLiteral("l_z"), tr("L_z"),
             tr("Router z-loss: mean over tokens of (log Σ exp logits)²."), w);
  addReadout(grid, r++, 0, QStringLiteral("drop"), tr("Drop rate"),
             tr("Slots over an expert's buffer ÷ all slots (T·k): silently dropped."), w);
  addReadout(grid, r++, 0, QStringLiteral("skipping"), tr("Tokens with no FFN"),
             tr("Tokens whose every slot was dropped and no shared expert: they ride the "
                "residual unchanged."),
             w);
  addReadout(grid, r++, 0, QStringLiteral("verdict"), tr("Verdict"),
             QString::fromStdString(describe(MoeHealthThresholds{})), w);
  grid->setRowStretch(r, 1);
  box->setFixedWidth(box->sizeHint().width());

  util_plot_ = new PlotWidget(tr("Utilization over steps"), ui.collapsePage);
  util_plot_->setObjectName(QStringLiteral("plot_util"));
  util_plot_->setXAxis(tr("router step"), false);
  util_plot_->setYAxis(tr("max/mean utilization (×)"), false);
  util_plot_->yAxis2->setVisible(true);
  util_plot_->yAxis2->setLabel(tr("dead experts"));
  util_plot_->addGraph()->setPen(pen(kHealthy, 1.4));
  util_plot_->graph(0)->setName(tr("per step"));
  util_plot_->addGraph()->setPen(pen(kOrange, 2.0));
  util_plot_->graph(1)->setName(tr("~20-step average"));
  util_plot_->addGraph(util_plot_->xAxis, util_plot_->yAxis2)->setPen(pen(kGray, 1.6));
  util_plot_->graph(2)->setName(tr("dead (right)"));
  util_plot_->graph(2)->setLineStyle(QCPGraph::lsStepLeft);
  util_cursor_ = hline(util_plot_, pen(QColor(0, 0, 0, 120), 1.0, Qt::DashLine));
  util_plot_->showLegendBelow(3);
  plots_.push_back(util_plot_);

  loss_plot_ = new PlotWidget(tr("Losses and drops over steps"), ui.collapsePage);
  loss_plot_->setObjectName(QStringLiteral("plot_loss"));
  loss_plot_->setXAxis(tr("router step"), false);
  loss_plot_->setYAxis(tr("L_balance, L_z"), true);
  loss_plot_->yAxis2->setVisible(true);
  loss_plot_->yAxis2->setLabel(tr("drop rate (% of slots)"));
  loss_plot_->yAxis2->setRange(0, 100);
  loss_plot_->addGraph()->setPen(pen(kPurple, 1.6));
  loss_plot_->graph(0)->setName(tr("load-balance loss"));
  loss_plot_->addGraph()->setPen(pen(kGreen, 1.6));
  loss_plot_->graph(1)->setName(tr("z-loss"));
  loss_plot_->addGraph(loss_plot_->xAxis, loss_plot_->yAxis2)->setPen(pen(kDropped, 1.2));
  loss_plot_->graph(2)->setName(tr("drop rate (right)"));
  loss_cursor_ = hline(loss_plot_, pen(QColor(0, 0, 0, 120), 1.0, Qt::DashLine));
  loss_plot_->showLegendBelow(3);
  plots_.push_back(loss_plot_);

  for (PlotWidget* pl : {bars_plot_, util_plot_, loss_plot_})
    pl->xAxis->grid()->setZeroLinePen(Qt::NoPen);
  auto* bottom = new QHBoxLayout;
  bottom->setSpacing(4);
  bottom->addWidget(util_plot_, 1);
  bottom->addWidget(loss_plot_, 1);
  ui.collapseGrid->addWidget(bars_plot_, 0, 0);
  ui.collapseGrid->addWidget(box, 0, 1);
  ui.collapseGrid->addLayout(bottom, 1, 0, 1, 2);
  ui.collapseGrid->setRowStretch(0, 5);
  ui.collapseGrid->setRowStretch(1, 4);
  ui.collapseGrid->setColumnStretch(0, 1);
}

// ------------------------------------------------------------ capacity tab

void MoePanel::buildCapacityTab() {
  buffer_plot_ = new PlotWidget(tr("Expert buffers this step"), ui.capacityPage);
  buffer_plot_->setObjectName(QStringLiteral("plot_buffers"));
  buffer_plot_->setXAxis(tr("expert"), false);
  buffer_plot_->setYAxis(tr("slots (token-slots)"), false);
  buffer_bars_[0] = makeBars(buffer_plot_, kKept, tr("real tokens (kept)"));
  buffer_bars_[1] = makeBars(buffer_plot_, kPadding, tr("padding (computed on zeros)"));
  buffer_bars_[2] = makeBars(buffer_plot_, kDropped, tr("dropped (over capacity)"));
  buffer_bars_[1]->moveAbove(buffer_bars_[0]);
  buffer_bars_[2]->moveAbove(buffer_bars_[1]);
  buffer_cap_line_ = hline(buffer_plot_, pen(kRed, 1.2, Qt::DashLine));
  buffer_plot_->showLegendBelow(3);
  plots_.push_back(buffer_plot_);

  auto* box = new QGroupBox(tr("Capacity this step"), ui.capacityPage);
  auto* grid = new QGridLayout(box);
  grid->setHorizontalSpacing(8);
  grid->setVerticalSpacing(2);
  const QString w = QStringLiteral("1,048,576 of 1,048,576");
  int r = 0;
  addReadout(grid, r++, 0, QStringLiteral("capacity"), tr("Capacity / expert"),
             tr("⌊capacity factor × T × k / E⌋ slots"), w);
  addReadout(grid, r++, 0, QStringLiteral("cap_drop"), tr("Drop rate"),
             tr("dropped slots ÷ (T × k)"), w);
  addReadout(grid, r++, 0, QStringLiteral("buffer_util"), tr("Buffer utilization"),
             tr("kept slots ÷ (capacity × E): the rest is padding, compute spent on zeros"), w);
  addReadout(grid, r++, 0, QStringLiteral("dropped"), tr("Dropped slots"),
             tr("Slots routed past a full buffer (first come, first served in token order)"), w);
  addReadout(grid, r++, 0, QStringLiteral("padded"), tr("Padded slots"),
             tr("Empty buffer slots, computed on zeros"), w);
  addReadout(grid, r++, 0, QStringLiteral("fully_dropped"), tr("Fully dropped tokens"),
             tr("Tokens whose every slot was dropped (the residual carries them unchanged "
                "unless a shared expert runs)"),
             w);
  grid->setRowStretch(r, 1);
  box->setFixedWidth(box->sizeHint().width());

  tradeoff_plot_ =
      new PlotWidget(tr("Capacity-factor trade-off (this step's routing)"), ui.capacityPage);
  tradeoff_plot_->setObjectName(QStringLiteral("plot_tradeoff"));
  tradeoff_plot_->setXAxis(tr("capacity factor"), false);
  tradeoff_plot_->setYAxis(tr("fraction of slots (%)"), false, fmtPercent);
  tradeoff_plot_->addGraph()->setPen(pen(kDropped, 2.0));
  tradeoff_plot_->graph(0)->setName(tr("dropped ÷ routed slots"));
  tradeoff_plot_->addGraph()->setPen(pen(kGray, 2.0, Qt::DashLine));
  tradeoff_plot_->graph(1)->setName(tr("padding ÷ buffer slots (wasted compute)"));
  tradeoff_marker_ = hline(tradeoff_plot_, pen(kHealthy, 1.2, Qt::DashDotLine));
  tradeoff_note_ = note(tradeoff_plot_, Qt::AlignRight | Qt::AlignTop, 0.995, 0.01);
  tradeoff_plot_->showLegendBelow(2);
  plots_.push_back(tradeoff_plot_);

  buffer_plot_->xAxis->grid()->setZeroLinePen(Qt::NoPen);
  ui.capacityGrid->addWidget(buffer_plot_, 0, 0);
  ui.capacityGrid->addWidget(box, 0, 1);
  ui.capacityGrid->addWidget(tradeoff_plot_, 1, 0, 1, 2);
  ui.capacityGrid->setRowStretch(0, 1);
  ui.capacityGrid->setRowStretch(1, 1);
}

// --------------------------------------------- parameters & communication

void MoePanel::buildCommTab() {
  using S = SliderSpin::Scale;
  auto* ctl = new QGroupBox(tr("Link and pipeline (panel-local)"), ui.commPage);
  auto* cl = new QVBoxLayout(ctl);
  cl->setSpacing(2);
  cl->setContentsMargins(6, 4, 6, 4);
  auto slider = [this, cl](const QString& k, const SliderSpin::Spec& spec, double v,
                           std::function<void(double)> set) {
    auto* s = addSlider(cl, k, spec, v);
    connect(s, &SliderSpin::valueEdited, this, [this, set](double x) {
      set(x);
      updateComm();
    });
    connect(s, &SliderSpin::gestureStarted, this, [this] { gantt_plot_->setDragMode(true); });
    connect(s, &SliderSpin::gestureFinished, this, [this] {
      gantt_plot_->setDragMode(false);
      gantt_plot_->requestReplot();
    });
  };
  slider(QStringLiteral("prefill"),
         {tr("Prefill tokens"), 512, 131072, S::log, 0, true, false, 1, QString(),
          tr("Tokens in one prefill (forward pass). All-to-all bytes = 2 × MoE layers × tokens "
             "× d_model × 2 bytes × k.")},
         local_.prefill_tokens, [this](double v) { local_.prefill_tokens = v; });
  slider(QStringLiteral("link"),
         {tr("Link"), 1, 3600, S::log, 0, false, false, 1, tr("Gb/s"),
          tr("Per-chip network bandwidth in gigabits per second (100 = the seed's 100 GbE; "
             "NVLink 4 ≈ 3,600).")},
         local_.link_gbps, [this](double v) { local_.link_gbps = v; });
  slider(QStringLiteral("latency"),
         {tr("Latency"), 0.5, 100, S::log, 1, false, false, 1, tr("µs"),
          tr("Fixed cost per collective (µs); two collectives (dispatch, combine) per MoE "
             "layer.")},
         local_.latency_us, [this](double v) { local_.latency_us = v; });
  slider(QStringLiteral("chunks"),
         {tr("Chunks M"), 1, 32, S::linear, 0, true, false, 1, QString(),
          tr("Prompt chunks streamed through the pipeline. Utilization = M / (M + S − 1).")},
         static_cast<double>(local_.pipe.chunks),
         [this](double v) { local_.pipe.chunks = static_cast<std::int64_t>(v); });
  slider(QStringLiteral("stages"),
         {tr("Stages S"), 1, 16, S::linear, 0, true, false, 1, QString(),
          tr("Pipeline stages: chips each holding a contiguous run of layers (shard layers, "
             "not experts).")},
         static_cast<double>(local_.pipe.stages),
         [this](double v) { local_.pipe.stages = static_cast<std::int64_t>(v); });
  slider(QStringLiteral("compute_ms"),
         {tr("Compute"), 1, 500, S::log, 1, false, false, 1, tr("ms"),
          tr("Compute per chunk per stage (ms).")},
         local_.pipe.compute_ms, [this](double v) { local_.pipe.compute_ms = v; });
  slider(QStringLiteral("transfer_ms"),
         {tr("Transfer"), 0.1, 500, S::log, 1, false, false, 1, tr("ms"),
          tr("Stage → stage hop per chunk (ms); it overlaps the next chunk's compute, so a "
             "pipeline step is max(compute, transfer).")},
         local_.pipe.transfer_ms, [this](double v) { local_.pipe.transfer_ms = v; });
  cl->addStretch(1);

  auto* pbox = new QGroupBox(tr("Parameters (the scenario's model)"), ui.commPage);
  auto* pg = new QGridLayout(pbox);
  pg->setHorizontalSpacing(8);
  pg->setVerticalSpacing(2);
  const QString w = QStringLiteral("1,234.5B  (2,469 GB)");
  int r = 0;
  addReadout(pg, r++, 0, QStringLiteral("model"), tr("Model"),
             tr("The shared scenario's model (choose it in the Budget panel)"),
             QStringLiteral("DeepSeek-V3-like MoE (E 256)"));
  addReadout(pg, r++, 0, QStringLiteral("total"), tr("Total params"),
             tr("Every expert counted: what HBM must hold (memory)"), w);
  addReadout(pg, r++, 0, QStringLiteral("active"), tr("Active params"),
             tr("k routed (+ shared) experts per token: what each token multiplies (FLOPs)"), w);
  addReadout(pg, r++, 0, QStringLiteral("sparsity"), tr("Sparsity total/active"),
             tr("total ÷ active; exactly 1.0 for a dense model or k = E"), w);
  addReadout(pg, r++, 0, QStringLiteral("total_bytes"), tr("Total at bf16"), tr("total × 2 bytes"),
             w);
  addReadout(pg, r++, 0, QStringLiteral("active_bytes"), tr("Active at bf16"),
             tr("active × 2 bytes: read per token"), w);
  params_note_ = new QLabel(pbox);
  params_note_->setWordWrap(true);
  params_note_->setObjectName(QStringLiteral("params_note"));
  pg->addWidget(params_note_, r++, 0, 1, 2);
  pg->setRowStretch(r, 1);

  auto* cbox = new QGroupBox(tr("Communication wall"), ui.commPage);
  auto* cg = new QGridLayout(cbox);
  cg->setHorizontalSpacing(8);
  cg->setVerticalSpacing(2);
  r = 0;
  addReadout(cg, r++, 0, QStringLiteral("a2a_bytes"), tr("Naive EP bytes"),
             tr("All-to-all per prefill: 2 (dispatch + combine) × MoE layers × tokens × "
                "d_model × 2 bytes × k"),
             w);
  addReadout(cg, r++, 0, QStringLiteral("a2a_seconds"), tr("Naive EP time"),
             tr("bytes × 8 ÷ link + 2 × layers × latency"), w);
  addReadout(cg, r++, 0, QStringLiteral("serial"), tr("Serial"),
             tr("S × M × (compute + transfer): no overlap"), w);
  addReadout(cg, r++, 0, QStringLiteral("pipelined"), tr("Pipelined"),
             tr("(M + S − 1) × max(compute, transfer)"), w);
  addReadout(cg, r++, 0, QStringLiteral("bubble"), tr("Bubble"),
             tr("(S − 1) × step: the fill before the last stage starts"), w);
  addReadout(cg, r++, 0, QStringLiteral("utilization"), tr("Utilization"), tr("M / (M + S − 1)"),
             w);
  addReadout(cg, r++, 0, QStringLiteral("speedup"), tr("Speed-up"), tr("serial ÷ pipelined"), w);
  cg->setRowStretch(r, 1);

  gantt_plot_ = new PlotWidget(tr("Pipelined prefill: chunks through stages"), ui.commPage);
  gantt_plot_->setObjectName(QStringLiteral("plot_gantt"));
  gantt_plot_->setXAxis(tr("time (ms)"), false);
  gantt_plot_->setYAxis(tr("stage (chip)"), false);
  gantt_plot_->yAxis->setRangeReversed(true);
  {
    QSharedPointer<QCPAxisTickerFixed> t(new QCPAxisTickerFixed);
    t->setTickStep(1.0);
    t->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
    gantt_plot_->yAxis->setTicker(t);
  }
  gantt_plot_->xAxis->grid()->setZeroLinePen(Qt::NoPen);
  gantt_plot_->yAxis->grid()->setZeroLinePen(Qt::NoPen);
  plots_.push_back(gantt_plot_);

  ui.commGrid->addWidget(ctl, 0, 0, 2, 1);
  ui.commGrid->addWidget(pbox, 0, 1);
  ui.commGrid->addWidget(cbox, 0, 2);
  ui.commGrid->addWidget(gantt_plot_, 1, 1, 1, 2);
  ui.commGrid->setColumnStretch(0, 0);
  ui.commGrid->setColumnStretch(1, 1);
  ui.commGrid->setColumnStretch(2, 1);
  ui.commGrid->setRowStretch(1, 1);
  ctl->setFixedWidth(300);
}

// ------------------------------------------------------------- simulation

void MoePanel::simParamsChanged(const QString& what) {
  const CollapseParams& p = local_.sim;
  if (CollapseSimulation::needs_restart(sim_->params(), p)) {
    sim_ = std::make_unique<CollapseSimulation>(p);
    shown_ = 0;
    follow_live_ = true;
    status_ = tr("Restarted at step 0: %1 (E, tokens per batch and seed define the router and "
                 "the experts, so the run starts over).")
                  .arg(what);
  } else {
    sim_->retune(p);
    status_ = tr("Continuing from step %1 with %2: the router and the experts keep what they "
                 "have learned.")
                  .arg(sim_->steps_done())
                  .arg(what);
    // The recorded history is unchanged: redraw without rebuilding the traces.
    updateCollapse(true);
    updateCapacity();
    updateComm();
    updateScrub();
    ui.statusLabel->setText(status_);
    return;
  }
  refresh();
}

bool MoePanel::isPlaying() const { return timer_->isActive() || resume_on_show_; }

void MoePanel::play() {
  if (sim_->steps_done() >= kMaxRecordedSteps) {
    status_ = tr("The recording holds %1 steps: Reset to run again.").arg(kMaxRecordedSteps);
    ui.statusLabel->setText(status_);
    return;
  }
  // While the animation runs, the collapse plots draw without antialiasing
  // (a frame's budget at E = 256); pausing redraws them at full quality.
  for (PlotWidget* pl : {bars_plot_, util_plot_, loss_plot_}) pl->setDragMode(true);
  if (isVisible())
    timer_->start();
  else
    resume_on_show_ = true;
}

void MoePanel::pause() {
  const bool was = timer_->isActive() || resume_on_show_;
  timer_->stop();
  resume_on_show_ = false;
  if (was)
    for (PlotWidget* pl : {bars_plot_, util_plot_, loss_plot_}) pl->setDragMode(false);
}

void MoePanel::stepOnce() {
  pause();
  advance(1);
}

void MoePanel::reset() {
  sim_ = std::make_unique<CollapseSimulation>(local_.sim);
  shown_ = 0;
  follow_live_ = true;
  status_ =
      tr("Reset to step 0 with the current knobs (α = %1).").arg(local_.sim.aux_weight, 0, 'g', 3);
  refresh();
}

void MoePanel::onTick() {
  QElapsedTimer t;
  t.start();
  int n = 0;
  // Step at most kTickBudgetMs per frame so a large E never drops a frame.
  while (n < speed_ && sim_->steps_done() < kMaxRecordedSteps) {
    sim_->step();
    ++n;
    if (static_cast<double>(t.nsecsElapsed()) / 1e6 > kTickBudgetMs) break;
  }
  advance(0);
}

void MoePanel::advance(int n) {
  for (int i = 0; i < n && sim_->steps_done() < kMaxRecordedSteps; ++i) sim_->step();
  if (sim_->steps_done() >= kMaxRecordedSteps && timer_->isActive()) {
    pause();
    status_ =
        tr("Paused: the recording holds %1 steps. Reset to run again.").arg(kMaxRecordedSteps);
  }
  if (follow_live_) shown_ = sim_->steps_done();
  appendTraces(traced_);
  updateCollapse(false);
  if (ui.tabs->currentIndex() == 1) updateCapacity();
  updateScrub();
  ui.statusLabel->setText(status_);
}

const StepStats* MoePanel::shownStats() const {
  const auto& h = sim_->history();
  if (shown_ <= 0 || h.empty()) return nullptr;
  return &h[static_cast<std::size_t>(
      std::min<std::int64_t>(shown_, static_cast<std::int64_t>(h.size())) - 1)];
}

void MoePanel::refresh() {
  rebuildTraces();
  updateCollapse(true);
  updateCapacity();
  updateComm();
  updateScrub();
  ui.statusLabel->setText(status_);
}

void MoePanel::updateScrub() {
  const QSignalBlocker block(scrub_);
  scrub_->setRange(0, static_cast<int>(sim_->steps_done()));
  scrub_->setValue(static_cast<int>(shown_));
  step_label_->setText(tr("step %1 of %2")
                           .arg(qs(format_grouped(shown_)))
                           .arg(qs(format_grouped(sim_->steps_done()))));
  QPointF c(static_cast<double>(shown_), 0);
  placeV(util_cursor_, c.x());
  placeV(loss_cursor_, c.x());
  if (ui.tabs->currentIndex() == 0) {
    util_plot_->requestReplot();
    loss_plot_->requestReplot();
  }
}

void MoePanel::rebuildTraces() {
  for (int g = 0; g < 3; ++g) {
    util_plot_->graph(g)->data()->clear();
    loss_plot_->graph(g)->data()->clear();
  }
  traced_ = 0;
  trace_max_util_ = 1;
  trace_max_loss_ = 1;
  appendTraces(0);
}

void MoePanel::appendTraces(std::int64_t from) {
  const auto& h = sim_->history();
  const auto n = static_cast<std::int64_t>(h.size());
  if (n < traced_) {  // a restart shrank the history
    rebuildTraces();
    return;
  }
  double lo = 1e300;
  for (std::int64_t i = from; i < n; ++i) {
    const StepStats& s = h[static_cast<std::size_t>(i)];
    const double x = static_cast<double>(s.step);
    util_plot_->graph(0)->addData(x, s.max_over_mean);
    util_plot_->graph(1)->addData(x, s.recent_max_over_mean);
    util_plot_->graph(2)->addData(x, static_cast<double>(s.dead_experts));
    loss_plot_->graph(0)->addData(x, s.l_balance);
    loss_plot_->graph(1)->addData(x, std::max(s.l_z, 1e-6));
    loss_plot_->graph(2)->addData(x, 100.0 * s.drop_rate);
    trace_max_util_ = std::max(trace_max_util_, s.max_over_mean);
    trace_max_loss_ = std::max({trace_max_loss_, s.l_balance, s.l_z});
    lo = std::min({lo, s.l_balance, std::max(s.l_z, 1e-6)});
  }
  traced_ = n;
  const CollapseParams& p = sim_->params();
  const double xmax = std::max(600.0, std::ceil(static_cast<double>(n) / 600.0) * 600.0);
  util_plot_->xAxis->setRange(0, xmax);
  loss_plot_->xAxis->setRange(0, xmax);
  util_plot_->yAxis->setRange(0, niceCeil(std::max(2.0, trace_max_util_ * 1.08)));
  util_plot_->yAxis2->setRange(0, static_cast<double>(std::max<std::int64_t>(p.n_experts, 2)));
  if (from == 0) loss_plot_->yAxis->setRange(0.1, 10);
  const double top = niceCeil(trace_max_loss_ * 1.5);
  if (loss_plot_->yAxis->range().upper < top) loss_plot_->yAxis->setRange(0.1, top);
  if (lo < loss_plot_->yAxis->range().lower && lo > 0)
    loss_plot_->yAxis->setRangeLower(std::pow(10.0, std::floor(std::log10(lo))));
  if (ui.tabs->currentIndex() == 0) {
    util_plot_->requestReplot();
    loss_plot_->requestReplot();
  }
}

void MoePanel::updateCollapse(bool full) {
  (void)full;
  const CollapseParams& p = sim_->params();
  const std::int64_t E = p.n_experts;
  const StepStats* s = shownStats();
  const auto Ez = static_cast<std::size_t>(E);
  std::vector<double> healthy(Ez, 0.0), over(Ez, 0.0), dead(Ez, 0.0);
  const double fair = fair_share_slots(p);
  double top = 0;
  if (s) {
    const std::vector<ExpertLoad> loads = expert_loads(*s, p);
    for (std::size_t i = 0; i < Ez; ++i) {
      const double v = loads[i].relative_load;
      top = std::max(top, v);
      switch (loads[i].state) {
        case ExpertState::dead: dead[i] = v; break;
        case ExpertState::over_capacity: over[i] = v; break;
        case ExpertState::healthy: healthy[i] = v; break;
      }
    }
  }
  setBarValues(bars_[0], healthy);
  setBarValues(bars_[1], over);
  setBarValues(bars_[2], dead);
  if (bars_experts_ != E) {
    bars_experts_ = E;
    bars_plot_->xAxis->setRange(-0.7, static_cast<double>(E) - 0.3);
    for (QCPBars* b : bars_) b->setWidth(E > 64 ? 1.0 : 0.8);
  }
  const double cap_share =
      s ? static_cast<double>(s->capacity_per_expert) / fair
        : static_cast<double>(expert_capacity(p.tokens_per_batch, p.top_k, E, p.capacity_factor)) /
              fair;
  // The y range only grows inside a run (no jitter), and fits E/k when collapsed.
  const double want = niceCeil(std::max({top, cap_share, 1.0}) * 1.15);
  const double cur = bars_plot_->yAxis->range().upper;
  if (full || want > cur || want < cur / 2.5) bars_plot_->yAxis->setRange(0, want);
  placeH(fair_line_, 1.0);
  placeH(cap_line_, cap_share);
  if (s) {
    bars_note_->setText(tr("step %1 · dashed green: fair share 1/E · dotted red: capacity "
                           "(cf %2)")
                            .arg(qs(format_grouped(s->step)))
                            .arg(p.capacity_factor, 0, 'g', 3));
  } else {
    bars_note_->setText(tr("step 0: press Play or Step"));
  }
  bars_plot_->xAxis->setLabel(tr("expert (E = %1, k = %2)").arg(E).arg(p.top_k));

  auto set = [this](const char* key, const QString& text) {
    readouts_.value(QLatin1String(key))->setText(text);
  };
  if (s) {
    set("max_mean", tr("%1 × (ceiling %2)")
                        .arg(num(s->max_over_mean, 2))
                        .arg(num(max_over_mean_ceiling(p), 1)));
    set("recent", tr("%1 ×").arg(num(s->recent_max_over_mean, 2)));
    set("dead", tr("%1 of %2").arg(s->dead_experts).arg(E));
    set("l_balance", num(s->l_balance, 3));
    set("l_z", num(s->l_z, 3));
    set("drop", qs(format_percent(s->drop_rate)));
    set("skipping", tr("%1 of %2")
                        .arg(qs(format_grouped(s->tokens_skipping_ffn)))
                        .arg(qs(format_grouped(p.tokens_per_batch))));
    const MoeHealth health = moe_health(*s);
    QLabel* verdict = readouts_.value(QStringLiteral("verdict"));
    switch (health.verdict) {
      case MoeVerdict::collapsed:
        set("verdict", tr("COLLAPSED"));
        verdict->setStyleSheet(QStringLiteral("color: rgb(200,30,30)"));
        break;
      case MoeVerdict::strained:
        set("verdict", tr("STRAINED"));
        verdict->setStyleSheet(QStringLiteral("color: rgb(190,100,0)"));
        break;
      case MoeVerdict::healthy:
        set("verdict", tr("healthy"));
        verdict->setStyleSheet(QStringLiteral("color: rgb(30,130,30)"));
        break;
    }
    QStringList why;
    for (const std::string& r : health.reasons) why << qs(r);
    const QString rule = qs(describe(health.thresholds));
    verdict->setToolTip(
        why.isEmpty() ? rule : why.join(QLatin1Char('\n')) + QStringLiteral("\n\n") + rule);
  } else {
    for (const char* k : {"max_mean", "recent", "dead", "l_balance", "l_z", "drop", "skipping"})
      set(k, tr("— (step 0)"));
    set("verdict", tr("not started"));
    readouts_.value(QStringLiteral("verdict"))->setStyleSheet(QString());
    readouts_.value(QStringLiteral("verdict"))->setToolTip(qs(describe(MoeHealthThresholds{})));
  }
  if (ui.tabs->currentIndex() == 0) bars_plot_->requestReplot();
}

void MoePanel::updateCapacity() {
  const CollapseParams& p = sim_->params();
  const std::int64_t E = p.n_experts;
  const auto Ez = static_cast<std::size_t>(E);
  const StepStats* s = shownStats();
  std::vector<double> kept(Ez, 0.0), pad(Ez, 0.0), drop(Ez, 0.0);
  const std::int64_t cap = s ? s->capacity_per_expert
                             : expert_capacity(p.tokens_per_batch, p.top_k, E, p.capacity_factor);
  double top = static_cast<double>(cap);
  if (s) {
    for (std::size_t i = 0; i < Ez; ++i) {
      const auto e = static_cast<std::int64_t>(i);
      kept[i] = static_cast<double>(s->kept(e));
      pad[i] = static_cast<double>(s->padded(e));
      drop[i] = static_cast<double>(s->dropped(e));
      top = std::max(top, static_cast<double>(s->routed[i]));
    }
  } else {
    std::fill(pad.begin(), pad.end(), static_cast<double>(cap));
  }
  setBarValues(buffer_bars_[0], kept);
  setBarValues(buffer_bars_[1], pad);
  setBarValues(buffer_bars_[2], drop);
  for (QCPBars* b : buffer_bars_) b->setWidth(E > 64 ? 1.0 : 0.8);
  buffer_plot_->xAxis->setRange(-0.7, static_cast<double>(E) - 0.3);
  buffer_plot_->yAxis->setRange(0, niceCeil(top * 1.12));
  placeH(buffer_cap_line_, static_cast<double>(cap));
  buffer_plot_->xAxis->setLabel(
      tr("expert · step %1 · dashed: capacity %2 slots").arg(s ? s->step : 0).arg(cap));

  auto set = [this](const char* key, const QString& text) {
    readouts_.value(QLatin1String(key))->setText(text);
  };
  set("capacity", tr("%1 slots").arg(qs(format_grouped(cap))));
  if (s) {
    set("cap_drop", qs(format_percent(s->drop_rate)));
    set("buffer_util", qs(format_percent(s->buffer_utilization())));
    set("dropped", tr("%1 of %2")
                       .arg(qs(format_grouped(s->dropped_slots)))
                       .arg(qs(format_grouped(s->routed_slots()))));
    set("padded", qs(format_grouped(s->padded_slots)));
    set("fully_dropped", tr("%1 of %2%3")
                             .arg(qs(format_grouped(s->fully_dropped_tokens)))
                             .arg(qs(format_grouped(p.tokens_per_batch)))
                             .arg(p.shared_expert ? tr(" (shared)") : QString()));
  } else {
    for (const char* k : {"cap_drop", "buffer_util", "dropped", "padded", "fully_dropped"})
      set(k, tr("— (step 0)"));
  }

  // Trade-off curve for this step's routing.
  if (s && inputsChanged(0, [&] {
        std::vector<double> v(s->routed.begin(), s->routed.end());
        v.push_back(static_cast<double>(p.top_k));
        v.push_back(p.capacity_factor);
        return v;
      }())) {
    const auto curve = capacity_tradeoff(s->routed, p.top_k, 1.0, 4.0, 61);
    QVector<double> x, d, w;
    for (const CapacityPoint& c : curve) {
      x.push_back(c.capacity_factor);
      d.push_back(c.drop_rate);
      w.push_back(c.wasted_fraction);
    }
    tradeoff_plot_->graph(0)->setData(x, d, true);
    tradeoff_plot_->graph(1)->setData(x, w, true);
    tradeoff_plot_->xAxis->setRange(1.0, 4.0);
    tradeoff_plot_->yAxis->setRange(0, 1.0);
    placeV(tradeoff_marker_, p.capacity_factor);
    const CapacityResult now = capacity_from_counts(s->routed, p.capacity_factor, p.top_k);
    tradeoff_note_->setText(tr("cf %1: %2 dropped, %3 of the buffer is padding")
                                .arg(p.capacity_factor, 0, 'g', 3)
                                .arg(qs(format_percent(now.drop_rate)))
                                .arg(qs(format_percent(1.0 - now.buffer_utilization))));
  } else if (!s) {
    tradeoff_plot_->graph(0)->data()->clear();
    tradeoff_plot_->graph(1)->data()->clear();
    tradeoff_note_->setText(tr("step 0: no routing yet"));
    plot_inputs_[0].clear();
  }
  if (ui.tabs->currentIndex() == 1) {
    buffer_plot_->requestReplot();
    tradeoff_plot_->requestReplot();
  }
}

void MoePanel::updateComm() {
  const ModelShape& shape = model_->scenario().shape;
  const QString name = qs(model_->scenario().model_name);
  auto set = [this](const char* key, const QString& text) {
    readouts_.value(QLatin1String(key))->setText(text);
  };
  const MoeModelParams mp = moe_model_params(shape);
  set("model", shape.is_moe()
                   ? tr("%1 (E %2, k %3)").arg(name).arg(shape.n_experts).arg(shape.top_k)
                   : tr("%1 (dense)").arg(name));
  set("total", qs(format_count(static_cast<double>(mp.count.total), 2)));
  set("active", qs(format_count(static_cast<double>(mp.count.active), 2)));
  set("sparsity", tr("%1 ×").arg(num(mp.sparsity_ratio, 2)));
  set("total_bytes", qs(format_bytes(static_cast<double>(mp.total_bytes))));
  set("active_bytes", qs(format_bytes(static_cast<double>(mp.active_bytes))));
  if (shape.is_moe()) {
    params_note_->setText(tr("Active for FLOPs, total for memory: every token multiplies %1 "
                             "parameters, but HBM must hold all %2.")
                              .arg(qs(format_count(static_cast<double>(mp.count.active), 1)))
                              .arg(qs(format_count(static_cast<double>(mp.count.total), 1))));
  } else {
    const std::int64_t k = sim_->params().top_k;
    params_note_->setText(tr("The scenario's model is dense: total = active. Pick an MoE preset "
                             "(Mixtral-8x7B, DeepSeek-V3-like) in the Budget panel. The "
                             "communication read-outs assume its layers were MoE with k = %1.")
                              .arg(k));
  }
  AllToAllInputs a = expert_parallel_inputs(shape, static_cast<std::int64_t>(local_.prefill_tokens),
                                            sim_->params().top_k);
  a.link_gbps = local_.link_gbps;
  a.latency_us = local_.latency_us;
  const AllToAllCost c = expert_parallel_comm(a);
  set("a2a_bytes", qs(format_bytes(static_cast<double>(c.bytes))));
  set("a2a_seconds", tr("%1 per prefill").arg(qs(format_seconds(c.seconds))));
  const PipelineResult pr = pipelined_prefill(local_.pipe);
  set("serial", tr("%1 ms").arg(num(pr.serial_ms, 1)));
  set("pipelined", tr("%1 ms").arg(num(pr.pipelined_ms, 1)));
  set("bubble", tr("%1 ms").arg(num(pr.bubble_ms, 1)));
  set("utilization", tr("%1  (%2/%3)")
                         .arg(qs(format_percent(pr.utilization)))
                         .arg(local_.pipe.chunks)
                         .arg(pr.steps));
  set("speedup", tr("%1 ×").arg(num(pr.speedup, 2)));

  if (inputsChanged(1, key(local_.pipe.chunks, local_.pipe.stages, local_.pipe.compute_ms,
                           local_.pipe.transfer_ms))) {
    const auto sched = pipeline_schedule(local_.pipe);
    const std::size_t need = sched.size() * 2;
    while (gantt_rects_.size() < need) {
      auto* r = new QCPItemRect(gantt_plot_);
      r->setClipToAxisRect(true);
      gantt_rects_.push_back(r);
    }
    const QColor palette[] = {QColor(76, 114, 176),  QColor(85, 168, 104),  QColor(196, 78, 82),
                              QColor(129, 114, 178), QColor(204, 185, 116), QColor(100, 181, 205)};
    for (std::size_t i = 0; i < sched.size(); ++i) {
      const PipelineSlot& sl = sched[i];
      const QColor col = palette[static_cast<std::size_t>(sl.chunk) % 6];
      const double y = static_cast<double>(sl.stage);
      QCPItemRect* comp = gantt_rects_[2 * i];
      comp->setVisible(true);
      comp->topLeft->setCoords(sl.start_ms, y - 0.32);
      comp->bottomRight->setCoords(sl.compute_end_ms, y + 0.18);
      comp->setBrush(col);
      comp->setPen(QPen(col.darker(130)));
      QCPItemRect* hop = gantt_rects_[2 * i + 1];
      const bool has_hop = sl.stage + 1 < local_.pipe.stages;
      hop->setVisible(has_hop);
      if (has_hop) {
        QColor light = col;
        light.setAlpha(110);
        hop->topLeft->setCoords(sl.compute_end_ms, y + 0.2);
        hop->bottomRight->setCoords(sl.compute_end_ms + local_.pipe.transfer_ms, y + 0.36);
        hop->setBrush(light);
        hop->setPen(Qt::NoPen);
      }
    }
    for (std::size_t i = need; i < gantt_rects_.size(); ++i) gantt_rects_[i]->setVisible(false);
    const double end = pr.pipelined_ms + local_.pipe.transfer_ms;
    gantt_plot_->xAxis->setRange(0, end * 1.02);
    gantt_plot_->yAxis->setRange(-0.6, static_cast<double>(local_.pipe.stages) - 0.4);
    gantt_plot_->xAxis->setLabel(
        tr("time (ms) · faint: hop (overlapped) · bubble %1 ms · M/(M+S−1) = %2")
            .arg(num(pr.bubble_ms, 1))
            .arg(qs(format_percent(pr.utilization))));
    if (ui.tabs->currentIndex() == 2) gantt_plot_->requestReplot();
  }
}

bool MoePanel::inputsChanged(int plot, std::vector<double> inputs) {
  auto& last = plot_inputs_[static_cast<std::size_t>(plot)];
  if (last == inputs) return false;
  last = std::move(inputs);
  return true;
}

// ------------------------------------------------------------- accessors

QLabel* MoePanel::readout(const QString& key) const { return readouts_.value(key, nullptr); }
SliderSpin* MoePanel::control(const QString& key) const { return sliders_.value(key, nullptr); }
QCheckBox* MoePanel::check(const QString& key) const { return checks_.value(key, nullptr); }
QToolButton* MoePanel::button(const QString& key) const { return buttons_.value(key, nullptr); }

std::vector<double> MoePanel::barValues() const {
  std::vector<double> out(static_cast<std::size_t>(sim_->params().n_experts), 0.0);
  for (QCPBars* b : bars_) {
    std::size_t i = 0;
    for (auto it = b->data()->constBegin(); it != b->data()->constEnd() && i < out.size(); ++it)
      out[i++] += it->value;
  }
  return out;
}

std::vector<bool> MoePanel::deadBars() const {
  std::vector<bool> out(static_cast<std::size_t>(sim_->params().n_experts), false);
  std::size_t i = 0;
  for (auto it = bars_[2]->data()->constBegin();
       it != bars_[2]->data()->constEnd() && i < out.size(); ++it)
    out[i++] = it->value > 0 || false;
  // A dead expert with zero routed slots has a zero-height bar: ask the stats.
  if (const StepStats* s = shownStats())
    for (std::size_t e = 0; e < out.size(); ++e) out[e] = s->dead(static_cast<std::int64_t>(e));
  return out;
}

QStringList MoePanel::readoutTexts() const {
  QStringList out;
  for (auto it = readouts_.constBegin(); it != readouts_.constEnd(); ++it)
    out << it.key() + QStringLiteral(": ") + it.value()->text();
  out << params_note_->text();
  out.sort();
  return out;
}

bool MoePanel::exportCsv(const QString& path, QString* error) const {
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Text)) {
    if (error) *error = f.errorString();
    return false;
  }
  QTextStream out(&f);
  const CollapseParams& p = sim_->params();
  out << "# napkin MoE router collapse: E=" << p.n_experts << " k=" << p.top_k
      << " aux=" << p.aux_weight << " z=" << p.z_weight << " cf=" << p.capacity_factor
      << " tokens=" << p.tokens_per_batch << " lr=" << p.learning_rate << " seed=" << p.seed
      << "\n";
  out << "step,max_over_mean,recent_max_over_mean,dead_experts,l_balance,l_z,drop_rate,"
         "task_loss,capacity_per_expert,dropped_slots,padded_slots,fully_dropped_tokens\n";
  out.setRealNumberPrecision(10);
  for (const StepStats& s : sim_->history())
    out << s.step << ',' << s.max_over_mean << ',' << s.recent_max_over_mean << ','
        << s.dead_experts << ',' << s.l_balance << ',' << s.l_z << ',' << s.drop_rate << ','
        << s.task_loss << ',' << s.capacity_per_expert << ',' << s.dropped_slots << ','
        << s.padded_slots << ',' << s.fully_dropped_tokens << '\n';
  out.flush();
  if (!f.commit()) {
    if (error) *error = f.errorString();
    return false;
  }
  return true;
}

void MoePanel::hideEvent(QHideEvent* event) {
  if (timer_->isActive()) {
    timer_->stop();
    resume_on_show_ = true;
  }
  QWidget::hideEvent(event);
}

void MoePanel::refreshIfStale() {
  if (!scenario_stale_) return;
  scenario_stale_ = false;
  updateComm();
}

void MoePanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refreshIfStale();
  if (resume_on_show_) {
    resume_on_show_ = false;
    timer_->start();
  }
}

QString MoePanel::helpText() {
  return tr(
      "<h3>MoE router</h3>"
      "<p><b>Router collapse</b> (first tab) animates a real feedback loop "
      "(<code>napkin::CollapseSimulation</code>): a router (E × d weights) routes a seeded "
      "stream of tokens to its top-k experts; experts get better in proportion to the "
      "gate-weighted demand the router sends them; the router takes gradient steps on the task "
      "signal plus α·L_balance plus γ·L_z. Left alone (α = 0) the rich get richer: one expert "
      "takes a slot of nearly every token, max/mean climbs to E/k, the others die. With α ≈ 0.01 "
      "the balance loss holds every expert near its fair share.</p>"
      "<p>The bars are each expert's routed slots this step (before capacity) divided by the "
      "fair share T·k/E: blue healthy, orange over its buffer (slots dropped), grey dead. The "
      "dashed green line is the fair share, the dotted red line the buffer. Below: max/mean "
      "per step and smoothed, dead experts, L_balance (1.0 = balanced), L_z and the drop "
      "rate.</p>"
      "<p><b>Controls.</b> E, tokens per batch and the seed define the router and the experts: "
      "changing them restarts at step 0. Every other knob (k, α, γ, capacity factor, learning "
      "rate, shared expert, gates) continues from the current state; the line under the "
      "transport says which happened. Play runs 60 frames per second; Step advances one step; "
      "History scrubs back through the recorded steps (the simulation keeps running from its "
      "latest state); Export CSV saves the traces.</p>"
      "<p><b>Capacity</b>: each expert's buffer this step — real tokens, padding (compute on "
      "zeros) and dropped slots (first come, first served in token order) — and the trade-off "
      "curve of drop rate and wasted slots against the capacity factor for this step's "
      "routing.</p>"
      "<p><b>Parameters &amp; communication</b>: total vs active parameters of the scenario's "
      "model (active for FLOPs, total for memory); the all-to-all bytes and seconds of naive "
      "expert parallelism per prefill (2 × MoE layers × tokens × d_model × 2 bytes × k over "
      "the link, plus latency per collective); and pipelined prefill (seed Claim 12): shard "
      "layers across S stages and stream M chunks, so each hop overlaps the next chunk's "
      "compute. The Gantt chart shows chunks flowing through stages; the empty triangle is "
      "the bubble; utilization = M / (M + S − 1).</p>");
}

}  // namespace napkin
