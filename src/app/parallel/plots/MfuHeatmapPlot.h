// The best predicted MFU for each (TP, PP) among the layouts that fit, as a
// heat map; cells where nothing fits are grey and marked, the scenario's
// layout is outlined (a baseline's dashed).
#pragma once

#include "ParallelPlot.h"

namespace napkin {

class MfuHeatmapPlot : public ParallelPlot {
 public:
  explicit MfuHeatmapPlot(QWidget* parent = nullptr);
  void drawView(const ParallelView& v) override;
  void drawBaseline(const ParallelView* b) override;
  // The cells drawn (tests).
  const std::vector<MfuCell>& cells() const { return cells_; }

 private:
  struct Cell {
    QCPItemRect* rect;
    QCPItemText* text;
  };
  Cell cell(int i);
  // Places `outline` around (tp, pp) when that cell is on the map.
  void outline(QCPItemRect* item, const std::optional<LayoutResult>& layout);

  std::vector<Cell> pool_;
  std::vector<MfuCell> cells_;
  std::vector<std::int64_t> tps_, pps_;  // the axes' categories
  QCPItemRect* chosen_ = nullptr;
  QCPItemRect* baseline_ = nullptr;
  QCPGraph* centers_ = nullptr;  // hover and CSV: x = TP index, y = PP index
  Note* note_ = nullptr;
};

}  // namespace napkin
