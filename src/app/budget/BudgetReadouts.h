// The Budget planner's read-outs, in three sections that say what they are
// about: the budget (the cluster for the days), the Chinchilla answer it buys,
// and the scenario's own model at its ZeRO stage and DP degree. Every row is
// a named member; each knows which way is better, for a baseline's change.
#pragma once

#include <vector>

#include "ReadoutGrid.h"

namespace napkin {

struct BudgetView;

class BudgetReadouts {
 public:
  explicit BudgetReadouts(ReadoutGrid* grid);

  void show(const BudgetView& view);
  // The change of every row from a baseline's view (nullptr: none).
  void setBaseline(const BudgetView* baseline);
  // One table per section, for the report.
  std::vector<ReportTable> tables() const;
  QString text(ReadoutGrid::Row row) const { return grid_->text(row); }
  ReadoutGrid* grid() const { return grid_; }

  ReadoutGrid::Section budget, chinchilla, scenario;
  ReadoutGrid::Row flops, days, rental, energy, per1e21;
  ReadoutGrid::Row params, tokens, goodput, effective, states;
  ReadoutGrid::Row model, memory, kv, attention;

 private:
  ReadoutGrid* grid_;
};

}  // namespace napkin
