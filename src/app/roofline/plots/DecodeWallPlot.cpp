#include "DecodeWallPlot.h"

#include "format.h"

namespace napkin {

namespace {
constexpr double kXMin = 0.8, kXMax = 1300;
}

DecodeWallPlot::DecodeWallPlot(QWidget* parent) : RooflinePanelPlot(tr("The decode wall"), parent) {
  setObjectName(QStringLiteral("plot_decode"));
  setXAxis(tr("decode batch (requests)"), true, fmtSi);
  setYAxis(tr("intensity (FLOP/byte)"), true, fmtSi);
  setY2Axis(tr("KV share of bytes (%)"), false, numberText);
  setHoverFormat(fmtSi, numberText);
  yAxis2->setRange(0, 105);
  intensity_ = addCurve(this, tr("decode intensity"), plotPen(plot_color::blue, 2.0),
                        QCPScatterStyle(QCPScatterStyle::ssCircle, plot_color::blue, Qt::white, 5));
  ridge_ = addCurve(this, QString(), plotPen(plot_color::red, 1.5, Qt::DashLine));
  kv_ = addGraph(xAxis, yAxis2);
  kv_->setName(tr("KV share of bytes (%)"));
  kv_->setPen(plotPen(plot_color::orange, 1.6));
  kv_->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssSquare, plot_color::orange, Qt::white, 4));
  xAxis->setRange(kXMin, kXMax);
  batch_ = new VMarker(this, plotPen(plot_color::green, 1.2, Qt::DotLine));
  note_ = new Note(this, Qt::AlignRight | Qt::AlignBottom, 0.98, 0.97);
  showLegendBelow(2);
}

void DecodeWallPlot::drawView(const RooflineView& v) {
  const RooflinePanelData& d = v.data;
  const RooflineScenario& sc = v.inputs;
  std::vector<double> x, y, share;
  for (const DecodeIntensityPoint& pt : d.decode_wall) {
    x.push_back(static_cast<double>(pt.batch));
    y.push_back(pt.intensity);
    share.push_back(100.0 * pt.kv_share_of_bytes);
  }
  if (!inputsChanged(sc.chip, d.ridge_flops_per_byte, sc.operations.decode_batch, y, share) ||
      d.decode_wall.empty())
    return;
  setCurve(intensity_, x, y);
  setCurve(kv_, x, share);
  const double ridge = d.ridge_flops_per_byte;
  setCurve(ridge_, {kXMin, kXMax}, {ridge, ridge});
  ridge_->setName(tr("%1 ridge %2").arg(qs(sc.chip), intensityText(ridge)));
  double lo = y.front();
  for (double i : y) lo = std::min(lo, i);
  yAxis->setRange(lo / 3, ridge * 3);
  batch_->place(static_cast<double>(sc.operations.decode_batch));
  const DecodeIntensityPoint& last = d.decode_wall.back();
  note_->setText(tr("B=%1: %2 of the ridge\nKV cache: %3 of bytes\nB=%4: still %5 of it")
                     .arg(qs(format_grouped(sc.operations.decode_batch)),
                          qs(format_percent(d.decode_at_batch.fraction_of_ridge)),
                          qs(format_percent(d.decode_at_batch.kv_share_of_bytes)),
                          qs(format_grouped(last.batch)),
                          qs(format_percent(last.fraction_of_ridge))));
  requestReplot();
}

void DecodeWallPlot::drawBaseline(const RooflineView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  std::vector<double> x, y;
  for (const DecodeIntensityPoint& pt : b->data.decode_wall) {
    x.push_back(static_cast<double>(pt.batch));
    y.push_back(pt.intensity);
  }
  setCurve(ghost(intensity_), x, y);
  const double r = b->data.ridge_flops_per_byte;
  setCurve(ghost(ridge_), {kXMin, kXMax}, {r, r});
  requestReplot();
}

}  // namespace napkin
