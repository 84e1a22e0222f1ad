// Depth against width at a fixed parameter count: the decode step, its
// serial part and the tile efficiency of d_model.
#pragma once

#include "RooflinePanelPlot.h"

namespace napkin {

class DepthWidthPlot : public RooflinePanelPlot {
 public:
  explicit DepthWidthPlot(QWidget* parent = nullptr);
  void drawView(const RooflineView& v) override;
  void drawBaseline(const RooflineView* b) override;

 private:
  QCPGraph *step_, *serial_, *efficiency_;
  VMarker* layers_;
  Note* note_;
};

}  // namespace napkin
