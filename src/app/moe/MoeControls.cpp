#include "moe/MoeControls.h"

#include <QCheckBox>

#include "ControlColumn.h"
#include "ScenarioBinding.h"
#include "ScenarioControls.h"

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

using S = Scenario;

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
  c.experts = declareInput(col, m, kExperts, "moe.experts", QStringLiteral("experts"));
  c.tokens = declareInput(col, m, kTokens, "moe.tokens_per_batch", QStringLiteral("tokens"));
  c.seed = declareInput(col, m, kSeed, "moe.seed", QStringLiteral("seed"));
}

void Declarer::trainingKnobs() {
  col->group(tr("Training knobs (continue the run)"));
  c.top_k = declareInput(col, m, kTopK, "moe.top_k", QStringLiteral("top_k"));
  c.aux = declareInput(col, m, kAux, "moe.aux_weight", QStringLiteral("aux"));
  c.aux_zero = col->check({.key = QStringLiteral("aux_zero"),
                           .label = tr("α = 0 (no balance loss)"),
                           .tooltip = tr("Switches the load-balance loss off: the router is "
                                         "left alone.")},
                          flagBinding(m, kAuxOn, tr("α = 0"), &MoeSettings::aux_on, true));
  c.z = declareInput(col, m, kZ, "moe.z_weight", QStringLiteral("z"));
  c.z_zero = col->check({.key = QStringLiteral("z_zero"),
                         .label = tr("γ = 0 (no z-loss)"),
                         .tooltip = tr("Switches the router z-loss off.")},
                        flagBinding(m, kZOn, tr("γ = 0"), &MoeSettings::z_on, true));
  c.capacity_factor =
      declareInput(col, m, kCapacity, "moe.capacity_factor", QStringLiteral("capacity_factor"));
  c.lr = declareInput(col, m, kLr, "moe.learning_rate", QStringLiteral("lr"));
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
  c.prefill = declareInput(col, m, kPrefill, "moe.comm.prefill_tokens", QStringLiteral("prefill"));
  c.link = declareInput(col, m, kLink, "moe.comm.link_gbps", QStringLiteral("link"));
  c.latency = declareInput(col, m, kLatency, "moe.comm.latency_us", QStringLiteral("latency"));
  c.chunks = declareInput(col, m, kChunks, "moe.pipeline.chunks", QStringLiteral("chunks"));
  c.stages = declareInput(col, m, kStages, "moe.pipeline.stages", QStringLiteral("stages"));
  c.compute_ms =
      declareInput(col, m, kCompute, "moe.pipeline.compute_ms", QStringLiteral("compute_ms"));
  c.transfer_ms =
      declareInput(col, m, kTransfer, "moe.pipeline.transfer_ms", QStringLiteral("transfer_ms"));
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
