#include "RooflinePanel.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "PanelRefresh.h"
#include "PlotWidget.h"
#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "format.h"
#include "hardware.h"

namespace napkin {

namespace {

// Field ids of the Roofline panel (160..179): consecutive edits of one field
// within a drag merge into one undo step.
enum Field {
  kChip = 160,
  kChips,
  kContext,
  kPrompt,
  kDecodeTokens,
  kBudget,
  kOverhead,
  kBatch,
  kPrecision
};

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString qs(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

const QColor kBlue(31, 119, 180), kOrange(255, 127, 14), kGreen(44, 160, 44), kRed(200, 30, 30),
    kPurple(128, 80, 170), kGray(120, 120, 120), kDark(40, 40, 40), kTeal(23, 150, 160);
// Stacked components: matmul / vector / memory / comms / optimizer.
const QColor kUnit[] = {QColor(76, 150, 90), QColor(129, 114, 178), QColor(196, 78, 82),
                        QColor(230, 150, 50), QColor(140, 140, 140)};
// Overlay rooflines.
const QColor kOverlay[] = {QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                           QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                           QColor(23, 190, 207),  QColor(255, 127, 14)};

QPen pen(const QColor& c, double w = 1.8, Qt::PenStyle st = Qt::SolidLine) {
  QPen p(c, w);
  p.setStyle(st);
  return p;
}

QCPItemStraightLine* vline(QCustomPlot* p, const QPen& pn) {
  auto* l = new QCPItemStraightLine(p);
  l->setPen(pn);
  return l;
}

void placeV(QCPItemStraightLine* l, double x) {
  l->point1->setCoords(x, 1);
  l->point2->setCoords(x, 2);
}

QCPItemText* note(QCustomPlot* p, Qt::Alignment align, double size = 8) {
  auto* t = new QCPItemText(p);
  t->setPositionAlignment(align);
  QFont f = p->font();
  f.setPointSizeF(size);
  t->setFont(f);
  t->setPadding(QMargins(3, 1, 3, 1));
  t->setBrush(QColor(255, 255, 255, 215));
  t->setTextAlignment(Qt::AlignLeft);
  t->position->setType(QCPItemPosition::ptAxisRectRatio);
  return t;
}

template <typename... T>
std::vector<double> key(T... values) {
  return {static_cast<double>(values)...};
}

double hashKey(const std::string& s) {
  return static_cast<double>(std::hash<std::string>{}(s) % 1000003);
}

// FLOP/byte as the seed prints it: one decimal below 100, grouped above.
QString intensityText(double v) {
  if (v >= 1e5) return fmtSi(v) + QStringLiteral(" FLOP/B");
  return qs(format_grouped(v, v < 100 ? 1 : 0)) + QStringLiteral(" FLOP/B");
}

QString chipsText(std::int64_t n) {
  return qs(format_grouped(n)) + (n == 1 ? QStringLiteral(" chip") : QStringLiteral(" chips"));
}

QString boundText(Bound b) { return qs(to_string(b)) + QStringLiteral("-bound"); }

QString fmtNumber(double v) {
  if (!std::isfinite(v)) return QStringLiteral("\u2014");
  return QString::number(v, 'g', 3);
}

QString fmtSeconds(double v) { return qs(format_seconds(v)); }

// Seconds in at most six characters, for labels above narrow bars.
QString secondsShort(double v) {
  if (v < 1) return QString::number(std::lround(v * 1e3)) + QStringLiteral(" ms");
  if (v < 10) return QString::number(v, 'f', 2) + QStringLiteral(" s");
  if (v < 100) return QString::number(v, 'f', 1) + QStringLiteral(" s");
  if (v < 7200) return QString::number(std::lround(v)) + QStringLiteral(" s");
  return QString::number(v / 3600, 'f', 1) + QStringLiteral(" h");
}

// Index of a power of two (1 → 0, 1024 → 10).
double log2Index(double chips) { return std::log2(std::max(chips, 1.0)); }

std::string opTitle(const PlacedOperation& op, const OperationSetting& s, const ModelShape& m) {
  const auto count = [](std::int64_t v) { return format_count(static_cast<double>(v), 0); };
  if (op.name == "large matmul") return "matmul " + std::to_string(s.matmul_dim) + "\u00b3";
  if (op.name == "prefill") return "prefill " + count(s.prompt_tokens) + " tok";
  if (op.name == "decode") return "decode B=" + std::to_string(s.decode_batch);
  if (op.name == "layernorm")
    return "layernorm " + count(s.prompt_tokens) + "\u00d7" + std::to_string(m.d_model);
  if (op.name == "attention") return "attention @" + count(s.context_tokens);
  return op.name;
}

}  // namespace

// ------------------------------------------------------------------ building

RooflinePanel::RooflinePanel(ScenarioModel* model, QWidget* parent)
    : Panel(parent), model_(model) {
  ui.setupUi(this);
  buildControls();
  buildReadouts();
  buildRooflineTab();
  buildMfuTab();
  buildLatencyTab();
  buildCodesignTab();
  for (PlotWidget* p : plots_) p->legend->setFont(p->xAxis->tickLabelFont());
  connect(model_, &ScenarioModel::changed, this, [this] {
    if (deferWhileHidden(this, scenario_stale_)) return;
    refresh();
  });
  connect(model_, &ScenarioModel::gestureActive, this, &RooflinePanel::setDrag);
  connect(ui.subTabs, &QTabWidget::currentChanged, this, [this](int) { replotStale(); });
  refresh();
}

void RooflinePanel::replot(PlotWidget* p) {
  // A plot on a hidden sub-tab (or with the panel hidden) redraws when shown:
  // a drag on one sub-tab does not pay for the plots nobody sees.
  if (p->isVisible()) {
    p->requestReplot();
    stale_.erase(p);
  } else {
    stale_.insert(p);
  }
}

void RooflinePanel::replotStale() {
  for (auto it = stale_.begin(); it != stale_.end();) {
    if ((*it)->isVisible()) {
      (*it)->requestReplot();
      it = stale_.erase(it);
    } else {
      ++it;
    }
  }
}

void RooflinePanel::refreshIfStale() {
  if (!scenario_stale_) return;
  scenario_stale_ = false;
  refresh();
}

void RooflinePanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refreshIfStale();
  replotStale();
}

void RooflinePanel::setDrag(bool on) {
  for (PlotWidget* p : plots_) p->setDragMode(on);
}

QVBoxLayout* RooflinePanel::addGroup(QLayout* host, QWidget* parent, const QString& title) {
  auto* box = new QGroupBox(title, parent);
  auto* layout = new QVBoxLayout(box);
  layout->setSpacing(2);
  layout->setContentsMargins(6, 4, 6, 4);
  host->addWidget(box);
  return layout;
}

SliderSpin* RooflinePanel::addShared(QVBoxLayout* group, const QString& key, int field,
                                     const SliderSpin::Spec& spec,
                                     std::function<double(const Scenario&)> get,
                                     std::function<void(Scenario&, double)> set) {
  auto* w = new SliderSpin(spec, group->parentWidget());
  w->setObjectName(key);
  group->addWidget(w);
  bindings_.push_back({w, [this, get] { return get(model_->scenario()); }});
  sliders_.insert(key, w);
  const QString undo_text = tr("Change %1").arg(spec.label);
  connect(w, &SliderSpin::valueEdited, this, [this, undo_text, field, set](double v) {
    model_->edit(undo_text, field, [&](Scenario& s) { set(s, v); });
  });
  connect(w, &SliderSpin::gestureStarted, model_, &ScenarioModel::beginGesture);
  connect(w, &SliderSpin::gestureFinished, model_, &ScenarioModel::endGesture);
  return w;
}

SliderSpin* RooflinePanel::addLocal(QVBoxLayout* group, const QString& key,
                                    const SliderSpin::Spec& spec,
                                    std::function<double(const Local&)> get,
                                    std::function<void(Local&, double)> set) {
  auto* w = new SliderSpin(spec, group->parentWidget());
  w->setObjectName(key);
  group->addWidget(w);
  bindings_.push_back({w, [this, get] { return get(local_); }});
  sliders_.insert(key, w);
  connect(w, &SliderSpin::valueEdited, this, [this, set](double v) {
    set(local_, v);
    refresh();
  });
  connect(w, &SliderSpin::gestureStarted, this, [this] { setDrag(true); });
  connect(w, &SliderSpin::gestureFinished, this, [this] { setDrag(false); });
  return w;
}

QComboBox* RooflinePanel::addCombo(QVBoxLayout* group, const QString& key, const QString& label,
                                   const QString& tooltip) {
  QComboBox* c = addLabelledCombo(group, key, label, tooltip, 88);
  combos_.insert(key, c);
  return c;
}

void RooflinePanel::buildControls() {
  using S = SliderSpin::Scale;
  QLayout* host = ui.controlsLayout;
  QWidget* parent = ui.controlsHost;

  // --- shared: hardware and model
  QVBoxLayout* g = addGroup(host, parent, tr("Chip and context (shared)"));
  QComboBox* chip =
      addCombo(g, QStringLiteral("chip"), tr("Chip"),
               tr("Accelerator from the hardware table: peak bf16 FLOP/s and HBM "
                  "bandwidth set the roofline; ridge = peak ÷ bandwidth (FLOP/byte)."));
  for (const Chip& c : hardware_table()) chip->addItem(qs(c.name));
  connect(chip, &QComboBox::activated, this, [this, chip](int) {
    const std::string name = chip->currentText().toStdString();
    model_->edit(tr("Change chip"), kChip, [&](Scenario& s) { s.chip = name; });
  });
  addShared(
      g, QStringLiteral("chips"), kChips,
      {tr("Chips"), 1, 100000, S::log, 0, true, false, 1, QString(),
       tr("The scenario's chip count (chips): the turn read-out is computed on this many "
          "chips; prefill ∝ 1/chips, decode ∝ 1/chips (aggregate bandwidth).")},
      [](const Scenario& s) { return static_cast<double>(s.n_chips); },
      [](Scenario& s, double v) { s.n_chips = static_cast<std::int64_t>(v); });
  addShared(
      g, QStringLiteral("context"), kContext,
      {tr("Context"), 256, 1048576, S::log, 0, true, false, 1, tr("tokens"),
       tr("Tokens in each request's KV cache (tokens): decode reads 2·L·n_kv·d_head·T·2 "
          "bytes per request per step; the attention point is placed at this context.")},
      [](const Scenario& s) { return static_cast<double>(s.serving.context_len); },
      [](Scenario& s, double v) { s.serving.context_len = static_cast<std::int64_t>(v); });

  // --- shared: the serving turn
  g = addGroup(host, parent, tr("Serving turn (shared)"));
  addShared(
      g, QStringLiteral("prompt"), kPrompt,
      {tr("Prompt tokens"), 1, 1048576, S::log, 0, true, false, 1, tr("tokens"),
       tr("Incremental prefill per turn (tokens). Prefill s = 2N·T ÷ (chips × peak × MFU): "
          "2N per token, forward only — not 6N.")},
      [](const Scenario& s) { return static_cast<double>(s.serving.prompt_tokens); },
      [](Scenario& s, double v) { s.serving.prompt_tokens = static_cast<std::int64_t>(v); });
  addShared(
      g, QStringLiteral("decode_tokens"), kDecodeTokens,
      {tr("Decode tokens"), 1, 16384, S::log, 0, true, false, 1, tr("tokens"),
       tr("Generated tokens per turn (tokens). Decode s = tokens × (N·bytes/param + "
          "B·KV) ÷ (chips × HBM bandwidth): bytes, not FLOPs.")},
      [](const Scenario& s) { return static_cast<double>(s.serving.decode_tokens); },
      [](Scenario& s, double v) { s.serving.decode_tokens = static_cast<std::int64_t>(v); });
  addShared(
      g, QStringLiteral("budget"), kBudget,
      {tr("Latency budget"), 0.05, 60, S::log, 2, false, false, 1, tr("s"),
       tr("Wall-clock budget for one interactive turn (seconds). Chips for the budget = "
          "smallest power-of-two slice with prefill + decode + overhead ≤ budget; none "
          "when no slice does; impossible when budget ≤ overhead.")},
      [](const Scenario& s) { return s.serving.latency_budget_seconds; },
      [](Scenario& s, double v) { s.serving.latency_budget_seconds = v; });
  addShared(
      g, QStringLiteral("overhead"), kOverhead,
      {tr("Overhead"), 0, 5, S::linear, 2, false, false, 1, tr("s"),
       tr("Fixed time per turn that no hardware removes (seconds): scaffolding, load "
          "balancing, validation, KV retrieval. The seed's agent: 0.25 s.")},
      [](const Scenario& s) { return s.serving.overhead_seconds; },
      [](Scenario& s, double v) { s.serving.overhead_seconds = v; });
  addShared(
      g, QStringLiteral("batch"), kBatch,
      {tr("Batch"), 1, 1024, S::log, 0, true, false, 1, tr("req"),
       tr("Concurrent decode requests (requests). One decode step reads the weights once "
          "for the batch plus every request's KV cache: intensity ≈ 2N·B ÷ (N·b + B·KV).")},
      [](const Scenario& s) { return static_cast<double>(s.serving.batch); },
      [](Scenario& s, double v) { s.serving.batch = static_cast<std::int64_t>(v); });
  QComboBox* prec = addCombo(g, QStringLiteral("precision"), tr("Weights"),
                             tr("Weight precision when serving: weights = N × bytes per weight "
                                "(group-wise scales counted); decode reads them every step, so "
                                "halving bytes halves the weight traffic."));
  for (Dtype d : {Dtype::fp32, Dtype::bf16, Dtype::fp8, Dtype::int8, Dtype::int4})
    prec->addItem(tr("%1 (%2 B)").arg(qs(std::string(to_string(d))))
                      .arg(bytes_per_element(d), 0, 'g', 4),
                  static_cast<int>(d));
  connect(prec, &QComboBox::activated, this, [this, prec](int i) {
    const auto d = static_cast<Dtype>(prec->itemData(i).toInt());
    model_->edit(tr("Change weight precision"), kPrecision,
                 [&](Scenario& s) { s.serving.weight_dtype = d; });
  });

  // --- panel-local napkin assumptions
  g = addGroup(host, parent, tr("Napkin assumptions (this panel)"));
  addLocal(
      g, QStringLiteral("prefill_mfu"),
      {tr("Prefill MFU"), 0.05, 1.0, S::linear, 0, false, false, 100, QStringLiteral("%"),
       tr("Fraction of peak FLOP/s prefill achieves (fraction). The talk assumes 100 % "
          "(fully compute-bound); 40–60 % is realistic.")},
      [](const Local& l) { return l.prefill_mfu; }, [](Local& l, double v) { l.prefill_mfu = v; });
  addLocal(
      g, QStringLiteral("bandwidth"),
      {tr("Decode BW eff."), 0.05, 1.0, S::linear, 0, false, false, 100, QStringLiteral("%"),
       tr("Fraction of HBM bandwidth a decode step achieves (fraction): decode s scales "
          "with 1 ÷ this.")},
      [](const Local& l) { return l.bandwidth_efficiency; },
      [](Local& l, double v) { l.bandwidth_efficiency = v; });
  addLocal(
      g, QStringLiteral("step_floor"),
      {tr("Step floor"), 0, 0.01, S::linear, 2, false, false, 1000, tr("ms"),
       tr("Serial time per decode step that more chips cannot shrink (ms): kernel "
          "launches, collective hops, sampling. Adds decode tokens × floor to every slice; "
          "a budget below overhead + that is unreachable (none). 0 in the seed's napkin.")},
      [](const Local& l) { return l.step_floor_seconds; },
      [](Local& l, double v) { l.step_floor_seconds = v; });
  addLocal(
      g, QStringLiteral("max_chips"),
      {tr("Largest slice"), 1, 1048576, S::log, 0, true, false, 1, tr("chips"),
       tr("The largest slice you can get (chips): chips for the budget tries 1, 2, 4, … up "
          "to this and says none beyond it.")},
      [](const Local& l) { return static_cast<double>(l.max_chips); },
      [](Local& l, double v) { l.max_chips = static_cast<std::int64_t>(v); });
  addLocal(
      g, QStringLiteral("matmul_dim"),
      {tr("Matmul side"), 128, 65536, S::log, 0, true, false, 1, QString(),
       tr("Side d of the square matmul placed on the roofline (elements): 2d³ FLOPs over "
          "3·d²·2 bytes, intensity 2d/6 at bf16. The seed's is 8192.")},
      [](const Local& l) { return static_cast<double>(l.matmul_dim); },
      [](Local& l, double v) { l.matmul_dim = static_cast<std::int64_t>(v); });
  ui.controlsLayout->addStretch(1);
}

void RooflinePanel::buildReadouts() {
  const struct {
    const char* key;
    QString name;
    QString tip;
    const char* widest;
  } rows[] = {
      // column 1: the roofline
      {"ridge", tr("Ridge"),
       tr("peak FLOP/s ÷ HBM bytes/s of the chip: below it an operation is "
          "memory-bound (cut bytes), at or above compute-bound (cut FLOPs)"),
       "1,234 FLOP/B"},
      {"prefill", tr("Prefill"),
       tr("Prefill intensity at the prompt length: 2N·T FLOPs ÷ (weights + KV written)"),
       "8,888 FLOP/B, compute-bound"},
      {"decode", tr("Decode"),
       tr("Decode intensity at the batch: 2N·B FLOPs ÷ (weights once + B × KV cache)"),
       "8,888 FLOP/B, compute-bound"},
      {"kv_share", tr("KV share"),
       tr("Share of a decode step's bytes that is KV cache (the rest is weights), at the batch"),
       "100.0 % of bytes at B=1,024"},
      // column 2: the model and MFU
      {"model", tr("Model"),
       tr("Parameters of the scenario's model: total (held in HBM) and active (FLOPs, decode "
          "bytes) for an MoE"),
       "888.88B (88.88B act.)"},
      {"mfu", tr("MFU"),
       tr("Matmul-busy fraction of the step: matmul s ÷ total s (the MFU budget)"), "100.0 %"},
      {"hfu", tr("HFU"),
       tr("MFU × recompute factor: recomputation counted as useful work; HFU ≥ MFU always"),
       "over 100 % (MFU × 2.00)"},
      {"lever", tr("Biggest lever"),
       tr("The non-matmul unit that costs the matmul unit the most idle time"),
       "optimizer (88.8 % of step)"},
      // column 3: the latency napkin
      {"turn", tr("Turn"),
       tr("Prefill + decode + overhead on the scenario's chip count, and whether it meets the "
          "budget"),
       "88.8 ms on 100,000 chips \u2717"},
      {"chips_budget", tr("For budget"),
       tr("Smallest power-of-two slice whose turn meets the latency budget; none when no slice "
          "up to the largest does"),
       "none (budget \u2264 overhead)"},
      {"chips_hold", tr("To hold"),
       tr("ceil(N_total × bytes/param ÷ HBM per chip): chips needed just to hold the weights"),
       "88,888 chips (888.8 TB)"},
      {"deploy", tr("Deploy"),
       tr("max(chips for the budget, chips to hold the weights), and which one binds"),
       "88,888 chips (latency-bound)"},
  };
  int i = 0;
  for (const auto& r : rows) {
    auto* name = new QLabel(r.name + QLatin1Char(':'), ui.readoutBox);
    name->setToolTip(r.tip);
    auto* value = new QLabel(ui.readoutBox);
    value->setObjectName(QStringLiteral("readout_") + QLatin1String(r.key));
    value->setTextInteractionFlags(Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard);
    value->setToolTip(r.tip);
    value->setAccessibleName(r.name);
    QFont f = value->font();
    f.setBold(true);
    value->setFont(f);
    const QFontMetrics fm(f);
    value->setFixedSize(fm.horizontalAdvance(QString::fromUtf8(r.widest)) + 6, fm.height() + 2);
    const int row = i % 4, col = (i / 4) * 2;
    ui.readoutGrid->addWidget(name, row, col);
    ui.readoutGrid->addWidget(value, row, col + 1);
    readouts_.insert(QLatin1String(r.key), value);
    ++i;
  }
  ui.readoutGrid->setColumnStretch(1, 1);
  ui.readoutGrid->setColumnStretch(3, 1);
  ui.readoutGrid->setColumnStretch(5, 1);
  message_label_ = new QLabel(ui.readoutBox);
  message_label_->setObjectName(QStringLiteral("message"));
  message_label_->setStyleSheet(QStringLiteral("color: #b71c1c;"));
  message_label_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  message_label_->setFixedHeight(message_label_->fontMetrics().height() + 2);
  message_label_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);
  ui.readoutGrid->addWidget(message_label_, 4, 0, 1, 6);
}

