#include "BudgetControls.h"
#include "Text.h"

#include <QCheckBox>
#include <QComboBox>

#include "ControlColumn.h"
#include "ScenarioBinding.h"
#include "ScenarioControls.h"
#include "budget_view.h"
#include "format.h"
#include "hardware.h"

namespace napkin {

namespace {

// Field ids: consecutive edits of one field within a drag merge into one undo step.
enum Field {
  kDays = 1,
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
  kSeq
};

QString tr(const char* text) { return QCoreApplication::translate("napkin::BudgetControls", text); }

using Scale = SliderSpin::Scale;
using S = Scenario;

// A shape field: edits it, marks the model custom and keeps the shape consistent.
Binding<double> shapeBinding(ScenarioModel* m, int field, const QString& label,
                             std::int64_t ModelShape::*member) {
  return scenarioBinding<double>(
      m, field, label, [member](const S& s) { return static_cast<double>(s.shape.*member); },
      [member](S& s, double v) {
        s.shape.*member = static_cast<std::int64_t>(v);
        s.model_name = "Custom";
        s.shape = consistent_shape(s.shape);
      });
}

// The preset combo's entries: Custom, the published shapes, then the dense
// model of the Chinchilla-optimal size for the current budget.
int presetIndex(const Scenario& s) {
  const auto presets = model_presets();
  for (std::size_t i = 0; i < presets.size(); ++i)
    if (s.model_name == presets[i].name) return static_cast<int>(i) + 1;
  if (s.model_name.rfind("Chinchilla-optimal", 0) == 0) return static_cast<int>(presets.size()) + 1;
  return 0;
}

void applyPreset(ScenarioModel* model, int index, double chinchilla_params) {
  Scenario s = model->scenario();
  const auto presets = model_presets();
  if (index >= 1 && index <= static_cast<int>(presets.size())) {
    const ModelPreset& p = presets[static_cast<std::size_t>(index - 1)];
    s.shape = p.shape;
    s.model_name = std::string(p.name);
  } else if (index == static_cast<int>(presets.size()) + 1) {
    s.shape = dense_shape_for_params(chinchilla_params, s.shape.vocab);
    s.model_name = "Chinchilla-optimal (" + format_count(chinchilla_params) + ")";
  } else {
    return;
  }
  model->replace(s, tr("Load preset %1").arg(QString::fromStdString(s.model_name)));
}

}  // namespace

BudgetControls BudgetControls::declare(ControlColumn* col, ScenarioModel* m,
                                       std::function<double()> chinchilla_params,
                                       BudgetPlanControls::ViewGetter view) {
  BudgetControls c;
  BudgetPlanControls::declareQuestion(c.plan, col, m, view);

  col->group(tr("Hardware and budget"));
  c.chip = declareChipControl(col, m);
  c.chips = declareChipsControl(col, m);
  c.days = col->slider({.key = QStringLiteral("days"),
                        .label = tr("Days"),
                        .unit = tr("days"),
                        .min = 1,
                        .max = 365,
                        .ladder = Ladder::multipleOf(1),
                        .integer = true,
                        .tooltip = tr("Wall-clock days of training (days). Enters C linearly.")},
                       numberBinding(
                           m, kDays, tr("Days"), [](auto& s) -> auto& { return s.days; }));
  c.mfu = col->slider(
      {.key = QStringLiteral("mfu"),
       .label = tr("MFU"),
       .unit = QStringLiteral("%"),
       .min = 0.10,
       .max = 0.70,
       .ladder = Ladder::multipleOf(0.01),
       .display_factor = 100,
       .tooltip = tr("Model FLOPs utilization (fraction of peak): useful 6ND FLOPs ÷ (chips × "
                     "peak × time). 35–55 % is normal at scale.")},
      numberBinding(
          m, kMfu, tr("MFU"), [](auto& s) -> auto& { return s.mfu; },
          [](S& s) { carry_range(s, RangeInput::mfu); }));
  c.price = col->slider(
      {.key = QStringLiteral("price"),
       .label = tr("Price"),
       .unit = tr("$/chip-h"),
       .min = 0.10,
       .max = 20,
       .scale = Scale::log,
       .ladder = Ladder::significant(2),
       .decimals = 2,
       .tooltip = tr("Rental price ($ per chip-hour). Rental $ = chips × days × 24 × price.")},
      numberBinding(
          m, kPrice, tr("Price"), [](auto& s) -> auto& { return s.price_per_chip_hour_dollars; },
          [](S& s) { carry_range(s, RangeInput::price); }));
  c.kwh = col->slider(
      {.key = QStringLiteral("kwh"),
       .label = tr("Energy price"),
       .unit = tr("$/kWh"),
       .min = 0.01,
       .max = 0.50,
       .ladder = Ladder::multipleOf(0.01),
       .decimals = 3,
       .tooltip = tr("Electricity price ($ per kWh). Energy $ = chips × TDP × PUE × hours ÷ 1000 "
                     "× price.")},
      numberBinding(
          m, kKwh, tr("Energy price"), [](auto& s) -> auto& { return s.kwh_price_dollars; }));
  c.pue = col->slider(
      {.key = QStringLiteral("pue"),
       .label = tr("PUE"),
       .min = 1.0,
       .max = 2.0,
       .ladder = Ladder::multipleOf(0.01),
       .decimals = 2,
       .tooltip = tr("Power usage effectiveness (facility W per IT W): energy at the wall ÷ "
                     "energy at the chips.")},
      numberBinding(
          m, kPue, tr("PUE"), [](auto& s) -> auto& { return s.pue; }));

  col->group(tr("Allocation and serving"));
  c.tokens_per_param = col->slider(
      {.key = QStringLiteral("tokens_per_param"),
       .label = tr("Tokens/param"),
       .min = 1,
       .max = 1000,
       .scale = Scale::log,
       .ladder = Ladder::significant(2),
       .decimals = 1,
       .tooltip = tr("Chinchilla ratio r (tokens per parameter): N = √(C / 6r), D = r·N. "
                     "Default 20.")},
      numberBinding(
          m, kTpp, tr("Tokens/param"), [](auto& s) -> auto& { return s.tokens_per_param; }));
  c.served_tokens = col->slider(
      {.key = QStringLiteral("served_tokens"),
       .label = tr("Served tokens"),
       .min = 1e9,
       .max = 1e17,
       .scale = Scale::log,
       .ladder = Ladder::significant(2),
       .decimals = 2,
       .scientific = true,
       .tooltip = tr("Tokens the model serves over its life (tokens). Lifetime FLOPs = "
                     "6N·D_train + 2N·D_served: more serving favours a smaller model trained "
                     "longer.")},
      numberBinding(
          m, kServed, tr("Served tokens"),
          [](auto& s) -> auto& { return s.serving.served_tokens; }));
  c.tokens_available = col->slider(
      {.key = QStringLiteral("tokens_available"),
       .label = tr("Unique tokens"),
       .min = 1e10,
       .max = 1e15,
       .scale = Scale::log,
       .ladder = Ladder::significant(2),
       .decimals = 2,
       .scientific = true,
       .tooltip = tr("Unit: tokens. Unique (deduplicated) training tokens the corpus holds; "
                     "beyond them data repeat and are worth less (Muennighoff et al. 2023, "
                     "R_D* = 15.4). Default 15T (Llama 3 pre-trained on 15.6T). The 'data "
                     "available' check needs D below it.")},
      numberBinding(
          m, kAvailable, tr("Unique tokens"), [](auto& s) -> auto& { return s.tokens_available; },
          [](S& s) { carry_range(s, RangeInput::tokens_available); }));
  c.context = declareContextControl(col, m);

  BudgetPlanControls::declareRun(c.plan, col, m, view);

  col->group(tr("Model"));
  std::vector<ComboItem> presets{{tr("Custom"), 0}};
  for (const ModelPreset& p : model_presets())
    presets.push_back({qs(p.name), static_cast<int>(presets.size())});
  presets.push_back({tr("Chinchilla-optimal for this budget"), static_cast<int>(presets.size())});
  c.preset = col->combo(
      {.key = QStringLiteral("preset"),
       .label = tr("Preset"),
       .tooltip = tr("Load a model shape: a published checkpoint, a DeepSeek-V3-like MoE, or a "
                     "dense model of the Chinchilla-optimal size for this budget."),
       .items = presets},
      {[m] { return QVariant(presetIndex(m->scenario())); },
       [m, n = std::move(chinchilla_params)](const QVariant& v) {
         applyPreset(m, v.toInt(), n());
       }});
  c.layers = col->slider({.key = QStringLiteral("layers"),
                          .label = tr("Layers"),
                          .min = 1,
                          .max = 200,
                          .ladder = Ladder::multipleOf(1),
                          .integer = true,
                          .tooltip = tr("Transformer blocks L. Parameters grow linearly with L.")},
                         shapeBinding(m, kLayers, tr("Layers"), &ModelShape::n_layers));
  c.d_model = col->slider(
      {.key = QStringLiteral("d_model"),
       .label = tr("d_model"),
       .min = 64,
       .max = 32768,
       .scale = Scale::log,
       .ladder = Ladder::multipleOf(128),
       .integer = true,
       .tooltip = tr("Residual width d (elements). Attention is 2·d·(n_h + n_kv)·d_head per "
                     "layer.")},
      shapeBinding(m, kDModel, tr("d_model"), &ModelShape::d_model));
  c.d_ff = col->slider(
      {.key = QStringLiteral("d_ff"),
       .label = tr("d_ff"),
       .min = 64,
       .max = 131072,
       .scale = Scale::log,
       .ladder = Ladder::multipleOf(128),
       .integer = true,
       .tooltip = tr("MLP hidden width F (elements): 3·d·F per layer gated, 2·d·F ungated.")},
      shapeBinding(m, kDff, tr("d_ff"), &ModelShape::d_ff));
  c.heads = col->slider({.key = QStringLiteral("heads"),
                         .label = tr("Heads"),
                         .min = 1,
                         .max = 256,
                         .ladder = Ladder::multipleOf(1),
                         .integer = true,
                         .tooltip = tr("Query heads n_h. W_q and W_o are d × n_h·d_head.")},
                        shapeBinding(m, kHeads, tr("Heads"), &ModelShape::n_heads));
  c.kv_heads = col->combo(
      {.key = QStringLiteral("kv_heads"),
       .label = tr("KV heads"),
       .tooltip = tr("Key/value heads n_kv, a divisor of the query heads: n_h = MHA, 1 = MQA, in "
                     "between GQA. KV cache ∝ n_kv; W_k, W_v are d × n_kv·d_head."),
       .dynamic_items =
           [m] {
             std::vector<ComboItem> items;
             const std::int64_t h = m->scenario().shape.n_heads;
             for (std::int64_t d : kv_head_options(h)) {
               QString label = QString::number(d);
               if (d == h)
                 label += tr(" (MHA)");
               else if (d == 1)
                 label += tr(" (MQA)");
               else
                 label += tr(" (GQA-%1)").arg(d);
               items.push_back({label, static_cast<qlonglong>(d)});
             }
             return items;
           }},
      scenarioBinding<QVariant>(
          m, kKvHeads, tr("KV heads"),
          [](const S& s) { return QVariant(static_cast<qlonglong>(s.shape.n_kv_heads)); },
          [](S& s, QVariant v) {
            s.shape.n_kv_heads = v.toLongLong();
            s.model_name = "Custom";
          }));
  c.head_dim = col->slider({.key = QStringLiteral("head_dim"),
                            .label = tr("Head dim"),
                            .min = 16,
                            .max = 512,
                            .scale = Scale::log,
                            .ladder = Ladder::multipleOf(16),
                            .integer = true,
                            .tooltip = tr("Elements per head d_head (usually d_model ÷ heads).")},
                           shapeBinding(m, kHeadDim, tr("Head dim"), &ModelShape::d_head));
  c.vocab = col->slider(
      {.key = QStringLiteral("vocab"),
       .label = tr("Vocabulary"),
       .unit = tr("tokens"),
       .min = 1000,
       .max = 1000000,
       .scale = Scale::log,
       .ladder = Ladder::significant(2),
       .integer = true,
       .tooltip = tr("Vocabulary V (tokens): embedding V·d, unembedding V·d unless tied.")},
      shapeBinding(m, kVocab, tr("Vocabulary"), &ModelShape::vocab));
  auto flag = [m](int field, const QString& label, bool ModelShape::*member) {
    return scenarioBinding<bool>(
        m, field, label, [member](const S& s) { return s.shape.*member; },
        [member](S& s, bool on) {
          s.shape.*member = on;
          s.model_name = "Custom";
        });
  };
  c.gated = col->check(
      {.key = QStringLiteral("gated"),
       .label = tr("Gated MLP (SwiGLU)"),
       .tooltip = tr("Three MLP matrices (gate, up, down) instead of two: 3·d·F parameters.")},
      flag(kGated, tr("gated MLP"), &ModelShape::gated));
  c.tied = col->check(
      {.key = QStringLiteral("tied"),
       .label = tr("Tied embeddings"),
       .tooltip = tr("The unembedding shares the embedding table: V·d parameters instead of "
                     "2·V·d."),
       .same_row = true},
      flag(kTied, tr("tied embeddings"), &ModelShape::tied_embeddings));
  c.experts = col->slider(
      {.key = QStringLiteral("experts"),
       .label = tr("Experts"),
       .min = 0,
       .max = 512,
       .ladder = Ladder::multipleOf(1),
       .integer = true,
       .tooltip = tr("Routed experts per MoE layer (0 = dense). Total parameters count all "
                     "experts; active parameters count top-k (+ shared).")},
      shapeBinding(m, kExperts, tr("Experts"), &ModelShape::n_experts));
  c.top_k = col->slider(
      {.key = QStringLiteral("top_k"),
       .label = tr("Top-k"),
       .min = 0,
       .max = 64,
       .ladder = Ladder::multipleOf(1),
       .integer = true,
       .tooltip = tr("Experts each token is routed to (1 … experts; 0 for a dense model).")},
      shapeBinding(m, kTopK, tr("Top-k"), &ModelShape::top_k));
  c.shared_experts =
      col->slider({.key = QStringLiteral("shared_experts"),
                   .label = tr("Shared experts"),
                   .min = 0,
                   .max = 8,
                   .ladder = Ladder::multipleOf(1),
                   .integer = true,
                   .tooltip = tr("Always-on experts per MoE layer (DeepSeek style).")},
                  shapeBinding(m, kShared, tr("Shared experts"), &ModelShape::shared_experts));

  col->group(tr("Training set-up"));
  c.optimizer = col->combo(
      {.key = QStringLiteral("optimizer"),
       .label = tr("Optimizer"),
       .tooltip = tr("Optimizer state per parameter in mixed precision: Adam 12 B (fp32 master + "
                     "m + v), SGD-momentum 8 B, Adafactor 4 B; plus 2 B weights and 2 B grads."),
       .items = {{QStringLiteral("Adam"), QStringLiteral("adam")},
                 {QStringLiteral("SGD + momentum"), QStringLiteral("sgd_momentum")},
                 {QStringLiteral("Adafactor"), QStringLiteral("adafactor")}}},
      scenarioBinding<QVariant>(
          m, kOptimizer, tr("optimizer"),
          [](const S& s) { return QVariant(qs(to_string(s.training.optimizer))); },
          [](S& s, QVariant v) {
            s.training.optimizer = parse_optimizer(v.toString().toStdString());
          }));
  std::vector<ComboItem> stages;
  for (int z = 0; z <= 3; ++z) stages.push_back({QStringLiteral("ZeRO-%1").arg(z), z});
  c.zero = col->combo(
      {.key = QStringLiteral("zero"),
       .label = tr("ZeRO stage"),
       .tooltip = tr("ZeRO 1 shards optimizer states over the data-parallel replicas, 2 also "
                     "gradients, 3 also weights."),
       .items = stages},
      scenarioBinding<QVariant>(
          m, kZero, tr("ZeRO stage"), [](const S& s) { return QVariant(s.training.zero_stage); },
          [](S& s, QVariant v) { s.training.zero_stage = v.toInt(); }));
  c.dp = col->slider(
      {.key = QStringLiteral("dp"),
       .label = tr("DP degree"),
       .min = 1,
       .max = 100000,
       .scale = Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("Data-parallel replicas sharing the ZeRO shards (replicas).")},
      numberBinding(
          m, kDp, tr("DP degree"), [](auto& s) -> auto& { return s.training.dp_degree; }));
  c.checkpointing = col->combo(
      {.key = QStringLiteral("checkpointing"),
       .label = tr("Checkpointing"),
       .tooltip = tr("Activation memory: none keeps B·T·d·L·16·2 bytes; selective 30 % of that; "
                     "full only the layer boundaries B·T·d·L·2 (and 8N instead of 6N FLOPs)."),
       .items = {{tr("None"), QStringLiteral("none")},
                 {tr("Selective"), QStringLiteral("selective")},
                 {tr("Full"), QStringLiteral("full")}}},
      scenarioBinding<QVariant>(
          m, kCkpt, tr("checkpointing"),
          [](const S& s) { return QVariant(qs(to_string(s.training.checkpointing))); },
          [](S& s, QVariant v) {
            s.training.checkpointing = parse_checkpointing(v.toString().toStdString());
          }));
  c.micro_batch = col->slider(
      {.key = QStringLiteral("micro_batch"),
       .label = tr("Micro-batch"),
       .unit = tr("seq"),
       .min = 1,
       .max = 512,
       .scale = Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("Sequences per device per step; activation bytes scale with it.")},
      numberBinding(
          m, kMicro, tr("Micro-batch"), [](auto& s) -> auto& { return s.training.micro_batch; }));
  c.seq_len = col->slider(
      {.key = QStringLiteral("seq_len"),
       .label = tr("Train sequence"),
       .unit = tr("tokens"),
       .min = 128,
       .max = 1048576,
       .scale = Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("Training sequence length T (tokens): activations ∝ T, attention FLOPs ∝ "
                     "T².")},
      numberBinding(
          m, kSeq, tr("Train sequence"), [](auto& s) -> auto& { return s.training.seq_len; }));
  col->finish();
  return c;
}

}  // namespace napkin
