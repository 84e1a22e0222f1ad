#include "BudgetPanel.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QGroupBox>
#include <QLabel>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QTextBrowser>
#include <QVBoxLayout>
#include <numeric>

#include "PanelRefresh.h"
#include "PlotWidget.h"
#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "format.h"
#include "hardware.h"

namespace napkin {

namespace {

// Field ids: consecutive edits of one field within a drag merge into one undo step.
enum Field {
  kChip = 1,
  kChips,
  kDays,
  kMfu,
  kPrice,
  kKwh,
  kPue,
  kTpp,
  kServed,
  kAvailable,
  kPreset,
  kLayers,
  kDModel,
  kDff,
  kHeads,
  kKvHeads,
  kHeadDim,
  kVocab,
  kGated,
  kTied,
  kExperts,
  kTopK,
  kShared,
  kOptimizer,
  kZero,
  kDp,
  kCkpt,
  kMicro,
  kSeq,
  kContext
};

QString qs(const std::string& s) { return QString::fromStdString(s); }

const QColor kWeights(76, 114, 176), kGrads(85, 168, 104), kOptim(196, 78, 82),
    kActs(129, 114, 178), kRed(200, 30, 30), kGray(110, 110, 110), kBlue(31, 119, 180),
    kGreen(44, 160, 44), kOrange(255, 127, 14);

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

QCPItemText* note(QCustomPlot* p, Qt::Alignment align) {
  auto* t = new QCPItemText(p);
  t->setPositionAlignment(align);
  QFont f = p->font();
  f.setPointSizeF(8);
  t->setFont(f);
  t->setPadding(QMargins(2, 1, 2, 1));
  t->setBrush(QColor(255, 255, 255, 210));
  t->position->setType(QCPItemPosition::ptAxisRectRatio);
  return t;
}

void setCurve(QCPGraph* g, const Curve& c) {
  g->setData(QVector<double>(c.x.begin(), c.x.end()), QVector<double>(c.y.begin(), c.y.end()),
             true);
}

// The numbers a plot is drawn from, as one comparable key.
template <typename... T>
std::vector<double> key(T... values) {
  return {static_cast<double>(values)...};
}

std::vector<std::int64_t> divisors(std::int64_t n) {
  std::vector<std::int64_t> out;
  for (std::int64_t d = 1; d <= n; ++d)
    if (n % d == 0) out.push_back(d);
  return out;
}

}  // namespace

BudgetPanel::BudgetPanel(ScenarioModel* model, QWidget* parent) : QWidget(parent), model_(model) {
  ui.setupUi(this);
  buildControls();
  buildReadouts();
  buildPlots();
  connect(model_, &ScenarioModel::changed, this, [this] {
    if (deferWhileHidden(this, scenario_stale_)) return;
    refresh();
  });
  connect(model_, &ScenarioModel::gestureActive, this, [this](bool on) {
    for (PlotWidget* p : plots_) p->setDragMode(on);
  });
  refresh();
}

QVBoxLayout* BudgetPanel::addGroup(const QString& title) {
  auto* box = new QGroupBox(title, ui.controlsHost);
  auto* layout = new QVBoxLayout(box);
  layout->setSpacing(2);
  layout->setContentsMargins(6, 4, 6, 4);
  ui.controlsLayout->addWidget(box);
  return layout;
}

SliderSpin* BudgetPanel::addSlider(QVBoxLayout* group, const QString& key, int field,
                                   const SliderSpin::Spec& spec,
                                   std::function<double(const Scenario&)> get,
                                   std::function<void(Scenario&, double)> set) {
  auto* w = new SliderSpin(spec, group->parentWidget());
  w->setObjectName(key);
  group->addWidget(w);
  bindings_.push_back({w, std::move(get)});
  sliders_.insert(key, w);
  const QString undo_text = tr("Change %1").arg(spec.label);
  connect(w, &SliderSpin::valueEdited, this, [this, undo_text, field, set](double v) {
    model_->edit(undo_text, field, [&](Scenario& s) { set(s, v); });
  });
  connect(w, &SliderSpin::gestureStarted, model_, &ScenarioModel::beginGesture);
  connect(w, &SliderSpin::gestureFinished, model_, &ScenarioModel::endGesture);
  return w;
}

QComboBox* BudgetPanel::addCombo(QVBoxLayout* group, const QString& key, const QString& label,
                                 const QString& tooltip) {
  QComboBox* c = addLabelledCombo(group, key, label, tooltip, 96);
  combos_.insert(key, c);
  return c;
}

void BudgetPanel::buildControls() {
  using S = SliderSpin::Scale;
  // --- hardware and budget
  QVBoxLayout* g = addGroup(tr("Hardware and budget"));
  QComboBox* chip = addCombo(g, QStringLiteral("chip"), tr("Chip"),
                             tr("Accelerator from the hardware table: peak bf16 FLOP/s, HBM "
                                "bytes and bandwidth, watts (Help → About lists the sources)."));
  for (const Chip& c : hardware_table())
    chip->addItem(QString::fromUtf8(c.name.data(), static_cast<qsizetype>(c.name.size())));
  connect(chip, &QComboBox::activated, this, [this, chip](int) {
    const std::string name = chip->currentText().toStdString();
    model_->edit(tr("Change chip"), kChip, [&](Scenario& s) { s.chip = name; });
  });
  addSlider(
      g, QStringLiteral("chips"), kChips,
      {tr("Chips"), 1, 100000, S::log, 0, true, false, 1, QString(),
       tr("Number of accelerators (chips). C = chips × peak FLOP/s × MFU × days × 86,400 s.")},
      [](const Scenario& s) { return static_cast<double>(s.n_chips); },
      [](Scenario& s, double v) { s.n_chips = static_cast<std::int64_t>(v); });
  addSlider(
      g, QStringLiteral("days"), kDays,
      {tr("Days"), 1, 365, S::linear, 0, true, false, 1, tr("days"),
       tr("Wall-clock days of training (days). Enters C linearly.")},
      [](const Scenario& s) { return s.days; }, [](Scenario& s, double v) { s.days = v; });
  addSlider(
      g, QStringLiteral("mfu"), kMfu,
      {tr("MFU"), 0.10, 0.70, S::linear, 0, false, false, 100, QStringLiteral("%"),
       tr("Model FLOPs utilization (fraction of peak): useful 6ND FLOPs ÷ (chips × peak × "
          "time). 35–55 % is normal at scale.")},
      [](const Scenario& s) { return s.mfu; }, [](Scenario& s, double v) { s.mfu = v; });
  addSlider(
      g, QStringLiteral("price"), kPrice,
      {tr("Price"), 0.10, 20, S::log, 2, false, false, 1, tr("$/chip-h"),
       tr("Rental price ($ per chip-hour). Rental $ = chips × days × 24 × price.")},
      [](const Scenario& s) { return s.price_per_chip_hour_dollars; },
      [](Scenario& s, double v) { s.price_per_chip_hour_dollars = v; });
  addSlider(
      g, QStringLiteral("kwh"), kKwh,
      {tr("Energy price"), 0.01, 0.50, S::linear, 3, false, false, 1, tr("$/kWh"),
       tr("Electricity price ($ per kWh). Energy $ = chips × TDP × PUE × hours ÷ 1000 × price.")},
      [](const Scenario& s) { return s.kwh_price_dollars; },
      [](Scenario& s, double v) { s.kwh_price_dollars = v; });
  addSlider(
      g, QStringLiteral("pue"), kPue,
      {tr("PUE"), 1.0, 2.0, S::linear, 2, false, false, 1, QString(),
       tr("Power usage effectiveness (facility W per IT W): energy at the wall ÷ energy at the "
          "chips.")},
      [](const Scenario& s) { return s.pue; }, [](Scenario& s, double v) { s.pue = v; });

  // --- allocation
  g = addGroup(tr("Allocation and serving"));
  addSlider(
      g, QStringLiteral("tokens_per_param"), kTpp,
      {tr("Tokens/param"), 1, 1000, S::log, 1, false, false, 1, QString(),
       tr("Chinchilla ratio r (tokens per parameter): N = √(C / 6r), D = r·N. Default 20.")},
      [](const Scenario& s) { return s.tokens_per_param; },
      [](Scenario& s, double v) { s.tokens_per_param = v; });
  addSlider(
      g, QStringLiteral("served_tokens"), kServed,
      {tr("Served tokens"), 1e9, 1e17, S::log, 2, false, true, 1, QString(),
       tr("Tokens the model serves over its life (tokens). Lifetime FLOPs = 6N·D_train + "
          "2N·D_served: more serving favours a smaller model trained longer.")},
      [](const Scenario& s) { return s.serving.served_tokens; },
      [](Scenario& s, double v) { s.serving.served_tokens = v; });
  addSlider(
      g, QStringLiteral("tokens_available"), kAvailable,
      {tr("Unique tokens"), 1e10, 1e15, S::log, 2, false, true, 1, QString(),
       tr("Unique training tokens the corpus holds (tokens); the 'data available' check needs D "
          "below it.")},
      [](const Scenario& s) { return s.tokens_available; },
      [](Scenario& s, double v) { s.tokens_available = v; });
  addSlider(
      g, QStringLiteral("context"), kContext,
      {tr("Context"), 256, 1048576, S::log, 0, true, false, 1, tr("tokens"),
       tr("Serving context per request (tokens). KV bytes = 2·L·n_kv·d_head·T·2 per request.")},
      [](const Scenario& s) { return static_cast<double>(s.serving.context_len); },
      [](Scenario& s, double v) { s.serving.context_len = static_cast<std::int64_t>(v); });

  // --- model shape
  g = addGroup(tr("Model"));
  QComboBox* preset =
      addCombo(g, QStringLiteral("preset"), tr("Preset"),
               tr("Load a model shape: a published checkpoint, a DeepSeek-V3-like "
                  "MoE, or a dense model of the Chinchilla-optimal size for this budget."));
  preset->addItem(tr("Custom"));
  for (const ModelPreset& p : model_presets())
    preset->addItem(QString::fromUtf8(p.name.data(), static_cast<qsizetype>(p.name.size())));
  preset->addItem(tr("Chinchilla-optimal for this budget"));
  connect(preset, &QComboBox::activated, this, &BudgetPanel::applyPreset);
  auto shape_slider = [&](const QString& key, int field, SliderSpin::Spec spec,
                          std::int64_t ModelShape::*member) {
    addSlider(
        g, key, field, spec,
        [member](const Scenario& s) { return static_cast<double>(s.shape.*member); },
        [member](Scenario& s, double v) {
          s.shape.*member = static_cast<std::int64_t>(v);
          s.model_name = "Custom";
          if (s.shape.n_heads % s.shape.n_kv_heads != 0)
            s.shape.n_kv_heads = std::gcd(s.shape.n_heads, s.shape.n_kv_heads);
          if (s.shape.is_moe()) {
            s.shape.top_k = std::clamp<std::int64_t>(s.shape.top_k, 1, s.shape.n_experts);
            s.shape.n_dense_layers = std::min(s.shape.n_dense_layers, s.shape.n_layers);
          } else {
            s.shape.top_k = 0;
            s.shape.shared_experts = 0;
            s.shape.n_dense_layers = 0;
          }
        });
  };
  shape_slider(QStringLiteral("layers"), kLayers,
               {tr("Layers"), 1, 200, S::linear, 0, true, false, 1, QString(),
                tr("Transformer blocks L. Parameters grow linearly with L.")},
               &ModelShape::n_layers);
  shape_slider(QStringLiteral("d_model"), kDModel,
               {tr("d_model"), 64, 32768, S::log, 0, true, false, 1, QString(),
                tr("Residual width d (elements). Attention is 2·d·(n_h + n_kv)·d_head per layer.")},
               &ModelShape::d_model);
  shape_slider(QStringLiteral("d_ff"), kDff,
               {tr("d_ff"), 64, 131072, S::log, 0, true, false, 1, QString(),
                tr("MLP hidden width F (elements): 3·d·F per layer gated, 2·d·F ungated.")},
               &ModelShape::d_ff);
  shape_slider(QStringLiteral("heads"), kHeads,
               {tr("Heads"), 1, 256, S::linear, 0, true, false, 1, QString(),
                tr("Query heads n_h. W_q and W_o are d × n_h·d_head.")},
               &ModelShape::n_heads);
  QComboBox* kv =
      addCombo(g, QStringLiteral("kv_heads"), tr("KV heads"),
               tr("Key/value heads n_kv, a divisor of the query heads: n_h = MHA, 1 = MQA, "
                  "in between GQA. KV cache ∝ n_kv; W_k, W_v are d × n_kv·d_head."));
  connect(kv, &QComboBox::activated, this, [this, kv](int) {
    const std::int64_t v = kv->currentData().toLongLong();
    model_->edit(tr("Change KV heads"), kKvHeads, [&](Scenario& s) {
      s.shape.n_kv_heads = v;
      s.model_name = "Custom";
    });
  });
  shape_slider(QStringLiteral("head_dim"), kHeadDim,
               {tr("Head dim"), 16, 512, S::log, 0, true, false, 1, QString(),
                tr("Elements per head d_head (usually d_model ÷ heads).")},
               &ModelShape::d_head);
  shape_slider(QStringLiteral("vocab"), kVocab,
               {tr("Vocabulary"), 1000, 1000000, S::log, 0, true, false, 1, tr("tokens"),
                tr("Vocabulary V (tokens): embedding V·d, unembedding V·d unless tied.")},
               &ModelShape::vocab);
  auto* flags = new QWidget(g->parentWidget());
  auto* fh = new QHBoxLayout(flags);
  fh->setContentsMargins(0, 0, 0, 0);
  gated_ = new QCheckBox(tr("Gated MLP (SwiGLU)"), flags);
  gated_->setToolTip(tr("Three MLP matrices (gate, up, down) instead of two: 3·d·F parameters."));
  tied_ = new QCheckBox(tr("Tied embeddings"), flags);
  tied_->setToolTip(
      tr("The unembedding shares the embedding table: V·d parameters instead of 2·V·d."));
  fh->addWidget(gated_);
  fh->addWidget(tied_);
  g->addWidget(flags);
  connect(gated_, &QCheckBox::toggled, this, [this](bool on) {
    model_->edit(tr("Toggle gated MLP"), kGated, [&](Scenario& s) {
      s.shape.gated = on;
      s.model_name = "Custom";
    });
  });
  connect(tied_, &QCheckBox::toggled, this, [this](bool on) {
    model_->edit(tr("Toggle tied embeddings"), kTied, [&](Scenario& s) {
      s.shape.tied_embeddings = on;
      s.model_name = "Custom";
    });
  });
  shape_slider(QStringLiteral("experts"), kExperts,
               {tr("Experts"), 0, 512, S::linear, 0, true, false, 1, QString(),
                tr("Routed experts per MoE layer (0 = dense). Total parameters count all experts; "
                   "active parameters count top-k (+ shared).")},
               &ModelShape::n_experts);
  shape_slider(QStringLiteral("top_k"), kTopK,
               {tr("Top-k"), 0, 64, S::linear, 0, true, false, 1, QString(),
                tr("Experts each token is routed to (1 … experts; 0 for a dense model).")},
               &ModelShape::top_k);
  shape_slider(QStringLiteral("shared_experts"), kShared,
               {tr("Shared experts"), 0, 8, S::linear, 0, true, false, 1, QString(),
                tr("Always-on experts per MoE layer (DeepSeek style).")},
               &ModelShape::shared_experts);

  // --- training
  g = addGroup(tr("Training set-up"));
  QComboBox* opt = addCombo(
      g, QStringLiteral("optimizer"), tr("Optimizer"),
      tr("Optimizer state per parameter in mixed precision: Adam 12 B (fp32 "
         "master + m + v), SGD-momentum 8 B, Adafactor 4 B; plus 2 B weights and 2 B grads."));
  opt->addItem(QStringLiteral("Adam"), QStringLiteral("adam"));
  opt->addItem(QStringLiteral("SGD + momentum"), QStringLiteral("sgd_momentum"));
  opt->addItem(QStringLiteral("Adafactor"), QStringLiteral("adafactor"));
  connect(opt, &QComboBox::activated, this, [this, opt](int) {
    const Optimizer o = parse_optimizer(opt->currentData().toString().toStdString());
    model_->edit(tr("Change optimizer"), kOptimizer,
                 [&](Scenario& s) { s.training.optimizer = o; });
  });
  QComboBox* zero = addCombo(g, QStringLiteral("zero"), tr("ZeRO stage"),
                             tr("ZeRO 1 shards optimizer states over the data-parallel replicas, 2 "
                                "also gradients, 3 also weights."));
  for (int z = 0; z <= 3; ++z) zero->addItem(QStringLiteral("ZeRO-%1").arg(z), z);
  connect(zero, &QComboBox::activated, this, [this, zero](int) {
    const int z = zero->currentData().toInt();
    model_->edit(tr("Change ZeRO stage"), kZero, [&](Scenario& s) { s.training.zero_stage = z; });
  });
  addSlider(
      g, QStringLiteral("dp"), kDp,
      {tr("DP degree"), 1, 100000, S::log, 0, true, false, 1, QString(),
       tr("Data-parallel replicas sharing the ZeRO shards (replicas).")},
      [](const Scenario& s) { return static_cast<double>(s.training.dp_degree); },
      [](Scenario& s, double v) { s.training.dp_degree = static_cast<std::int64_t>(v); });
  QComboBox* ck =
      addCombo(g, QStringLiteral("checkpointing"), tr("Checkpointing"),
               tr("Activation memory: none keeps B·T·d·L·16·2 bytes; selective 30 % of "
                  "that; full only the layer boundaries B·T·d·L·2 (and 8N instead of 6N FLOPs)."));
  ck->addItem(tr("None"), QStringLiteral("none"));
  ck->addItem(tr("Selective"), QStringLiteral("selective"));
  ck->addItem(tr("Full"), QStringLiteral("full"));
  connect(ck, &QComboBox::activated, this, [this, ck](int) {
    const Checkpointing c = parse_checkpointing(ck->currentData().toString().toStdString());
    model_->edit(tr("Change checkpointing"), kCkpt,
                 [&](Scenario& s) { s.training.checkpointing = c; });
  });
  addSlider(
      g, QStringLiteral("micro_batch"), kMicro,
      {tr("Micro-batch"), 1, 512, S::log, 0, true, false, 1, tr("seq"),
       tr("Sequences per device per step; activation bytes scale with it.")},
      [](const Scenario& s) { return static_cast<double>(s.training.micro_batch); },
      [](Scenario& s, double v) { s.training.micro_batch = static_cast<std::int64_t>(v); });
  addSlider(
      g, QStringLiteral("seq_len"), kSeq,
      {tr("Train sequence"), 128, 1048576, S::log, 0, true, false, 1, tr("tokens"),
       tr("Training sequence length T (tokens): activations ∝ T, attention FLOPs ∝ T².")},
      [](const Scenario& s) { return static_cast<double>(s.training.seq_len); },
      [](Scenario& s, double v) { s.training.seq_len = static_cast<std::int64_t>(v); });
  ui.controlsLayout->addStretch(1);
}

void BudgetPanel::applyPreset(int index) {
  Scenario s = model_->scenario();
  const auto presets = model_presets();
  if (index >= 1 && index <= static_cast<int>(presets.size())) {
    const ModelPreset& p = presets[static_cast<std::size_t>(index - 1)];
    s.shape = p.shape;
    s.model_name = std::string(p.name);
  } else if (index == static_cast<int>(presets.size()) + 1) {
    s.shape = dense_shape_for_params(view_.report.split.params, s.shape.vocab);
    s.model_name = "Chinchilla-optimal (" + format_count(view_.report.split.params) + ")";
  } else {
    return;
  }
  model_->replace(s, tr("Load preset %1").arg(qs(s.model_name)));
}

void BudgetPanel::buildReadouts() {
  const struct {
    const char* key;
    QString name;
    QString tip;
  } rows[] = {
      {"flops", tr("Compute C"), tr("C = chips × peak FLOP/s × MFU × days × 86,400 s")},
      {"params", tr("Chinchilla N"), tr("N = √(C / 6r) parameters, r tokens per parameter")},
      {"tokens", tr("Chinchilla D"), tr("D = r·N tokens; 6ND = C")},
      {"days", tr("Days at MFU"), tr("C ÷ (chips × peak × MFU × 86,400 s)")},
      {"states", tr("Model states"),
       tr("16 bytes/param (Adam, mixed bf16) for Chinchilla N, unsharded")},
      {"model", tr("Scenario model"),
       tr("Total (memory) and active (FLOPs) parameters of the model shape")},
      {"memory", tr("Memory / device"),
       tr("Weights + grads + optimizer + activations per device, at the chosen ZeRO stage")},
      {"rental", tr("Rental"), tr("chips × days × 24 h × $ per chip-hour")},
      {"energy", tr("Energy"), tr("chips × TDP × hours × PUE; $ at the energy price")},
      {"per1e21", tr("$ per 1e21 FLOPs"), tr("rental $ ÷ C × 1e21")},
      {"kv", tr("KV / request"),
       tr("2·L·n_kv·d_head·T·2 bytes per request at the serving context, and how many requests fit "
          "one 8-chip node after the weights")},
      {"attention", tr("Attention"),
       tr("Share of training FLOPs in QKᵀ and A·V at the training sequence: 12·L·T·d ÷ (6N + "
          "12·L·T·d); 6ND undercounts by f/(1−f)")},
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
    // A fixed size keeps a changing number from relayouting the window on
    // every slider tick (Qt skips the parent layout for fixed-size widgets).
    const QFontMetrics fm(f);
    const QString widest = i < 6 ? QStringLiteral("700.55B (52.88B act.)")
                                 : QStringLiteral("347.0 GB of 80 GB: too big");
    value->setFixedSize(fm.horizontalAdvance(widest) + 4, fm.height() + 2);
    const int row = i % 6, col = (i / 6) * 2;
    ui.readoutGrid->addWidget(name, row, col);
    ui.readoutGrid->addWidget(value, row, col + 1);
    readouts_.insert(QLatin1String(r.key), value);
    ++i;
  }
  ui.readoutGrid->setColumnStretch(1, 1);
  ui.readoutGrid->setColumnStretch(3, 1);
  // Rich text that changes on every slider tick lives in text browsers: their
  // size does not follow their content, so an update relayouts one document,
  // not the whole window (word-wrapped labels made every tick a full relayout).
  for (QAbstractScrollArea* b : {static_cast<QAbstractScrollArea*>(ui.checksText),
                                 static_cast<QAbstractScrollArea*>(ui.recommendationText)}) {
    b->viewport()->setAutoFillBackground(false);
    b->setStyleSheet(QStringLiteral("background: transparent; color: palette(window-text);"));
  }
  ui.checksText->document()->setDocumentMargin(2);
  ui.recommendationText->setTextInteractionFlags(Qt::TextSelectableByMouse |
                                                 Qt::TextSelectableByKeyboard);
  ui.checksText->setMinimumHeight(150);
  ui.checksText->setAccessibleName(tr("Sanity checks"));
  ui.recommendationText->setAccessibleName(tr("What I would train"));
}

void BudgetPanel::buildPlots() {
  // (a) memory per device vs ZeRO stage
  memory_plot_ = new PlotWidget(tr("Training memory per device"), this);
  memory_plot_->setYAxis(tr("bytes per device"), false, fmtBytes);
  memory_plot_->setHoverFormat(
      [](double v) {
        return v < -0.3 || v > 3.3 ? tr("any stage")
                                   : QStringLiteral("ZeRO-%1").arg(std::lround(v));
      },
      fmtBytes);
  {
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    for (int z = 0; z <= 3; ++z) ticker->addTick(z, QStringLiteral("ZeRO-%1").arg(z));
    memory_plot_->xAxis->setTicker(ticker);
    memory_plot_->xAxis->setLabel(tr("ZeRO stage (at the DP degree)"));
    memory_plot_->xAxis->setRange(-0.6, 3.6);
    const struct {
      QString name;
      QColor c;
    } parts[] = {{tr("weights"), kWeights},
                 {tr("gradients"), kGrads},
                 {tr("optimizer states"), kOptim},
                 {tr("activations"), kActs}};
    QCPBars* below = nullptr;
    for (const auto& p : parts) {
      auto* b = new QCPBars(memory_plot_->xAxis, memory_plot_->yAxis);
      b->setName(p.name);
      b->setBrush(p.c);
      b->setPen(QPen(p.c.darker(130)));
      b->setWidth(0.6);
      if (below) b->moveAbove(below);
      below = b;
      memory_bars_.push_back(b);
    }
    QCPGraph* hbm = memory_plot_->addGraph();
    hbm->setPen(pen(kRed, 1.6, Qt::DashLine));
    memory_plot_->showLegendBelow(3);
    memory_bars_[1]->setName(tr("grads"));
    memory_bars_[2]->setName(tr("optimizer"));
    for (int z = 0; z <= 3; ++z) {
      auto* t = new QCPItemText(memory_plot_);
      t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      QFont f = memory_plot_->font();
      f.setPointSizeF(7.5);
      t->setFont(f);
      memory_labels_.push_back(t);
    }
  }

  // (b) KV cache per request vs context
  kv_plot_ = new PlotWidget(tr("KV cache per request"), this);
  kv_plot_->setXAxis(tr("context (tokens)"), true, fmtSi);
  kv_plot_->setYAxis(tr("bytes per request"), true, fmtBytes);
  for (const auto& [name, c] : {std::pair{tr("MHA"), kGray}, std::pair{tr("scenario GQA"), kBlue},
                                std::pair{tr("MQA"), kGreen}}) {
    QCPGraph* gr = kv_plot_->addGraph();
    gr->setName(name);
    gr->setPen(pen(c));
  }
  QCPGraph* left = kv_plot_->addGraph();
  left->setPen(pen(kRed, 1.4, Qt::DashLine));
  kv_plot_->showLegendBelow(2);
  kv_context_ = vline(kv_plot_, pen(kOrange, 1.2, Qt::DotLine));
  kv_label_ = note(kv_plot_, Qt::AlignRight | Qt::AlignBottom);
  kv_label_->position->setCoords(0.98, 0.97);

  // (c) attention share of training FLOPs vs context
  attention_plot_ = new PlotWidget(tr("Where 6ND breaks: attention"), this);
  attention_plot_->setXAxis(tr("sequence length (tokens)"), true, fmtSi);
  attention_plot_->setYAxis(tr("share / error"), true, fmtPercent);
  attention_plot_->setHoverFormat(fmtSi, fmtPercent);
  {
    QCPGraph* a = attention_plot_->addGraph();
    a->setName(tr("attention share"));
    a->setPen(pen(kBlue));
    QCPGraph* e = attention_plot_->addGraph();
    e->setName(tr("6ND undercount"));
    e->setPen(pen(kRed, 1.6, Qt::DashLine));
    attention_plot_->showLegendBelow();
  }
  attention_marker_ = vline(attention_plot_, pen(kOrange, 1.2, Qt::DotLine));
  attention_label_ = note(attention_plot_, Qt::AlignRight | Qt::AlignBottom);
  attention_label_->position->setCoords(0.98, 0.97);

  // (d) lifetime FLOPs vs served tokens
  lifetime_plot_ = new PlotWidget(tr("Lifetime FLOPs: train + serve"), this);
  lifetime_plot_->setXAxis(tr("served tokens"), true, fmtSi);
  lifetime_plot_->setYAxis(tr("lifetime FLOPs"), true, fmtSci);
  {
    QCPGraph* c = lifetime_plot_->addGraph();
    c->setName(tr("Chinchilla answer"));
    c->setPen(pen(kBlue));
    QCPGraph* s = lifetime_plot_->addGraph();
    s->setName(tr("smaller, same loss"));
    s->setPen(pen(kOrange));
    lifetime_plot_->showLegendBelow();
  }
  lifetime_crossover_ = vline(lifetime_plot_, pen(kGray, 1.2, Qt::DashLine));
  lifetime_served_ = vline(lifetime_plot_, pen(kOrange, 1.2, Qt::DotLine));
  lifetime_label_ = note(lifetime_plot_, Qt::AlignLeft | Qt::AlignTop);
  lifetime_label_->position->setCoords(0.02, 0.03);

  // (e) the compute-optimal frontier
  frontier_plot_ = new PlotWidget(tr("Budget → (N, D)"), this);
  frontier_plot_->setXAxis(tr("training compute C (FLOPs)"), true, fmtSci);
  frontier_plot_->setYAxis(tr("parameters N / tokens D"), true, fmtSi);
  {
    QCPGraph* n = frontier_plot_->addGraph();
    n->setName(tr("N params"));
    n->setPen(pen(kBlue));
    QCPGraph* d = frontier_plot_->addGraph();
    d->setName(tr("D tokens"));
    d->setPen(pen(kGreen));
    QCPGraph* pts = frontier_plot_->addGraph();
    pts->setName(tr("this C"));
    pts->setLineStyle(QCPGraph::lsNone);
    pts->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, kRed, Qt::white, 8));
    frontier_plot_->showLegendBelow(3);
  }
  frontier_marker_ = vline(frontier_plot_, pen(kRed, 1.0, Qt::DotLine));
  frontier_label_ = note(frontier_plot_, Qt::AlignLeft | Qt::AlignTop);
  frontier_label_->position->setCoords(0.02, 0.03);

  plots_ = {memory_plot_, kv_plot_, attention_plot_, lifetime_plot_, frontier_plot_};
  ui.plotGrid->addWidget(memory_plot_, 0, 0, 1, 2);
  ui.plotGrid->addWidget(kv_plot_, 0, 2, 1, 2);
  ui.plotGrid->addWidget(attention_plot_, 0, 4, 1, 2);
  ui.plotGrid->addWidget(lifetime_plot_, 1, 0, 1, 2);
  ui.plotGrid->addWidget(frontier_plot_, 1, 2, 1, 2);
  for (int c = 0; c < 6; ++c) ui.plotGrid->setColumnStretch(c, 1);
  ui.plotGrid->setRowStretch(0, 1);
  ui.plotGrid->setRowStretch(1, 1);
  QFont small = ui.recommendationText->font();
  small.setPointSizeF(small.pointSizeF() * 0.92);
  ui.recommendationText->setFont(small);
  ui.checksText->setFont(small);
  for (PlotWidget* p : plots_) {
    p->legend->setFont(p->xAxis->tickLabelFont());
    p->applyPalette(p->palette());  // the notes added above follow the light or dark palette too
  }
}

