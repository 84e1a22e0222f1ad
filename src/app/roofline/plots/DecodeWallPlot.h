// The decode wall: decode intensity against the batch approaches an
// asymptote below the ridge (every request brings its own KV cache), with the
// KV cache's share of the bytes read on the right axis.
#pragma once

#include "RooflinePanelPlot.h"

namespace napkin {

class DecodeWallPlot : public RooflinePanelPlot {
 public:
  explicit DecodeWallPlot(QWidget* parent = nullptr);
  void drawView(const RooflineView& v) override;
  void drawBaseline(const RooflineView* b) override;

 private:
  QCPGraph *intensity_, *ridge_, *kv_;
  VMarker* batch_;
  Note* note_;
};

}  // namespace napkin
