#include "moe/plots/ExpertSharePlot.h"

#include <algorithm>

#include "format.h"

namespace napkin {

ExpertSharePlot::ExpertSharePlot(QWidget* parent) : MoePlot(tr("Expert token share"), parent) {
  setObjectName(QStringLiteral("plot_bars"));
  setXAxis(tr("expert"), false);
  setYAxis(tr("routed slots ÷ fair share (×)"), false);
  setIntegerTicks(xAxis);
  xAxis->grid()->setZeroLinePen(Qt::NoPen);
  bars_[0] = addBars(this, plot_color::part_blue, tr("healthy"));
  bars_[1] = addBars(this, plot_color::part_orange, tr("over its buffer (slots dropped)"));
  bars_[2] = addBars(this, plot_color::part_gray, tr("dead (gate share < 10 % of fair)"));
  buffer_ = addCurve(this, tr("buffer (capacity)"), plotPen(plot_color::red, 1.2, Qt::DotLine));
  load_ = addCurve(this, tr("load"), plotPen(plot_color::dark, 1.4));
  load_->setLineStyle(QCPGraph::lsStepCenter);
  load_->setVisible(false);
  load_->removeFromLegend();
  fair_ = addCurve(this, tr("fair share T·k/E"), plotPen(plot_color::green, 1.2, Qt::DashLine));
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.995, 0.01);
  showLegendBelow(2);
}

void ExpertSharePlot::drawView(const MoeFrame& f) {
  const MoeStepView& v = f.step;
  if (!inputsChanged(f.run_id, f.shown_step, v.n_experts, v.top_k, v.capacity_share)) return;
  const auto n = static_cast<std::size_t>(v.n_experts);
  std::vector<double> healthy(n, 0.0), over(n, 0.0), dead(n, 0.0);
  for (std::size_t i = 0; i < n && i < v.loads.size(); ++i) {
    const ExpertLoad& l = v.loads[i];
    (l.state == ExpertState::dead            ? dead
     : l.state == ExpertState::over_capacity ? over
                                             : healthy)[i] = l.relative_load;
  }
  setBarValues(bars_[0], healthy);
  setBarValues(bars_[1], over);
  setBarValues(bars_[2], dead);
  const bool restart = experts_ != v.n_experts;
  if (restart) {
    experts_ = v.n_experts;
    xAxis->setRange(-0.7, static_cast<double>(v.n_experts) - 0.3);
    for (QCPBars* b : bars_) b->setWidth(v.n_experts > 64 ? 1.0 : 0.8);
  }
  setLevel(buffer_, v.n_experts, v.capacity_share);
  setLevel(fair_, v.n_experts, 1.0);
  // The y range only grows inside a run (no jitter), and fits E/k when collapsed.
  const double want = nice_ceil(std::max({v.largest_load, v.capacity_share, 1.0}) * 1.15);
  const double cur = yAxis->range().upper;
  if (restart || v.step == 0 || want > cur || want < cur / 2.5) yAxis->setRange(0, want);
  note_->setText(v.step > 0 ? tr("step %1").arg(QString::fromStdString(
                                  format_grouped(static_cast<double>(v.step), 0)))
                            : tr("step 0: no routing yet"));
  xAxis->setLabel(tr("expert (E = %1, k = %2)").arg(v.n_experts).arg(v.top_k));
  replotIfSeen();
}

void ExpertSharePlot::drawBaseline(const MoeRunOfRecord* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  QVector<double> x, y;
  for (std::size_t i = 0; i < b->last.loads.size(); ++i) {
    x.push_back(static_cast<double>(i));
    y.push_back(b->last.loads[i].relative_load);
  }
  ghost(load_)->setData(x, y, true);
  ghost(load_)->setName(tr("baseline: load at step %1").arg(b->last.step));
  setLevel(ghost(buffer_), b->last.n_experts, b->last.capacity_share);
  const double top = nice_ceil(std::max(b->last.largest_load, b->last.capacity_share) * 1.15);
  if (top > yAxis->range().upper) yAxis->setRange(0, top);
  replotIfSeen();
}

std::vector<double> ExpertSharePlot::values() const {
  std::vector<double> out(static_cast<std::size_t>(std::max<std::int64_t>(experts_, 0)), 0.0);
  for (QCPBars* b : bars_) {
    std::size_t i = 0;
    for (auto it = b->data()->constBegin(); it != b->data()->constEnd() && i < out.size(); ++it)
      out[i++] += it->value;
  }
  return out;
}

}  // namespace napkin
