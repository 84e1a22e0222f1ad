#include "HistogramPlot.h"
#include "Text.h"

#include <cmath>

#include "format.h"

namespace napkin {

HistogramPlot::HistogramPlot(QWidget* parent)
    : RangesPlot(tr("Days of the planned run: Monte Carlo"), parent, plotPen(plot_color::red, 1.8),
                 Qt::AlignRight | Qt::AlignTop, 0.98, 0.03) {
  setXAxis(tr("wall-clock days (goodput included)"), false,
           [](double v) { return qs(format_grouped(v, std::abs(v) < 10 ? 1 : 0)); });
  setYAxis(tr("draws"), false, fmtSi);
  bars_ = new QCPBars(xAxis, yAxis);
  bars_->setName(tr("draws per bin"));
  bars_->setPen(QPen(plot_color::part_blue.darker(115)));
  bars_->setBrush(plot_color::part_blue);
  bars_->setWidthType(QCPBars::wtPlotCoords);
  p10_ = new VMarker(this, plotPen(plot_color::orange, 1.4, Qt::DashLine));
  p50_ = new VMarker(this, plotPen(plot_color::red, 1.8));
  p90_ = new VMarker(this, plotPen(plot_color::orange, 1.4, Qt::DashLine));
}

std::optional<double> HistogramPlot::marker(int i) const {
  const VMarker* m = i == 0 ? p10_ : i == 1 ? p50_ : p90_;
  if (!m->visible()) return std::nullopt;
  return m->x();
}

void HistogramPlot::clearRanges() {
  bars_->data()->clear();
  for (VMarker* m : {p10_, p50_, p90_}) m->setVisible(false);
}

void HistogramPlot::drawView(const BudgetView& v) {
  if (!v.ranges) {
    drawWithoutRanges(v, tr("computing 10,000 draws…"),
                      tr("No input is a range.\nSwitch one on under Ranges (left)\nto see P10 / "
                         "P50 / P90 of the days."));
    return;
  }
  const RangeReport& r = *v.ranges;
  const OutputDistribution& d = r.days;
  if (!inputsChanged(1.0, d.p.p10, d.p.p50, d.p.p90, d.min, d.max, d.mean,
                     static_cast<double>(r.draws)))
    return;
  const Histogram& h = d.histogram;
  QVector<double> keys, values;
  double top = 1;
  for (std::size_t i = 0; i < h.counts.size(); ++i) {
    keys.push_back(h.lo + h.bin_width * (static_cast<double>(i) + 0.5));
    values.push_back(static_cast<double>(h.counts[i]));
    top = std::max(top, static_cast<double>(h.counts[i]));
  }
  const double width = h.bin_width > 0 ? h.bin_width : std::max(0.5, 0.02 * d.p.p50);
  bars_->setWidth(width * 0.92);
  bars_->setData(keys, values, true);
  const double lo = h.lo,
               hi = h.lo + width * static_cast<double>(std::max<std::size_t>(1, h.counts.size()));
  const double pad = std::max(0.05 * (hi - lo), 0.5 * width);
  xAxis->setRange(lo - pad, hi + pad);
  yAxis->setRange(0, top * 1.45);
  p10_->place(d.p.p10);
  p50_->place(d.p.p50);
  p90_->place(d.p.p90);
  for (VMarker* m : {p10_, p50_, p90_}) m->setVisible(true);
  QString text = tr("P10 %1 · P50 %2 · P90 %3 days\n%4 draws (bars to P99), %5, seed %6")
                     .arg(groupedAuto(d.p.p10), groupedAuto(d.p.p50), groupedAuto(d.p.p90),
                          qs(format_grouped(static_cast<double>(r.draws), 0)),
                          qs(std::string(to_string(r.shape))), QString::number(r.seed));
  if (r.capped_draws > 0)
    text += tr("\n%1 of them make no progress (not in the bars)").arg(r.capped_draws);
  setNote(text);
  requestReplot();
}

}  // namespace napkin
