#include "moe/plots/TradeoffPlot.h"

#include "format.h"

namespace napkin {

namespace {
void setCurves(QCPGraph* dropped, QCPGraph* padding, const std::vector<CapacityPoint>& curve) {
  std::vector<double> x, d, w;
  for (const CapacityPoint& c : curve) {
    x.push_back(c.capacity_factor);
    d.push_back(c.drop_rate);
    w.push_back(c.wasted_fraction);
  }
  setCurve(dropped, x, d);
  setCurve(padding, x, w);
}
}  // namespace

TradeoffPlot::TradeoffPlot(QWidget* parent)
    : MoePlot(tr("Capacity-factor trade-off (this step's routing)"), parent) {
  setObjectName(QStringLiteral("plot_tradeoff"));
  setXAxis(tr("capacity factor"), false);
  setYAxis(tr("fraction of slots (%)"), false, fmtPercent);
  xAxis->setRange(kMoeTradeoffMinCf, kMoeTradeoffMaxCf);
  yAxis->setRange(0, 1.0);
  dropped_ = addCurve(this, tr("dropped ÷ routed slots"), plotPen(plot_color::part_red, 2.0));
  padding_ = addCurve(this, tr("padding ÷ buffer slots (wasted compute)"),
                      plotPen(plot_color::gray, 2.0, Qt::DashLine));
  marker_ = new VMarker(this, plotPen(plot_color::part_blue, 1.2, Qt::DashDotLine));
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.995, 0.01);
  showLegendBelow(1);
}

void TradeoffPlot::drawView(const MoeFrame& f) {
  const MoeStepView& v = f.step;
  marker_->place(f.params.capacity_factor);
  if (v.tradeoff.empty()) {
    dropped_->data()->clear();
    padding_->data()->clear();
    note_->setText(tr("step 0: no routing yet"));
    replotIfSeen();
    return;
  }
  if (!inputsChanged(v.step, f.run_id, f.params.top_k, f.params.capacity_factor, v.drop_rate_at_cf,
                     v.padding_fraction_at_cf))
    return;
  setCurves(dropped_, padding_, v.tradeoff);
  note_->setText(tr("cf %1: %2 dropped, %3 of the buffer is padding")
                     .arg(f.params.capacity_factor, 0, 'g', 3)
                     .arg(QString::fromStdString(format_percent(v.drop_rate_at_cf)))
                     .arg(QString::fromStdString(format_percent(v.padding_fraction_at_cf))));
  replotIfSeen();
}

void TradeoffPlot::drawBaseline(const MoeRunOfRecord* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  setCurves(ghost(dropped_), ghost(padding_), b->last.tradeoff);
  replotIfSeen();
}

}  // namespace napkin
