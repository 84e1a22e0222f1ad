// Which uncertain input moves the planned run's days most: one bar per input
// with a range, from the days at its low value to the days at its high one
// (every other input at its likely value), largest swing on top.
#pragma once

#include "RangesPlot.h"

namespace napkin {

class TornadoPlot : public RangesPlot {
 public:
  explicit TornadoPlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  int barCount() const { return low_->data()->size(); }
  QString topInput() const { return top_; }

 private:
  void clearRanges() override;
  // The ghost line is the baseline's likely days.
  double baselineDays(const RangeReport& r) const override { return r.days.point; }

  QCPBars *low_, *high_;
  VMarker* likely_;
  QString top_;
};

}  // namespace napkin
