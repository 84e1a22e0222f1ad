#include "parallel/ParallelControls.h"
#include "Text.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QStandardItemModel>
#include <algorithm>
#include <functional>

#include "ControlColumn.h"
#include "ScenarioBinding.h"
#include "parallel.h"

namespace napkin {

namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("napkin::ParallelControls", text);
}

using S = Scenario;
using Lock = std::optional<std::int64_t> ParallelSettings::*;
constexpr int kAuto = -1;  // the combo's data for "auto" (searched)

// A combo fixing one integer axis of the layout: "auto" or a value (and
// `zero`, where given, naming the value 0 after "auto").
QComboBox* lockCombo(ControlColumn* col, ScenarioModel* m, const QString& key, const QString& label,
                     const QString& tooltip, Lock member,
                     std::function<std::vector<std::int64_t>(const S&)> values,
                     const QString& zero = {}) {
  // A lock a file or napkin-cli set off the list shows as itself.
  auto items = [m, member, values, zero] {
    const S& s = m->scenario();
    const std::vector<std::int64_t> v = values(s);
    std::vector<ComboItem> out =
        countItems(tr("auto"), {v.begin(), v.end()}, (s.parallel.*member).value_or(kAuto), kAuto);
    if (!zero.isEmpty()) out.insert(out.begin() + 1, {zero, QVariant(qlonglong{0})});
    return out;
  };
  return col->combo({.key = key, .label = label, .tooltip = tooltip, .dynamic_items = items},
                    scenarioBinding<QVariant>(
                        m, kParallelLock, label,
                        [member](const S& s) {
                          const auto& v = s.parallel.*member;
                          return v ? QVariant(static_cast<qlonglong>(*v)) : QVariant(kAuto);
                        },
                        [member](S& s, QVariant v) {
                          const qlonglong x = v.toLongLong();
                          if (x == kAuto)
                            (s.parallel.*member).reset();
                          else
                            s.parallel.*member = static_cast<std::int64_t>(x);
                        }));
}

}  // namespace

namespace {

// Declares the panel's controls a group at a time, in the column's order.
class Declarer : ControlDeclarer<ParallelControls> {
 public:
  using ControlDeclarer::ControlDeclarer;

