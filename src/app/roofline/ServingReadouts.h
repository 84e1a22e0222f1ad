// The "Serving layout" view's read-outs: the chosen layout's memory per chip
// and step-time parts, its benchmark run, the search's answer for the budget, disaggregation
// against one shared pool, and the cost of a token — each section titled
// with the layout, the chip and the precisions it is about.
#pragma once

#include <QHash>
#include <cstdint>
#include <optional>
#include <vector>

#include "ReadoutGrid.h"

class QLabel;

namespace napkin {

struct ServingMemory;
struct ServingPanelView;

class ServingReadouts {
 public:
  explicit ServingReadouts(ReadoutGrid* grid);

  // `napkin_chips`: the latency napkin's "For budget" on the Roofline tab,
  // so a different count from the search is explained beside it.
  void show(const ServingPanelView& view, std::optional<std::int64_t> napkin_chips = {});
  // Below the grid, wrapped to the page: why an answer is "none", and why the
  // search's chip count differs from the napkin's (the panel places it).
  QLabel* notes() const { return notes_; }
  void setBaseline(const ServingPanelView* baseline);
  std::vector<ReportTable> tables() const { return grid_->reportTables(); }
  ReadoutGrid* grid() const { return grid_; }
  QString text(const QString& key) const;

  ReadoutGrid::Section layout, run, search, pools, cost;
  ReadoutGrid::Row weights, kv, total, prefill, step, comm, ttft, tpot, turn, throughput;
  ReadoutGrid::Row run_throughput, run_ttft, run_tpot, run_in_flight;
  ReadoutGrid::Row best, efficient;
  ReadoutGrid::Row prefill_pool, decode_pool, shared_pool, winner;
  ReadoutGrid::Row dollars, joules, energy_share;

 private:
  ReadoutGrid::Row add(const ReadoutSpec& spec);
  void showNotes(const ServingPanelView& view, std::optional<std::int64_t> napkin_chips);
  void showChosen(const ServingPanelView& view);
  void showRun(const ServingPanelView& view);
  void showSearch(const ServingPanelView& view);
  void showPools(const ServingPanelView& view);
  void showCost(const ServingPanelView& view);
  void served(const ServingMemory& memory, ReadoutGrid::Row row, Readout readout);
  ReadoutGrid* grid_;
  QLabel* notes_;
  QHash<QString, ReadoutGrid::Row> rows_;
};

}  // namespace napkin
