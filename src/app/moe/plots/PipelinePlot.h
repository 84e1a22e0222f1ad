// Pipelined prefill as a Gantt chart: chunks flowing through the stages,
// each hop overlapping the next chunk's compute; the empty triangle is the
// bubble. A baseline draws its pipeline's outline as a dashed ghost.
#pragma once

#include "moe/plots/MoePlot.h"

namespace napkin {

class PipelinePlot : public MoePlot {
 public:
  explicit PipelinePlot(QWidget* parent = nullptr);
  void drawView(const MoeFrame& f) override;
  void drawBaseline(const MoeRunOfRecord* b) override;
  bool followsRun() const override { return false; }
  // The compute bars drawn (tests).
  int barCount() const;

 private:
  std::vector<QCPItemRect*> rects_;  // compute, hop, compute, hop …
  QCPGraph* outline_;
  double ghost_end_ms_ = 0;
  std::int64_t ghost_stages_ = 0;
};

}  // namespace napkin