void RooflinePanel::buildRooflineTab() {
  QGridLayout* grid = ui.rooflineGrid;
  // Strip: overlay chips and the matmul side.
  auto* strip = new QWidget(ui.rooflineTab);
  auto* h = new QHBoxLayout(strip);
  h->setContentsMargins(4, 0, 4, 0);
  h->setSpacing(8);
  auto* overlay_label = new QLabel(tr("Overlay:"), strip);
  overlay_label->setToolTip(tr("Draw other chips' rooflines from the hardware table"));
  h->addWidget(overlay_label);
  for (const Chip& c : hardware_table()) {
    const QString name = qs(c.name);
    auto* box = new QCheckBox(name, strip);
    box->setObjectName(QStringLiteral("overlay_") + name);
    box->setToolTip(tr("Overlay the %1 roofline: peak %2 FLOP/s, %3/s HBM, ridge %4")
                        .arg(name, fmtSi(c.peak_flops_per_s), fmtBytes(c.hbm_bytes_per_s),
                             intensityText(ridge_point_flops_per_byte(c))));
    h->addWidget(box);
    overlay_boxes_.insert(name, box);
    const std::string chip_name(c.name);
    connect(box, &QCheckBox::toggled, this, [this, chip_name](bool on) {
      auto& v = local_.overlays;
      v.erase(std::remove(v.begin(), v.end(), chip_name), v.end());
      if (on) v.push_back(chip_name);
      refresh();
    });
  }
  h->addStretch(1);
  grid->addWidget(strip, 0, 0, 1, 2);

  // The roofline.
  roofline_plot_ = new PlotWidget(tr("Roofline: where the operations sit"), ui.rooflineTab);
  roofline_plot_->setObjectName(QStringLiteral("plot_roofline"));
  roofline_plot_->setXAxis(tr("arithmetic intensity (FLOP/byte)"), true, fmtSi);
  roofline_plot_->setYAxis(tr("attainable FLOP/s"), true, fmtSi);
  {
    QCPGraph* main = roofline_plot_->addGraph();
    main->setPen(pen(kBlue, 2.4));
    std::size_t i = 0;
    for (const Chip& c : hardware_table()) {
      QCPGraph* o = roofline_plot_->addGraph();
      o->setName(qs(c.name));
      o->setPen(pen(kOverlay[i % 8], 1.3, Qt::DashLine));
      o->setVisible(false);
      o->removeFromLegend();
      overlay_graphs_.push_back(o);
      ++i;
    }
    const QCPScatterStyle::ScatterShape shapes[] = {
        QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle, QCPScatterStyle::ssCircle,
        QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangleInverted};
    for (int k = 0; k < 5; ++k) {
      QCPGraph* g = roofline_plot_->addGraph();
      g->setLineStyle(QCPGraph::lsNone);
      g->setScatterStyle(QCPScatterStyle(shapes[k], kDark, Qt::white, 9));
      g->removeFromLegend();
      op_graphs_.push_back(g);
      QCPItemText* t = note(roofline_plot_, Qt::AlignHCenter | Qt::AlignTop, 7.5);
      t->setTextAlignment(Qt::AlignHCenter);
      op_labels_.push_back(t);
      auto* a = new QCPItemLine(roofline_plot_);
      a->setPen(pen(QColor(110, 110, 110), 0.9));
      a->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 6, 8));
      a->start->setType(QCPItemPosition::ptAbsolute);
      a->start->setParentAnchor(t->top);
      a->start->setCoords(0, 0);
      op_arrows_.push_back(a);
    }
    ridge_line_ = vline(roofline_plot_, pen(kBlue, 1.0, Qt::DotLine));
    ridge_label_ = note(roofline_plot_, Qt::AlignLeft | Qt::AlignTop);
    ridge_label_->position->setTypeX(QCPItemPosition::ptPlotCoords);
    roofline_plot_->showLegendBelow(5);
  }
  // Decode intensity vs batch.
  decode_plot_ = new PlotWidget(tr("The decode wall"), ui.rooflineTab);
  decode_plot_->setObjectName(QStringLiteral("plot_decode"));
  decode_plot_->setXAxis(tr("decode batch (requests)"), true, fmtSi);
  decode_plot_->setYAxis(tr("intensity (FLOP/byte)"), true, fmtSi);
  decode_plot_->setHoverFormat(fmtSi, fmtNumber);
  {
    QCPGraph* g = decode_plot_->addGraph();
    g->setName(tr("decode intensity"));
    g->setPen(pen(kBlue, 2.0));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kBlue, Qt::white, 5));
    QCPGraph* r = decode_plot_->addGraph();
    r->setPen(pen(kRed, 1.5, Qt::DashLine));
    decode_plot_->yAxis2->setVisible(true);
    decode_plot_->yAxis2->setLabel(tr("KV share of bytes (%)"));
    decode_plot_->yAxis2->setRange(0, 105);
    decode_plot_->yAxis2->setTickLabelFont(decode_plot_->yAxis->tickLabelFont());
    decode_plot_->yAxis2->setLabelFont(decode_plot_->yAxis->labelFont());
    QCPGraph* kv = decode_plot_->addGraph(decode_plot_->xAxis, decode_plot_->yAxis2);
    kv->setName(tr("KV share of bytes (%)"));
    kv->setPen(pen(kOrange, 1.6));
    kv->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, kOrange, Qt::white, 4));
    decode_plot_->xAxis->setRange(0.8, 1300);
    batch_line_ = vline(decode_plot_, pen(kGreen, 1.2, Qt::DotLine));
    decode_label_ = note(decode_plot_, Qt::AlignRight | Qt::AlignBottom);
    decode_label_->position->setCoords(0.98, 0.97);
    decode_plot_->showLegendBelow(2);
  }
  // The placed operations as a table.
  ops_table_ = new QTableWidget(5, 7, ui.rooflineTab);
  ops_table_->setObjectName(QStringLiteral("operations"));
  ops_table_->setHorizontalHeaderLabels({tr("Operation"), tr("FLOPs"), tr("Bytes"), tr("Intensity"),
                                         tr("Attainable"), tr("of peak"), tr("Verdict: lever")});
  ops_table_->verticalHeader()->setVisible(false);
  ops_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  ops_table_->setSelectionMode(QAbstractItemView::ContiguousSelection);
  ops_table_->setFocusPolicy(Qt::NoFocus);
  ops_table_->horizontalHeader()->setStretchLastSection(true);
  ops_table_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  ops_table_->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  QFont tf = ops_table_->font();
  tf.setPointSizeF(tf.pointSizeF() * 0.92);
  ops_table_->setFont(tf);
  const int rh = QFontMetrics(tf).height() + 4;
  ops_table_->verticalHeader()->setDefaultSectionSize(rh);
  ops_table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  const int widths[] = {150, 80, 80, 100, 90, 62};
  for (int c = 0; c < 6; ++c) ops_table_->setColumnWidth(c, widths[c]);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 7; ++c) {
      auto* item = new QTableWidgetItem;
      item->setTextAlignment(c == 0 || c == 6 ? Qt::AlignLeft | Qt::AlignVCenter
                                              : Qt::AlignRight | Qt::AlignVCenter);
      ops_table_->setItem(r, c, item);
    }
  ops_table_->setFixedHeight(ops_table_->horizontalHeader()->sizeHint().height() + 5 * rh + 4);
  ops_table_->setToolTip(
      tr("The placed operations on the chosen chip: intensity = FLOPs ÷ "
         "bytes; attainable = min(peak, bandwidth × intensity)."));

  grid->addWidget(roofline_plot_, 1, 0);
  grid->addWidget(decode_plot_, 1, 1);
  grid->addWidget(ops_table_, 2, 0, 1, 2);
  grid->setColumnStretch(0, 3);
  grid->setColumnStretch(1, 2);
  grid->setRowStretch(1, 1);
  plots_.push_back(roofline_plot_);
  plots_.push_back(decode_plot_);
}

