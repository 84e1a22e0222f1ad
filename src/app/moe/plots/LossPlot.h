// The router's losses over the run's steps (L_balance and L_z, log axis) and
// the drop rate (right axis, % of slots), with a cursor at the shown step
// that stays a vertical line on the log axis. A baseline draws its run of
// record's traces as ghosts.
#pragma once

#include "moe/plots/MoePlot.h"

namespace napkin {

class LossPlot : public MoePlot {
 public:
  explicit LossPlot(QWidget* parent = nullptr);
  void drawView(const MoeFrame& f) override;
  void drawBaseline(const MoeRunOfRecord* b) override;
  VMarker* cursor() const { return cursor_; }

 private:
  QCPGraph *balance_, *z_, *drop_;
  VMarker* cursor_;
  std::int64_t run_id_ = -1;
  std::size_t traced_ = 0;
  double top_ = 1, low_ = 1e300;
};

}  // namespace napkin
