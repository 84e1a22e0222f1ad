#include "ResidualPlot.h"
#include "Text.h"

#include "PlotItems.h"
#include "format.h"

namespace napkin {

ResidualPlot::ResidualPlot(QWidget* parent)
    : PlotWidget(tr("Measured against predicted step time"), parent) {
  const Formatter seconds = [](double v) { return qs(format_seconds(v)); };
  setXAxis(tr("measured step"), true, seconds);
  setYAxis(tr("predicted step"), true, seconds);
  diagonal_ = addCurve(this, tr("predicted = measured"), QPen(plot_color::gray, 1, Qt::DashLine));
  published_ = addCurve(this, tr("published constants"), QPen(Qt::NoPen),
                        QCPScatterStyle(QCPScatterStyle::ssCircle, plot_color::orange, 7), false);
  calibrated_ = addCurve(this, tr("calibrated"), QPen(Qt::NoPen),
                         QCPScatterStyle(QCPScatterStyle::ssDisc, plot_color::blue, 6), false);
  showLegendBelow(3);
}

void ResidualPlot::drawRuns(const std::vector<double>& measured,
                            const std::vector<double>& published,
                            const std::vector<double>& calibrated) {
  if (!inputsChanged(measured, published, calibrated)) return;
  setCurve(published_, measured, published);
  setCurve(calibrated_, measured, calibrated);
  ValueRange r;
  r.add(measured, true);
  r.add(published, true);
  r.add(calibrated, true);
  if (r.valid) {
    const double lo = r.lo / 1.25, hi = r.hi * 1.25;
    setCurve(diagonal_, std::vector<double>{lo, hi}, std::vector<double>{lo, hi});
    xAxis->setRange(lo, hi);
    yAxis->setRange(lo, hi);
  } else {
    setCurve(diagonal_, std::vector<double>{}, std::vector<double>{});
  }
  requestReplot();
}

int ResidualPlot::pointCount() const {
  return published_->data()->size() + calibrated_->data()->size();
}

}  // namespace napkin
