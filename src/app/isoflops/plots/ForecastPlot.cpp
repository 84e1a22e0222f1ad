#include "isoflops/plots/ForecastPlot.h"
#include "Text.h"

#include <algorithm>

namespace napkin {

namespace {

const QColor kStale(160, 160, 160);

}  // namespace

ForecastPlot::ForecastPlot(QWidget* parent)
    : IsoflopsPlot(tr("(3) Forecast: optimal loss vs C"), parent) {
  setXAxis(tr("compute C (FLOPs)"), true, fmtSci);
  setYAxis(tr("loss (nats/token)"), false);
  low_ = addCurve(this, QString(), Qt::NoPen);
  high_ = addCurve(this, tr("95 % band"), Qt::NoPen);
  high_->setChannelFillGraph(low_);
  runs_ = addCurve(this, tr("runs"), Qt::NoPen,
                   QCPScatterStyle(QCPScatterStyle::ssDisc, QColor(150, 150, 150), 3.5), false);
  vertices_ = addCurve(
      this, tr("vertices"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(plot_color::dark, 1.2), Qt::white, 7),
      false);
  truth_ = addCurve(this, tr("true law"), plotPen(plot_color::gray, 1.3, Qt::DashLine));
  fit_ = addCurve(this, tr("fitted law"), plotPen(plot_color::blue, 2.0));
  target_pt_ = addCurve(this, tr("forecast at C*"), Qt::NoPen,
                        QCPScatterStyle(QCPScatterStyle::ssDisc, plot_color::red, 6), false);
  error_ = new QCPErrorBars(xAxis, yAxis);
  error_->setDataPlottable(target_pt_);
  error_->setPen(plotPen(plot_color::red, 1.5));
  error_->setWhiskerWidth(8);
  error_->removeFromLegend();
  showLegendBelow(3);
  low_->removeFromLegend();
  target_ = new VMarker(this, plotPen(plot_color::red, 1.1, Qt::DotLine));
  ladder_edge_ = new VMarker(this, plotPen(plot_color::gray, 1.0, Qt::DashDotLine));
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);
}

void ForecastPlot::drawView(const IsoflopsShown& s) {
  const IsoflopsView& v = s.view();
  const std::optional<LossLaw> law = fittedLaw(s);
  if (!inputsChanged(v.points.size(), v.target_flops, v.ladder_min_flops, v.ladder_max_flops,
                     s.serial, static_cast<int>(s.fit_state), static_cast<int>(s.boot_state),
                     lawKey(law), lawKey(s.ladder.truth),
                     v.points.empty() ? 0.0 : v.points.front().loss))
    return;
  const std::vector<double> cs = flopsGrid(v, 80);
  std::vector<double> rx, ry, ox, oy;
  ValueRange y;
  for (std::size_t i = 0; i < v.points.size(); ++i) {
    if (v.points[i].outlier) continue;
    rx.push_back(v.run_flops[i]);
    ry.push_back(v.points[i].loss);
  }
  y.add(ry);
  const double ymax = y.hi;
  setCurve(runs_, rx, ry);
  for (const IsoflopOptimum& o : v.optima) {
    ox.push_back(o.budget_flops);
    oy.push_back(o.loss_opt);
  }
  setCurve(vertices_, ox, oy);
  const std::vector<double> fy = law ? optimal_loss_curve(*law, cs) : std::vector<double>{};
  const std::vector<double> ty =
      s.ladder.truth ? optimal_loss_curve(*s.ladder.truth, cs) : std::vector<double>{};
  setCurve(fit_, law ? cs : std::vector<double>{}, fy);
  setCurve(truth_, s.ladder.truth ? cs : std::vector<double>{}, ty);
  y.add(fy);
  y.add(ty);
  const bool stale = s.fitStale() || s.bandStale();
  fit_->setPen(plotPen(stale ? kStale : plot_color::blue, 2.0));
  high_->setBrush(stale ? QColor(160, 160, 160, 50) : QColor(31, 119, 180, 60));
  std::vector<double> bx, bl, bh;
  for (const BandPoint& b : s.band)
    if (b.flops >= cs.front() / 1.4 && b.flops <= cs.back() * 1.4) {
      bx.push_back(b.flops);
      bl.push_back(b.low);
      bh.push_back(b.high);
    }
  setCurve(low_, bx, bl);
  setCurve(high_, bx, bh);
  y.add(bl);
  target_pt_->data()->clear();
  error_->data()->clear();
  const IsoflopsForecast& f = s.forecast;
  if (f.loss) {
    target_pt_->addData(v.target_flops, *f.loss);
    if (f.interval)
      error_->setData(QVector<double>{*f.loss - f.interval->low},
                      QVector<double>{f.interval->high - *f.loss});
    y.add({f.interval ? f.interval->low : *f.loss});
  }
  xAxis->setRange(cs.front(), cs.back());
  if (y.valid && ymax > y.lo) {
    const double span = ymax - y.lo;
    yAxis->setRange(y.lo - 0.05 * span, ymax + 0.05 * span);
  }
  target_->place(v.target_flops);
  ladder_edge_->place(v.ladder_max_flops);
  QString text = tr("C* = %1").arg(fmtSci(v.target_flops));
  if (f.loss) {
    text += tr("\nL* = %1 nats").arg(fixed(*f.loss, 4));
    if (f.interval)
      text += tr("\n95 %: [%1, %2]").arg(fixed(f.interval->low, 4), fixed(f.interval->high, 4));
  } else {
    text += s.fit_state == JobState::cancelled ? tr("\nfit cancelled") : tr("\nno fitted law");
  }
  text += v.extrapolation_decades > 0
              ? tr("\n%1 decades beyond the ladder").arg(fixed(v.extrapolation_decades, 1))
              : tr("\ninside the ladder (interpolation)");
  if (s.boot_state == JobState::cancelled) text += tr("\nbootstrap cancelled");
  if (stale) text += tr("\nupdating…");
  note_->setText(text);
  note_->setColor(stale ? plot_color::warn : plotPalette().text);
  for (QCPGraph* g : {high_, runs_, vertices_, truth_, fit_, target_pt_}) {
    if (!g->data()->isEmpty())
      g->addToLegend();
    else
      g->removeFromLegend();
  }
  requestReplot();
}

void ForecastPlot::drawBaseline(const IsoflopsShown* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  const std::vector<double> cs = flopsGrid(b->view(), 80);
  if (b->fit) setCurve(ghost(fit_), cs, optimal_loss_curve(b->fit->law, cs));
  if (b->forecast.loss) setCurve(ghost(target_pt_), {b->target()}, {*b->forecast.loss});
  requestReplot();
}

}  // namespace napkin
