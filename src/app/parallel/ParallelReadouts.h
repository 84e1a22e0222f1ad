// The Parallelism panel's read-outs for the layout the scenario runs: which
// layout, how fast (step, tokens/s/chip, MFU, HFU, days), whether its peak
// stage fits in HBM, and the MFU the Budget planner takes. Every row is a
// named member; each knows which way is better, for a baseline's change.
#pragma once

#include <vector>

#include "ReadoutGrid.h"

namespace napkin {

struct LayoutResult;
struct ParallelView;

class ParallelReadouts {
 public:
  explicit ParallelReadouts(ReadoutGrid* grid);

  void show(const ParallelView& view);
  // The change of every row from a baseline's view (nullptr: none).
  void setBaseline(const ParallelView* baseline);
  std::vector<ReportTable> tables() const;
  QString text(ReadoutGrid::Row row) const { return grid_->text(row); }
  ReadoutGrid* grid() const { return grid_; }

  ReadoutGrid::Section layout_section, speed, memory_section;
  ReadoutGrid::Row layout, batch, step, tokens, mfu, hfu, days;
  ReadoutGrid::Row memory, fits, budget_mfu;
  ReadoutGrid::Section setup, kernels_section;
  ReadoutGrid::Row cluster, software;
  ReadoutGrid::Row gemm, attention, elementwise, host_wait;

 private:
  void showLayout(const ParallelView& view);
  void showSetup(const ParallelView& view);
  void showSpeed(const ParallelView& view, const LayoutResult* runs);
  void number(const LayoutResult* runs, ReadoutGrid::Row row, double value, QString text,
              QString unit, QString note = {});
  ReadoutGrid* grid_;
};

}  // namespace napkin
