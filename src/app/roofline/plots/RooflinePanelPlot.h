// A Roofline panel plot: draws from the panel's RooflineView (or, for the
// "Serving layout" view, its ServingPanelView), and a pinned baseline's view
// as faded dashed ghosts behind it.
#pragma once

#include "PlotItems.h"
#include "PlotWidget.h"
#include "roofline/RooflineFormat.h"
#include "roofline/RooflineView.h"

namespace napkin {

class RooflinePanelPlot : public PlotWidget {
 public:
  using PlotWidget::PlotWidget;
  // Redraws when the numbers it shows changed (the memo), and queues a replot.
  virtual void draw(const RooflineView& view) = 0;
  // The baseline's curves as ghosts; nullptr hides them.
  virtual void drawBaseline(const RooflineView* baseline) = 0;
};

class ServingPlot : public PlotWidget {
 public:
  using PlotWidget::PlotWidget;
  virtual void draw(const ServingPanelView& view) = 0;
  virtual void drawBaseline(const ServingPanelView* baseline) = 0;
};

}  // namespace napkin
