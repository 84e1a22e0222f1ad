// The "Serving layout" view's read-outs: the chosen layout's memory per chip
// and step-time parts, the search's answer for the budget, disaggregation
// against one shared pool, and the cost of a token — each section titled
// with the layout, the chip and the precisions it is about.
#pragma once

#include <QHash>
#include <vector>

#include "ReadoutGrid.h"

namespace napkin {

struct ServingPanelView;

class ServingReadouts {
 public:
  explicit ServingReadouts(ReadoutGrid* grid);

  void show(const ServingPanelView& view);
  void setBaseline(const ServingPanelView* baseline);
  std::vector<ReportTable> tables() const { return grid_->reportTables(); }
  ReadoutGrid* grid() const { return grid_; }
  QString text(const QString& key) const;

  ReadoutGrid::Section layout, search, pools, cost;
  ReadoutGrid::Row weights, kv, total, prefill, step, comm, ttft, tpot, turn, throughput;
  ReadoutGrid::Row best, efficient;
  ReadoutGrid::Row prefill_pool, decode_pool, shared_pool, winner;
  ReadoutGrid::Row dollars, joules, energy_share;

 private:
  ReadoutGrid::Row add(const ReadoutSpec& spec);
  ReadoutGrid* grid_;
  QHash<QString, ReadoutGrid::Row> rows_;
};

}  // namespace napkin
