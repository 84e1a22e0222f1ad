// Which uncertain input moves the planned run's days most: one bar per input
// with a range, from the days at its low value to the days at its high one
// (every other input at its likely value), largest swing on top.
#pragma once

#include "BudgetPlot.h"

namespace napkin {

class TornadoPlot : public BudgetPlot {
 public:
  explicit TornadoPlot(QWidget* parent = nullptr);
  void draw(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;
  void setPending(bool pending);
  int barCount() const { return low_->data()->size(); }
  QString topInput() const { return top_; }
  QString noteText() const { return note_->text(); }

 private:
  QCPBars *low_, *high_;
  QCPGraph* point_;  // empty: its ghost is the baseline's likely days
  VMarker* likely_;
  Note* note_;
  QString top_, text_;
  bool pending_ = false;
};

}  // namespace napkin
