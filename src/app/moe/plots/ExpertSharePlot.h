// Each expert's routed slots at the shown step ÷ the fair share T·k/E:
// healthy, over its buffer (slots dropped) or dead; the fair share and the
// buffer as levels. A baseline draws its last step's loads as a dashed outline.
#pragma once

#include <array>

#include "moe/plots/MoePlot.h"

namespace napkin {

class ExpertSharePlot : public MoePlot {
 public:
  explicit ExpertSharePlot(QWidget* parent = nullptr);
  void drawView(const MoeFrame& f) override;
  void drawBaseline(const MoeRunOfRecord* b) override;
  // The drawn value per expert (the sum of the three bar sets), for tests.
  std::vector<double> values() const;

 private:
  std::array<QCPBars*, 3> bars_{};  // healthy, over capacity, dead
  QCPGraph* load_;                  // hidden: the source of the baseline's ghost outline
  QCPGraph* buffer_;                // the buffer level (its ghost: the baseline's buffer)
  QCPGraph* fair_;                  // the fair share, 1.0
  Note* note_;
  std::int64_t experts_ = -1;
};

}  // namespace napkin
