// The Monte Carlo's wall-clock days of the planned run as a histogram, with
// P10 / P50 / P90 marked; without any range it says how to get one.
#pragma once

#include <optional>

#include "RangesPlot.h"

namespace napkin {

class HistogramPlot : public RangesPlot {
 public:
  explicit HistogramPlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  int barCount() const { return bars_->data()->size(); }
  // The P10, P50 and P90 markers' x, days (nullopt when hidden).
  std::optional<double> marker(int i) const;

 private:
  void clearRanges() override;
  // The ghost line is the baseline's median days (its bars would hide these).
  double baselineDays(const RangeReport& r) const override { return r.days.p.p50; }

  QCPBars* bars_;
  VMarker *p10_, *p50_, *p90_;
};

}  // namespace napkin