void RooflinePanel::buildMfuTab() {
  QGridLayout* grid = ui.mfuGrid;
  auto* left = new QWidget(ui.mfuTab);
  auto* lv = new QVBoxLayout(left);
  lv->setContentsMargins(0, 0, 0, 0);
  QVBoxLayout* g = addGroup(lv, left, tr("Step wall-clock by busy unit (this panel)"));
  using S = SliderSpin::Scale;
  const struct {
    const char* key;
    QString label;
    QString tip;
    double MfuBudgetInputs::*member;
    double min;
  } units[] = {
      {"matmul_s", tr("Matmul"), tr("Seconds the matmul units run model matmuls (s)"),
       &MfuBudgetInputs::matmul_seconds, 1},
      {"vector_s", tr("Vector"),
       tr("Seconds of vector work: norms, activations, softmax (s); the matmul unit idles"),
       &MfuBudgetInputs::vector_seconds, 0},
      {"memory_s", tr("Memory"),
       tr("Seconds moving activations to and from HBM, not overlapped (s)"),
       &MfuBudgetInputs::memory_seconds, 0},
      {"comms_s", tr("Comms"), tr("Seconds in exposed collectives (s)"),
       &MfuBudgetInputs::comms_seconds, 0},
      {"optimizer_s", tr("Optimizer"), tr("Seconds in the optimizer step (s)"),
       &MfuBudgetInputs::optimizer_seconds, 0},
  };
  for (const auto& u : units) {
    double MfuBudgetInputs::*member = u.member;
    addLocal(
        g, QLatin1String(u.key),
        {u.label, u.min, 500, S::linear, 0, false, false, 1, tr("s"),
         u.tip + tr(". MFU = matmul ÷ (matmul + vector + memory + comms + optimizer).")},
        [member](const Local& l) { return l.mfu.*member; },
        [member](Local& l, double v) { l.mfu.*member = v; });
  }
  addLocal(
      g, QStringLiteral("recompute"),
      {tr("Recompute"), 1.0, 2.0, S::linear, 2, false, false, 1, QStringLiteral("\u00d7"),
       tr("Hardware FLOPs per model FLOP (factor): 8/6 ≈ 1.33 with full activation "
          "checkpointing, 1 without. HFU = MFU × this.")},
      [](const Local& l) { return l.recompute; }, [](Local& l, double v) { l.recompute = v; });
  agenda_ = new QTextBrowser(left);
  agenda_->setObjectName(QStringLiteral("agenda"));
  agenda_->setOpenLinks(false);
  agenda_->setFrameShape(QFrame::StyledPanel);
  agenda_->document()->setDocumentMargin(4);
  agenda_->setAccessibleName(tr("The agenda"));
  lv->addWidget(agenda_, 1);
  left->setFixedWidth(330);

  mfu_plot_ = new PlotWidget(tr("MFU budget: the step, by busy unit"), ui.mfuTab);
  mfu_plot_->setObjectName(QStringLiteral("plot_mfu"));
  mfu_plot_->setYAxis(tr("seconds of the step (s)"), false, fmtNumber);
  mfu_plot_->setHoverFormat(
      [](double v) { return v < 0.5 ? tr("this step") : tr("lever removed"); },
      [](double v) { return fmtNumber(v) + QStringLiteral(" s"); });
  mfu_plot_->xAxis->setLabel(tr("the step as measured, and with its biggest lever removed"));
  mfu_plot_->xAxis->setRange(-0.6, 1.6);
  const QString names[] = {tr("matmul"), tr("vector"), tr("memory"), tr("comms"), tr("optimizer")};
  QCPBars* below = nullptr;
  for (int k = 0; k < 5; ++k) {
    auto* b = new QCPBars(mfu_plot_->xAxis, mfu_plot_->yAxis);
    b->setName(names[k]);
    b->setBrush(kUnit[k]);
    b->setPen(QPen(kUnit[k].darker(130)));
    b->setWidth(0.5);
    if (below) b->moveAbove(below);
    below = b;
    mfu_bars_.push_back(b);
  }
  for (int k = 0; k < 10; ++k) {
    auto* t = new QCPItemText(mfu_plot_);
    t->setPositionAlignment(Qt::AlignCenter);
    QFont f = mfu_plot_->font();
    f.setPointSizeF(8);
    f.setBold(true);
    t->setFont(f);
    t->setColor(Qt::white);
    mfu_labels_.push_back(t);
  }
  mfu_note_ = note(mfu_plot_, Qt::AlignRight | Qt::AlignTop, 8.5);
  mfu_note_->position->setCoords(0.985, 0.02);
  mfu_plot_->showLegendBelow(5);
  grid->addWidget(left, 0, 0);
  grid->addWidget(mfu_plot_, 0, 1);
  grid->setColumnStretch(1, 1);
  plots_.push_back(mfu_plot_);
}

