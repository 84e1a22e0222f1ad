// (e) Budget → (N, D): the compute-optimal frontier at the tokens-per-
// parameter ratio, with this budget's C marked.
#pragma once

#include "BudgetPlot.h"

namespace napkin {

class FrontierPlot : public BudgetPlot {
 public:
  explicit FrontierPlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;

 private:
  QCPGraph *params_, *tokens_, *points_;
  VMarker* marker_;
  Note* note_;
};

}  // namespace napkin
