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
  // `ranges` holds the P10/P50/P90 rows (shown only when a range is on).
  BudgetReadouts(ReadoutGrid* grid, ReadoutGrid* ranges);

  void show(const BudgetView& view);
  // The change of every row from a baseline's view (nullptr: none).
  void setBaseline(const BudgetView* baseline);
  // One table per section, for the report.
  std::vector<ReportTable> tables() const;
  QString text(ReadoutGrid::Row row) const { return grid_->text(row); }
  ReadoutGrid* grid() const { return grid_; }
  ReadoutGrid* rangesGrid() const { return ranges_; }
  // Shows the ranges (nullopt: none is on, or they are being computed).
  void showRanges(const BudgetView& view);
  bool hasRanges() const { return has_ranges_; }

  ReadoutGrid::Section budget, chinchilla, scenario;
  ReadoutGrid::Row mfu, flops, days, rental, energy, per1e21;
  ReadoutGrid::Row params, tokens, goodput, effective, states;
  ReadoutGrid::Row model, memory, kv, attention;
  // The planned run (the recommendation, or the scenario's model in train mode).
  ReadoutGrid::Section run;
  ReadoutGrid::Row run_goodput, run_days, crashes, optimal_checkpoint, epochs, run_loss, serving;
  ReadoutGrid::Row lifetime;  // lifetime dollars of the cheapest model at the reference's loss
  // The loss the serving weight precision and FP8 training add (Kumar et al. 2024).
  ReadoutGrid::Row precision_cost;
  ReadoutGrid::Section range_section;
  ReadoutGrid::Row range_days, range_dollars, range_energy, range_loss;

 private:
  // "70.6B at bf16/bf16: binds", "none at int4/int4", "limit off".
  static QString servingValue(const BudgetView& v);
  void showBudget(const BudgetView& v);
  void showModel(const BudgetView& v);
  void showRun(const BudgetView& v);
  void showServing(const BudgetView& v);
  void showPrecisionCost(const BudgetView& v);
  ReadoutGrid* grid_;
  ReadoutGrid* ranges_;
  bool has_ranges_ = false;
};

}  // namespace napkin
