// max/mean utilization over the run's steps (per step and smoothed over ~20
// steps) and the dead experts (right axis), with a cursor at the shown step.
// A baseline draws its run of record's traces as ghosts.
#pragma once

#include "moe/plots/MoePlot.h"

namespace napkin {

class UtilizationPlot : public MoePlot {
 public:
  explicit UtilizationPlot(QWidget* parent = nullptr);
  void drawView(const MoeFrame& f) override;
  void drawBaseline(const MoeRunOfRecord* b) override;

 private:
  void append(const MoeFrame& f, std::size_t from);
  QCPGraph *per_step_, *smoothed_, *dead_;
  VMarker* cursor_;
  std::int64_t run_id_ = -1;
  std::size_t traced_ = 0;
  double top_ = 1;
};

}  // namespace napkin
