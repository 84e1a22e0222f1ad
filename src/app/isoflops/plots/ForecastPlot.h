// (3) The forecast: the fitted law's optimal loss vs C out to the target C*,
// the runs and vertices it was fitted to, the true law (synthetic ladders),
// the bootstrap's 95 % band and the interval at C*.
#pragma once

#include "isoflops/plots/IsoflopsPlot.h"

namespace napkin {

class ForecastPlot : public IsoflopsPlot {
 public:
  explicit ForecastPlot(QWidget* parent = nullptr);
  void drawView(const IsoflopsShown& s) override;
  void drawBaseline(const IsoflopsShown* b) override;

 private:
  QCPGraph *runs_, *vertices_, *low_, *high_, *fit_, *truth_, *target_pt_;
  QCPErrorBars* error_;
  VMarker *target_, *ladder_edge_;
  Note* note_;
};

}  // namespace napkin