void RooflinePanel::buildLatencyTab() {
  QGridLayout* grid = ui.latencyGrid;
  latency_plot_ = new PlotWidget(tr("The latency napkin: one turn vs chips"), ui.latencyTab);
  latency_plot_->setObjectName(QStringLiteral("plot_latency"));
  latency_plot_->setYAxis(tr("seconds per turn (s)"), false, fmtNumber);
  latency_plot_->setHoverFormat(
      [](double v) {
        return qs(format_grouped(std::ldexp(1.0, static_cast<int>(std::lround(v))), 0));
      },
      fmtSeconds);
  {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int i = 0; i <= 10; ++i) ticker->addTick(i, QString::number(1 << i));
    latency_plot_->xAxis->setTicker(ticker);
    latency_plot_->xAxis->setLabel(tr("chips (power-of-two slice)"));
    latency_plot_->xAxis->setRange(-0.6, 10.6);
    const struct {
      QString name;
      QColor c;
    } parts[] = {{tr("overhead"), kGray}, {tr("prefill"), kBlue}, {tr("decode"), kOrange}};
    QCPBars* below = nullptr;
    for (const auto& p : parts) {
      auto* b = new QCPBars(latency_plot_->xAxis, latency_plot_->yAxis);
      b->setName(p.name);
      b->setBrush(p.c);
      b->setPen(QPen(p.c.darker(130)));
      b->setWidth(0.62);
      if (below) b->moveAbove(below);
      below = b;
      latency_bars_.push_back(b);
    }
    QCPGraph* budget = latency_plot_->addGraph();
    budget->setPen(pen(kRed, 1.8, Qt::DashLine));
    for (int i = 0; i <= 10; ++i) {
      auto* t = new QCPItemText(latency_plot_);
      QFont f = latency_plot_->font();
      f.setPointSizeF(7);
      t->setFont(f);
      t->setColor(kDark);
      latency_totals_.push_back(t);
    }
    need_line_ = vline(latency_plot_, pen(kGreen, 1.6, Qt::DashDotLine));
    hold_line_ = vline(latency_plot_, pen(kPurple, 1.4, Qt::DotLine));
    // The verdict as a subtitle: bars can reach the top, so it goes above the axes.
    latency_plot_->plotLayout()->insertRow(1);
    QFont sf = latency_plot_->font();
    sf.setPointSizeF(8.5);
    latency_note_ = new QCPTextElement(latency_plot_, QString(), sf);
    latency_note_->setMargins(QMargins(4, 0, 4, 2));
    latency_plot_->plotLayout()->addElement(1, 0, latency_note_);
    latency_plot_->showLegendBelow(4);
  }
  sizes_plot_ = new PlotWidget(tr("The answer is a smaller model"), ui.latencyTab);
  sizes_plot_->setObjectName(QStringLiteral("plot_sizes"));
  sizes_plot_->setXAxis(tr("model parameters N"), true, fmtSi);
  sizes_plot_->setYAxis(tr("chips"), true, fmtSi);
  {
    QCPGraph* need = sizes_plot_->addGraph();
    need->setName(tr("chips for the budget"));
    need->setPen(pen(kGreen, 2.0));
    need->setLineStyle(QCPGraph::lsStepCenter);
    need->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, kGreen, Qt::white, 5));
    QCPGraph* hold = sizes_plot_->addGraph();
    hold->setName(tr("chips to hold weights"));
    hold->setPen(pen(kPurple, 1.6, Qt::DashLine));
    QCPGraph* none = sizes_plot_->addGraph();
    none->setName(tr("none: no slice meets it"));
    none->setLineStyle(QCPGraph::lsNone);
    none->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(kRed, 2), Qt::NoBrush, 8));
    sizes_plot_->xAxis->setRange(0.8e9, 1.25e12);
    model_line_ = vline(sizes_plot_, pen(kBlue, 1.2, Qt::DotLine));
    sizes_note_ = note(sizes_plot_, Qt::AlignLeft | Qt::AlignTop, 8.5);
    sizes_note_->position->setCoords(0.02, 0.02);
    sizes_plot_->showLegendBelow(3);
  }
  grid->addWidget(latency_plot_, 0, 0);
  grid->addWidget(sizes_plot_, 0, 1);
  grid->setColumnStretch(0, 1);
  grid->setColumnStretch(1, 1);
  plots_.push_back(latency_plot_);
  plots_.push_back(sizes_plot_);
}

void RooflinePanel::buildCodesignTab() {
  QGridLayout* grid = ui.codesignGrid;
  tile_plot_ = new PlotWidget(tr("Tile efficiency vs dimension"), ui.codesignTab);
  tile_plot_->setObjectName(QStringLiteral("plot_tile"));
  tile_plot_->setXAxis(tr("matmul dimension (elements)"), false, fmtSi);
  tile_plot_->setYAxis(tr("useful fraction of the padded tile"), false, fmtPercent);
  {
    QCPGraph* g = tile_plot_->addGraph();
    g->setName(tr("efficiency"));
    g->setPen(pen(kBlue, 1.4));
    QCPGraph* worst = tile_plot_->addGraph();
    worst->setName(tr("tile + 1"));
    worst->setLineStyle(QCPGraph::lsNone);
    worst->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kRed, Qt::white, 7));
    tile_plot_->yAxis->setRange(0, 1.08);
    tile_label_ = note(tile_plot_, Qt::AlignRight | Qt::AlignBottom);
    tile_label_->position->setCoords(0.98, 0.97);
    tile_plot_->showLegendBelow(2);
  }
  kv_plot_ = new PlotWidget(tr("KV heads: cache and concurrency"), ui.codesignTab);
  kv_plot_->setObjectName(QStringLiteral("plot_kv"));
  kv_plot_->setXAxis(tr("KV heads"), true, fmtSi);
  kv_plot_->setYAxis(tr("KV cache per request (GB)"), true, fmtSi);
  kv_plot_->setHoverFormat(fmtNumber, fmtNumber);
  {
    QCPGraph* kv = kv_plot_->addGraph();
    kv->setName(tr("KV per request (GB)"));
    kv->setPen(pen(kBlue, 2.0));
    kv->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kBlue, Qt::white, 6));
    kv_plot_->yAxis2->setVisible(true);
    kv_plot_->yAxis2->setLabel(tr("concurrent requests"));
    kv_plot_->yAxis2->setTickLabelFont(kv_plot_->yAxis->tickLabelFont());
    kv_plot_->yAxis2->setLabelFont(kv_plot_->yAxis->labelFont());
    QCPGraph* conc = kv_plot_->addGraph(kv_plot_->xAxis, kv_plot_->yAxis2);
    conc->setName(tr("concurrent requests"));
    conc->setPen(pen(kGreen, 2.0));
    conc->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, kGreen, Qt::white, 6));
    kv_line_ = vline(kv_plot_, pen(kOrange, 1.2, Qt::DotLine));
    kv_note_ = note(kv_plot_, Qt::AlignHCenter | Qt::AlignTop);
    kv_note_->position->setCoords(0.5, 0.02);
    kv_plot_->showLegendBelow(2);
  }
  depth_plot_ = new PlotWidget(tr("Depth vs width at fixed N"), ui.codesignTab);
  depth_plot_->setObjectName(QStringLiteral("plot_depth"));
  depth_plot_->setXAxis(tr("layers L (d_model = \u221a(N / 12L))"), false, fmtSi);
  depth_plot_->setYAxis(tr("decode step (ms)"), false, fmtNumber);
  depth_plot_->setHoverFormat(fmtNumber, fmtNumber);
  {
    QCPGraph* step = depth_plot_->addGraph();
    step->setName(tr("decode step (ms)"));
    step->setPen(pen(kBlue, 2.0));
    step->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kBlue, Qt::white, 6));
    QCPGraph* serial = depth_plot_->addGraph();
    serial->setName(tr("serial part (ms)"));
    serial->setPen(pen(kRed, 1.4, Qt::DashLine));
    depth_plot_->yAxis2->setVisible(true);
    depth_plot_->yAxis2->setLabel(tr("tile efficiency of d_model (%)"));
    depth_plot_->yAxis2->setTickLabelFont(depth_plot_->yAxis->tickLabelFont());
    depth_plot_->yAxis2->setLabelFont(depth_plot_->yAxis->labelFont());
    depth_plot_->yAxis2->setRange(0, 125);
    QCPGraph* eff = depth_plot_->addGraph(depth_plot_->xAxis, depth_plot_->yAxis2);
    eff->setName(tr("tile efficiency (%)"));
    eff->setPen(pen(kGreen, 1.6));
    eff->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssSquare, kGreen, Qt::white, 5));
    depth_line_ = vline(depth_plot_, pen(kOrange, 1.2, Qt::DotLine));
    depth_note_ = note(depth_plot_, Qt::AlignLeft | Qt::AlignTop);
    depth_note_->position->setCoords(0.02, 0.02);
    depth_plot_->showLegendBelow(3);
  }
  // Controls and the scenario's dimensions.
  auto* box = new QGroupBox(tr("Co-design knobs (this panel)"), ui.codesignTab);
  auto* v = new QVBoxLayout(box);
  v->setSpacing(3);
  v->setContentsMargins(6, 4, 6, 4);
  QComboBox* tile = addCombo(v, QStringLiteral("tile"), tr("Tile side"),
                             tr("Matmul tile side (elements): a dimension is padded up to a "
                                "multiple; efficiency = dim ÷ padded dim. 128 on TPU MXUs and "
                                "typical GPU tensor-core kernels."));
  for (int t : {32, 64, 128, 256}) tile->addItem(QString::number(t), t);
  connect(tile, &QComboBox::activated, this, [this, tile](int i) {
    local_.tile = tile->itemData(i).toInt();
    refresh();
  });
  addLocal(
      v, QStringLiteral("layer_serial"),
      {tr("Per-layer cost"), 0, 100e-6, SliderSpin::Scale::linear, 1, false, false, 1e6,
       tr("\u00b5s"),
       tr("Serial launch/sync time per layer per decode step (µs): deeper models pay it L "
          "times per token; the bandwidth term is the same at every depth.")},
      [](const Local& l) { return l.per_layer_serial_seconds; },
      [](Local& l, double x) { l.per_layer_serial_seconds = x; });
  tile_note_ = new QLabel(box);
  tile_note_->setObjectName(QStringLiteral("tile_note"));
  tile_note_->setWordWrap(true);
  tile_note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  tile_note_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  tile_note_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
  v->addWidget(tile_note_, 1);

  grid->addWidget(tile_plot_, 0, 0);
  grid->addWidget(kv_plot_, 0, 1);
  grid->addWidget(depth_plot_, 1, 0);
  grid->addWidget(box, 1, 1);
  grid->setColumnStretch(0, 1);
  grid->setColumnStretch(1, 1);
  grid->setRowStretch(0, 1);
  grid->setRowStretch(1, 1);
  plots_.push_back(tile_plot_);
  plots_.push_back(kv_plot_);
  plots_.push_back(depth_plot_);
}

