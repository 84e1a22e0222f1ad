#include "DepthWidthPlot.h"

#include <algorithm>

#include "format.h"

namespace napkin {

DepthWidthPlot::DepthWidthPlot(QWidget* parent)
    : RooflinePanelPlot(tr("Depth vs width at fixed N"), parent) {
  setObjectName(QStringLiteral("plot_depth"));
  setXAxis(tr("layers L (d_model = \u221a(N / 12L))"), false, fmtSi);
  setYAxis(tr("decode step (ms)"), false, numberText);
  setY2Axis(tr("tile efficiency of d_model (%)"), false, numberText);
  setHoverFormat(numberText, numberText);
  yAxis2->setRange(0, 125);
  step_ = addCurve(this, tr("decode step (ms)"), plotPen(plot_color::blue, 2.0),
                   QCPScatterStyle(QCPScatterStyle::ssCircle, plot_color::blue, Qt::white, 6));
  serial_ = addCurve(this, tr("serial part (ms)"), plotPen(plot_color::red, 1.4, Qt::DashLine));
  efficiency_ = addGraph(xAxis, yAxis2);
  efficiency_->setName(tr("tile efficiency (%)"));
  efficiency_->setPen(plotPen(plot_color::green, 1.6));
  efficiency_->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssSquare, plot_color::green, Qt::white, 5));
  layers_ = new VMarker(this, plotPen(plot_color::orange, 1.2, Qt::DotLine));
  note_ = new Note(this, Qt::AlignLeft | Qt::AlignTop, 0.02, 0.02);
  showLegendBelow(3);
}

void DepthWidthPlot::drawView(const RooflineView& v) {
  const std::vector<DepthWidthPoint>& pts = v.data.depth_width;
  std::vector<double> x, step, serial, eff;
  double hi = 0;
  for (const DepthWidthPoint& pt : pts) {
    x.push_back(static_cast<double>(pt.n_layers));
    step.push_back(pt.decode_step_seconds * 1e3);
    serial.push_back(pt.serial_seconds_per_step * 1e3);
    eff.push_back(pt.tile_efficiency * 100);
    hi = std::max(hi, step.back());
  }
  if (!inputsChanged(v.inputs.shape.n_layers, v.inputs.tile, step, eff) || pts.empty()) return;
  setCurve(step_, x, step);
  setCurve(serial_, x, serial);
  setCurve(efficiency_, x, eff);
  xAxis->setRange(x.front() - 6, x.back() + 6);
  yAxis->setRange(0, std::max(hi, 1e-6) * 1.6);
  layers_->place(static_cast<double>(v.inputs.shape.n_layers));
  const DepthWidthPoint& a = pts.front();
  const DepthWidthPoint& z = pts.back();
  note_->setText(tr("step %1 at L=%2 (d %3), %4 at L=%5 (d %6)\n"
                    "same bandwidth term; depth adds serial time")
                     .arg(secondsText(a.decode_step_seconds))
                     .arg(a.n_layers)
                     .arg(a.d_model)
                     .arg(secondsText(z.decode_step_seconds))
                     .arg(z.n_layers)
                     .arg(z.d_model));
  requestReplot();
}

void DepthWidthPlot::drawBaseline(const RooflineView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  std::vector<double> x, step;
  for (const DepthWidthPoint& pt : b->data.depth_width) {
    x.push_back(static_cast<double>(pt.n_layers));
    step.push_back(pt.decode_step_seconds * 1e3);
  }
  setCurve(ghost(step_), x, step);
  requestReplot();
}

}  // namespace napkin
