// A Parallelism plot: draws from the panel's ParallelView, and a pinned
// baseline's view as faded dashed ghosts behind it.
#pragma once

#include "PlotItems.h"
#include "PlotWidget.h"
#include "parallel_view.h"

namespace napkin {

class ParallelPlot : public PlotWidget {
 public:
  using PlotWidget::PlotWidget;
  // Redraws when the numbers it shows changed (the memo), and queues a replot.
  virtual void draw(const ParallelView& view) = 0;
  // The baseline's marks as ghosts; nullptr hides them.
  virtual void drawBaseline(const ParallelView* baseline) = 0;
};

// Short axis and label texts shared by the plots.
inline QString layoutLabel(const Layout& l) {
  return QStringLiteral("TP %1 · PP %2%3 · DP %4%5")
      .arg(l.tp)
      .arg(l.pp)
      .arg(l.vpp > 1 ? QStringLiteral("×%1").arg(l.vpp) : QString())
      .arg(l.dp)
      .arg(l.cp > 1 ? QStringLiteral(" · CP %1").arg(l.cp) : QString());
}

}  // namespace napkin