// ----------------------------------------------------------------- computing

RooflineScenario RooflinePanel::rooflineScenario() const {
  const Scenario& s = model_->scenario();
  RooflineScenario sc;
  sc.chip = s.chip;
  for (const std::string& o : local_.overlays)
    if (o != s.chip) sc.overlay_chips.push_back(o);
  sc.shape = s.shape;
  sc.operations.matmul_dim = local_.matmul_dim;
  sc.operations.prompt_tokens = s.serving.prompt_tokens;
  sc.operations.decode_batch = s.serving.batch;
  sc.operations.context_tokens = s.serving.context_len;
  sc.operations.bytes_per_param = s.serving.bytes_per_param();
  sc.operations.bytes_per_elem = s.serving.kv_bytes_per_element();
  sc.mfu = local_.mfu;
  sc.recompute = local_.recompute;
  sc.turn.n_chips = s.n_chips;
  sc.turn.decode_tokens = s.serving.decode_tokens;
  sc.turn.overhead_seconds = s.serving.overhead_seconds;
  sc.turn.budget_seconds = s.serving.latency_budget_seconds;
  sc.turn.prefill_mfu = local_.prefill_mfu;
  sc.turn.decode_bandwidth_efficiency = local_.bandwidth_efficiency;
  sc.turn.per_step_floor_seconds = local_.step_floor_seconds;
  sc.turn.max_chips = local_.max_chips;
  sc.max_chips_plotted = 1024;
  sc.max_batch = 1024;
  sc.tile = local_.tile;
  sc.tile_dim_lo = 64;
  sc.tile_dim_hi = 1024;
  sc.kv.chip = s.chip;
  sc.kv.n_chips = 8;  // one serving node, like the Budget panel's KV read-out
  sc.depth_width.per_layer_serial_seconds = local_.per_layer_serial_seconds;
  return sc;
}

void RooflinePanel::compute() {
  RooflineScenario sc = rooflineScenario();
  message_.clear();
  try {
    data_ = roofline_panel(sc);
    // The budget is impossible, not merely expensive: the view draws
    // everything else and the panel states it plainly.
    budget_impossible_ = data_.serving.verdict == LatencyVerdict::below_overhead;
    if (budget_impossible_)
      message_ = tr("The latency budget (%1) is at or below the fixed overhead (%2): no amount "
                    "of hardware meets it. Raise the budget or cut the overhead.")
                     .arg(fmtSeconds(sc.turn.budget_seconds), fmtSeconds(sc.turn.overhead_seconds));
    scenario_ = sc;
    without_lever_ = data_.mfu_without_lever;
  } catch (const std::exception& e) {
    // Keep the last valid picture and say why the new inputs were refused.
    message_ = tr("Cannot compute these inputs: %1").arg(QString::fromUtf8(e.what()));
  }
}

void RooflinePanel::syncControls(const Scenario& s) {
  for (const Binding& b : bindings_) b.widget->setValue(b.get());
  QComboBox* chip = combos_[QStringLiteral("chip")];
  QComboBox* prec = combos_[QStringLiteral("precision")];
  QComboBox* tile = combos_[QStringLiteral("tile")];
  const QSignalBlocker b1(chip), b2(prec), b3(tile);
  chip->setCurrentText(qs(s.chip));
  const int idx = prec->findData(static_cast<int>(s.serving.weight_dtype));
  prec->setCurrentIndex(idx);
  tile->setCurrentIndex(tile->findData(static_cast<int>(local_.tile)));
  const QString current = qs(s.chip);
  for (auto it = overlay_boxes_.cbegin(); it != overlay_boxes_.cend(); ++it) {
    const QSignalBlocker b(it.value());
    const bool is_current = it.key() == current;
    it.value()->setEnabled(!is_current);
    const std::string name = it.key().toStdString();
    it.value()->setChecked(!is_current && std::find(local_.overlays.begin(), local_.overlays.end(),
                                                    name) != local_.overlays.end());
  }
}

void RooflinePanel::refresh() {
  syncControls(model_->scenario());
  compute();  // the one model call (roofline_panel) and the lever-removed what-if
  updateReadouts();
  updatePlots();
}

// ------------------------------------------------------------------ read-outs

void RooflinePanel::updateReadouts() {
  const RooflineScenario& sc = scenario_;
  const RooflinePanelData& d = data_;
  auto set = [this](const char* key, const QString& text) {
    QLabel* l = readouts_[QLatin1String(key)];
    if (l->text() != text) l->setText(text);
  };
  set("ridge", intensityText(d.ridge_flops_per_byte));
  const PlacedOperation* prefill = nullptr;
  const PlacedOperation* decode = nullptr;
  for (const PlacedOperation& op : d.operations) {
    if (op.name == "prefill") prefill = &op;
    if (op.name == "decode") decode = &op;
  }
  if (prefill)
    set("prefill",
        intensityText(prefill->intensity) + QStringLiteral(", ") + boundText(prefill->bound));
  if (decode) {
    set("decode",
        intensityText(decode->intensity) + QStringLiteral(", ") + boundText(decode->bound));
    const double share = d.decode_at_batch.kv_share_of_bytes;
    set("kv_share",
        tr("%1 of bytes at B=%2")
            .arg(qs(format_percent(share)), qs(format_grouped(sc.operations.decode_batch))));
  }
  const ParamCount p = count_params(sc.shape);
  set("model", sc.shape.is_moe()
                   ? tr("%1 (%2 act.)")
                         .arg(qs(format_count(static_cast<double>(p.total), 2)),
                              qs(format_count(static_cast<double>(p.active), 2)))
                   : tr("%1 params").arg(qs(format_count(static_cast<double>(p.total), 2))));
  const MfuBudget& m = d.mfu_budget;
  set("mfu", qs(format_percent(m.mfu)));
  const double hfu = d.hfu;
  set("hfu", hfu <= 1.0 + 1e-12
                 ? qs(format_percent(hfu)) + tr(" (MFU \u00d7 %1)").arg(d.hfu_over_mfu, 0, 'f', 2)
                 : tr("over 100 % (MFU \u00d7 %1)").arg(d.hfu_over_mfu, 0, 'f', 2));
  readouts_[QStringLiteral("hfu")]->setStyleSheet(
      hfu <= 1.0 + 1e-12 ? QString() : QStringLiteral("color:#b71c1c"));
  const double lever_fraction = m.biggest_lever_fraction;
  set("lever", m.biggest_lever == MfuLever::none
                   ? tr("none (pure matmul)")
                   : tr("%1 (%2 of step)")
                         .arg(qs(to_string(m.biggest_lever)), qs(format_percent(lever_fraction))));
  const TurnLatency& t = d.turn;
  set("turn", tr("%1 on %2 %3")
                  .arg(fmtSeconds(t.total_seconds), chipsText(t.n_chips),
                       t.meets_budget ? QStringLiteral("\u2713") : QStringLiteral("\u2717")));
  readouts_[QStringLiteral("turn")]->setStyleSheet(
      t.meets_budget ? QStringLiteral("color:#1b5e20") : QStringLiteral("color:#b71c1c"));
  QString need;
  if (budget_impossible_)
    need = tr("none (budget \u2264 overhead)");
  else if (d.chips_for_budget)
    need = chipsText(*d.chips_for_budget);
  else
    need = tr("none (\u2264 %1)").arg(chipsText(sc.turn.max_chips));
  set("chips_budget", need);
  readouts_[QStringLiteral("chips_budget")]->setStyleSheet(
      d.chips_for_budget ? QString() : QStringLiteral("color:#b71c1c"));
  set("chips_hold", tr("%1 (%2)").arg(chipsText(d.chips_to_hold_weights),
                                      qs(format_bytes(d.resident_weight_bytes))));
  if (d.serving.deploy_chips) {
    set("deploy", tr("%1 (%2-bound)")
                      .arg(chipsText(*d.serving.deploy_chips),
                           d.serving.deploy_latency_bound ? tr("latency") : tr("memory")));
  } else {
    set("deploy", budget_impossible_ ? tr("none: cut the overhead") : tr("none: smaller model"));
  }
  if (message_label_->text() != message_) {
    message_label_->setText(message_);
    message_label_->setToolTip(message_);
  }

  // The operations table.
  for (int r = 0; r < 5; ++r) {
    const bool have = r < static_cast<int>(d.operations.size());
    const PlacedOperation* op = have ? &d.operations[static_cast<std::size_t>(r)] : nullptr;
    const QString cells[] = {
        op ? qs(opTitle(*op, sc.operations, sc.shape)) : QString(),
        op ? fmtSci(op->flops) : QString(),
        op ? fmtBytes(op->bytes) : QString(),
        op ? intensityText(op->intensity) : QString(),
        op ? fmtSi(op->attainable_flops_per_s) + QStringLiteral(" FLOP/s") : QString(),
        op ? qs(format_percent(op->fraction_of_peak)) : QString(),
        op ? boundText(op->bound) + QStringLiteral(": ") + qs(lever(op->bound)) : QString()};
    for (int c = 0; c < 7; ++c) {
      QTableWidgetItem* item = ops_table_->item(r, c);
      if (item->text() != cells[c]) item->setText(cells[c]);
      if (c == 6 && op) item->setForeground(op->bound == Bound::memory ? kRed : kGreen.darker(130));
    }
  }

  // The agenda: the step's components, largest idle cost first.
  struct Row {
    QString name;
    double fraction;
    QString action;
  };
  auto row = [this](const MfuAgendaItem& item) -> Row {
    switch (item.lever) {
      case MfuLever::vector:
        return {tr("vector"), item.fraction,
                tr("fuse norms/activations into the matmul epilogues")};
      case MfuLever::memory:
        return {tr("memory"), item.fraction,
                tr("fuse kernels, keep activations on chip, cut bytes")};
      case MfuLever::comms:
        return {tr("comms"), item.fraction, tr("overlap collectives with compute, reshard")};
      case MfuLever::optimizer:
        return {tr("optimizer"), item.fraction, tr("fused / sharded optimizer step")};
      case MfuLever::none: break;
    }
    return {QString(), item.fraction, QString()};
  };
  std::vector<Row> rows;
  for (const MfuAgendaItem& item : d.mfu_agenda) rows.push_back(row(item));
  QString html = tr("<p style='margin:0'><b>MFU %1 is an identity, not a grade.</b> The rest of "
                    "the step is the agenda:</p><ol style='margin:2px 0 0 -20px'>")
                     .arg(qs(format_percent(m.mfu)));
  for (const Row& r : rows)
    html += QStringLiteral("<li><b>%1</b> %2: %3</li>")
                .arg(r.name, qs(format_percent(r.fraction)), r.action.toHtmlEscaped());
  html += QStringLiteral("</ol>");
  html += tr("<p style='margin:2px 0 0 0'>Removing the biggest lever lifts MFU to <b>%1</b>. "
             "HFU counts recompute (× %2) as useful work and is always ≥ MFU: ask which one a "
             "number is.</p>")
              .arg(qs(format_percent(without_lever_.mfu)))
              .arg(d.hfu_over_mfu, 0, 'f', 2);
  if (html != agenda_html_) {
    agenda_html_ = html;
    agenda_->setHtml(html);
  }
}

