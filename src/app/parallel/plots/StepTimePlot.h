// The step time as a waterfall: each part (compute, recompute, TP comm, the
// pipeline bubble, PP comm, exposed DP/EP/CP comm, the optimizer) a floating
// bar starting where the previous one ended, and the whole step below.
#pragma once

#include "ParallelPlot.h"

namespace napkin {

class StepTimePlot : public ParallelPlot {
 public:
  explicit StepTimePlot(QWidget* parent = nullptr);
  void drawView(const ParallelView& v) override;
  void drawBaseline(const ParallelView* b) override;
  // The parts drawn, in order (tests).
  const std::vector<StepPart>& parts() const { return parts_; }

 private:
  std::vector<QCPItemRect*> rects_;  // one per part, then the total
  QCPGraph* ends_ = nullptr;         // where each bar ends (hover, CSV)
  std::vector<StepPart> parts_;
};

}  // namespace napkin
