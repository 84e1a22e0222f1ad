// (b) KV cache per request against the context, for MHA, the scenario's KV
// heads and MQA, against the HBM one serving node has left after the weights.
#pragma once

#include "BudgetPlot.h"

namespace napkin {

class KvCachePlot : public BudgetPlot {
 public:
  explicit KvCachePlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;

 private:
  QCPGraph *mha_, *scenario_, *mqa_, *left_;
  VMarker* context_;
  Note* note_;
};

}  // namespace napkin