bool RooflinePanel::inputsChanged(int plot, std::vector<double> inputs) {
  auto& last = plot_inputs_[static_cast<std::size_t>(plot)];
  if (last == inputs) return false;
  last = std::move(inputs);
  return true;
}

void RooflinePanel::updatePlots() {
  updateRoofline();
  updateDecode();
  updateMfu();
  updateLatency();
  updateModelSizes();
  updateCodesign();
}

void RooflinePanel::updateRoofline() {
  const RooflinePanelData& d = data_;
  const RooflineScenario& sc = scenario_;
  std::vector<double> k = key(hashKey(sc.chip), d.ridge_flops_per_byte);
  for (const std::string& o : sc.overlay_chips) k.push_back(hashKey(o));
  for (const PlacedOperation& op : d.operations) {
    k.push_back(op.flops);
    k.push_back(op.bytes);
  }
  k.push_back(static_cast<double>(sc.operations.decode_batch));
  k.push_back(static_cast<double>(sc.operations.prompt_tokens));
  k.push_back(static_cast<double>(sc.operations.context_tokens));
  if (!inputsChanged(0, std::move(k))) return;
  PlotWidget* p = roofline_plot_;
  const Chip& chip = chip_by_name(sc.chip);
  auto setRoof = [](QCPGraph* g, const std::vector<RooflineCurvePoint>& c) {
    QVector<double> x, y;
    x.reserve(static_cast<qsizetype>(c.size()));
    y.reserve(static_cast<qsizetype>(c.size()));
    for (const RooflineCurvePoint& pt : c) {
      x.push_back(pt.intensity);
      y.push_back(pt.attainable_flops_per_s);
    }
    g->setData(x, y, true);
  };
  QCPGraph* main = p->graph(0);
  setRoof(main, d.roofline);
  main->setName(tr("%1 (ridge %2)").arg(qs(sc.chip), intensityText(d.ridge_flops_per_byte)));
  double lo = d.roofline.empty() ? 1e9 : d.roofline.front().attainable_flops_per_s;
  double hi = chip.peak_flops_per_s;
  std::size_t i = 0, j = 0;
  for (const Chip& c : hardware_table()) {
    QCPGraph* g = overlay_graphs_[i++];
    const bool on = std::find(sc.overlay_chips.begin(), sc.overlay_chips.end(),
                              std::string(c.name)) != sc.overlay_chips.end();
    if (on && j < d.overlays.size()) {
      setRoof(g, d.overlays[j++]);
      g->setVisible(true);
      if (!p->legend->hasItemWithPlottable(g)) g->addToLegend();
      if (!d.overlays[j - 1].empty())
        lo = std::min(lo, d.overlays[j - 1].front().attainable_flops_per_s);
      hi = std::max(hi, c.peak_flops_per_s);
    } else {
      g->data()->clear();
      g->setVisible(false);
      g->removeFromLegend();
    }
  }
  p->xAxis->setRange(0.1, 1e5);
  p->yAxis->setRange(lo / 100, hi * 4);
  placeV(ridge_line_, d.ridge_flops_per_byte);
  ridge_label_->position->setCoords(d.ridge_flops_per_byte, 0.02);
  ridge_label_->setText(tr("ridge %1").arg(intensityText(d.ridge_flops_per_byte)));

  // Operations: points on the roof, labels in a staggered row under it.
  const double lx0 = std::log10(0.1), lx1 = std::log10(1e5);
  std::vector<std::pair<double, std::size_t>> order;
  for (std::size_t n = 0; n < d.operations.size() && n < op_graphs_.size(); ++n)
    order.push_back({(std::log10(d.operations[n].intensity) - lx0) / (lx1 - lx0), n});
  std::sort(order.begin(), order.end());
  const double gap = 0.115, left = 0.07, right = 0.93;
  for (std::size_t n = 0; n < order.size(); ++n) {
    order[n].first = std::clamp(order[n].first, left, right);
    if (n > 0) order[n].first = std::max(order[n].first, order[n - 1].first + gap);
  }
  for (std::size_t n = order.size(); n-- > 0;) {
    order[n].first =
        std::min(order[n].first, right - gap * static_cast<double>(order.size() - 1 - n));
    if (n + 1 < order.size()) order[n].first = std::min(order[n].first, order[n + 1].first - gap);
  }
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    const std::size_t n = order[rank].second;
    const PlacedOperation& op = d.operations[n];
    QCPGraph* g = op_graphs_[n];
    const QColor c = op.bound == Bound::memory ? kRed : kGreen.darker(120);
    g->setScatterStyle(QCPScatterStyle(g->scatterStyle().shape(), c, Qt::white, 9));
    g->setData({op.intensity}, {op.attainable_flops_per_s}, true);
    const QString title = qs(opTitle(op, sc.operations, sc.shape));
    g->setName(tr("%1: %2\nFLOPs: %3 · bytes: %4")
                   .arg(title, boundText(op.bound), fmtSci(op.flops), fmtBytes(op.bytes)));
    QCPItemText* t = op_labels_[n];
    t->setText(title + QLatin1Char('\n') + boundText(op.bound));
    t->setColor(c.darker(115));
    t->position->setCoords(order[rank].first, rank % 2 == 0 ? 0.76 : 0.875);
    op_arrows_[n]->end->setCoords(op.intensity, op.attainable_flops_per_s);
  }
  replot(p);
}

void RooflinePanel::updateDecode() {
  const RooflinePanelData& d = data_;
  const RooflineScenario& sc = scenario_;
  std::vector<double> k = key(hashKey(sc.chip), d.ridge_flops_per_byte,
                              static_cast<double>(sc.operations.decode_batch));
  for (const DecodeIntensityPoint& pt : d.decode_wall) {
    k.push_back(pt.intensity);
    k.push_back(pt.kv_share_of_bytes);
  }
  if (!inputsChanged(1, std::move(k)) || d.decode_wall.empty()) return;
  PlotWidget* p = decode_plot_;
  QVector<double> x, y, share;
  double lo = d.decode_wall.front().intensity;
  for (const DecodeIntensityPoint& pt : d.decode_wall) {
    x.push_back(static_cast<double>(pt.batch));
    y.push_back(pt.intensity);
    share.push_back(100.0 * pt.kv_share_of_bytes);
    lo = std::min(lo, pt.intensity);
  }
  p->graph(0)->setData(x, y, true);
  p->graph(2)->setData(x, share, true);
  const double ridge = d.ridge_flops_per_byte;
  p->graph(1)->setData({0.8, 1300}, {ridge, ridge}, true);
  p->graph(1)->setName(tr("%1 ridge %2").arg(qs(sc.chip), intensityText(ridge)));
  p->yAxis->setRange(lo / 3, ridge * 3);
  const double b = static_cast<double>(sc.operations.decode_batch);
  placeV(batch_line_, b);
  // The batch's own point (the wall is sampled at powers of two).
  const PlacedOperation* decode = nullptr;
  for (const PlacedOperation& op : d.operations)
    if (op.name == "decode") decode = &op;
  if (decode) {
    const double kv = d.decode_at_batch.kv_share_of_bytes;
    const DecodeIntensityPoint& last = d.decode_wall.back();
    decode_label_->setText(tr("B=%1: %2 of the ridge\n"
                              "KV cache: %3 of bytes\n"
                              "B=%4: still %5 of it")
                               .arg(qs(format_grouped(sc.operations.decode_batch)),
                                    qs(format_percent(d.decode_at_batch.fraction_of_ridge)),
                                    qs(format_percent(kv)), qs(format_grouped(last.batch)),
                                    qs(format_percent(last.fraction_of_ridge))));
  }
  replot(p);
}

