// (c) Where 6ND breaks: attention's share of training FLOPs and 6ND's
// undercount against the training sequence length.
#pragma once

#include "BudgetPlot.h"

namespace napkin {

class AttentionPlot : public BudgetPlot {
 public:
  explicit AttentionPlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;

 private:
  QCPGraph *share_, *error_;
  VMarker* seq_;
  Note* note_;
};

}  // namespace napkin
