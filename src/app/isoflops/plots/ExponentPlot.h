// (2) N_opt and D_opt vs C: the parabola vertices, the power laws through
// them (or the fitted law's optimum without budget labels), Kaplan's 0.73
// and Chinchilla's 0.5 reference slopes, and the target C*.
#pragma once

#include "isoflops/plots/IsoflopsPlot.h"

namespace napkin {

class ExponentPlot : public IsoflopsPlot {
 public:
  explicit ExponentPlot(QWidget* parent = nullptr);
  void drawView(const IsoflopsShown& s) override;
  void drawBaseline(const IsoflopsShown* b) override;

 private:
  QCPGraph *n_pts_, *d_pts_, *n_fit_, *d_fit_, *kaplan_, *chinchilla_;
  VMarker* target_;
  Note* note_;
};

}  // namespace napkin
