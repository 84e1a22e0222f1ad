// A panel's plot: draws from the view struct the model library computed for
// the panel, and a pinned baseline's view as faded dashed ghosts behind it.
// Each panel names its own: using BudgetPlot = ViewPlot<BudgetView>.
#pragma once

#include "PlotItems.h"
#include "PlotWidget.h"

namespace napkin {

template <typename View, typename Baseline = View>
class ViewPlot : public PlotWidget {
 public:
  using PlotWidget::PlotWidget;
  // Redraws when the numbers it shows changed (the memo), and queues a replot.
  virtual void drawView(const View& view) = 0;
  // The baseline's curves and marks as ghosts; nullptr hides them.
  virtual void drawBaseline(const Baseline* baseline) = 0;
};

}  // namespace napkin
