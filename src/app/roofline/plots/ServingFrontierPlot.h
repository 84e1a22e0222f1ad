// Serving layout: the latency-throughput frontier of the chosen layout
// (serving_modes.h): output tokens per second per chip against the median
// time per output token as the concurrency doubles, and the throughput at
// the highest Poisson request rate whose P99 TTFT meets the target.
#pragma once

#include "RooflinePanelPlot.h"

namespace napkin {

class ServingFrontierPlot : public ServingPlot {
 public:
  explicit ServingFrontierPlot(QWidget* parent = nullptr);
  void drawView(const ServingPanelView& v) override;
  void drawBaseline(const ServingPanelView* b) override;

 private:
  QCPGraph* curve_;
  HMarker* rate_;
  QCPItemText *first_, *last_;
  Note* note_;
};

}  // namespace napkin
