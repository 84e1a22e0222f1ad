// (6) Ladder design: the extrapolation variance at C* of this ladder's
// budgets against alternative designs (clustered, spread, skewed, two-point)
// and a ladder planned at 3 % of C*: spread beats clustering.
#pragma once

#include "isoflops/plots/IsoflopsPlot.h"

namespace napkin {

class DesignPlot : public IsoflopsPlot {
 public:
  explicit DesignPlot(QWidget* parent = nullptr);
  void drawView(const IsoflopsShown& s) override;
  void drawBaseline(const IsoflopsShown* b) override;

 private:
  QCPBars *this_, *others_;
  QCPGraph* tops_;  // each bar's top (a baseline ghosts it)
  std::vector<QCPItemText*> labels_;
  Note* note_;
};

}  // namespace napkin
