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
#include "serving_engine.h"

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
  kChunkedPrefill
};

QString tr(const char* text) {
  return QCoreApplication::translate("napkin::RooflineControls", text);
}

using Scale = SliderSpin::Scale;
using S = Scenario;

QString layoutKey(std::int64_t tp, std::int64_t pp, std::int64_t ep) {
  return QStringLiteral("%1,%2,%3").arg(tp).arg(pp).arg(ep);
}

std::vector<ComboItem> precisionItems() {
  std::vector<ComboItem> items;
  for (Dtype d : {Dtype::bf16, Dtype::fp8, Dtype::int8, Dtype::int4})
    items.push_back(
        {QStringLiteral("%1 (%2 bits)").arg(qs(to_string(d))).arg(bits_per_element(d), 0, 'g', 4),
         static_cast<int>(d)});
  return items;
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

 private:
  // A number in the scenario's serving set-up, the panel's settings or its MFU budget.
  auto serving(int field, const QString& label, auto ServingSetup::*member) const {
    return numberBinding(
        m, field, label, [member](auto& s) -> auto& { return s.serving.*member; });
  }
  auto roof(int field, const QString& label, auto RooflineSettings::*member) const {
    return numberBinding(
        m, field, label, [member](auto& s) -> auto& { return s.roofline.*member; });
  }
  auto layout(int field, const QString& label, auto ServingLayoutSettings::*member) const {
    return numberBinding(
        m, field, label, [member](auto& s) -> auto& { return s.roofline.serving_layout.*member; });
  }
  auto mfu(int field, const QString& label, double MfuBudgetInputs::*member) const {
    return numberBinding(
        m, field, label, [member](auto& s) -> auto& { return s.roofline.mfu.*member; });
  }
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
  auto precision = [&](const char* key, const QString& label, const QString& tooltip, int field,
                       const QString& undo, Dtype ServingSetup::*member) {
    return col->combo(
        {.key = QString::fromLatin1(key),
         .label = label,
         .tooltip = tooltip,
         .items = precisionItems()},
        scenarioBinding<QVariant>(
            m, field, undo,
            [member](const S& s) { return QVariant(static_cast<int>(s.serving.*member)); },
            [member](S& s, QVariant v) { s.serving.*member = static_cast<Dtype>(v.toInt()); }));
  };
  c.weight_precision = precision(
      "precision", tr("Weights"),
      tr("Weight precision when serving (group-wise scales counted): weights = N × bits ÷ 8; "
         "decode reads them every step."),
      kWeightPrecision, tr("weight precision"), &ServingSetup::weight_dtype);
  c.kv_precision = precision(
      "kv_precision", tr("KV cache"),
      tr("KV-cache precision when serving: every request's cache is read each decode step at "
         "this width."),
      kKvPrecision, tr("KV precision"), &ServingSetup::kv_dtype);

  std::vector<ComboItem> engines;
  for (const ServingEngine& e : serving_engines()) engines.push_back({qs(e.name), qs(e.name)});
  c.engine = col->combo(
      {.key = QStringLiteral("engine"),
       .label = tr("Engine"),
       .tooltip = tr("The inference engine: ideal is the roofline bound (one max(FLOPs, bytes) per "
                     "step); the others time GEMMs, attention and element-wise kernels apart and "
                     "add them, with the engine's launch gaps, KV-read pattern, KV blocks and "
                     "reserved memory (napkin-cli serve --help lists each preset)."),
       .items = engines},
      scenarioBinding<QVariant>(
          m, kEngine, tr("engine"), [](const S& s) { return QVariant(qs(s.serving.engine)); },
          [](S& s, QVariant v) { s.serving.engine = v.toString().toStdString(); }));
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
  c.communication = col->check(
      {.key = QStringLiteral("communication"),
       .label = tr("Count communication"),
       .tooltip = tr("TP all-reduces, expert all-to-alls, pipeline hops and the KV transfer, by "
                     "the α–β model over the chip's links. Off: the seed's napkin.")},
      scenarioBinding<bool>(
          m, kCommunication, tr("communication"),
          [](const S& s) { return s.roofline.serving_layout.communication; },
          [](S& s, bool on) { s.roofline.serving_layout.communication = on; }));
  c.ttft =
      col->slider({.key = QStringLiteral("ttft"),
                   .label = tr("TTFT bound"),
                   .unit = tr("s"),
                   .min = 0,
                   .max = 10,
                   .ladder = Ladder::multipleOf(0.05),
                   .decimals = 2,
                   .tooltip = tr("Time to first token the search must meet (seconds); 0: "
                                 "not bounded. Disaggregation needs TTFT and TPOT.")},
                  layout(kTtft, tr("TTFT bound"), &ServingLayoutSettings::ttft_budget_seconds));
  c.tpot =
      col->slider({.key = QStringLiteral("tpot"),
                   .label = tr("TPOT bound"),
                   .unit = tr("ms"),
                   .min = 0,
                   .max = 0.5,
                   .ladder = Ladder::multipleOf(0.001),
                   .display_factor = 1000,
                   .tooltip = tr("Time per output token the search must meet (ms); 0: not "
                                 "bounded.")},
                  layout(kTpot, tr("TPOT bound"), &ServingLayoutSettings::tpot_budget_seconds));
  c.search_max_chips = col->slider(
      {.key = QStringLiteral("search_max_chips"),
       .label = tr("Search up to"),
       .unit = tr("chips"),
       .min = 1,
       .max = 4096,
       .scale = Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("The largest slice the layout search tries (chips): 1, 2, 4, … up to this.")},
      layout(kSearchMaxChips, tr("Search up to"), &ServingLayoutSettings::search_max_chips));
  c.tokens_per_day = col->slider(
      {.key = QStringLiteral("tokens_per_day"),
       .label = tr("Traffic"),
       .unit = tr("/day"),
       .min = 1e6,
       .max = 1e13,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .scientific = true,
       .tooltip = tr("Generated tokens per day the pools are sized for (tokens/day). The seed's "
                     "example: 1e9.")},
      layout(kTokensPerDay, tr("Traffic"), &ServingLayoutSettings::generated_tokens_per_day));
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
}

