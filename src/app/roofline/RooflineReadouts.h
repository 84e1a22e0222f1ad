// The Roofline panel's read-outs, in sections that say what they are about:
// the chip's roofline, the MFU budget, and the latency napkin of the
// scenario's model at its weight precision on its chip. Every row is a named
// member; each knows which way is better, for a baseline's change.
#pragma once

#include <QHash>
#include <vector>

#include "ReadoutGrid.h"

namespace napkin {

struct RooflineView;

class RooflineReadouts {
 public:
  explicit RooflineReadouts(ReadoutGrid* grid);

  void show(const RooflineView& view);
  // The change of every row from a baseline's view (nullptr: none).
  void setBaseline(const RooflineView* baseline);
  std::vector<ReportTable> tables() const { return grid_->reportTables(); }
  ReadoutGrid* grid() const { return grid_; }
  // "ridge" → its text ("241 FLOP/B"); "" for an unknown key.
  QString text(const QString& key) const;

  ReadoutGrid::Section roofline, mfu, latency;
  ReadoutGrid::Row ridge, prefill, decode, kv_share;
  ReadoutGrid::Row plan_mfu, mfu_row, hfu, lever;
  ReadoutGrid::Row model, weights, turn, chips_budget, chips_hold, deploy;

 private:
  ReadoutGrid::Row add(const ReadoutSpec& spec);
  void showRoofline(const RooflineView& v);
  void showMfu(const RooflineView& v);
  void showLatency(const RooflineView& v);
  ReadoutGrid* grid_;
  QHash<QString, ReadoutGrid::Row> rows_;
};

}  // namespace napkin