void BudgetPanel::syncControls(const Scenario& s) {
  for (const Binding& b : bindings_) b.widget->setValue(b.get(s));
  const QSignalBlocker b1(combos_[QStringLiteral("chip")]), b2(combos_[QStringLiteral("preset")]),
      b3(combos_[QStringLiteral("kv_heads")]), b4(combos_[QStringLiteral("optimizer")]),
      b5(combos_[QStringLiteral("zero")]), b6(combos_[QStringLiteral("checkpointing")]), b7(gated_),
      b8(tied_);
  combos_[QStringLiteral("chip")]->setCurrentText(qs(s.chip));
  QComboBox* preset = combos_[QStringLiteral("preset")];
  int idx = preset->findText(qs(s.model_name));
  if (idx < 0 && s.model_name.rfind("Chinchilla-optimal", 0) == 0) idx = preset->count() - 1;
  preset->setCurrentIndex(std::max(idx, 0));
  QComboBox* kv = combos_[QStringLiteral("kv_heads")];
  kv->clear();
  for (std::int64_t d : divisors(s.shape.n_heads)) {
    QString label = QString::number(d);
    if (d == s.shape.n_heads)
      label += tr(" (MHA)");
    else if (d == 1)
      label += tr(" (MQA)");
    else
      label += tr(" (GQA-%1)").arg(d);
    kv->addItem(label, static_cast<qlonglong>(d));
  }
  kv->setCurrentIndex(kv->findData(static_cast<qlonglong>(s.shape.n_kv_heads)));
  QComboBox* opt = combos_[QStringLiteral("optimizer")];
  opt->setCurrentIndex(opt->findData(qs(std::string(to_string(s.training.optimizer)))));
  combos_[QStringLiteral("zero")]->setCurrentIndex(s.training.zero_stage);
  QComboBox* ck = combos_[QStringLiteral("checkpointing")];
  ck->setCurrentIndex(ck->findData(qs(std::string(to_string(s.training.checkpointing)))));
  gated_->setChecked(s.shape.gated);
  tied_->setChecked(s.shape.tied_embeddings);
}

