// The pipeline schedule as a Gantt chart: one row per stage, a bar for each
// forward and backward of the first micro-batches (1F1B, interleaved with the
// model chunks shaded, or zb-h1 with its deferred weight gradients), the
// bubble the blank where a stage waits.
#pragma once

#include "ParallelPlot.h"

namespace napkin {

class ScheduleGanttPlot : public ParallelPlot {
 public:
  explicit ScheduleGanttPlot(QWidget* parent = nullptr);
  void drawView(const ParallelView& v) override;
  void drawBaseline(const ParallelView* b) override;
  int barsShown() const { return shown_; }

 private:
  QCPItemRect* rect(int i);

  std::vector<QCPItemRect*> pool_;
  int shown_ = 0;
  QCPGraph* forward_ = nullptr;       // legend entry and bar midpoints (hover, CSV)
  QCPGraph* backward_ = nullptr;      // legend entry and bar midpoints
  QCPGraph* makespan_ = nullptr;      // the end of the shown schedule (a baseline ghosts it)
  QCPGraph* weightLegend_ = nullptr;  // zb-h1's W, in the legend only when drawn
};

}  // namespace napkin
