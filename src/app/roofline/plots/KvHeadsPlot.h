// KV heads: the KV cache per request and the requests that fit one 8-chip
// serving node, from MHA down to MQA, with this model's KV heads marked.
#pragma once

#include "RooflinePanelPlot.h"

namespace napkin {

class KvHeadsPlot : public RooflinePanelPlot {
 public:
  explicit KvHeadsPlot(QWidget* parent = nullptr);
  void drawView(const RooflineView& v) override;
  void drawBaseline(const RooflineView* b) override;
  QString noteText() const;

 private:
  QCPGraph *kv_, *concurrent_;
  VMarker* mine_;
  Note* note_;
};

}  // namespace napkin
