// The Parallelism panel's controls, declared on a ControlColumn and bound to
// the shared scenario (one undo step per edit): the step's set-up, the locks
// that fix an axis of the layout ("auto" = searched), and where the Budget
// planner's MFU comes from. Every control is a named member.
#pragma once

#include "ScenarioControls.h"
#include "parallel.h"

namespace napkin {

struct ParallelControls {
  // Set-up.
  SliderSpin* global_batch = nullptr;
  QComboBox* software = nullptr;
  QComboBox* pipe_schedule = nullptr;
  QComboBox* ep_dispatch = nullptr;
  QComboBox* train_precision = nullptr;  // the scenario's training.precision
  QComboBox* cluster = nullptr;
  SliderSpin* gpus_per_node = nullptr;  // a custom cluster's numbers (unused otherwise)
  SliderSpin* scale_up = nullptr;
  SliderSpin* scale_out = nullptr;
  SliderSpin* non_tensor = nullptr;  // measured memory outside the tensors; 0: estimated
  QCheckBox* even_stages = nullptr;
  QCheckBox* tp_within_node = nullptr;
  QComboBox* mfu_source = nullptr;
  // Locks.
  QComboBox* tp = nullptr;
  QComboBox* pp = nullptr;
  QComboBox* vpp = nullptr;
  QComboBox* cp = nullptr;
  QComboBox* ep = nullptr;
  QComboBox* etp = nullptr;
  QComboBox* zero = nullptr;
  QComboBox* shard = nullptr;
  QComboBox* micro_batch = nullptr;
  QComboBox* recompute = nullptr;

  static ParallelControls declare(ControlColumn* column, ScenarioModel* model);
  // Greys the lock values the software preset's framework never runs and
  // says why on each: ZeRO stages (`zero_why` names those it runs), VPP, CP
  // and EP above 1 where it has no interleaved schedule, context or expert
  // parallelism, and selective recomputation where it has none.
  void showFrameworkLimits(const TrainingSoftware& preset, const QString& zero_why) const;
};

// Field ids of the panel's undo steps (apart from the Budget planner's).
enum ParallelField {
  kParallelGlobalBatch = 300,
  kParallelSoftware,
  kParallelEvenStages,
  kParallelTpWithinNode,
  kParallelMfuSource,
  kParallelLock,
  kParallelChosen,
  kParallelCluster,
  kParallelGpusPerNode,
  kParallelScaleUp,
  kParallelScaleOut,
  kParallelClusterProfile,
  kParallelNonTensor,
  kParallelPipeSchedule,
  kParallelEpDispatch,
};

}  // namespace napkin