void RooflinePanel::updateMfu() {
  const MfuBudget& m = data_.mfu_budget;
  const MfuBudgetInputs& in = scenario_.mfu;
  if (!inputsChanged(2, key(in.matmul_seconds, in.vector_seconds, in.memory_seconds,
                            in.comms_seconds, in.optimizer_seconds, data_.hfu_over_mfu)))
    return;
  PlotWidget* p = mfu_plot_;
  const MfuBudget& w = without_lever_;
  const double f0[] = {m.mfu, m.vector_fraction, m.memory_fraction, m.comms_fraction,
                       m.optimizer_fraction};
  const double f1[] = {w.mfu, w.vector_fraction, w.memory_fraction, w.comms_fraction,
                       w.optimizer_fraction};
  double base0 = 0, base1 = 0;
  for (int k = 0; k < 5; ++k) {
    const double s0 = f0[k] * m.total_seconds, s1 = f1[k] * w.total_seconds;
    mfu_bars_[static_cast<std::size_t>(k)]->setData({0, 1}, {s0, s1});
    QCPItemText* t0 = mfu_labels_[static_cast<std::size_t>(k)];
    QCPItemText* t1 = mfu_labels_[static_cast<std::size_t>(k + 5)];
    t0->position->setCoords(0, base0 + s0 / 2);
    t1->position->setCoords(1, base1 + s1 / 2);
    t0->setText(qs(format_percent(f0[k])));
    t1->setText(qs(format_percent(f1[k])));
    t0->setVisible(f0[k] >= 0.045);
    t1->setVisible(f1[k] >= 0.045);
    base0 += s0;
    base1 += s1;
  }
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  ticker->addTick(0, tr("this step\nMFU %1").arg(qs(format_percent(m.mfu))));
  ticker->addTick(1, m.biggest_lever == MfuLever::none
                         ? tr("nothing to remove\nMFU %1").arg(qs(format_percent(w.mfu)))
                         : tr("without %1\nMFU %2")
                               .arg(qs(to_string(m.biggest_lever)), qs(format_percent(w.mfu))));
  p->xAxis->setTicker(ticker);
  p->yAxis->setRange(0, m.total_seconds * 1.22);
  const double hfu = data_.hfu;
  mfu_note_->setText(tr("MFU %1 · HFU %2 (× %3)\nbiggest lever: %4")
                         .arg(qs(format_percent(m.mfu)),
                              hfu <= 1.0 + 1e-12 ? qs(format_percent(hfu)) : tr("over 100 %"))
                         .arg(data_.hfu_over_mfu, 0, 'f', 2)
                         .arg(qs(to_string(m.biggest_lever))));
  replot(p);
}

void RooflinePanel::updateLatency() {
  const RooflinePanelData& d = data_;
  const RooflineScenario& sc = scenario_;
  std::vector<double> k =
      key(sc.turn.budget_seconds, sc.turn.overhead_seconds, d.chips_for_budget.value_or(-1),
          static_cast<double>(d.chips_to_hold_weights), budget_impossible_ ? 1 : 0,
          static_cast<double>(sc.turn.max_chips));
  for (const TurnLatency& t : d.latency) {
    k.push_back(t.prefill_seconds);
    k.push_back(t.decode_seconds);
  }
  if (!inputsChanged(3, std::move(k)) || d.latency.empty()) return;
  PlotWidget* p = latency_plot_;
  QVector<double> x, over, pre, dec, budget;
  double min_total = d.latency.front().total_seconds;
  for (std::size_t i = 0; i < d.latency.size(); ++i) {
    const TurnLatency& t = d.latency[i];
    x.push_back(static_cast<double>(i));
    over.push_back(t.overhead_seconds);
    pre.push_back(t.prefill_seconds);
    dec.push_back(t.decode_seconds);
    budget.push_back(sc.turn.budget_seconds);
    min_total = std::min(min_total, t.total_seconds);
  }
  latency_bars_[0]->setData(x, over, true);
  latency_bars_[1]->setData(x, pre, true);
  latency_bars_[2]->setData(x, dec, true);
  QCPGraph* b = p->graph(0);
  b->setData(x, budget, true);
  b->setName(tr("budget %1").arg(fmtSeconds(sc.turn.budget_seconds)));
  const double ymax = std::max({sc.turn.budget_seconds * 2.2, min_total * 1.6, 0.05});
  p->yAxis->setRange(0, ymax);
  for (std::size_t i = 0; i < latency_totals_.size(); ++i) {
    QCPItemText* t = latency_totals_[i];
    if (i >= d.latency.size()) {
      t->setVisible(false);
      continue;
    }
    const double total = d.latency[i].total_seconds;
    t->setVisible(true);
    if (total > ymax * 0.9) {
      // Clipped (or nearly): the value inside the top of the bar, staggered.
      t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
      const double at = total > ymax ? ymax * (i % 2 == 0 ? 0.995 : 0.935) : total;
      t->position->setCoords(static_cast<double>(i), at);
      t->setText((total > ymax ? QStringLiteral("\u2191") : QString()) + secondsShort(total));
      t->setBrush(QColor(255, 255, 255, 225));
    } else {
      t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      t->position->setCoords(static_cast<double>(i), total);
      t->setText(secondsShort(total));
      t->setBrush(Qt::NoBrush);
    }
  }
  const double plotted_max = std::ldexp(1.0, static_cast<int>(d.latency.size()) - 1);
  const std::int64_t hold = d.chips_to_hold_weights;
  hold_line_->setVisible(static_cast<double>(hold) <= plotted_max);
  placeV(hold_line_, log2Index(static_cast<double>(hold)));
  QString text;
  if (budget_impossible_) {
    need_line_->setVisible(false);
    text = tr("budget %1 \u2264 overhead %2: no amount of hardware meets it")
               .arg(fmtSeconds(sc.turn.budget_seconds), fmtSeconds(sc.turn.overhead_seconds));
  } else if (!d.chips_for_budget) {
    need_line_->setVisible(false);
    text = tr("none: no slice up to %1 chips meets %2 (the answer is a smaller model)")
               .arg(qs(format_grouped(sc.turn.max_chips)), fmtSeconds(sc.turn.budget_seconds));
  } else {
    const std::int64_t need = *d.chips_for_budget;
    need_line_->setVisible(static_cast<double>(need) <= plotted_max);
    placeV(need_line_, log2Index(static_cast<double>(need)));
    text = static_cast<double>(need) <= plotted_max
               ? tr("%1 meet the %2 budget (dash-dot)")
                     .arg(chipsText(need), fmtSeconds(sc.turn.budget_seconds))
               : tr("%1 meet the %2 budget (off the chart)")
                     .arg(chipsText(need), fmtSeconds(sc.turn.budget_seconds));
  }
  text += QLatin1Char('\n') + tr("%1 to hold the weights (dotted)").arg(chipsText(hold));
  latency_note_->setText(text);
  latency_note_->setTextColor(d.chips_for_budget ? kDark : kRed);
  replot(p);
}

void RooflinePanel::updateModelSizes() {
  const RooflinePanelData& d = data_;
  const RooflineScenario& sc = scenario_;
  const double n_active = static_cast<double>(count_params(sc.shape).active);
  std::vector<double> k =
      key(sc.turn.budget_seconds, n_active, budget_impossible_ ? 1 : 0,
          static_cast<double>(sc.turn.max_chips), d.chips_for_budget.value_or(-1),
          static_cast<double>(d.chips_to_hold_weights));
  for (const ModelSizePoint& m : d.model_sizes) {
    k.push_back(static_cast<double>(m.chips_for_budget.value_or(-1)));
    k.push_back(static_cast<double>(m.chips_to_hold_weights));
  }
  if (!inputsChanged(4, std::move(k))) return;
  PlotWidget* p = sizes_plot_;
  QVector<double> nx, ny, hx, hy, ux, uy;
  const double top = static_cast<double>(sc.turn.max_chips) * 3;
  double ymax = 8;
  for (const ModelSizePoint& m : d.model_sizes) {
    hx.push_back(m.n_params);
    hy.push_back(static_cast<double>(m.chips_to_hold_weights));
    ymax = std::max(ymax, static_cast<double>(m.chips_to_hold_weights));
    if (m.chips_for_budget) {
      nx.push_back(m.n_params);
      ny.push_back(static_cast<double>(*m.chips_for_budget));
      ymax = std::max(ymax, static_cast<double>(*m.chips_for_budget));
    } else {
      ux.push_back(m.n_params);
      uy.push_back(top);
      ymax = std::max(ymax, top);
    }
  }
  p->graph(0)->setData(nx, ny, true);
  p->graph(0)->setName(tr("chips for the budget"));
  p->graph(1)->setData(hx, hy, true);
  p->graph(2)->setData(ux, uy, true);
  p->graph(2)->setName(
      budget_impossible_
          ? tr("none (budget \u2264 overhead)")
          : tr("none (> %1 chips)").arg(fmtSi(static_cast<double>(sc.turn.max_chips))));
  p->yAxis->setRange(0.5, ymax * 40);
  placeV(model_line_, n_active);
  QString need;
  if (budget_impossible_)
    need = tr("none");
  else if (d.chips_for_budget)
    need = chipsText(*d.chips_for_budget);
  else
    need = tr("none");
  QString text = tr("this model (%1 active): %2 for the budget,\n%3 to hold the weights")
                     .arg(fmtSi(n_active), need, chipsText(d.chips_to_hold_weights));
  // The largest N that still meets the budget on one chip and on the largest slice.
  const double largest_one = d.largest_servable.largest_on_one_chip;
  const double largest_any = d.largest_servable.largest_on_any;
  if (!budget_impossible_)
    text += QLatin1Char('\n') +
            (largest_any > 0
                 ? tr("largest that meets it: %1 (on one chip: %2)")
                       .arg(fmtSi(largest_any), largest_one > 0 ? fmtSi(largest_one) : tr("none"))
                 : tr("no size in 1B–1T meets it"));
  sizes_note_->setText(text);
  replot(p);
}

