// The Monte Carlo's wall-clock days of the planned run as a histogram, with
// P10 / P50 / P90 marked; without any range it says how to get one.
#pragma once

#include <optional>

#include "BudgetPlot.h"

namespace napkin {

class HistogramPlot : public BudgetPlot {
 public:
  explicit HistogramPlot(QWidget* parent = nullptr);
  void draw(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;
  // Draws are being computed (the bars shown are from the previous inputs).
  void setPending(bool pending);
  int barCount() const { return bars_->data()->size(); }
  // The P10, P50 and P90 markers' x, days (nullopt when hidden).
  std::optional<double> marker(int i) const;
  QString noteText() const { return note_->text(); }

 private:
  QCPBars* bars_;
  QCPGraph* median_;  // empty: its ghost is the baseline's P50
  VMarker *p10_, *p50_, *p90_;
  Note* note_;
  QString text_;
  bool pending_ = false;
};

}  // namespace napkin
