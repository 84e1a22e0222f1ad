#include "LatencyPlot.h"

#include <cmath>

#include "format.h"

namespace napkin {

namespace {
// Index of a power of two (1 → 0, 1024 → 10).
double log2Index(double chips) { return std::log2(std::max(chips, 1.0)); }
}  // namespace

LatencyPlot::LatencyPlot(QWidget* parent)
    : RooflinePanelPlot(tr("The latency napkin: one turn vs chips"), parent) {
  setObjectName(QStringLiteral("plot_latency"));
  setYAxis(tr("seconds per turn (s)"), false, numberText);
  setHoverFormat(
      [](double v) {
        return qs(format_grouped(std::ldexp(1.0, static_cast<int>(std::lround(v))), 0));
      },
      secondsText);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int i = 0; i <= 10; ++i) ticker->addTick(i, QString::number(1 << i));
  xAxis->setTicker(ticker);
  xAxis->setLabel(tr("chips (power-of-two slice)"));
  xAxis->setRange(-0.6, 10.6);
  bars_ = new StackedBars(this,
                          {{tr("overhead"), plot_color::gray},
                           {tr("prefill"), plot_color::blue},
                           {tr("decode"), plot_color::orange}},
                          0.62);
  budget_ = addCurve(this, QString(), plotPen(plot_color::red, 1.8, Qt::DashLine));
  totals_ = addCurve(this, tr("turn"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  totals_->removeFromLegend();
  for (int i = 0; i <= 10; ++i) labels_.push_back(addPointLabel(this, Qt::AlignHCenter));
  need_ = new VMarker(this, plotPen(plot_color::green, 1.6, Qt::DashDotLine));
  hold_ = new VMarker(this, plotPen(plot_color::purple, 1.4, Qt::DotLine));
  // The verdict as a subtitle: bars can reach the top, so it goes above the axes.
  plotLayout()->insertRow(1);
  QFont f = font();
  f.setPointSizeF(f.pointSizeF() * 0.9);
  verdict_ = new QCPTextElement(this, QString(), f);
  verdict_->setMargins(QMargins(4, 0, 4, 2));
  plotLayout()->addElement(1, 0, verdict_);
  showLegendBelow(4);
}

void LatencyPlot::drawView(const RooflineView& v) {
  const RooflinePanelData& d = v.data;
  const TurnInputs& turn = v.inputs.turn;
  std::vector<double> x, over, pre, dec, totals;
  double min_total = d.latency.empty() ? 0 : d.latency.front().total_seconds;
  for (std::size_t i = 0; i < d.latency.size(); ++i) {
    const TurnLatency& t = d.latency[i];
    x.push_back(static_cast<double>(i));
    over.push_back(t.overhead_seconds);
    pre.push_back(t.prefill_seconds);
    dec.push_back(t.decode_seconds);
    totals.push_back(t.total_seconds);
    min_total = std::min(min_total, t.total_seconds);
  }
  if (!inputsChanged(turn.budget_seconds, turn.overhead_seconds, turn.max_chips, totals, pre,
                     d.chips_for_budget, d.chips_to_hold_weights, v.budgetBelowOverhead()) ||
      d.latency.empty())
    return;
  bars_->setData(x, {over, pre, dec});
  setCurve(totals_, x, totals);
  setCurve(budget_, {-0.6, 10.6}, {turn.budget_seconds, turn.budget_seconds});
  budget_->setName(tr("budget %1").arg(secondsText(turn.budget_seconds)));
  const double ymax = std::max({turn.budget_seconds * 2.2, min_total * 1.6, 0.05});
  yAxis->setRange(0, ymax);
  for (std::size_t i = 0; i < labels_.size(); ++i) {
    QCPItemText* t = labels_[i];
    t->setVisible(i < totals.size());
    if (i >= totals.size()) continue;
    const double total = totals[i];
    if (total > ymax * 0.9) {  // clipped (or nearly): inside the top of the bar, staggered
      t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignTop);
      t->position->setCoords(static_cast<double>(i),
                             total > ymax ? ymax * (i % 2 == 0 ? 0.995 : 0.935) : total);
      t->setText((total > ymax ? QStringLiteral("\u2191") : QString()) + secondsShort(total));
      t->setBrush(QColor(255, 255, 255, 225));
    } else {
      t->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
      t->position->setCoords(static_cast<double>(i), total);
      t->setText(secondsShort(total));
      t->setBrush(Qt::NoBrush);
    }
  }
  const double plotted_max = std::ldexp(1.0, static_cast<int>(d.latency.size()) - 1);
  const std::int64_t hold = d.chips_to_hold_weights;
  hold_->setVisible(static_cast<double>(hold) <= plotted_max);
  hold_->place(log2Index(static_cast<double>(hold)));
  QString text;
  if (v.budgetBelowOverhead()) {
    need_->setVisible(false);
    text = tr("budget %1 \u2264 overhead %2: no amount of hardware meets it")
               .arg(secondsText(turn.budget_seconds), secondsText(turn.overhead_seconds));
  } else if (!d.chips_for_budget) {
    need_->setVisible(false);
    text = tr("none: no slice up to %1 chips meets %2 (the answer is a smaller model)")
               .arg(qs(format_grouped(turn.max_chips)), secondsText(turn.budget_seconds));
  } else {
    const std::int64_t need = *d.chips_for_budget;
    const bool on_chart = static_cast<double>(need) <= plotted_max;
    need_->setVisible(on_chart);
    need_->place(log2Index(static_cast<double>(need)));
    text = (on_chart ? tr("%1 meet the %2 budget (dash-dot)")
                     : tr("%1 meet the %2 budget (off the chart)"))
               .arg(chipsText(need), secondsText(turn.budget_seconds));
  }
  text += QLatin1Char('\n') + tr("%1 to hold the %2 weights (dotted)")
                                  .arg(chipsText(hold), dtypeText(v.scenario.serving.weight_dtype));
  verdict_->setText(text);
  verdict_->setTextColor(d.chips_for_budget ? plotPalette().text : plot_color::red);
  requestReplot();
}

void LatencyPlot::drawBaseline(const RooflineView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  std::vector<double> x, totals;
  for (std::size_t i = 0; i < b->data.latency.size(); ++i) {
    x.push_back(static_cast<double>(i));
    totals.push_back(b->data.latency[i].total_seconds);
  }
  QCPGraph* g = ghostBarTops(totals_, 10);
  setCurve(g, x, totals);
  const double bs = b->inputs.turn.budget_seconds;
  setCurve(ghost(budget_), {-0.6, 10.6}, {bs, bs});
  requestReplot();
}

}  // namespace napkin
