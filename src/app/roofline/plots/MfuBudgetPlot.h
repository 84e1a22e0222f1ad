// The MFU budget: the step's seconds by busy unit, as measured and with its
// biggest lever removed (MFU is the matmul share: an identity, not a grade).
#pragma once

#include <vector>

#include "RooflinePanelPlot.h"

namespace napkin {

class MfuBudgetPlot : public RooflinePanelPlot {
 public:
  explicit MfuBudgetPlot(QWidget* parent = nullptr);
  void drawView(const RooflineView& v) override;
  void drawBaseline(const RooflineView* b) override;

 private:
  StackedBars* bars_;
  QCPGraph* totals_;
  std::vector<QCPItemText*> labels_;
  Note* note_;
};

}  // namespace napkin
