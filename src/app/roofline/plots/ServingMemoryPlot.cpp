#include "ServingMemoryPlot.h"

#include "format.h"

namespace napkin {

namespace {
constexpr double kFrom = -0.6, kTo = 1.6;
}

ServingMemoryPlot::ServingMemoryPlot(QWidget* parent)
    : ServingPlot(tr("Serving memory per chip"), parent) {
  setObjectName(QStringLiteral("plot_serving_memory"));
  setYAxis(tr("bytes per chip"), false, fmtBytes);
  setHoverFormat([](double v) { return v < 0.5 ? tr("chosen layout") : tr("search's answer"); },
                 fmtBytes);
  xAxis->setRange(kFrom, kTo);
  bars_ = new StackedBars(
      this, {{tr("weights"), plot_color::part_blue}, {tr("KV cache"), plot_color::part_orange}});
  usable_ = addCurve(this, tr("usable HBM"), plotPen(plot_color::red, 1.6, Qt::DashLine));
  hbm_ = addCurve(this, tr("HBM"), plotPen(plot_color::gray, 1.2, Qt::DotLine));
  totals_ = addCurve(this, tr("total"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  totals_->removeFromLegend();
  for (int i = 0; i < 2; ++i)
    labels_.push_back(addPointLabel(this, Qt::AlignHCenter | Qt::AlignBottom));
  showLegendBelow(4);
}

void ServingMemoryPlot::drawView(const ServingPanelView& v) {
  const ServingResult& c = v.view.chosen;
  const ServingResult* best = v.view.search.best ? &v.view.search.best->result : nullptr;
  std::vector<double> keys{0}, w{c.memory.weights_bytes}, kv{c.memory.kv_bytes},
      totals{c.memory.total_bytes};
  if (best) {
    keys.push_back(1);
    w.push_back(best->memory.weights_bytes);
    kv.push_back(best->memory.kv_bytes);
    totals.push_back(best->memory.total_bytes);
  }
  if (!inputsChanged(w, kv, c.memory.usable_bytes, v.scenario.chip, c.chips, best ? best->chips : 0,
                     v.error))
    return;
  bars_->setData(keys, {w, kv});
  setCurve(totals_, keys, totals);
  const double usable = c.memory.usable_bytes, hbm = c.memory.hbm_bytes;
  setCurve(usable_, {kFrom, kTo}, {usable, usable});
  setCurve(hbm_, {kFrom, kTo}, {hbm, hbm});
  hbm_->setName(tr("%1 HBM").arg(qs(v.scenario.chip)));
  double top = hbm;
  for (double t : totals) top = std::max(top, t);
  yAxis->setRange(0, std::max(top, 1e9) * 1.2);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  ticker->addTick(0, tr("chosen: %1\non %2").arg(qs(describe(c.layout)), chipsText(c.chips)));
  if (best)
    ticker->addTick(1, tr("search: %1\non %2, batch %3")
                           .arg(qs(describe(best->layout)), chipsText(best->chips))
                           .arg(best->batch));
  else
    ticker->addTick(1, tr("search: none"));
  xAxis->setTicker(ticker);
  const ServingResult* results[] = {&c, best};
  for (std::size_t i = 0; i < 2; ++i) {
    labels_[i]->setVisible(results[i] != nullptr);
    if (!results[i]) continue;
    labels_[i]->position->setCoords(static_cast<double>(i), results[i]->memory.total_bytes);
    labels_[i]->setText(qs(format_bytes(results[i]->memory.total_bytes, 1)));
    labels_[i]->setColor(results[i]->memory.fits ? plotPalette().text : plot_color::red);
  }
  xAxis->setLabel(tr("%1, batch %2").arg(qs(v.view.precision)).arg(v.scenario.serving.batch));
  requestReplot();
}

void ServingMemoryPlot::drawBaseline(const ServingPanelView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  QCPGraph* tops = ghostBarTops(totals_);
  std::vector<double> keys{0}, totals{b->view.chosen.memory.total_bytes};
  if (b->view.search.best) {
    keys.push_back(1);
    totals.push_back(b->view.search.best->result.memory.total_bytes);
  }
  setCurve(tops, keys, totals);
  const double u = b->view.chosen.memory.usable_bytes;
  setCurve(ghost(usable_), {kFrom, kTo}, {u, u});
  requestReplot();
}

}  // namespace napkin
