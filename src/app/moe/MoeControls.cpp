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
  c.aux_zero = declareSwitch(col, m, kAuxOn, "moe.aux_on", QStringLiteral("aux_zero"));
  c.z = declareInput(col, m, kZ, "moe.z_weight", QStringLiteral("z"));
  c.z_zero = declareSwitch(col, m, kZOn, "moe.z_on", QStringLiteral("z_zero"));
  c.capacity_factor =
      declareInput(col, m, kCapacity, "moe.capacity_factor", QStringLiteral("capacity_factor"));
  c.lr = declareInput(col, m, kLr, "moe.learning_rate", QStringLiteral("lr"));
  c.shared = declareSwitch(col, m, kShared, "moe.shared_expert", QStringLiteral("shared"));
  c.renormalize =
      declareSwitch(col, m, kRenormalize, "moe.renormalize", QStringLiteral("renormalize"));
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