  // The training step: batch, software, schedule, precision, cluster, memory, budget MFU.
  void trainingStep();
  // The axis locks: each axis fixed or searched.
  void axisLocks();
};

void Declarer::trainingStep() {
  col->group(tr("Training step"));
  c.global_batch = declareInput(col, m, kParallelGlobalBatch, "parallel.global_batch_tokens",
                                QStringLiteral("parallelGlobalBatch"));
  c.software = declareChoice(col, m, kParallelSoftware, "parallel.software",
                             QStringLiteral("parallelSoftware"));
  c.pipe_schedule = declareChoice(col, m, kParallelPipeSchedule, "parallel.pipe_schedule",
                                  QStringLiteral("parallelPipeSchedule"));
  c.ep_dispatch = declareChoice(col, m, kParallelEpDispatch, "parallel.ep_dispatch",
                                QStringLiteral("parallelEpDispatch"));
  c.train_precision =
      declareTrainPrecisionControl(col, m, QStringLiteral("parallelTrainPrecision"));
  c.cluster = declareChoice(col, m, kParallelCluster, "parallel.cluster",
                            QStringLiteral("parallelCluster"));
  c.gpus_per_node = declareInput(col, m, kParallelGpusPerNode, "parallel.gpus_per_node",
                                 QStringLiteral("parallelGpusPerNode"));
  c.scale_up = declareInput(col, m, kParallelScaleUp, "parallel.scale_up_gb_per_s",
                            QStringLiteral("parallelScaleUp"));
  c.scale_out = declareInput(col, m, kParallelScaleOut, "parallel.scale_out_gb_per_s",
                             QStringLiteral("parallelScaleOut"));
  c.non_tensor = declareInput(col, m, kParallelNonTensor, "parallel.non_tensor_gb",
                              QStringLiteral("parallelNonTensor"));
  c.even_stages = declareSwitch(col, m, kParallelEvenStages, "parallel.even_stages",
                                QStringLiteral("parallelEvenStages"));
  c.tp_within_node = declareSwitch(col, m, kParallelTpWithinNode, "parallel.tp_within_node",
                                   QStringLiteral("parallelTpWithinNode"), true);
  c.mfu_source = declareChoice(col, m, kParallelMfuSource, "parallel.mfu_source",
                               QStringLiteral("parallelMfuSource"));
}

void Declarer::axisLocks() {
  col->group(tr("Fix an axis (auto = searched)"));
  auto fixed = [](std::vector<std::int64_t> v) { return [v](const S&) { return v; }; };
  c.tp = lockCombo(col, m, QStringLiteral("lockTp"), tr("TP"), tr("Tensor-parallel ranks"),
                   &ParallelSettings::tp, fixed({1, 2, 4, 8, 16, 32, 64}));
  c.pp = lockCombo(col, m, QStringLiteral("lockPp"), tr("PP"),
                   tr("Pipeline stages (the divisors of the layers, up to 128)"),
                   &ParallelSettings::pp, [](const S& s) {
                     std::vector<std::int64_t> divisors;
                     const std::int64_t layers = s.shape.n_layers;
                     for (std::int64_t p = 1; p <= std::min<std::int64_t>(layers, 128); ++p)
                       if (layers % p == 0) divisors.push_back(p);
                     return divisors;
                   });
  c.vpp = lockCombo(col, m, QStringLiteral("lockVpp"), tr("VPP"),
                    tr("Model chunks per pipeline rank; 1 = 1F1B, more = interleaved"),
                    &ParallelSettings::vpp, fixed({1, 2, 3, 4, 5, 6, 7, 8}));
  c.cp = lockCombo(col, m, QStringLiteral("lockCp"), tr("CP"),
                   tr("Context-parallel ranks (each holds seq/CP tokens)"), &ParallelSettings::cp,
                   fixed({1, 2, 4, 8, 16, 32}));
  c.ep = lockCombo(col, m, QStringLiteral("lockEp"), tr("EP"),
                   tr("Expert-parallel ranks (MoE models)"), &ParallelSettings::ep,
                   fixed({1, 2, 4, 8, 16, 32, 64}));
  c.etp = lockCombo(col, m, QStringLiteral("lockEtp"), tr("Expert TP"),
                    tr("Ranks each routed expert is split over (MoE models); auto searches TP's "
                       "own and 1, which folds EP over TP as Megatron Core's "
                       "--expert-tensor-parallel-size 1"),
                    &ParallelSettings::etp, fixed({1, 2, 4, 8}));
  c.micro_batch = lockCombo(col, m, QStringLiteral("lockMicroBatch"), tr("Micro-batch"),
                            tr("Sequences per micro-batch"), &ParallelSettings::micro_batch,
                            fixed({1, 2, 4, 8, 16}));
  std::vector<ComboItem> zero{{tr("auto"), kAuto}};
  for (int z = 0; z <= 3; ++z) zero.push_back({QStringLiteral("ZeRO-%1").arg(z), z});
  c.zero = col->combo(
      {.key = QStringLiteral("lockZero"),
       .label = tr("ZeRO"),
       .tooltip = tr("ZeRO stage over DP × CP: 1 shards optimizer states, 2 also gradients, 3 "
                     "also weights. Only the stages the Software's framework runs are searched "
                     "(DeepSpeed's pipeline engine: 0 and 1 with PP; FSDP: 0, 2 and 3)"),
       .items = zero},
      scenarioBinding<QVariant>(
          m, kParallelLock, tr("ZeRO lock"),
          [](const S& s) { return s.parallel.zero ? QVariant(*s.parallel.zero) : QVariant(kAuto); },
          [](S& s, QVariant v) {
            const int z = v.toInt();
            if (z == kAuto)
              s.parallel.zero.reset();
            else
              s.parallel.zero = z;
          }));
  c.shard = lockCombo(col, m, QStringLiteral("lockShard"), tr("ZeRO shard"),
                      tr("The DP × CP ranks ZeRO shards over: all of them, or groups of n whose "
                         "groups hold replicas and all-reduce their gradient shards each step "
                         "(hybrid sharding: FSDP's HYBRID_SHARD, torchtitan's "
                         "data_parallel_replicate_degree, Megatron Core's "
                         "--num-distributed-optimizer-instances). Auto searches all and, where "
                         "the group spans nodes, its ranks in one node"),
                      &ParallelSettings::shard, fixed({2, 4, 8, 16, 32, 64, 128, 256}),
                      tr("all DP × CP"));
  std::vector<ComboItem> recompute{{tr("auto"), QString()}};
  for (Checkpointing k : {Checkpointing::none, Checkpointing::selective, Checkpointing::full})
    recompute.push_back({qs(to_string(k)), qs(to_string(k))});
  c.recompute = col->combo(
      {.key = QStringLiteral("lockRecompute"),
       .label = tr("Recompute"),
       .tooltip = tr("Activation recomputation: none, selective (the attention core; under "
                     "the fsdp presets torchtitan's op-level policy, every second matmul's "
                     "output recomputed) or full (every layer's forward again). Or type what "
                     "--layout takes: full:N (the first N layers of each chunk), uniform:N "
                     "(every layer, N to a checkpoint), selective:mlp+layernorm (Megatron's "
                     "modules) or selective:op"),
       .items = recompute,
       .editable = true},
      scenarioBinding<QVariant>(
          m, kParallelLock, tr("recompute lock"),
          [](const S& s) { return QVariant(qs(s.parallel.recompute_lock_text())); },
          [](S& s, QVariant v) { s.parallel.lock_recompute(v.toString().toStdString()); }));
  col->finish();
}

}  // namespace

