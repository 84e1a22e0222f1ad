// Memory per rank of every pipeline stage, stacked by part (weights, grads,
// optimizer, activations, buffers), against the chip's HBM.
#pragma once

#include "ParallelPlot.h"

namespace napkin {

class StageMemoryPlot : public ParallelPlot {
 public:
  explicit StageMemoryPlot(QWidget* parent = nullptr);
  void drawView(const ParallelView& v) override;
  void drawBaseline(const ParallelView* b) override;
  // The stages drawn, bottom part first (tests).
  const std::vector<StageMemory>& stages() const { return stages_; }

 private:
  StackedBars* bars_ = nullptr;
  QCPGraph* hbm_ = nullptr;
  QCPGraph* totals_ = nullptr;  // the bar tops (a baseline ghosts them)
  Note* note_ = nullptr;
  std::vector<StageMemory> stages_;
};

}  // namespace napkin
