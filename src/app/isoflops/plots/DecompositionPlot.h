// (4) The loss at C* split into E, the capacity term A/N^α and the data term
// B/D^β, for the fitted law and (synthetic ladders) the true law, each at
// its own compute-optimal (N, D).
#pragma once

#include <array>

#include "isoflops/plots/IsoflopsPlot.h"

namespace napkin {

class DecompositionPlot : public IsoflopsPlot {
 public:
  explicit DecompositionPlot(QWidget* parent = nullptr);
  void drawView(const IsoflopsShown& s) override;
  void drawBaseline(const IsoflopsShown* b) override;

 private:
  StackedBars* bars_;
  QCPGraph* totals_;  // the total on top of each bar (a baseline ghosts it)
  std::array<QCPItemText*, 2> labels_{};
  Note* note_;
};

}  // namespace napkin
