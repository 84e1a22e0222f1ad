// The capacity-factor trade-off of the shown step's routing: the share of
// slots dropped and the share of buffer slots wasted on padding against the
// capacity factor, with a marker at the run's factor. A baseline draws its
// last step's curves as ghosts.
#pragma once

#include "moe/plots/MoePlot.h"

namespace napkin {

class TradeoffPlot : public MoePlot {
 public:
  explicit TradeoffPlot(QWidget* parent = nullptr);
  void drawView(const MoeFrame& f) override;
  void drawBaseline(const MoeRunOfRecord* b) override;
  bool everyFrame() const override { return false; }

 private:
  QCPGraph *dropped_, *padding_;
  VMarker* marker_;
  Note* note_;
};

}  // namespace napkin
