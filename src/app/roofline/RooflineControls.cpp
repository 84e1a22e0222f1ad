#include "roofline/RooflineControls.h"
#include "roofline/ServingRunControls.h"

#include <QCheckBox>
#include <QComboBox>
#include <algorithm>

#include "ControlColumn.h"
#include "ScenarioBinding.h"
#include "ScenarioControls.h"
#include "Text.h"
#include "format.h"
#include "hardware.h"
#include "roofline_view.h"

namespace napkin {

namespace {

// Field ids of the Roofline panel (160..199): consecutive edits of one field
// within a drag merge into one undo step.
enum Field {
  kPrompt = 160,
  kDecodeTokens,
  kBudget,
  kOverhead,
  kBatch,
  kWeightPrecision,
  kKvPrecision,
  kPrefillMfu,
  kBandwidth,
  kStepFloor,
  kMaxChips,
  kMatmulDim,
  kMatmulS,
  kVectorS,
  kMemoryS,
  kCommsS,
  kOptimizerS,
  kRecompute,
  kTile,
  kLayerSerial,
  kServingChips,
  kLayout,
  kCommunication,
  kTtft,
  kTpot,
  kSearchMaxChips,
  kTokensPerDay,
  kOverlay,
  kEngine,
  kMaxTokens,
  kChunkedPrefill,
  kMemoryFraction
};

QString tr(const char* text) {
  return QCoreApplication::translate("napkin::RooflineControls", text);
}

using S = Scenario;

QString layoutKey(std::int64_t tp, std::int64_t pp, std::int64_t ep) {
  return QStringLiteral("%1,%2,%3").arg(tp).arg(pp).arg(ep);
}

}  // namespace

namespace {

// Declares the panel's controls a group at a time, in the column's order.
class Declarer : ControlDeclarer<RooflineControls> {
 public:
  using ControlDeclarer::ControlDeclarer;

