// Each expert's buffer at the shown step: real tokens kept, padding (compute
// on zeros) and dropped slots, against the capacity. A baseline draws its
// last step's capacity as a dashed level.
#pragma once

#include "moe/plots/MoePlot.h"

namespace napkin {

class BufferPlot : public MoePlot {
 public:
  explicit BufferPlot(QWidget* parent = nullptr);
  void drawView(const MoeFrame& f) override;
  void drawBaseline(const MoeRunOfRecord* b) override;
  bool everyFrame() const override { return false; }

 private:
  StackedBars* bars_;
  QCPGraph* capacity_;
};

}  // namespace napkin
