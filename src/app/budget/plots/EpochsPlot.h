// Loss against epochs over the unique tokens at the planned run's N: the
// data-constrained law (Muennighoff et al. 2023), the same tokens counted as
// fresh, and the seed's exponential toy at whole epochs, labelled; the
// planned run marked.
#pragma once

#include <optional>

#include "BudgetPlot.h"

namespace napkin {

class EpochsPlot : public BudgetPlot {
 public:
  explicit EpochsPlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;
  QString noteText() const { return note_->text(); }

 private:
  QCPGraph *law_, *fresh_, *toy_, *run_;
  VMarker* one_epoch_;
  Note* note_;
};

}  // namespace napkin