void BudgetPanel::refresh() {
  const Scenario& s = model_->scenario();
  syncControls(s);
  view_ = make_budget_view(s);  // the one model call; the scenario is valid by construction
  updateReadouts();
  updatePlots();
}

void BudgetPanel::updateReadouts() {
  const BudgetReport& r = view_.report;
  const Scenario& s = view_.scenario;
  auto set = [this](const char* key, const std::string& text) {
    readouts_[QLatin1String(key)]->setText(qs(text));
  };
  set("flops", format_sci(r.flops) + " FLOPs");
  set("params", format_count(r.split.params) + " params");
  set("tokens", format_count(r.split.tokens, 2) + " tokens");
  set("days", format_grouped(r.days, 1) + " days");
  set("states", format_bytes(static_cast<double>(r.train_memory.total), 2));
  const ParamCount& p = view_.params;
  std::string model = format_count(static_cast<double>(p.total), 2);
  model += s.shape.is_moe() ? " (" + format_count(static_cast<double>(p.active), 2) + " act.)"
                            : " params";
  set("model", model);
  const TrainingMemory& m = view_.memory_by_zero[static_cast<std::size_t>(s.training.zero_stage)];
  set("memory", format_bytes(static_cast<double>(m.total), 1) + " of " +
                    format_bytes(static_cast<double>(view_.chip_hbm_bytes), 0) +
                    (m.total <= view_.chip_hbm_bytes ? ", fits" : ": too big"));
  set("rental", format_dollars(r.cost.rental_dollars));
  const double mwh = r.cost.energy_kwh / 1000.0;
  set("energy", (mwh >= 10000 ? format_grouped(mwh / 1000.0, 1) + " GWh, "
                              : format_grouped(mwh, 1) + " MWh, ") +
                    format_dollars(r.cost.energy_dollars));
  set("per1e21", format_dollars(r.cost.dollars_per_1e21_flops, 2));
  set("kv", format_bytes(static_cast<double>(view_.kv_bytes_at_context), 2) + " @ " +
                format_count(static_cast<double>(s.serving.context_len), 0) + ": " +
                std::to_string(view_.max_concurrent) + " fit");
  set("attention", format_percent(view_.attention_fraction_at_seq) + " @ " +
                       format_count(static_cast<double>(s.training.seq_len), 0) + ", 6ND \u2212" +
                       format_percent(six_nd_error(view_.attention_fraction_at_seq)));
  QString checks = QStringLiteral("<table cellspacing='3'>");
  for (const Check& c : r.checks)
    checks += QStringLiteral(
                  "<tr><td valign='top'><span style='background:%1;color:white;font-weight:bold'>"
                  "&nbsp;%2&nbsp;</span></td><td><b>%3</b>: %4</td></tr>")
                  .arg(c.ok ? QStringLiteral("#2e7d32") : QStringLiteral("#c62828"),
                       c.ok ? tr("OK") : tr("FAIL"), qs(c.name).toHtmlEscaped(),
                       qs(c.detail).toHtmlEscaped());
  checks += QStringLiteral("</table>");
  if (checks != checks_html_) {
    checks_html_ = checks;
    ui.checksText->setHtml(checks);
  }
  if (ui.recommendationText->toPlainText() != qs(r.recommendation))
    ui.recommendationText->setPlainText(qs(r.recommendation));
}