ParallelControls ParallelControls::declare(ControlColumn* col, ScenarioModel* m) {
  ParallelControls c;
  Declarer d(c, col, m);
  d.trainingStep();
  d.axisLocks();
  return c;
}

namespace {

// Greys the items of `combo` that `offered` refuses, with `why` as their tooltip.
void greyItems(QComboBox* combo, const std::function<bool(qlonglong)>& offered,
               const QString& why) {
  auto* items = qobject_cast<QStandardItemModel*>(combo->model());
  if (!items) return;
  for (int i = 0; i < combo->count(); ++i) {
    const qlonglong v = combo->itemData(i).toLongLong();
    if (v == kAuto) continue;
    const bool ok = offered(v);
    items->item(i)->setEnabled(ok);
    items->item(i)->setToolTip(ok ? QString() : why);
  }
}

}  // namespace

void ParallelControls::showFrameworkLimits(const TrainingSoftware& preset,
                                           const QString& zero_why) const {
  const unsigned stages = preset.zero_stages | preset.zero_stages_with_pp;
  const QString name = qs(preset.framework);
  greyItems(
      zero, [&](qlonglong z) { return z >= 0 && z <= 3 && (stages >> z & 1U) != 0; }, zero_why);
  greyItems(
      vpp, [&](qlonglong v) { return v == 1 || preset.interleaved_pipeline; },
      tr("%1 has no interleaved pipeline schedule").arg(name));
  greyItems(
      cp, [&](qlonglong v) { return v == 1 || preset.context_parallel; },
      tr("%1 has no context parallelism").arg(name));
  greyItems(
      ep, [&](qlonglong v) { return v == 1 || preset.expert_parallel; },
      tr("%1 has no expert parallelism").arg(name));
  greyItems(
      shard, [&](qlonglong v) { return v == 0 || preset.hybrid_sharding; },
      tr("%1 has no hybrid sharding").arg(name));
  if (auto* items = qobject_cast<QStandardItemModel*>(recompute->model())) {
    const int i = recompute->findText(qs(to_string(Checkpointing::selective)));
    if (i >= 0) {
      items->item(i)->setEnabled(preset.selective_recompute);
      items->item(i)->setToolTip(
          preset.selective_recompute ? QString() : tr("%1 recomputes whole layers only").arg(name));
    }
  }
}

}  // namespace napkin