  // The chip, its count and the context, shared with the other panels.
  void chipAndContext();
  // The serving turn (shared): prompt, decode, latency budget, batch, precisions, engine.
  void servingTurn();
  // The serving layout: chips, split, bounds, search range, traffic.
  void servingLayout();
  // The latency napkin's assumptions.
  void napkinAssumptions();
  // The MFU budget: a training step's seconds by unit.
  void mfuBudget();
  // Co-design: the tile side and the per-layer serial cost.
  void codesign();
  // One check box per chip of the chip list, the user's too.
  void overlays();
};

void Declarer::chipAndContext() {
  col->group(tr("Chip and context (shared)"));
  c.chip = declareChipControl(col, m);
  c.chips = declareChipsControl(col, m);
  c.context = declareContextControl(col, m);
}

void Declarer::servingTurn() {
  col->group(tr("Serving turn (shared)"));
  c.prompt = declareInput(col, m, kPrompt, "serving.prompt_tokens", QStringLiteral("prompt"));
  c.decode_tokens =
      declareInput(col, m, kDecodeTokens, "serving.decode_tokens", QStringLiteral("decode_tokens"));
  c.budget =
      declareInput(col, m, kBudget, "serving.latency_budget_seconds", QStringLiteral("budget"));
  c.overhead =
      declareInput(col, m, kOverhead, "serving.overhead_seconds", QStringLiteral("overhead"));
  c.batch = declareInput(col, m, kBatch, "serving.batch", QStringLiteral("batch"));
  // The precisions and the engine: registered choices (choices.h).
  c.weight_precision = declareChoice(col, m, kWeightPrecision, "serving.weight_precision",
                                     QStringLiteral("precision"));
  c.kv_precision =
      declareChoice(col, m, kKvPrecision, "serving.kv_precision", QStringLiteral("kv_precision"));
  c.engine = declareChoice(col, m, kEngine, "serving.engine", QStringLiteral("engine"));
}

void Declarer::servingLayout() {
  col->group(tr("Serving layout"));
  c.serving_chips =
      declareInput(col, m, kServingChips, "serving.chips", QStringLiteral("serving_chips"));
  c.layout = col->combo(
      {.key = QStringLiteral("layout"),
       .label = tr("Layout"),
       .tooltip = tr("How the serving chips are split: tensor parallel (TP divides the heads), "
                     "pipeline stages (PP), expert parallel (EP, MoE). Fastest: the split with the "
                     "shortest turn that fits."),
       .dynamic_items =
           [m = m] {
             std::vector<ComboItem> items{{tr("fastest split"), layoutKey(0, 0, 0)}};
             const Scenario& s = m->scenario();
             try {
               for (const ServingLayout& l :
                    serving_layouts(serving_model(s.shape), s.serving.chips))
                 items.push_back({qs(describe(l)), layoutKey(l.tp, l.pp, l.ep)});
             } catch (const std::exception&) {
             }
             return items;
           }},
      scenarioBinding<QVariant>(
          m, kLayout, tr("layout"),
          [](const S& s) {
            return QVariant(layoutKey(s.roofline.serving_layout.tp, s.roofline.serving_layout.pp,
                                      s.roofline.serving_layout.ep));
          },
          [](S& s, QVariant v) {
            const QStringList parts = v.toString().split(QLatin1Char(','));
            if (parts.size() != 3) return;
            s.roofline.serving_layout.tp = parts[0].toLongLong();
            s.roofline.serving_layout.pp = parts[1].toLongLong();
            s.roofline.serving_layout.ep = parts[2].toLongLong();
          }));
  c.communication = declareSwitch(col, m, kCommunication, "roofline.serving_layout.communication",
                                  QStringLiteral("communication"));
  c.ttft = declareInput(col, m, kTtft, "roofline.serving_layout.ttft_budget_seconds",
                        QStringLiteral("ttft"));
  c.tpot = declareInput(col, m, kTpot, "roofline.serving_layout.tpot_budget_seconds",
                        QStringLiteral("tpot"));
  c.search_max_chips =
      declareInput(col, m, kSearchMaxChips, "roofline.serving_layout.search_max_chips",
                   QStringLiteral("search_max_chips"));
  c.tokens_per_day =
      declareInput(col, m, kTokensPerDay, "roofline.serving_layout.generated_tokens_per_day",
                   QStringLiteral("tokens_per_day"));
  // The serving run's scheduler, as the frontier runs it. A budget a file
  // or the CLI set off the list is listed too, never shown as another.
  c.max_tokens = col->combo(
      {.key = QStringLiteral("max_tokens"),
       .label = tr("Tokens / iter."),
       .tooltip = tr("The tokens one scheduler iteration runs in the frontier's runs "
                     "(TensorRT-LLM max_num_tokens, vLLM max_num_batched_tokens): running "
                     "requests' decode tokens first, then prompts. Engine default: the preset's "
                     "(napkin-cli serve --help)."),
       .dynamic_items =
           [m = m] {
             return countItems(tr("engine default"), {2048, 4096, 8192, 16384, 32768},
                               m->scenario().roofline.serving_layout.max_tokens_per_step);
           }},
      scenarioBinding<QVariant>(
          m, kMaxTokens, tr("tokens per iteration"),
          [](const S& s) {
            return QVariant(qint64{s.roofline.serving_layout.max_tokens_per_step});
          },
          [](S& s, QVariant v) {
            s.roofline.serving_layout.max_tokens_per_step = v.toLongLong();
          }));
  c.chunked_prefill = col->combo(
      {.key = QStringLiteral("chunked_prefill"),
       .label = tr("Chunked prefill"),
       .tooltip = tr("Whether a prompt larger than what is left of an iteration's tokens is "
                     "split over iterations (vLLM --enable-chunked-prefill, TensorRT-LLM "
                     "enable_chunked_context) or waits. Engine default: the preset's."),
       .items = {{tr("engine default"), QString()},
                 {tr("on"), QStringLiteral("on")},
                 {tr("off"), QStringLiteral("off")}}},
      scenarioBinding<QVariant>(
          m, kChunkedPrefill, tr("chunked prefill"),
          [](const S& s) {
            const auto& chunked = s.roofline.serving_layout.chunked_prefill;
            return QVariant(chunked
                                ? QString(*chunked ? QStringLiteral("on") : QStringLiteral("off"))
                                : QString());
          },
          [](S& s, QVariant v) {
            const QString t = v.toString();
            if (t.isEmpty())
              s.roofline.serving_layout.chunked_prefill.reset();
            else
              s.roofline.serving_layout.chunked_prefill = t == QStringLiteral("on");
          }));
  c.memory_fraction = col->combo(
      {.key = QStringLiteral("memory_fraction"),
       .label = tr("Engine memory"),
       .tooltip = tr("The engine's memory setting as its flag takes it: TensorRT-LLM's "
                     "kv_cache_free_gpu_mem_fraction (the KV cache's share of the memory free "
                     "after the weights), vLLM's gpu_memory_utilization and SGLang's "
                     "mem_fraction_static (the device's share for weights and KV cache); ideal "
                     "and jetstream: the share of HBM for weights and KV cache. It sets what "
                     "fits and how many requests run at once. Engine default: the preset's "
                     "(napkin-cli serve --help)."),
       .dynamic_items =
           [m = m] {
             // The values engines' docs and benchmarks use, and a file's own.
             return fractionItems(tr("engine default"), {0.8, 0.85, 0.9, 0.95},
                                  m->scenario().roofline.serving_layout.engine_memory_fraction);
           }},
      scenarioBinding<QVariant>(
          m, kMemoryFraction, tr("engine memory"),
          [](const S& s) { return QVariant(s.roofline.serving_layout.engine_memory_fraction); },
          [](S& s, QVariant v) {
            s.roofline.serving_layout.engine_memory_fraction = v.toDouble();
          }));
}

void Declarer::napkinAssumptions() {
  col->group(tr("Napkin assumptions"));
  c.prefill_mfu =
      declareInput(col, m, kPrefillMfu, "roofline.prefill_mfu", QStringLiteral("prefill_mfu"));
  c.bandwidth = declareInput(col, m, kBandwidth, "roofline.bandwidth_efficiency",
                             QStringLiteral("bandwidth"));
  c.step_floor =
      declareInput(col, m, kStepFloor, "roofline.step_floor_seconds", QStringLiteral("step_floor"));
  c.max_chips = declareInput(col, m, kMaxChips, "roofline.max_chips", QStringLiteral("max_chips"));
  c.matmul_dim =
      declareInput(col, m, kMatmulDim, "roofline.matmul_dim", QStringLiteral("matmul_dim"));
}

void Declarer::mfuBudget() {
  col->group(tr("MFU budget: step seconds by unit"));
  auto unit = [&](int field, const char* member, const char* control_key) {
    return declareInput(col, m, field, "roofline.mfu_budget." + std::string(member),
                        QString::fromLatin1(control_key));
  };
  c.matmul_s = unit(kMatmulS, "matmul_seconds", "matmul_s");
  c.vector_s = unit(kVectorS, "vector_seconds", "vector_s");
  c.memory_s = unit(kMemoryS, "memory_seconds", "memory_s");
  c.comms_s = unit(kCommsS, "comms_seconds", "comms_s");
  c.optimizer_s = unit(kOptimizerS, "optimizer_seconds", "optimizer_s");
  c.recompute = declareInput(col, m, kRecompute, "roofline.recompute", QStringLiteral("recompute"));
}

void Declarer::codesign() {
  col->group(tr("Co-design"));
  c.tile = declareInput(col, m, kTile, "roofline.tile", QStringLiteral("tile"));
  c.layer_serial = declareInput(col, m, kLayerSerial, "roofline.per_layer_serial_seconds",
                                QStringLiteral("layer_serial"));
}

void Declarer::overlays() {
  col->group(tr("Overlay rooflines"));
  bool first = true;
  // Every chip of the chip list, the user's too (one box per chip).
  for (const Chip* chip : chip_list()) {
    const std::string name(chip->name);
    QCheckBox* box =
        col->check({.key = QStringLiteral("overlay_") + qs(name),
                    .label = qs(name),
                    .tooltip = tr("Overlay the %1 roofline").arg(qs(name)),
                    .same_row = !first && c.overlays.size() % 2 == 1},
                   scenarioBinding<bool>(
                       m, kOverlay, tr("overlays"),
                       [name](const S& s) {
                         return std::find(s.roofline.overlays.begin(), s.roofline.overlays.end(),
                                          name) != s.roofline.overlays.end();
                       },
                       [name](S& s, bool on) {
                         auto& v = s.roofline.overlays;
                         v.erase(std::remove(v.begin(), v.end(), name), v.end());
                         if (on) v.push_back(name);
                       }));
    c.overlays.push_back({name, box});
    first = false;
  }
}

}  // namespace

RooflineControls RooflineControls::declare(ControlColumn* col, ScenarioModel* m) {
  RooflineControls c;
  Declarer d(c, col, m);
  d.chipAndContext();
  d.servingTurn();
  d.servingLayout();
  declareServingRun(col, m, c);
  d.napkinAssumptions();
  d.mfuBudget();
  d.codesign();
  d.overlays();
  col->finish();
  return c;
}

SliderSpin* RooflineControls::slider(const QString& key) const {
  for (SliderSpin* s : {chips,
                        context,
                        prompt,
                        decode_tokens,
                        budget,
                        overhead,
                        batch,
                        prefill_mfu,
                        bandwidth,
                        step_floor,
                        max_chips,
                        matmul_dim,
                        matmul_s,
                        vector_s,
                        memory_s,
                        comms_s,
                        optimizer_s,
                        recompute,
                        layer_serial,
                        serving_chips,
                        ttft,
                        tpot,
                        search_max_chips,
                        tokens_per_day,
                        run_rate,
                        run_requests,
                        run_prompt_spread,
                        run_output_spread,
                        tile})
    if (s && s->objectName() == key) return s;
  return nullptr;
}

QComboBox* RooflineControls::combo(const QString& key) const {
  for (QComboBox* c : {chip, weight_precision, kv_precision, engine, layout, max_tokens,
                       chunked_prefill, memory_fraction, run_mode, run_concurrency})
    if (c && c->objectName() == key) return c;
  return nullptr;
}

}  // namespace napkin