bool BudgetPanel::inputsChanged(int plot, std::vector<double> inputs) {
  auto& last = plot_inputs_[static_cast<std::size_t>(plot)];
  if (last == inputs) return false;
  last = std::move(inputs);
  return true;
}

void BudgetPanel::updatePlots() {
  const Scenario& s = view_.scenario;
  const double chip_key = static_cast<double>(std::hash<std::string>{}(s.chip) % 1000003);
  // (a)
  if (inputsChanged(
          0, key(view_.memory_by_zero[0].total, view_.memory_by_zero[1].total,
                 view_.memory_by_zero[2].total, view_.memory_by_zero[3].total,
                 view_.memory_by_zero[0].activations, view_.memory_by_zero[3].weights,
                 view_.memory_by_zero[3].optimizer, view_.chip_hbm_bytes, s.training.dp_degree,
                 s.training.micro_batch, s.training.seq_len, chip_key))) {
    double top = static_cast<double>(view_.chip_hbm_bytes);
    for (int z = 0; z <= 3; ++z) {
      const TrainingMemory& m = view_.memory_by_zero[static_cast<std::size_t>(z)];
      const double parts[] = {static_cast<double>(m.weights), static_cast<double>(m.grads),
                              static_cast<double>(m.optimizer), static_cast<double>(m.activations)};
      for (std::size_t k = 0; k < 4; ++k) {
        if (z == 0) memory_bars_[k]->data()->clear();
        memory_bars_[k]->addData(z, parts[k]);
      }
      top = std::max(top, static_cast<double>(m.total));
    }
    memory_plot_->yAxis->setRange(0, top * 1.18);
    for (int z = 0; z <= 3; ++z) {
      const TrainingMemory& m = view_.memory_by_zero[static_cast<std::size_t>(z)];
      QCPItemText* t = memory_labels_[static_cast<std::size_t>(z)];
      t->position->setCoords(z, static_cast<double>(m.total));
      t->setText(qs(format_bytes(static_cast<double>(m.total), 1)));
      t->setColor(m.total <= view_.chip_hbm_bytes ? QColor(30, 30, 30) : kRed);
    }
    const double hbm = static_cast<double>(view_.chip_hbm_bytes);
    memory_plot_->graph(0)->setData({-0.6, 3.6}, {hbm, hbm});
    memory_plot_->graph(0)->setName(tr("%1 HBM").arg(qs(s.chip)));
    memory_plot_->xAxis->setLabel(
        tr("ZeRO stage at DP %1, micro-batch %2 × %3")
            .arg(s.training.dp_degree)
            .arg(s.training.micro_batch)
            .arg(qs(format_count(static_cast<double>(s.training.seq_len), 0))));
    memory_plot_->requestReplot();
  }
  // (b)
  if (inputsChanged(1, key(s.shape.n_layers, s.shape.n_heads, s.shape.n_kv_heads, s.shape.d_head,
                           s.serving.context_len, view_.hbm_left_bytes, view_.max_concurrent,
                           view_.serve_weight_bytes, chip_key))) {
    setCurve(kv_plot_->graph(0), view_.kv_mha);
    setCurve(kv_plot_->graph(1), view_.kv_scenario);
    kv_plot_->graph(1)->setName(s.shape.n_kv_heads == s.shape.n_heads
                                    ? tr("scenario (MHA)")
                                    : tr("scenario (%1 KV heads)").arg(s.shape.n_kv_heads));
    setCurve(kv_plot_->graph(2), view_.kv_mqa);
    kv_plot_->xAxis->setRange(view_.kv_mha.x.front(), view_.kv_mha.x.back());
    const double ymin = view_.kv_mqa.y.front(), ymax = view_.kv_mha.y.back();
    const double left = view_.hbm_left_bytes;
    kv_plot_->yAxis->setRange(ymin / 2, std::max(ymax, left) * 2);
    kv_plot_->graph(3)->setData({view_.kv_mha.x.front(), view_.kv_mha.x.back()}, {left, left});
    kv_plot_->graph(3)->setVisible(left > 0);
    kv_plot_->graph(3)->setName(tr("HBM left, 8× %1").arg(qs(s.chip)));
    placeV(kv_context_, static_cast<double>(s.serving.context_len));
    kv_label_->setText(
        left > 0 ? tr("%1 left after weights\n%2 requests @ %3")
                       .arg(qs(format_bytes(left, 0)))
                       .arg(view_.max_concurrent)
                       .arg(qs(format_count(static_cast<double>(s.serving.context_len), 0)))
                 : tr("weights (%1) leave\nno HBM on 8× %2")
                       .arg(qs(format_bytes(view_.serve_weight_bytes, 0)), qs(s.chip)));
    kv_plot_->requestReplot();
  }
  // (c)
  if (inputsChanged(2, key(view_.params.non_embedding_active, s.shape.n_layers, s.shape.d_model,
                           s.training.seq_len))) {
    setCurve(attention_plot_->graph(0), view_.attention_fraction);
    setCurve(attention_plot_->graph(1), view_.six_nd_error);
    attention_plot_->xAxis->setRange(view_.attention_fraction.x.front(),
                                     view_.attention_fraction.x.back());
    double lo = 1, hi = 0;
    for (double v : view_.attention_fraction.y) lo = std::min(lo, v);
    for (double v : view_.six_nd_error.y) hi = std::max(hi, v);
    attention_plot_->yAxis->setRange(std::max(lo / 2, 1e-5), std::max(hi * 2, 1.0));
    placeV(attention_marker_, static_cast<double>(s.training.seq_len));
    attention_label_->setText(
        tr("@ %1: %2 of FLOPs\n6ND low by %3")
            .arg(qs(format_count(static_cast<double>(s.training.seq_len), 0)),
                 qs(format_percent(view_.attention_fraction_at_seq)),
                 qs(format_percent(six_nd_error(view_.attention_fraction_at_seq)))));
    attention_plot_->requestReplot();
  }
  // (d)
  const InferenceAwarePlan& p = view_.report.plan;
  if (inputsChanged(3, key(p.chinchilla.params, p.chinchilla.train_tokens, p.same_loss.params,
                           p.same_loss.train_tokens, s.serving.served_tokens,
                           p.crossover_served_tokens.value_or(-1.0)))) {
    setCurve(lifetime_plot_->graph(0), view_.lifetime_chinchilla);
    setCurve(lifetime_plot_->graph(1), view_.lifetime_small);
    lifetime_plot_->graph(0)->setName(
        tr("Chinchilla %1").arg(qs(format_count(p.chinchilla.params))));
    lifetime_plot_->graph(1)->setName(
        tr("%1, same loss").arg(qs(format_count(p.same_loss.params))));
    lifetime_plot_->xAxis->setRange(view_.lifetime_chinchilla.x.front(),
                                    view_.lifetime_chinchilla.x.back());
    {
      double y0 = 1e300, y1 = 0;
      for (const Curve* c : {&view_.lifetime_chinchilla, &view_.lifetime_small})
        for (double v : c->y) {
          y0 = std::min(y0, v);
          y1 = std::max(y1, v);
        }
      lifetime_plot_->yAxis->setRange(y0 / 2, y1 * 2);
    }
    const bool cross = p.crossover_served_tokens.has_value();
    lifetime_crossover_->setVisible(cross);
    if (cross) placeV(lifetime_crossover_, *p.crossover_served_tokens);
    placeV(lifetime_served_, s.serving.served_tokens);
    lifetime_label_->setText(
        (cross ? tr("crossover: %1 served\n").arg(qs(format_count(*p.crossover_served_tokens, 1)))
               : tr("no crossover\n")) +
        tr("@ %1: %2× fewer FLOPs")
            .arg(qs(format_count(s.serving.served_tokens, 1)),
                 qs(format_grouped(p.lifetime_flops_chinchilla / p.lifetime_flops_small, 2))));
    lifetime_plot_->requestReplot();
  }
  // (e)
  const BudgetReport& r = view_.report;
  if (inputsChanged(4, key(view_.report.flops, s.tokens_per_param))) {
    setCurve(frontier_plot_->graph(0), view_.frontier_params);
    setCurve(frontier_plot_->graph(1), view_.frontier_tokens);
    frontier_plot_->graph(2)->setData({r.flops, r.flops}, {r.split.params, r.split.tokens});
    frontier_plot_->xAxis->setRange(view_.frontier_params.x.front(),
                                    view_.frontier_params.x.back());
    frontier_plot_->yAxis->setRange(view_.frontier_params.y.front() / 2,
                                    view_.frontier_tokens.y.back() * 2);
    placeV(frontier_marker_, r.flops);
    frontier_label_->setText(tr("C = %1\nN = %2, D = %3")
                                 .arg(qs(format_sci(r.flops, 2)), qs(format_count(r.split.params)),
                                      qs(format_count(r.split.tokens, 2))));
    frontier_plot_->requestReplot();
  }
}

