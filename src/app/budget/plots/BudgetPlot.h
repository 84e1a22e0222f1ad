// A Budget planner plot: draws from the panel's BudgetView, and a pinned
// baseline's view as faded dashed ghosts behind it.
#pragma once

#include "PlotItems.h"
#include "PlotWidget.h"
#include "budget_view.h"

namespace napkin {

class BudgetPlot : public PlotWidget {
 public:
  using PlotWidget::PlotWidget;
  // Redraws when the numbers it shows changed (the memo), and queues a replot.
  virtual void draw(const BudgetView& view) = 0;
  // The baseline's curves as ghosts; nullptr hides them.
  virtual void drawBaseline(const BudgetView* baseline) = 0;
};

}  // namespace napkin
