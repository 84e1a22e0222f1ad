// Serving layout: memory per chip (weights and KV cache) of the chosen layout
// and of the search's answer, against the chip's HBM and its usable part.
#pragma once

#include <vector>

#include "RooflinePanelPlot.h"

namespace napkin {

class ServingMemoryPlot : public ServingPlot {
 public:
  explicit ServingMemoryPlot(QWidget* parent = nullptr);
  void drawView(const ServingPanelView& v) override;
  void drawBaseline(const ServingPanelView* b) override;

 private:
  StackedBars* bars_;
  QCPGraph *totals_, *usable_, *hbm_;
  std::vector<QCPItemText*> labels_;
};

}  // namespace napkin
