// (a) Training memory per device of the scenario's model for ZeRO 0–3 at its
// DP degree, stacked by part, against the chip's HBM.
#pragma once

#include "BudgetPlot.h"

namespace napkin {

class MemoryPlot : public BudgetPlot {
 public:
  explicit MemoryPlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;

 private:
  StackedBars* bars_ = nullptr;
  QCPGraph* hbm_ = nullptr;
  QCPGraph* totals_ = nullptr;  // the bar tops (a baseline ghosts them)
  std::vector<QCPItemText*> labels_;
};

}  // namespace napkin
