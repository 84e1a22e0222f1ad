// The roofline: attainable FLOP/s = min(peak, bandwidth × intensity) of the
// scenario's chip (and overlaid chips), the ridge, and the five placed
// operations with their labels in a staggered row inside the axes. A
// baseline draws its roofline and places its operations, faded.
#pragma once

#include <vector>

#include "RooflinePanelPlot.h"

namespace napkin {

class RooflineChart : public RooflinePanelPlot {
 public:
  explicit RooflineChart(QWidget* parent = nullptr);
  void drawView(const RooflineView& v) override;
  void drawBaseline(const RooflineView* b) override;

 private:
  QCPGraph* roof_;
  std::vector<QCPGraph*> overlays_;  // one per chip of the hardware table
  std::vector<QCPGraph*> ops_;       // one per placed operation
  std::vector<QCPGraph*> baseline_ops_;
  std::vector<QCPItemText*> labels_;
  std::vector<QCPItemLine*> arrows_;
  VMarker* ridge_;
  QCPItemText* ridge_label_;
};

}  // namespace napkin
