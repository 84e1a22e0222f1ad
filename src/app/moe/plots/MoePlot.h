// An MoE router plot: draws from the panel's frame (the run's shown step and
// the scenario's view), and a pinned baseline's run of record as faded dashed
// ghosts behind it.
#pragma once

#include <cstdint>
#include <vector>

#include "ViewPlot.h"
#include "moe_view.h"
#include "nice_numbers.h"

namespace napkin {

// What every plot draws from, once per frame.
struct MoeFrame {
  const CollapseParams& params;
  const std::vector<StepStats>& history;
  std::int64_t run_id = 0;      // a new run (restart, reset) replaced the history
  std::int64_t shown_step = 0;  // 0: no step yet
  const MoeStepView& step;
  const MoeScenarioView& scenario;
};

class MoePlot : public ViewPlot<MoeFrame, MoeRunOfRecord> {
 public:
  using ViewPlot::ViewPlot;
  // Follows the animation (the collapse plots); the others change with the scenario.
  virtual bool followsRun() const { return true; }
  // Redrawn on every animation frame (the collapse itself); the others follow
  // at a quarter of the frame rate while playing, exactly on pause.
  virtual bool everyFrame() const { return followsRun(); }

 protected:
  // Replots now if any of the plot is on screen; a plot scrolled out of view
  // (or behind a tab) replots when it is next painted. An animation frame
  // then pays only for the plots a person can see.
  void replotIfSeen();
  void paintEvent(QPaintEvent* event) override;

 private:
  bool unseen_changes_ = false;
};

// A bar set whose keys are 0..n−1, written in place when the size is
// unchanged (no reallocation on an animation tick).
void setBarValues(QCPBars* bars, const std::vector<double>& values);
QCPBars* addBars(PlotWidget* plot, const QColor& color, const QString& name);
// The end of the step axis: the run's steps rounded up to a block of 600, so
// the axis does not creep while a run plays.
double stepAxisEnd(std::size_t steps);
// A horizontal segment across the experts 0..E−1 at y (for a ghost of a level).
void setLevel(QCPGraph* graph, std::int64_t experts, double y);

}  // namespace napkin
