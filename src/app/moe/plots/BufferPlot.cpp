#include "moe/plots/BufferPlot.h"

#include <algorithm>

namespace napkin {

BufferPlot::BufferPlot(QWidget* parent) : MoePlot(tr("Expert buffers this step"), parent) {
  setObjectName(QStringLiteral("plot_buffers"));
  setXAxis(tr("expert"), false);
  setYAxis(tr("slots (token-slots)"), false);
  setIntegerTicks(xAxis);
  xAxis->grid()->setZeroLinePen(Qt::NoPen);
  bars_ = new StackedBars(this,
                          {{tr("real tokens (kept)"), plot_color::part_blue},
                           {tr("padding (computed on zeros)"), plot_color::part_light},
                           {tr("dropped (over capacity)"), plot_color::part_red}},
                          0.8);
  capacity_ = addCurve(this, tr("capacity"), plotPen(plot_color::red, 1.2, Qt::DashLine));
  showLegendBelow(2);
}

void BufferPlot::drawView(const MoeFrame& f) {
  const MoeStepView& v = f.step;
  if (!inputsChanged(f.run_id, f.shown_step, v.n_experts, v.capacity_per_expert)) return;
  for (std::size_t i = 0; i < bars_->size(); ++i)
    bars_->part(i)->setWidth(v.n_experts > 64 ? 1.0 : 0.8);
  // In place on an animation tick (same E): the stacked sets keep their keys.
  setBarValues(bars_->part(0), v.kept_slots);
  setBarValues(bars_->part(1), v.padded_slots);
  setBarValues(bars_->part(2), v.dropped_slots);
  setLevel(capacity_, v.n_experts, static_cast<double>(v.capacity_per_expert));
  xAxis->setRange(-0.7, static_cast<double>(v.n_experts) - 0.3);
  yAxis->setRange(0, nice_ceil(v.largest_slots * 1.12));
  xAxis->setLabel(
      tr("expert · step %1 · dashed: capacity %2 slots").arg(v.step).arg(v.capacity_per_expert));
  replotIfSeen();
}

void BufferPlot::drawBaseline(const MoeRunOfRecord* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  setLevel(ghost(capacity_), b->last.n_experts, static_cast<double>(b->last.capacity_per_expert));
  replotIfSeen();
}

}  // namespace napkin
