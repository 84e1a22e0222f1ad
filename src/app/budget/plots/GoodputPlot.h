// Goodput of the planned run against its checkpoint interval: too often and
// the writes stall training, too rarely and every crash redoes more work. The
// Young/Daly optimum √(2·write time·MTBF) and the chosen interval are marked.
#pragma once

#include <optional>

#include "BudgetPlot.h"

namespace napkin {

class GoodputPlot : public BudgetPlot {
 public:
  explicit GoodputPlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;
  // The marked optimum, minutes (nullopt without interruptions): what the user reads.
  std::optional<double> optimumMinutes() const { return optimum_minutes_; }
  QString noteText() const { return note_->text(); }

 private:
  QCPGraph *curve_, *optimum_dot_, *current_dot_;
  VMarker* optimum_;
  Note* note_;
  std::optional<double> optimum_minutes_;
};

}  // namespace napkin