void RooflinePanel::updateCodesign() {
  const RooflinePanelData& d = data_;
  const RooflineScenario& sc = scenario_;
  const ModelShape& m = sc.shape;
  // Tile efficiency.
  if (inputsChanged(
          5, key(sc.tile, m.d_model, m.d_ff, m.d_head, m.vocab, m.effective_expert_d_ff())) &&
      !d.tiles.empty()) {
    PlotWidget* p = tile_plot_;
    QVector<double> x, y;
    for (const TilePoint& t : d.tiles) {
      x.push_back(static_cast<double>(t.dim));
      y.push_back(t.efficiency);
    }
    p->graph(0)->setData(x, y, true);
    p->graph(0)->setName(tr("tile %1").arg(sc.tile));
    const std::int64_t worst = sc.tile + 1;
    const double worst_eff = tile_efficiency(worst, sc.tile);
    if (worst >= sc.tile_dim_lo && worst <= sc.tile_dim_hi) {
      p->graph(1)->setData({static_cast<double>(worst)}, {worst_eff}, true);
      p->graph(1)->setName(tr("%1 \u2192 %2").arg(worst).arg(qs(format_percent(worst_eff))));
    } else {
      p->graph(1)->data()->clear();
    }
    p->xAxis->setRange(static_cast<double>(sc.tile_dim_lo) - 8,
                       static_cast<double>(sc.tile_dim_hi) + 8);
    tile_label_->setText(tr("%1 pads to %2: %3 of the work is real\n"
                            "a dimension should be a multiple of %4")
                             .arg(worst)
                             .arg(2 * sc.tile)
                             .arg(qs(format_percent(worst_eff)))
                             .arg(sc.tile));
    // The scenario model's own dimensions.
    QString html = tr("<b>This model's matmul dimensions</b> on a %1-wide tile:<br>").arg(sc.tile);
    const struct {
      const char* name;
      std::int64_t dim;
    } dims[] = {{"d_model", m.d_model},
                {"d_ff", m.is_moe() ? m.effective_expert_d_ff() : m.d_ff},
                {"d_head", m.d_head},
                {"vocab", m.vocab}};
    for (const auto& dm : dims) {
      const double e = tile_efficiency(dm.dim, sc.tile);
      html += QStringLiteral("%1 %2: <b style='color:%3'>%4</b><br>")
                  .arg(QLatin1String(dm.name), qs(format_grouped(dm.dim)),
                       e >= 0.999 ? QStringLiteral("#1b5e20") : QStringLiteral("#b71c1c"),
                       qs(format_percent(e)));
    }
    html += tr("<br>KV heads and depth vs width are computed for this model on one 8-chip "
               "%1 node (KV) and the scenario's %2 chips (depth).")
                .arg(qs(sc.chip).toHtmlEscaped(), qs(format_grouped(sc.turn.n_chips)));
    tile_note_->setText(html);
    replot(p);
  }
  // KV heads.
  std::vector<double> k = key(hashKey(sc.chip), m.n_kv_heads, m.n_heads);
  for (const GqaPoint& g : d.kv_heads) {
    k.push_back(static_cast<double>(g.kv_bytes_per_request));
    k.push_back(static_cast<double>(g.concurrent_requests));
  }
  if (inputsChanged(6, std::move(k)) && !d.kv_heads.empty()) {
    PlotWidget* p = kv_plot_;
    QVector<double> x, kv, conc;
    double kv_lo = 1e300, kv_hi = 0, conc_hi = 1;
    const GqaPoint* mine = nullptr;
    const GqaPoint* mha = nullptr;
    for (const GqaPoint& g : d.kv_heads) {
      x.push_back(static_cast<double>(g.n_kv_heads));
      const double gb = static_cast<double>(g.kv_bytes_per_request) / 1e9;
      kv.push_back(gb);
      conc.push_back(static_cast<double>(g.concurrent_requests));
      kv_lo = std::min(kv_lo, gb);
      kv_hi = std::max(kv_hi, gb);
      conc_hi = std::max(conc_hi, static_cast<double>(g.concurrent_requests));
      if (g.n_kv_heads == m.n_kv_heads) mine = &g;
      if (g.n_kv_heads == m.n_heads) mha = &g;
    }
    std::sort(x.begin(), x.end());  // kv_heads_sweep lists MHA first
    QVector<double> kv_sorted, conc_sorted;
    for (double h : x)
      for (const GqaPoint& g : d.kv_heads)
        if (static_cast<double>(g.n_kv_heads) == h) {
          kv_sorted.push_back(static_cast<double>(g.kv_bytes_per_request) / 1e9);
          conc_sorted.push_back(static_cast<double>(g.concurrent_requests));
        }
    p->graph(0)->setData(x, kv_sorted, true);
    p->graph(1)->setData(x, conc_sorted, true);
    p->xAxis->setRange(0.7, std::max(2.0, static_cast<double>(m.n_heads)) * 1.4);
    {
      auto ticker = QSharedPointer<QCPAxisTickerText>::create();
      for (double h : x) ticker->addTick(h, QString::number(static_cast<qlonglong>(h)));
      p->xAxis->setTicker(ticker);
      p->xAxis->setScaleType(QCPAxis::stLogarithmic);
    }
    p->yAxis->setRange(kv_lo / 3, kv_hi * 12);
    p->yAxis2->setRange(0, conc_hi * 1.35);
    p->xAxis->setLabel(tr("KV heads (of %1 query heads; 1 = MQA, %1 = MHA)").arg(m.n_heads));
    placeV(kv_line_, static_cast<double>(m.n_kv_heads));
    if (mine && mha)
      kv_note_->setText(
          tr("this model: %1 KV heads, %2/request at %3 tokens\n%4 concurrent on 8\u00d7 %5 "
             "(MHA: %6), %7\u00d7 smaller cache")
              .arg(mine->n_kv_heads)
              .arg(fmtBytes(static_cast<double>(mine->kv_bytes_per_request)),
                   qs(format_count(static_cast<double>(sc.operations.context_tokens), 0)))
              .arg(mine->concurrent_requests)
              .arg(qs(sc.chip))
              .arg(mha->concurrent_requests)
              .arg(fmtNumber(mine->saving)));
    replot(p);
  }
  // Depth vs width.
  std::vector<double> kd = key(m.n_layers, sc.tile, sc.depth_width.per_layer_serial_seconds);
  for (const DepthWidthPoint& pt : d.depth_width) {
    kd.push_back(pt.decode_step_seconds);
    kd.push_back(pt.tile_efficiency);
  }
  if (inputsChanged(7, std::move(kd)) && !d.depth_width.empty()) {
    PlotWidget* p = depth_plot_;
    QVector<double> x, step, serial, eff;
    double hi = 0;
    for (const DepthWidthPoint& pt : d.depth_width) {
      x.push_back(static_cast<double>(pt.n_layers));
      step.push_back(pt.decode_step_seconds * 1e3);
      serial.push_back(pt.serial_seconds_per_step * 1e3);
      eff.push_back(pt.tile_efficiency * 100);
      hi = std::max(hi, pt.decode_step_seconds * 1e3);
    }
    p->graph(0)->setData(x, step, true);
    p->graph(1)->setData(x, serial, true);
    p->graph(2)->setData(x, eff, true);
    p->xAxis->setRange(x.front() - 6, x.back() + 6);
    p->yAxis->setRange(0, std::max(hi, 1e-6) * 1.6);
    const double layers = static_cast<double>(m.n_layers);
    placeV(depth_line_, layers);
    const DepthWidthPoint& a = d.depth_width.front();
    const DepthWidthPoint& z = d.depth_width.back();
    depth_note_->setText(tr("step %1 at L=%2 (d %3), %4 at L=%5 (d %6)\n"
                            "same bandwidth term; depth adds serial time")
                             .arg(fmtSeconds(a.decode_step_seconds))
                             .arg(a.n_layers)
                             .arg(a.d_model)
                             .arg(fmtSeconds(z.decode_step_seconds))
                             .arg(z.n_layers)
                             .arg(z.d_model));
    replot(p);
  }
}

// --------------------------------------------------------------------- access

QLabel* RooflinePanel::readout(const QString& key) const { return readouts_.value(key); }
SliderSpin* RooflinePanel::control(const QString& key) const { return sliders_.value(key); }
QComboBox* RooflinePanel::combo(const QString& key) const { return combos_.value(key); }
QCheckBox* RooflinePanel::overlayBox(const QString& chip) const {
  return overlay_boxes_.value(chip);
}
QString RooflinePanel::message() const { return message_; }

QStringList RooflinePanel::readoutTexts() const {
  QStringList out;
  for (QLabel* l : readouts_) out << l->text();
  for (int r = 0; r < ops_table_->rowCount(); ++r)
    for (int c = 0; c < ops_table_->columnCount(); ++c) out << ops_table_->item(r, c)->text();
  out << agenda_->toPlainText();
  out << tile_note_->text();
  return out;
}

QString RooflinePanel::helpText() {
  return tr(
      "<h3>Roofline &amp; inference co-design</h3>"
      "<p>Linked to the shared scenario's chip, chip count, model (total parameters for the "
      "weights, active for FLOPs and decode bytes) and serving settings; the knobs marked "
      "<i>this panel</i> belong to this panel only.</p>"
      "<p><b>Read-outs</b> (always visible): the chip's ridge point (peak ÷ bandwidth); prefill "
      "and decode intensity with their verdicts; the KV cache's share of a decode step's bytes; "
      "MFU, HFU and the biggest lever of the MFU budget; the turn on the scenario's chips; chips "
      "for the latency budget (<i>none</i> when no slice up to the largest meets it); chips to "
      "hold the weights; and what to deploy (the larger of the two).</p>"
      "<p><b>Roofline &amp; decode</b>: attainable FLOP/s = min(peak, bandwidth × intensity) on "
      "log-log axes; tick <i>Overlay</i> to compare chips. Points left of the dotted ridge are "
      "memory-bound (cut bytes), right of it compute-bound (cut FLOPs). Hover a point for its "
      "FLOPs, bytes, intensity and attainable FLOP/s; the table lists them all. The decode wall: "
      "batching raises decode intensity, but every request brings its own KV cache, so it "
      "approaches an asymptote below the ridge and never reaches it.</p>"
      "<p><b>MFU budget</b>: the step's wall-clock split by busy unit. MFU is the matmul share — "
      "an identity, not a grade; the rest is the agenda, largest first. HFU counts recompute as "
      "useful work (× 8/6 with full checkpointing) and is always ≥ MFU.</p>"
      "<p><b>Latency napkin</b>: overhead + prefill (2N per prompt token, forward only, at the "
      "prefill MFU) + decode (weights and KV over HBM bandwidth — no peak FLOP/s) at 1 … 1,024 "
      "chips against the budget line. Chips for the budget is the smallest power-of-two slice "
      "that meets it; with a per-step floor or a largest slice it can be <i>none</i>, and a "
      "budget at or below the overhead is impossible. The right plot sweeps N from 1B to 1T: "
      "when no slice meets the budget, the answer is a smaller model.</p>"
      "<p><b>Co-design levers</b>: tile efficiency (dim ÷ padded dim: 129 on a 128 tile is "
      "50.4 %), KV heads (GQA shrinks the cache by heads ÷ kv_heads and multiplies the "
      "requests that fit), and depth vs width at fixed N (same bandwidth term; depth adds "
      "serial time per token).</p>"
      "<p>Right-click a plot to save it (PNG, vector PDF) or its data (CSV).</p>");
}

}  // namespace napkin
