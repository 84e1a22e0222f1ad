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
  kExpertDff,
  kDenseLayers,
  kOptimizer,
  kZero,
  kDp,
  kCkpt,
  kMicro,
  kSeq,
  kLaw,
  kMoeExperts,
  kMoeTopK,
  kMoeGranularity,
  kMoeShared,
  kObjective,
  kServingChip,
  kServingPrice
};

QString tr(const char* text) { return QCoreApplication::translate("napkin::BudgetControls", text); }

using Scale = SliderSpin::Scale;
using S = Scenario;

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
  c.days = declareInput(col, m, kDays, "budget.days", QStringLiteral("days"));
  c.mfu = declareInput(col, m, kMfu, "budget.mfu", QStringLiteral("mfu"),
                       [](S& s) { carry_range(s, RangeInput::mfu); });
  c.price = declareInput(col, m, kPrice, "budget.price_per_chip_hour_dollars",
                         QStringLiteral("price"), [](S& s) { carry_range(s, RangeInput::price); });
  c.kwh = declareInput(col, m, kKwh, "budget.kwh_price_dollars", QStringLiteral("kwh"));
  c.pue = declareInput(col, m, kPue, "budget.pue", QStringLiteral("pue"));

  col->group(tr("Allocation and serving"));
  c.tokens_per_param =
      declareInput(col, m, kTpp, "budget.tokens_per_param", QStringLiteral("tokens_per_param"));
  c.served_tokens =
      declareInput(col, m, kServed, "serving.served_tokens", QStringLiteral("served_tokens"));
  c.tokens_available = declareInput(col, m, kAvailable, "budget.tokens_available",
                                    QStringLiteral("tokens_available"),
                                    [](S& s) { carry_range(s, RangeInput::tokens_available); });
  c.context = declareContextControl(col, m);
  c.objective = declareChoice(col, m, kObjective, "plan.objective", QStringLiteral("objective"));
  std::vector<ComboItem> serving_chips{{tr("Same as training"), QString()}};
  for (const Chip* chip : chip_list()) serving_chips.push_back({qs(chip->name), qs(chip->name)});
  c.serving_chip = col->combo(
      {.key = QStringLiteral("serving_chip"),
       .label = tr("Serving chip"),
       .tooltip = tr("The chip the model is served on: the serving limit's layouts and the "
                     "serving side of lifetime dollars. napkin-cli budget --serving-chip."),
       .items = serving_chips},
      scenarioBinding<QVariant>(
          m, kServingChip, tr("serving chip"),
          [](const S& s) { return QVariant(qs(s.serving.chip)); },
          [](S& s, QVariant v) { s.serving.chip = v.toString().toStdString(); }));
  c.serving_price = declareInput(col, m, kServingPrice, "serving.price_per_chip_hour_dollars",
                                 QStringLiteral("serving_price"));

  BudgetPlanControls::declareRun(c.plan, col, m, view);

  col->group(tr("Law and architecture"));
  c.law = declareChoice(col, m, kLaw, "plan.law", QStringLiteral("law"));
  c.moe_experts =
      declareInput(col, m, kMoeExperts, "plan.moe_experts", QStringLiteral("moe_experts"));
  c.moe_top_k = declareInput(col, m, kMoeTopK, "plan.moe_top_k", QStringLiteral("moe_top_k"));
  c.moe_granularity = declareInput(col, m, kMoeGranularity, "plan.moe_granularity",
                                   QStringLiteral("moe_granularity"));
  c.moe_shared_experts = declareInput(col, m, kMoeShared, "plan.moe_shared_experts",
                                      QStringLiteral("moe_shared_experts"));

  col->group(tr("Model"));
  std::vector<ComboItem> presets{{tr("Custom"), 0}};
  for (const ModelPreset& p : model_presets())
    presets.push_back({qs(p.name), static_cast<int>(presets.size())});
  presets.push_back({tr("Chinchilla-optimal for this budget"), static_cast<int>(presets.size())});
  c.preset = col->combo(
      {.key = QStringLiteral("preset"),
       .label = tr("Preset"),
       .tooltip =
           tr("Load a model shape: a published checkpoint (the DeepSeek-V3 MoE among them), or a "
              "dense model of the Chinchilla-optimal size for this budget."),
       .items = presets},
      {[m] { return QVariant(presetIndex(m->scenario())); },
       [m, n = std::move(chinchilla_params)](const QVariant& v) {
         applyPreset(m, v.toInt(), n());
       }});
  // A shape number: the registry's control (an edit renames the model Custom),
  // the shape kept consistent (KV heads dividing the heads, top-k within the
  // experts).
  const auto shapeInput = [col, m](int field, std::string_view key, const char* control_key) {
    return declareInput(col, m, field, key, QLatin1String(control_key),
                        [](S& s) { s.shape = consistent_shape(s.shape); });
  };
  c.layers = shapeInput(kLayers, "model.layers", "layers");
  c.d_model = shapeInput(kDModel, "model.d_model", "d_model");
  c.d_ff = shapeInput(kDff, "model.d_ff", "d_ff");
  c.heads = shapeInput(kHeads, "model.heads", "heads");
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
  c.head_dim = shapeInput(kHeadDim, "model.head_dim", "head_dim");
  c.vocab = shapeInput(kVocab, "model.vocab", "vocab");
  auto renamed = [](S& s) { s.model_name = "Custom"; };
  c.gated = declareSwitch(col, m, kGated, "model.gated", QStringLiteral("gated"), false, renamed);
  c.tied =
      declareSwitch(col, m, kTied, "model.tied_embeddings", QStringLiteral("tied"), true, renamed);
  c.experts = shapeInput(kExperts, "model.experts", "experts");
  c.top_k = shapeInput(kTopK, "model.top_k", "top_k");
  c.shared_experts = shapeInput(kShared, "model.shared_experts", "shared_experts");
  c.expert_d_ff = shapeInput(kExpertDff, "model.expert_d_ff", "expert_d_ff");
  c.dense_layers = shapeInput(kDenseLayers, "model.dense_layers", "dense_layers");

  col->group(tr("Training set-up"));
  c.optimizer =
      declareChoice(col, m, kOptimizer, "training.optimizer", QStringLiteral("optimizer"));
  c.train_precision = declareTrainPrecisionControl(col, m, QStringLiteral("trainPrecision"));
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
  c.dp = declareInput(col, m, kDp, "training.dp_degree", QStringLiteral("dp"));
  c.checkpointing =
      declareChoice(col, m, kCkpt, "training.checkpointing", QStringLiteral("checkpointing"));
  c.micro_batch =
      declareInput(col, m, kMicro, "training.micro_batch", QStringLiteral("micro_batch"));
  c.seq_len = declareInput(col, m, kSeq, "training.seq_len", QStringLiteral("seq_len"));
  col->finish();
  return c;
}

}  // namespace napkin
