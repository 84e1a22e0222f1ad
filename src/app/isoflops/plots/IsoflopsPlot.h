// An IsoFLOPs panel plot: draws from what the panel shows (IsoflopsShown),
// and a pinned baseline's as faded dashed ghosts behind it.
#pragma once

#include "PlotItems.h"
#include "PlotWidget.h"
#include "isoflops/IsoflopsShown.h"

namespace napkin {

class IsoflopsPlot : public PlotWidget {
 public:
  using PlotWidget::PlotWidget;
  // Redraws when the numbers it shows changed (the memo), and queues a replot.
  virtual void draw(const IsoflopsShown& shown) = 0;
  // The baseline's curves and markers as ghosts; nullptr hides them.
  virtual void drawBaseline(const IsoflopsShown* baseline) = 0;
};

// Shared by the plots: the laws' constants as memo inputs.
inline std::vector<double> lawKey(const std::optional<LossLaw>& l) {
  if (!l) return {};
  return {l->E, l->A, l->alpha, l->B, l->beta};
}
inline std::optional<LossLaw> fittedLaw(const IsoflopsShown& s) {
  return s.fit ? std::optional<LossLaw>(s.fit->law) : std::nullopt;
}

}  // namespace napkin
