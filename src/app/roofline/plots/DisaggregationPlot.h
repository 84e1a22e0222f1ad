// Serving layout: a prefill pool and a decode pool sized for their own
// targets against one shared pool, for the scenario's traffic — chips, and
// generated tokens per second per chip on top.
#pragma once

#include <vector>

#include "RooflinePanelPlot.h"

namespace napkin {

class DisaggregationPlot : public ServingPlot {
 public:
  explicit DisaggregationPlot(QWidget* parent = nullptr);
  void drawView(const ServingPanelView& v) override;
  void drawBaseline(const ServingPanelView* b) override;

 private:
  StackedBars* bars_;
  QCPGraph* totals_;
  std::vector<QCPItemText*> labels_;
  Note* note_;
};

}  // namespace napkin
