// (a) Training memory per device of the scenario's model, stacked by part,
// against the chip's HBM: every pipeline stage of the plan's layout where the
// plan has one (the predicted MFU's, or the Parallelism panel's chosen
// layout), else ZeRO 0–3 at the scenario's DP degree (data parallelism only).
#pragma once

#include <optional>
#include <vector>

#include "BudgetPlot.h"

namespace napkin {

class MemoryPlot : public BudgetPlot {
 public:
  explicit MemoryPlot(QWidget* parent = nullptr);
  void drawView(const BudgetView& v) override;
  void drawBaseline(const BudgetView* b) override;

  // What the bars show: a layout's stages, or the four ZeRO stages.
  bool showsStages() const { return by_stage_; }

 private:
  // The bars of one view: their tops and whether they are a layout's stages.
  struct Bars {
    bool by_stage = false;
    std::vector<double> totals;
    double hbm_bytes = 0;
  };
  static Bars barsOf(const BudgetView& v);
  void drawStages(const BudgetView::LayoutMemory& m);
  void drawZero(const BudgetView& v);
  // The baseline's bar tops when they describe the same bars as the view's
  // (the same mode and count); its HBM line always.
  void showBaseline();

  StackedBars* bars_ = nullptr;
  QCPGraph* hbm_ = nullptr;
  QCPGraph* totals_ = nullptr;  // the bar tops (a baseline ghosts them)
  std::vector<QCPItemText*> labels_;
  bool by_stage_ = false;
  std::size_t count_ = 0;
  double lo_ = 0, hi_ = 0;  // the x range the HBM line spans
  std::optional<Bars> baseline_;
};

}  // namespace napkin
