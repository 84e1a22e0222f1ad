// The MoE router panel's read-outs, in four sections: the shown step of the
// run, its buffers, the scenario model's parameters and the communication
// wall. Every row is a named member; each knows which way is better, for a
// pinned baseline's change.
#pragma once

#include <vector>

#include "ReadoutGrid.h"

namespace napkin {

struct CollapseParams;
struct MoeRunOfRecord;
struct MoeScenarioView;
struct MoeStepView;
struct Scenario;
struct StepStats;

class MoeReadouts {
 public:
  explicit MoeReadouts(ReadoutGrid* grid);

  // `stats` is the shown step (nullptr at step 0).
  void showStep(const MoeStepView& view, const StepStats* stats, const CollapseParams& params);
  void showScenario(const MoeScenarioView& view, const Scenario& s);
  // The change of every row from a baseline's run of record (nullptr: none).
  void setBaseline(const MoeRunOfRecord* baseline);
  std::vector<ReportTable> tables() const { return grid_->reportTables(); }
  QString text(ReadoutGrid::Row row) const { return grid_->text(row); }
  ReadoutGrid* grid() const { return grid_; }

  ReadoutGrid::Section step_section, capacity_section, params_section, comm_section;
  ReadoutGrid::Row verdict, max_mean, recent, dead, l_balance, l_z, drop, skipping;
  ReadoutGrid::Row capacity, buffer_util, dropped, padded, fully_dropped;
  ReadoutGrid::Row model, total, active, sparsity, total_bytes, active_bytes;
  ReadoutGrid::Row a2a_bytes, a2a_seconds, serial, pipelined, bubble, utilization, speedup;

 private:
  ReadoutGrid* grid_;
};

}  // namespace napkin
