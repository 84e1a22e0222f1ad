#include "moe/plots/UtilizationPlot.h"

#include <algorithm>
#include <cmath>

namespace napkin {

UtilizationPlot::UtilizationPlot(QWidget* parent) : MoePlot(tr("Utilization over steps"), parent) {
  setObjectName(QStringLiteral("plot_util"));
  setXAxis(tr("router step"), false);
  setYAxis(tr("max/mean utilization (×)"), false);
  setY2Axis(tr("dead experts"), false);
  setIntegerTicks(yAxis2);
  xAxis->grid()->setZeroLinePen(Qt::NoPen);
  per_step_ = addCurve(this, tr("per step"), plotPen(plot_color::part_blue, 1.4));
  smoothed_ = addCurve(this, tr("~20-step average"), plotPen(plot_color::orange, 2.0));
  dead_ = new QCPGraph(xAxis, yAxis2);
  dead_->setName(tr("dead (right)"));
  dead_->setPen(plotPen(plot_color::gray, 1.6));
  dead_->setLineStyle(QCPGraph::lsStepLeft);
  cursor_ = new VMarker(this, plotPen(plot_color::dark, 1.0, Qt::DashLine));
  showLegendBelow(3);
}

void UtilizationPlot::append(const MoeFrame& f, std::size_t from) {
  for (std::size_t i = from; i < f.history.size(); ++i) {
    const StepStats& s = f.history[i];
    const double x = static_cast<double>(s.step);
    per_step_->addData(x, s.max_over_mean);
    smoothed_->addData(x, s.recent_max_over_mean);
    dead_->addData(x, static_cast<double>(s.dead_experts));
    top_ = std::max(top_, s.max_over_mean);
  }
  traced_ = f.history.size();
}

void UtilizationPlot::drawView(const MoeFrame& f) {
  // A knob that continues the run changes nothing drawn here.
  if (!inputsChanged(f.run_id, f.history.size(), f.shown_step, f.params.n_experts)) return;
  if (f.run_id != run_id_ || f.history.size() < traced_) {
    for (QCPGraph* g : {per_step_, smoothed_, dead_}) g->data()->clear();
    run_id_ = f.run_id;
    traced_ = 0;
    top_ = 1;
  }
  if (f.history.size() > traced_) append(f, traced_);
  xAxis->setRange(0, stepAxisEnd(f.history.size()));
  yAxis->setRange(0, nice_ceil(std::max(2.0, top_ * 1.08)));
  yAxis2->setRange(0, static_cast<double>(std::max<std::int64_t>(f.params.n_experts, 2)));
  cursor_->place(static_cast<double>(f.shown_step));
  replotIfSeen();
}

void UtilizationPlot::drawBaseline(const MoeRunOfRecord* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  QVector<double> x, m, r, d;
  for (const StepStats& s : b->history) {
    x.push_back(static_cast<double>(s.step));
    m.push_back(s.max_over_mean);
    r.push_back(s.recent_max_over_mean);
    d.push_back(static_cast<double>(s.dead_experts));
  }
  ghost(per_step_)->setData(x, m, true);
  ghost(smoothed_)->setData(x, r, true);
  ghost(dead_)->setData(x, d, true);
  replotIfSeen();
}

}  // namespace napkin
