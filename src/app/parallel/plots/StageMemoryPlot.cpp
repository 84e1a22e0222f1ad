#include "StageMemoryPlot.h"
#include "Text.h"

#include <algorithm>

#include "format.h"

namespace napkin {

namespace {

std::vector<double> totalsOf(const std::vector<StageMemory>& stages) {
  std::vector<double> t;
  for (const StageMemory& m : stages) t.push_back(static_cast<double>(m.total_bytes));
  return t;
}

std::vector<double> keysOf(std::size_t n) {
  std::vector<double> k;
  for (std::size_t i = 0; i < n; ++i) k.push_back(static_cast<double>(i));
  return k;
}
}  // namespace

StageMemoryPlot::StageMemoryPlot(QWidget* parent)
    : ParallelPlot(tr("Memory per rank by pipeline stage"), parent) {
  setXAxis(tr("pipeline stage"), false, [](double v) { return QString::number(std::lround(v)); });
  setYAxis(tr("bytes per rank"), false, fmtBytes);
  setIntegerTicks(xAxis);
  bars_ = new StackedBars(this, {{tr("weights"), plot_color::part_blue},
                                 {tr("grads"), plot_color::part_green},
                                 {tr("optimizer"), plot_color::part_red},
                                 {tr("activations"), plot_color::part_purple},
                                 {tr("buffers"), plot_color::part_gray},
                                 {tr("outside tensors"), plot_color::part_orange}});
  hbm_ = addCurve(this, tr("device memory"), plotPen(plot_color::red, 1.6, Qt::DashLine));
  totals_ = addCurve(this, tr("total"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  totals_->removeFromLegend();
  showLegendBelow(3);
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);
}

void StageMemoryPlot::drawView(const ParallelView& v) {
  const std::vector<double> totals = totalsOf(v.stages);
  if (!inputsChanged(totals, static_cast<double>(v.hbm_bytes), v.job.chip,
                     v.layout ? v.layout->reason : std::string()))
    return;
  stages_ = v.stages;
  const std::size_t n = v.stages.size();
  std::vector<std::vector<double>> parts(6);
  for (const StageMemory& m : v.stages) {
    parts[0].push_back(static_cast<double>(m.weights_bytes));
    parts[1].push_back(static_cast<double>(m.grads_bytes));
    parts[2].push_back(static_cast<double>(m.optimizer_bytes));
    parts[3].push_back(static_cast<double>(m.activations_bytes));
    parts[4].push_back(static_cast<double>(m.buffers_bytes));
    parts[5].push_back(static_cast<double>(m.non_tensor_bytes()));
  }
  const std::vector<double> keys = keysOf(n);
  bars_->setData(keys, parts);
  setCurve(totals_, keys, totals);
  const double hbm = static_cast<double>(v.hbm_bytes);
  const double lo = -0.6, hi = n > 0 ? static_cast<double>(n) - 0.4 : 0.6;
  setCurve(hbm_, {lo, hi}, {hbm, hbm});
  hbm_->setName(tr("%1 device memory").arg(qs(v.job.chip)));
  xAxis->setRange(lo, hi);
  const double top =
      std::max(hbm, totals.empty() ? 0.0 : *std::max_element(totals.begin(), totals.end()));
  yAxis->setRange(0, std::max(top, 1.0) * 1.4);  // room for the note above the line
  if (n == 0) {
    note_->setText(v.layout ? tr("cannot run:\n%1").arg(qs(v.layout->reason)) : tr("no layout"));
    note_->setColor(plot_color::fail);
  } else {
    const auto peak = std::max_element(
        v.stages.begin(), v.stages.end(),
        [](const StageMemory& a, const StageMemory& b) { return a.total_bytes < b.total_bytes; });
    const bool fits = peak->total_bytes <= v.hbm_bytes;
    note_->setText(tr("peak: stage %1, %2\n%3")
                       .arg(peak->stage)
                       .arg(qs(format_bytes(static_cast<double>(peak->total_bytes), 1)))
                       .arg(fits ? tr("fits %1").arg(qs(format_bytes(hbm, 1)))
                                 : tr("over by %1")
                                       .arg(qs(format_bytes(
                                           static_cast<double>(peak->total_bytes) - hbm, 1)))));
    note_->setColor(fits ? plotPalette().text : plot_color::fail);
  }
  requestReplot();
}

void StageMemoryPlot::drawBaseline(const ParallelView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  QCPGraph* tops = ghostBarTops(totals_, 10);
  setCurve(tops, keysOf(b->stages.size()), totalsOf(b->stages));
  const double hbm = static_cast<double>(b->hbm_bytes);
  setCurve(ghost(hbm_), {-0.6, std::max(0.6, static_cast<double>(b->stages.size()) - 0.4)},
           {hbm, hbm});
  requestReplot();
}

}  // namespace napkin
