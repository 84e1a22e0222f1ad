// Tile efficiency against the matmul dimension: a dimension is padded up to a
// multiple of the tile, efficiency = dim ÷ padded dim.
#pragma once

#include "RooflinePanelPlot.h"

namespace napkin {

class TilePlot : public RooflinePanelPlot {
 public:
  explicit TilePlot(QWidget* parent = nullptr);
  void drawView(const RooflineView& v) override;
  void drawBaseline(const RooflineView* b) override;

 private:
  QCPGraph *efficiency_, *worst_;
  Note* note_;
};

}  // namespace napkin
