// (5) The fitted law (the baseline recipe) against a candidate recipe: each
// one's optimal loss vs C, their difference on the right axis, and the
// compute where they cross — the crossover is the decision, not the winner at
// one scale.
#pragma once

#include "isoflops/plots/IsoflopsPlot.h"

namespace napkin {

class RecipePlot : public IsoflopsPlot {
 public:
  explicit RecipePlot(QWidget* parent = nullptr);
  void drawView(const IsoflopsShown& s) override;
  void drawBaseline(const IsoflopsShown* b) override;

 private:
  QCPGraph *base_, *cand_, *delta_, *zero_;
  VMarker *target_, *cross_;
  Note* note_;
};

}  // namespace napkin
