// (d) Lifetime FLOPs (train + serve) against served tokens, for the
// Chinchilla answer and the smaller model that reaches the same loss: the
// crossover is the decision.
#pragma once

#include "BudgetPlot.h"

namespace napkin {

class LifetimePlot : public BudgetPlot {
 public:
  explicit LifetimePlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;

 private:
  QCPGraph *chinchilla_, *small_;
  VMarker *crossover_, *served_;
  Note* note_;
};

}  // namespace napkin
