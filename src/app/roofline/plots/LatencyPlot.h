// The latency napkin: one turn (overhead + prefill + decode) on power-of-two
// slices of 1 … 1,024 chips against the budget, with the chips for the
// budget and the chips to hold the weights marked, and the verdict above.
#pragma once

#include <vector>

#include "RooflinePanelPlot.h"

namespace napkin {

class LatencyPlot : public RooflinePanelPlot {
 public:
  explicit LatencyPlot(QWidget* parent = nullptr);
  void drawView(const RooflineView& v) override;
  void drawBaseline(const RooflineView* b) override;
  QString verdict() const { return verdict_->text(); }

 private:
  StackedBars* bars_;
  QCPGraph *budget_, *totals_;
  std::vector<QCPItemText*> labels_;
  VMarker *need_, *hold_;
  QCPTextElement* verdict_;
};

}  // namespace napkin
