#include "ServingTimePlot.h"

#include <iterator>

#include "format.h"

namespace napkin {

namespace {
// The parts PhaseTime::parts() names, in stacking order: the roofline part
// (one bound, or a per-kernel engine's kernels), then communication,
// pipelining and the engine's host work.
const char* const kParts[] = {
    "compute",           "weights read",  "KV cache read",   "GEMMs",
    "attention",         "element-wise",  "kernel launches", "tensor-parallel all-reduce",
    "expert all-to-all", "pipeline hops", "pipeline bubble", "engine host work"};
constexpr std::size_t kCount = std::size(kParts);

std::vector<double> shares(const PhaseTime& t) {
  std::vector<double> out(kCount, 0.0);
  if (t.seconds <= 0) return out;
  for (const TimePart& p : t.parts())
    for (std::size_t k = 0; k < kCount; ++k)
      if (p.label == kParts[k]) out[k] += 100.0 * p.seconds / t.seconds;
  return out;
}
}  // namespace

ServingTimePlot::ServingTimePlot(QWidget* parent)
    : ServingPlot(tr("Serving time: prefill and one decode step"), parent) {
  setObjectName(QStringLiteral("plot_serving_time"));
  setYAxis(tr("share of the phase (%)"), false, numberText);
  setHoverFormat([](double v) { return v < 0.5 ? tr("prefill") : tr("decode step"); },
                 [](double v) { return numberText(v) + QStringLiteral(" %"); });
  xAxis->setRange(-0.6, 1.6);
  yAxis->setRange(0, 125);
  bars_ = new StackedBars(this,
                          {{tr("compute"), QColor(76, 150, 90)},
                           {tr("weights read"), plot_color::part_blue},
                           {tr("KV cache read"), plot_color::part_orange},
                           {tr("GEMMs"), QColor(76, 150, 90)},
                           {tr("attention"), plot_color::part_orange},
                           {tr("element-wise"), QColor(140, 180, 220)},
                           {tr("kernel launches"), QColor(230, 200, 110)},
                           {tr("TP all-reduce"), plot_color::part_red},
                           {tr("expert all-to-all"), plot_color::part_purple},
                           {tr("pipeline hops"), plot_color::part_gray},
                           {tr("pipeline bubble"), plot_color::part_light},
                           {tr("engine host work"), QColor(90, 90, 90)}},
                          0.5);
  roofline_share_ = addCurve(this, tr("roofline part"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  roofline_share_->removeFromLegend();
  for (int i = 0; i < 2; ++i)
    labels_.push_back(addPointLabel(this, Qt::AlignHCenter | Qt::AlignBottom));
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.98, 0.02);
  showLegendBelow(3);
}

void ServingTimePlot::drawView(const ServingPanelView& v) {
  const ServingResult& c = v.view.chosen;
  const std::vector<double> pre = shares(c.prefill), dec = shares(c.decode_step);
  if (!inputsChanged(pre, dec, c.prefill.seconds, c.decode_step.seconds, v.error)) return;
  std::vector<std::vector<double>> parts(kCount);
  for (std::size_t k = 0; k < kCount; ++k) parts[k] = {pre[k], dec[k]};
  bars_->setData({0, 1}, parts);
  // The legend names the parts this layout and engine have, in stacking order.
  for (std::size_t k = 0; k < kCount; ++k) bars_->part(k)->removeFromLegend();
  for (std::size_t k = 0; k < kCount; ++k)
    if (pre[k] > 0 || dec[k] > 0) bars_->part(k)->addToLegend();
  setCurve(roofline_share_, {0, 1},
           {100 * c.prefill.roofline_share(), 100 * c.decode_step.roofline_share()});
  labels_[0]->position->setCoords(0, 100);
  labels_[0]->setText(secondsText(c.prefill.seconds));
  labels_[1]->position->setCoords(1, 100);
  labels_[1]->setText(secondsText(c.decode_step.seconds));
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  ticker->addTick(0, tr("prefill\n%1-bound").arg(qs(to_string(c.prefill.bound))));
  ticker->addTick(1, tr("decode step\n%1-bound").arg(qs(to_string(c.decode_step.bound))));
  xAxis->setTicker(ticker);
  note_->setText(tr("%1 on %2\ncommunication %3 per step")
                     .arg(qs(describe(c.layout)), chipsText(c.chips),
                          v.scenario.roofline.serving_layout.communication
                              ? secondsText(c.comm_seconds_per_step)
                              : tr("off")));
  requestReplot();
}

void ServingTimePlot::drawBaseline(const ServingPanelView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  const ServingResult& c = b->view.chosen;
  QCPGraph* g = ghostBarTops(roofline_share_);
  setCurve(g, {0, 1}, {100 * c.prefill.roofline_share(), 100 * c.decode_step.roofline_share()});
  requestReplot();
}

}  // namespace napkin
