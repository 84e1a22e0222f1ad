#include "moe/MoeControls.h"

#include <QCheckBox>
#include <algorithm>

#include "ControlColumn.h"
#include "ScenarioBinding.h"

namespace napkin {

namespace {

// Field ids of the MoE panel (200..229): consecutive edits of one field
// within a drag merge into one undo step.
enum Field {
  kExperts = 200,
  kTokens,
  kSeed,
  kTopK,
  kAux,
  kAuxOn,
  kZ,
  kZOn,
  kCapacity,
  kLr,
  kShared,
  kRenormalize,
  kPrefill,
  kLink,
  kLatency,
  kChunks,
  kStages,
  kCompute,
  kTransfer
};

QString tr(const char* text) { return QCoreApplication::translate("napkin::MoeControls", text); }

using Scale = SliderSpin::Scale;
using S = Scenario;

// A whole-number field of the MoE settings.
Binding<double> countBinding(ScenarioModel* m, int field, const QString& label,
                             std::int64_t MoeSettings::*member) {
  return scenarioBinding<double>(
      m, field, label, [member](const S& s) { return static_cast<double>(s.moe.*member); },
      [member](S& s, double v) { s.moe.*member = static_cast<std::int64_t>(v); });
}

Binding<double> realBinding(ScenarioModel* m, int field, const QString& label,
                            double MoeSettings::*member) {
  return scenarioBinding<double>(
      m, field, label, [member](const S& s) { return s.moe.*member; },
      [member](S& s, double v) { s.moe.*member = v; });
}

Binding<bool> flagBinding(ScenarioModel* m, int field, const QString& label,
                          bool MoeSettings::*member, bool inverted = false) {
  return scenarioBinding<bool>(
      m, field, label, [member, inverted](const S& s) { return (s.moe.*member) != inverted; },
      [member, inverted](S& s, bool on) { s.moe.*member = on != inverted; });
}

}  // namespace

namespace {

// Declares the panel's controls a group at a time, in the column's order.
class Declarer : ControlDeclarer<MoeControls> {
 public:
  using ControlDeclarer::ControlDeclarer;