void Declarer::napkinAssumptions() {
  col->group(tr("Napkin assumptions"));
  c.prefill_mfu = col->slider(
      {.key = QStringLiteral("prefill_mfu"),
       .label = tr("Prefill MFU"),
       .unit = QStringLiteral("%"),
       .min = 0.05,
       .max = 1.0,
       .ladder = Ladder::multipleOf(0.01),
       .display_factor = 100,
       .tooltip = tr("Fraction of peak FLOP/s prefill achieves. The talk assumes 100 %; 40–60 % "
                     "is realistic.")},
      roof(kPrefillMfu, tr("Prefill MFU"), &RooflineSettings::prefill_mfu));
  c.bandwidth = col->slider(
      {.key = QStringLiteral("bandwidth"),
       .label = tr("Decode BW eff."),
       .unit = QStringLiteral("%"),
       .min = 0.05,
       .max = 1.0,
       .ladder = Ladder::multipleOf(0.01),
       .display_factor = 100,
       .tooltip = tr("Fraction of HBM bandwidth a decode step achieves: decode s ∝ 1 ÷ this.")},
      roof(kBandwidth, tr("Decode BW eff."), &RooflineSettings::bandwidth_efficiency));
  c.step_floor = col->slider(
      {.key = QStringLiteral("step_floor"),
       .label = tr("Step floor"),
       .unit = tr("ms"),
       .min = 0,
       .max = 0.01,
       .ladder = Ladder::multipleOf(0.0001),
       .decimals = 1,
       .display_factor = 1000,
       .tooltip = tr("Serial time per decode step more chips cannot shrink (ms): kernel launches, "
                     "collective hops, sampling. 0 in the seed's napkin.")},
      roof(kStepFloor, tr("Step floor"), &RooflineSettings::step_floor_seconds));
  c.max_chips = col->slider(
      {.key = QStringLiteral("max_chips"),
       .label = tr("Largest slice"),
       .unit = tr("chips"),
       .min = 1,
       .max = 1048576,
       .scale = Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("The largest slice you can get (chips): chips for the budget tries 1, 2, 4, "
                     "… up to this and says none beyond it.")},
      roof(kMaxChips, tr("Largest slice"), &RooflineSettings::max_chips));
  c.matmul_dim = col->slider(
      {.key = QStringLiteral("matmul_dim"),
       .label = tr("Matmul side"),
       .min = 128,
       .max = 65536,
       .scale = Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("Side d of the square matmul placed on the roofline (elements): intensity "
                     "2d/6 at bf16. The seed's is 8192.")},
      roof(kMatmulDim, tr("Matmul side"), &RooflineSettings::matmul_dim));
}

