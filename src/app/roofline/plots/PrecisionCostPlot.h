// Serving layout: the cost of a token against the weight precision (bf16,
// fp8, int8, int4; the KV cache at the scenario's precision) — $ per million
// tokens as bars, J per token on the right axis — each at the search's
// answer for the budget at that precision.
#pragma once

#include <vector>

#include "RooflinePanelPlot.h"

namespace napkin {

class PrecisionCostPlot : public ServingPlot {
 public:
  explicit PrecisionCostPlot(QWidget* parent = nullptr);
  void drawView(const ServingPanelView& v) override;
  void drawBaseline(const ServingPanelView* b) override;

 private:
  QCPBars* dollars_;
  QCPGraph *dollar_tops_, *joules_;
  std::vector<QCPItemText*> labels_;
};

}  // namespace napkin
