#include "TornadoPlot.h"
#include "Text.h"

#include <algorithm>
#include <cmath>

#include "format.h"

namespace napkin {

TornadoPlot::TornadoPlot(QWidget* parent)
    : RangesPlot(tr("What moves the days most"), parent, plotPen(plot_color::dark),
                 Qt::AlignRight | Qt::AlignBottom, 0.98, 0.97) {
  setXAxis(tr("wall-clock days of the planned run"), false,
           [](double v) { return qs(format_grouped(v, std::abs(v) < 10 ? 1 : 0)); });
  setYAxis(QString(), false);
  setHoverFormat([](double v) { return qs(format_grouped(v, 1)) + tr(" days"); },
                 [](double) { return QString(); });
  low_ = new QCPBars(yAxis, xAxis);
  high_ = new QCPBars(yAxis, xAxis);
  low_->setName(tr("input at its low"));
  high_->setName(tr("input at its high"));
  low_->setBrush(plot_color::part_blue);
  low_->setPen(QPen(plot_color::part_blue.darker(115)));
  high_->setBrush(plot_color::part_orange);
  high_->setPen(QPen(plot_color::part_orange.darker(115)));
  for (QCPBars* b : {low_, high_}) b->setWidth(0.6);
  likely_ = new VMarker(this, plotPen(plot_color::dark, 1.2));
  showLegendBelow(2);
}

void TornadoPlot::clearRanges() {
  low_->data()->clear();
  high_->data()->clear();
  likely_->setVisible(false);
  top_.clear();
  yAxis->setTicker(QSharedPointer<QCPAxisTicker>::create());
  yAxis->setTickLabels(false);
}

void TornadoPlot::drawView(const BudgetView& v) {
  if (!v.ranges || v.ranges->tornado.empty()) {
    drawWithoutRanges(v, tr("computing…"),
                      tr("No input is a range: switch one on\nunder Ranges (left) to rank them."));
    return;
  }
  const RangeReport& r = *v.ranges;
  std::vector<double> key;
  for (const TornadoBar& t : r.tornado) {
    key.push_back(t.days_at_low);
    key.push_back(t.days_at_high);
  }
  if (!inputsChanged(1.0, key, r.days.point)) return;
  const double base = r.days.point;
  low_->setBaseValue(base);
  high_->setBaseValue(base);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  QVector<double> keys, lows, highs;
  const int n = static_cast<int>(r.tornado.size());
  double lo = base, hi = base;
  for (int i = 0; i < n; ++i) {
    const TornadoBar& t = r.tornado[static_cast<std::size_t>(i)];
    const double k = n - i;  // the largest swing on top
    keys.push_back(k);
    // A bar runs from the base value to base + value.
    lows.push_back(t.days_at_low - base);
    highs.push_back(t.days_at_high - base);
    ticker->addTick(k, qs(t.label));
    lo = std::min({lo, t.days_at_low, t.days_at_high});
    hi = std::max({hi, t.days_at_low, t.days_at_high});
  }
  low_->setData(keys, lows, true);
  high_->setData(keys, highs, true);
  yAxis->setTicker(ticker);
  yAxis->setTickLabels(true);
  yAxis->setRange(0.3, n + 0.7);
  const double pad = std::max(0.08 * (hi - lo), 0.02 * base);
  xAxis->setRange(lo - pad, hi + pad);
  likely_->place(base);
  likely_->setVisible(true);
  const TornadoBar& top = r.tornado.front();
  top_ = qs(top.label);
  QString text;
  if (top.days_swing > 0)
    text = tr("likely %1 days; %2 moves it most:\n%3 to %4 days")
               .arg(groupedAuto(base), top_, groupedAuto(top.days_at_low),
                    groupedAuto(top.days_at_high));
  else
    text = tr("likely %1 days; no input with a range\nmoves the days (only dollars or loss)")
               .arg(groupedAuto(base));
  setNote(text);
  requestReplot();
}

}  // namespace napkin