void Declarer::mfuBudget() {
  col->group(tr("MFU budget: step seconds by unit"));
  const QString mfu_tip = tr(". MFU = matmul ÷ (matmul + vector + memory + comms + optimizer).");
  auto unit = [&](SliderSpin*& out, const char* key, const QString& label, const QString& tip,
                  int field, double MfuBudgetInputs::*member, double min) {
    out = col->slider({.key = QString::fromLatin1(key),
                       .label = label,
                       .unit = tr("s"),
                       .min = min,
                       .max = 500,
                       .ladder = Ladder::multipleOf(1),
                       .tooltip = tip + mfu_tip},
                      mfu(field, label, member));
  };
  unit(c.matmul_s, "matmul_s", tr("Matmul"), tr("Seconds the matmul units run model matmuls (s)"),
       kMatmulS, &MfuBudgetInputs::matmul_seconds, 1);
  unit(c.vector_s, "vector_s", tr("Vector"), tr("Seconds of vector work: norms, softmax (s)"),
       kVectorS, &MfuBudgetInputs::vector_seconds, 0);
  unit(c.memory_s, "memory_s", tr("Memory"), tr("Seconds moving activations, not overlapped (s)"),
       kMemoryS, &MfuBudgetInputs::memory_seconds, 0);
  unit(c.comms_s, "comms_s", tr("Comms"), tr("Seconds in exposed collectives (s)"), kCommsS,
       &MfuBudgetInputs::comms_seconds, 0);
  unit(c.optimizer_s, "optimizer_s", tr("Optimizer"), tr("Seconds in the optimizer step (s)"),
       kOptimizerS, &MfuBudgetInputs::optimizer_seconds, 0);
  c.recompute =
      col->slider({.key = QStringLiteral("recompute"),
                   .label = tr("Recompute"),
                   .unit = QStringLiteral("\u00d7"),
                   .min = 1.0,
                   .max = 2.0,
                   .ladder = Ladder::multipleOf(0.01),
                   .decimals = 2,
                   .tooltip = tr("Hardware FLOPs per model FLOP: 8/6 ≈ 1.33 with full activation "
                                 "checkpointing, 1 without. HFU = MFU × this.")},
                  roof(kRecompute, tr("Recompute"), &RooflineSettings::recompute));
}

void Declarer::codesign() {
  col->group(tr("Co-design"));
  c.tile = col->combo(
      {.key = QStringLiteral("tile"),
       .label = tr("Tile side"),
       .tooltip = tr("Matmul tile side (elements): a dimension is padded up to a multiple; "
                     "efficiency = dim ÷ padded dim."),
       .items = {{QStringLiteral("32"), 32},
                 {QStringLiteral("64"), 64},
                 {QStringLiteral("128"), 128},
                 {QStringLiteral("256"), 256}}},
      scenarioBinding<QVariant>(
          m, kTile, tr("tile side"),
          [](const S& s) { return QVariant(static_cast<int>(s.roofline.tile)); },
          [](S& s, QVariant v) { s.roofline.tile = v.toInt(); }));
  c.layer_serial = col->slider(
      {.key = QStringLiteral("layer_serial"),
       .label = tr("Per-layer cost"),
       .unit = tr("\u00b5s"),
       .min = 0,
       .max = 100e-6,
       .ladder = Ladder::multipleOf(1e-6),
       .display_factor = 1e6,
       .tooltip = tr("Serial launch/sync time per layer per decode step (µs): deeper models pay "
                     "it L times per token.")},
      roof(kLayerSerial, tr("Per-layer cost"), &RooflineSettings::per_layer_serial_seconds));
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
                        run_output_spread})
    if (s && s->objectName() == key) return s;
  return nullptr;
}

QComboBox* RooflineControls::combo(const QString& key) const {
  for (QComboBox* c : {chip, weight_precision, kv_precision, engine, tile, layout, max_tokens,
                       chunked_prefill, run_mode, run_concurrency})
    if (c && c->objectName() == key) return c;
  return nullptr;
}

}  // namespace napkin