QLabel* BudgetPanel::readout(const QString& key) const { return readouts_.value(key); }
SliderSpin* BudgetPanel::control(const QString& key) const { return sliders_.value(key); }
QComboBox* BudgetPanel::combo(const QString& key) const { return combos_.value(key); }

QStringList BudgetPanel::readoutTexts() const {
  QStringList out;
  for (QLabel* l : readouts_) out << l->text();
  out << ui.checksText->toPlainText();
  out << ui.recommendationText->toPlainText();
  return out;
}

QString BudgetPanel::helpText() {
  return tr(
      "<h3>Budget Planner</h3>"
      "<p>Left: the scenario. Chips × days × MFU × peak FLOP/s gives the compute C; "
      "C = 6ND with D = r·N gives the Chinchilla-optimal N and D (r = tokens per parameter).</p>"
      "<p><b>Read-outs</b>: C, N, D, the days at this MFU, the model states (16 bytes/param "
      "for Adam), the scenario model's parameters and memory per device, dollars, energy, "
      "KV cache and attention share. Select any value to copy it.</p>"
      "<p><b>Sanity checks</b>: memory fits the cluster sharded (70 %), the corpus has D "
      "unique tokens, the weights fit one 8-chip serving node with half its HBM left for "
      "KV, and the facility power fits the site.</p>"
      "<p><b>Plots</b>: (a) memory per device for ZeRO 0–3 against the chip's HBM; (b) KV "
      "cache per request vs context for MHA, the scenario's GQA and MQA against the HBM "
      "left after the weights; (c) attention's share of training FLOPs and 6ND's error vs "
      "sequence length; (d) lifetime FLOPs vs served tokens for the Chinchilla answer and "
      "the smaller model that reaches the same loss — the crossover is the decision; (e) "
      "N and D along the compute-optimal frontier. Hover a curve for its values; "
      "right-click to save the plot (PNG, vector PDF) or its data (CSV).</p>");
}

}  // namespace napkin
