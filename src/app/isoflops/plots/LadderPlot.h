// (1) IsoFLOPs: loss vs N for each budget, the parabola in log10 N through
// each budget's runs and its vertex (the budget's compute-optimal N).
#pragma once

#include "isoflops/plots/IsoflopsPlot.h"

namespace napkin {

class LadderPlot : public IsoflopsPlot {
 public:
  explicit LadderPlot(QWidget* parent = nullptr);
  void drawView(const IsoflopsShown& s) override;
  void drawBaseline(const IsoflopsShown* b) override;

 private:
  std::vector<QCPGraph*> points_, curves_;
  QCPGraph *vertices_, *outliers_;
  Note* note_;
};

}  // namespace napkin
