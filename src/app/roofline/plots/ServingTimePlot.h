// Serving layout: where the chosen layout's prefill and decode step spend
// their time — compute or HBM reads, tensor-parallel and expert
// communication, pipeline hops and bubble — as shares of each phase, with the
// phase's seconds on top.
#pragma once

#include <vector>

#include "RooflinePanelPlot.h"

namespace napkin {

class ServingTimePlot : public ServingPlot {
 public:
  explicit ServingTimePlot(QWidget* parent = nullptr);
  void drawView(const ServingPanelView& v) override;
  void drawBaseline(const ServingPanelView* b) override;

 private:
  StackedBars* bars_;
  QCPGraph* roofline_share_;  // the roofline part's share (what a baseline ghosts)
  std::vector<QCPItemText*> labels_;
  Note* note_;
};

}  // namespace napkin
