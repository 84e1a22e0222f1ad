#include "moe/plots/LossPlot.h"

#include <algorithm>
#include <cmath>

namespace napkin {

namespace {
constexpr double kFloor = 1e-6;  // L_z = 0 (γ off) on a log axis
}  // namespace

LossPlot::LossPlot(QWidget* parent) : MoePlot(tr("Losses and drops over steps"), parent) {
  setObjectName(QStringLiteral("plot_loss"));
  setXAxis(tr("router step"), false);
  setYAxis(tr("L_balance, L_z"), true);
  setY2Axis(tr("drop rate (% of slots)"), false);
  yAxis2->setRange(0, 100);
  xAxis->grid()->setZeroLinePen(Qt::NoPen);
  balance_ = addCurve(this, tr("load-balance loss"), plotPen(plot_color::part_purple, 1.6));
  z_ = addCurve(this, tr("z-loss"), plotPen(plot_color::green, 1.6));
  drop_ = new QCPGraph(xAxis, yAxis2);
  drop_->setName(tr("drop rate (right)"));
  drop_->setPen(plotPen(plot_color::part_red, 1.2));
  cursor_ = new VMarker(this, plotPen(plot_color::dark, 1.0, Qt::DashLine));
  showLegendBelow(3);
}

void LossPlot::drawView(const MoeFrame& f) {
  // A knob that continues the run changes nothing drawn here.
  if (!inputsChanged(f.run_id, f.history.size(), f.shown_step)) return;
  const bool rebuild = f.run_id != run_id_ || f.history.size() < traced_;
  if (rebuild) {
    for (QCPGraph* g : {balance_, z_, drop_}) g->data()->clear();
    run_id_ = f.run_id;
    traced_ = 0;
    top_ = 1;
    low_ = 1e300;
    yAxis->setRange(0.1, 10);
  }
  for (std::size_t i = traced_; i < f.history.size(); ++i) {
    const StepStats& s = f.history[i];
    const double x = static_cast<double>(s.step);
    const double lz = std::max(s.l_z, kFloor);
    balance_->addData(x, s.l_balance);
    z_->addData(x, lz);
    drop_->addData(x, 100.0 * s.drop_rate);
    top_ = std::max({top_, s.l_balance, s.l_z});
    low_ = std::min({low_, s.l_balance, lz});
  }
  traced_ = f.history.size();
  xAxis->setRange(0, stepAxisEnd(f.history.size()));
  const double top = nice_ceil(top_ * 1.5);
  if (yAxis->range().upper < top) yAxis->setRangeUpper(top);
  if (low_ < yAxis->range().lower && low_ > 0) yAxis->setRangeLower(decade_floor(low_));
  cursor_->place(static_cast<double>(f.shown_step));
  replotIfSeen();
}

void LossPlot::drawBaseline(const MoeRunOfRecord* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  QVector<double> x, lb, lz, d;
  for (const StepStats& s : b->history) {
    x.push_back(static_cast<double>(s.step));
    lb.push_back(s.l_balance);
    lz.push_back(std::max(s.l_z, kFloor));
    d.push_back(100.0 * s.drop_rate);
  }
  ghost(balance_)->setData(x, lb, true);
  ghost(z_)->setData(x, lz, true);
  ghost(drop_)->setData(x, d, true);
  replotIfSeen();
}

}  // namespace napkin
