// The Budget planner panel (seed Phase 00): chips × days × MFU → FLOPs →
// (N, D) → memory → serving → dollars and joules, live as sliders move.
// Controls only edit the shared scenario; refresh() calls the model once
// (make_budget_view) and shows its result: read-outs, checks, the
// recommendation and five plots, each its own class drawing from the view.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>

#include "ScenarioPanel.h"
#include "budget/BudgetControls.h"
#include "budget/BudgetReadouts.h"
#include "budget/plots/BudgetPlot.h"
#include "budget_view.h"

class QGroupBox;
class QPlainTextEdit;
class QTimer;

namespace napkin {

class EpochsPlot;
class GoodputPlot;
class HistogramPlot;
class MemoryPlot;
class TornadoPlot;
class CheckList;
class ControlColumn;
class MessageLabel;
class ScenarioModel;

class BudgetPanel : public ScenarioPanel {
  Q_OBJECT
 public:
  explicit BudgetPanel(ScenarioModel* model, QWidget* parent = nullptr);
  ~BudgetPanel() override;

  QString panelKey() const override { return QStringLiteral("budget"); }
  QString title() const override { return tr("Budget planner"); }
  QString help() const override;
  std::vector<PlotWidget*> plots() const override;
  ReportSection reportSection() const override;

  // The last computed view (what the read-outs and plots show).
  const BudgetView& view() const { return view_; }
  const BudgetControls& controls() const { return controls_; }
  const BudgetReadouts& readouts() const { return *readouts_; }
  CheckList* checks() const { return checks_; }
  QPlainTextEdit* recommendation() const { return recommendation_; }
  // Every read-out text, the checks and the recommendation (tests).
  QStringList readoutTexts() const;
  GoodputPlot* goodputPlot() const { return goodput_plot_; }
  EpochsPlot* epochsPlot() const { return epochs_plot_; }
  HistogramPlot* histogramPlot() const { return histogram_plot_; }
  TornadoPlot* tornadoPlot() const { return tornado_plot_; }
  MemoryPlot* memoryPlot() const { return memory_plot_; }
  QGroupBox* rangesBox() const { return ranges_box_; }
  // The Monte Carlo is running off the UI thread (during a drag).
  bool rangesPending() const { return ranges_running_; }
  // Why no plan could be made of the current inputs; "" when there is one.
  QString message() const;

  // Compares with a baseline scenario (computed once, here): read-outs show
  // the change from it, plots draw its ghosts. nullptr unpins.
  void setBaseline(const Scenario* baseline) override;

 protected:
  void refresh() override;
  void gestureChanged(bool on) override;

 private:
  void showMfuInUse();
  // The checks and the memo: rich text that re-lays out on every change, so
  // during a slider drag it follows at most every kTextFollowMs, and exactly on release.
  void updateTexts();
  // The ranges' read-outs, histogram and tornado from view_.ranges.
  void showRanges();
  // Runs the Monte Carlo of view_'s plan on a worker thread (latest wins).
  void startRanges();
  // The memo and checks now, or after a drag's pause (a drag redraws plots only).
  void scheduleTexts();
  // The reason no plan could be made of these inputs ("" hides it).
  void showError(const std::string& error);
  // Rebuilds the view around ranges that arrived from the worker.
  void showArrivedRanges(const std::optional<RangeReport>& ranges);

  BudgetView view_;
  std::optional<BudgetView> baseline_;
  BudgetControls controls_;
  std::unique_ptr<BudgetReadouts> readouts_;
  CheckList* checks_ = nullptr;
  QGroupBox* recommendation_box_ = nullptr;
  QPlainTextEdit* recommendation_ = nullptr;
  QTimer* text_timer_ = nullptr;
  std::vector<BudgetPlot*> plots_;
  GoodputPlot* goodput_plot_ = nullptr;
  EpochsPlot* epochs_plot_ = nullptr;
  HistogramPlot* histogram_plot_ = nullptr;
  TornadoPlot* tornado_plot_ = nullptr;
  MemoryPlot* memory_plot_ = nullptr;
  QGroupBox* ranges_box_ = nullptr;
  MessageLabel* message_ = nullptr;
  bool ranges_running_ = false;
  bool ranges_stale_ = false;  // the shown ranges are not of view_'s inputs
  std::uint64_t ranges_generation_ = 0;
};

}  // namespace napkin
