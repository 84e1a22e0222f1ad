// "The answer is a smaller model": chips for the budget and chips to hold
// the weights against N from 1B to 1T, with this model marked.
#pragma once

#include "RooflinePanelPlot.h"

namespace napkin {

class ModelSizesPlot : public RooflinePanelPlot {
 public:
  explicit ModelSizesPlot(QWidget* parent = nullptr);
  void drawView(const RooflineView& v) override;
  void drawBaseline(const RooflineView* b) override;

 private:
  QCPGraph *need_, *hold_, *none_;
  VMarker* model_;
  Note* note_;
};

}  // namespace napkin