  // The router: its settings restart the run.
  void router();
  // The training knobs: the run continues from its step.
  void trainingKnobs();
  // The link and the pipeline of the all-to-all napkin.
  void linkAndPipeline();
};

void Declarer::router() {
  col->group(tr("Router (restarts the run)"));
  c.experts = col->slider(
      {.key = QStringLiteral("experts"),
       .label = tr("Experts E"),
       .min = 2,
       .max = 256,
       .scale = Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("Routed experts E. The router is an E × d matrix; changing E restarts the "
                     "simulation (new router, new experts).")},
      scenarioBinding<double>(
          m, kExperts, tr("Experts E"),
          [](const S& s) { return static_cast<double>(s.moe.n_experts); },
          [](S& s, double v) {
            s.moe.n_experts = static_cast<std::int64_t>(v);
            s.moe.top_k = std::min(s.moe.top_k, s.moe.n_experts);  // k ≤ E
          }));
  c.tokens = col->slider(
      {.key = QStringLiteral("tokens"),
       .label = tr("Tokens/batch"),
       .min = 32,
       .max = 4096,
       .scale = Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("Tokens routed per step (T). Slots = T × k; capacity = ⌊cf × T × k / E⌋. "
                     "Restarts the run (the token stream changes).")},
      countBinding(m, kTokens, tr("Tokens/batch"), &MoeSettings::tokens_per_batch));
  c.seed = col->slider(
      {.key = QStringLiteral("seed"),
       .label = tr("Seed"),
       .min = 0,
       .max = 999,
       .ladder = Ladder::multipleOf(1),
       .integer = true,
       .tooltip = tr("Seed of the token stream, the router's initial weights and the experts' "
                     "initial head start. Same seed, same run, byte for byte.")},
      scenarioBinding<double>(
          m, kSeed, tr("Seed"), [](const S& s) { return static_cast<double>(s.moe.seed); },
          [](S& s, double v) { s.moe.seed = static_cast<std::uint64_t>(v); }));
}

void Declarer::trainingKnobs() {
  col->group(tr("Training knobs (continue the run)"));
  c.top_k = col->slider(
      {.key = QStringLiteral("top_k"),
       .label = tr("Top-k"),
       .min = 1,
       .max = 8,
       .ladder = Ladder::multipleOf(1),
       .integer = true,
       .tooltip = tr("Experts per token k (≤ E). Each token fills k slots; max/mean can reach at "
                     "most E / k.")},
      scenarioBinding<double>(
          m, kTopK, tr("Top-k"), [](const S& s) { return static_cast<double>(s.moe.top_k); },
          [](S& s, double v) {
            s.moe.top_k = std::min(static_cast<std::int64_t>(v), s.moe.n_experts);
          }));
  c.aux = col->slider(
      {.key = QStringLiteral("aux"),
       .label = tr("Aux weight α"),
       .min = 1e-4,
       .max = 1,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .decimals = 4,
       .tooltip = tr("Weight α of the Switch load-balance loss L_balance = E·Σ fᵢ·Pᵢ (fᵢ: share "
                     "of slots, Pᵢ: mean router probability; 1.0 = balanced). ~0.01 is the usual "
                     "value; tick \"α = 0\" to switch it off.")},
      realBinding(m, kAux, tr("Aux weight α"), &MoeSettings::aux_weight));
  c.aux_zero = col->check({.key = QStringLiteral("aux_zero"),
                           .label = tr("α = 0 (no balance loss)"),
                           .tooltip = tr("Switches the load-balance loss off: the router is "
                                         "left alone.")},
                          flagBinding(m, kAuxOn, tr("α = 0"), &MoeSettings::aux_on, true));
  c.z = col->slider(
      {.key = QStringLiteral("z"),
       .label = tr("z-loss γ"),
       .min = 1e-5,
       .max = 0.1,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .decimals = 5,
       .tooltip = tr("Weight γ of the router z-loss L_z = mean over tokens of (log Σ exp "
                     "logits)²: keeps logits small (bf16 overflow, softmax saturation). Tick "
                     "\"γ = 0\" to switch it off.")},
      realBinding(m, kZ, tr("z-loss γ"), &MoeSettings::z_weight));
  c.z_zero = col->check({.key = QStringLiteral("z_zero"),
                         .label = tr("γ = 0 (no z-loss)"),
                         .tooltip = tr("Switches the router z-loss off.")},
                        flagBinding(m, kZOn, tr("γ = 0"), &MoeSettings::z_on, true));
  c.capacity_factor = col->slider(
      {.key = QStringLiteral("capacity_factor"),
       .label = tr("Capacity factor"),
       .unit = QStringLiteral("×"),
       .min = 1.0,
       .max = 4.0,
       .ladder = Ladder::multipleOf(0.05),
       .decimals = 2,
       .tooltip = tr("Buffer slots per expert = ⌊cf × T × k / E⌋. Slots past the buffer are "
                     "dropped (first come, first served in token order). cf < 1 drops even "
                     "under perfect balance, so 1.0 is the minimum.")},
      realBinding(m, kCapacity, tr("Capacity factor"), &MoeSettings::capacity_factor));
  c.lr = col->slider(
      {.key = QStringLiteral("lr"),
       .label = tr("Learning rate"),
       .min = 0.1,
       .max = 300,
       .scale = Scale::log,
       .ladder = Ladder::significant(1),
       .decimals = 1,
       .tooltip = tr("Router step size (plain gradient descent on task + α·L_balance + γ·L_z). "
                     "Large values make the balance loss overshoot.")},
      realBinding(m, kLr, tr("Learning rate"), &MoeSettings::learning_rate));
  c.shared = col->check(
      {.key = QStringLiteral("shared"),
       .label = tr("Shared expert"),
       .tooltip = tr("An always-on expert runs for every token: a token whose every slot is "
                     "dropped still gets an FFN instead of riding the residual unchanged.")},
      flagBinding(m, kShared, tr("Shared expert"), &MoeSettings::shared_expert));
  c.renormalize = col->check(
      {.key = QStringLiteral("renormalize"),
       .label = tr("Renormalized gates"),
       .tooltip = tr("Gates renormalized to sum to 1 over the kept top-k slots (Mixtral, "
                     "GShard). Off: raw softmax probabilities, which shrink the layer's output. "
                     "With k = 1 the raw probability is used either way.")},
      flagBinding(m, kRenormalize, tr("Renormalized gates"), &MoeSettings::renormalize));
}

void Declarer::linkAndPipeline() {
  col->group(tr("Link and pipeline"));
  c.prefill = col->slider(
      {.key = QStringLiteral("prefill"),
       .label = tr("Prefill tokens"),
       .min = 512,
       .max = 131072,
       .scale = Scale::log,
       .ladder = Ladder::powersOfTwo(),
       .integer = true,
       .tooltip = tr("Tokens in one prefill (forward pass). All-to-all bytes = 2 × MoE layers × "
                     "tokens × d_model × 2 bytes × k.")},
      countBinding(m, kPrefill, tr("Prefill tokens"), &MoeSettings::prefill_tokens));
  c.link = col->slider(
      {.key = QStringLiteral("link"),
       .label = tr("Link"),
       .unit = tr("Gb/s"),
       .min = 1,
       .max = 3600,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .tooltip = tr("Per-chip network bandwidth in gigabits per second (100 = 100 GbE; NVLink 4 "
                     "≈ 3,600).")},
      realBinding(m, kLink, tr("Link"), &MoeSettings::link_gbps));
  c.latency = col->slider(
      {.key = QStringLiteral("latency"),
       .label = tr("Latency"),
       .unit = tr("µs"),
       .min = 0.5,
       .max = 100,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .decimals = 1,
       .tooltip = tr("Fixed cost per collective (µs); two collectives (dispatch, combine) per "
                     "MoE layer.")},
      realBinding(m, kLatency, tr("Latency"), &MoeSettings::latency_us));
  c.chunks = col->slider(
      {.key = QStringLiteral("chunks"),
       .label = tr("Chunks M"),
       .min = 1,
       .max = 32,
       .ladder = Ladder::multipleOf(1),
       .integer = true,
       .tooltip = tr("Prompt chunks streamed through the pipeline. Utilization = M / (M + S − "
                     "1).")},
      countBinding(m, kChunks, tr("Chunks M"), &MoeSettings::pipeline_chunks));
  c.stages = col->slider(
      {.key = QStringLiteral("stages"),
       .label = tr("Stages S"),
       .min = 1,
       .max = 16,
       .ladder = Ladder::multipleOf(1),
       .integer = true,
       .tooltip = tr("Pipeline stages: chips each holding a contiguous run of layers (shard "
                     "layers, not experts).")},
      countBinding(m, kStages, tr("Stages S"), &MoeSettings::pipeline_stages));
  c.compute_ms = col->slider({.key = QStringLiteral("compute_ms"),
                              .label = tr("Compute"),
                              .unit = tr("ms"),
                              .min = 1,
                              .max = 500,
                              .scale = Scale::log,
                              .ladder = Ladder::oneTwoFive(),
                              .decimals = 1,
                              .tooltip = tr("Compute per chunk per stage (ms).")},
                             realBinding(m, kCompute, tr("Compute"), &MoeSettings::compute_ms));
  c.transfer_ms = col->slider(
      {.key = QStringLiteral("transfer_ms"),
       .label = tr("Transfer"),
       .unit = tr("ms"),
       .min = 0.1,
       .max = 500,
       .scale = Scale::log,
       .ladder = Ladder::oneTwoFive(),
       .decimals = 1,
       .tooltip = tr("Stage → stage hop per chunk (ms); it overlaps the next chunk's compute, so "
                     "a pipeline step is max(compute, transfer).")},
      realBinding(m, kTransfer, tr("Transfer"), &MoeSettings::transfer_ms));
  col->finish();
}

}  // namespace

MoeControls MoeControls::declare(ControlColumn* col, ScenarioModel* m) {
  MoeControls c;
  Declarer d(c, col, m);
  d.router();
  d.trainingKnobs();
  d.linkAndPipeline();
  return c;
}

void MoeControls::syncEnabled(const ScenarioModel* m) const {
  aux->setEnabled(m->scenario().moe.aux_on);
  z->setEnabled(m->scenario().moe.z_on);
}

}  // namespace napkin
