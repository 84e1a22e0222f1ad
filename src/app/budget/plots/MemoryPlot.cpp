#include "MemoryPlot.h"
#include "Text.h"

#include <algorithm>

#include "format.h"

namespace napkin {

namespace {
constexpr double kZeroFrom = -0.6, kZeroTo = 3.6;  // the HBM line spans the four ZeRO bars
constexpr std::size_t kParts = 6;

std::vector<double> keysOf(std::size_t n) {
  std::vector<double> k;
  for (std::size_t i = 0; i < n; ++i) k.push_back(static_cast<double>(i));
  return k;
}

bool stagesShown(const BudgetView& v) {
  return v.layout_memory && !v.layout_memory->stages.empty();
}
}  // namespace

MemoryPlot::MemoryPlot(QWidget* parent) : BudgetPlot(tr("Training memory per device"), parent) {
  setYAxis(tr("bytes per device"), false, fmtBytes);
  setHoverFormat(
      [this](double v) {
        const long i = std::lround(v);
        if (v < lo_ + 0.3 || v > hi_ - 0.3 || i < 0 || static_cast<std::size_t>(i) >= count_)
          return by_stage_ ? tr("any stage") : tr("any ZeRO stage");
        return by_stage_ ? tr("stage %1").arg(i) : QStringLiteral("ZeRO-%1").arg(i);
      },
      fmtBytes);
  bars_ = new StackedBars(this, {{tr("weights"), plot_color::part_blue},
                                 {tr("grads"), plot_color::part_green},
                                 {tr("optimizer"), plot_color::part_red},
                                 {tr("activations"), plot_color::part_purple},
                                 {tr("buffers"), plot_color::part_gray},
                                 {tr("outside tensors"), plot_color::part_orange}});
  hbm_ = addCurve(this, QString(), plotPen(plot_color::red, 1.6, Qt::DashLine));
  totals_ = addCurve(this, tr("total"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  totals_->removeFromLegend();
  showLegendBelow(3);
}

MemoryPlot::Bars MemoryPlot::barsOf(const BudgetView& v) {
  Bars b;
  b.hbm_bytes = static_cast<double>(v.device_memory_bytes);
  if (stagesShown(v)) {
    b.by_stage = true;
    b.hbm_bytes = static_cast<double>(v.layout_memory->hbm_bytes);
    for (const StageMemory& m : v.layout_memory->stages)
      b.totals.push_back(static_cast<double>(m.total_bytes));
  } else {
    for (const TrainingMemory& m : v.memory_by_zero)
      b.totals.push_back(static_cast<double>(m.total));
  }
  return b;
}

void MemoryPlot::drawView(const BudgetView& v) {
  const Scenario& s = v.scenario;
  const Bars bars = barsOf(v);
  const std::string layout = v.layout_memory ? v.layout_memory->layout : std::string();
  if (!inputsChanged(bars.by_stage, bars.totals, bars.hbm_bytes, layout,
                     v.memory_by_zero[0].activations, v.memory_by_zero[3].weights,
                     v.memory_by_zero[3].optimizer, s.training.dp_degree, s.training.micro_batch,
                     s.training.seq_len, s.chip))
    return;
  by_stage_ = bars.by_stage;
  count_ = bars.totals.size();
  for (QCPItemText* label : labels_) label->setVisible(false);
  if (by_stage_)
    drawStages(*v.layout_memory);
  else
    drawZero(v);
  hbm_->setData({lo_, hi_}, {bars.hbm_bytes, bars.hbm_bytes});
  hbm_->setName(tr("%1 HBM").arg(qs(s.chip)));
  // The two parts only a layout has are in the legend only when drawn.
  for (std::size_t p = 4; p < kParts; ++p) {
    if (by_stage_)
      bars_->part(p)->addToLegend();
    else
      bars_->part(p)->removeFromLegend();
  }
  const double top =
      std::max(bars.hbm_bytes, *std::max_element(bars.totals.begin(), bars.totals.end()));
  yAxis->setRange(0, std::max(top, 1.0) * 1.18);
  showBaseline();
  requestReplot();
}

void MemoryPlot::drawStages(const BudgetView::LayoutMemory& m) {
  const std::size_t n = m.stages.size();
  std::vector<std::vector<double>> parts(kParts);
  std::vector<double> totals;
  for (const StageMemory& st : m.stages) {
    parts[0].push_back(static_cast<double>(st.weights_bytes));
    parts[1].push_back(static_cast<double>(st.grads_bytes));
    parts[2].push_back(static_cast<double>(st.optimizer_bytes));
    parts[3].push_back(static_cast<double>(st.activations_bytes));
    parts[4].push_back(static_cast<double>(st.buffers_bytes));
    parts[5].push_back(static_cast<double>(st.non_tensor_bytes()));
    totals.push_back(static_cast<double>(st.total_bytes));
  }
  const std::vector<double> keys = keysOf(n);
  bars_->setData(keys, parts);
  setCurve(totals_, keys, totals);
  setIntegerTicks(xAxis);  // as many stage numbers as the width holds
  lo_ = -0.6;
  hi_ = static_cast<double>(n) - 0.4;
  xAxis->setRange(lo_, hi_);
  // One label, over the stage that sets the layout's memory.
  const auto peak = std::max_element(totals.begin(), totals.end()) - totals.begin();
  if (labels_.empty()) labels_.push_back(addPointLabel(this, Qt::AlignHCenter | Qt::AlignBottom));
  QCPItemText* label = labels_[0];
  label->position->setCoords(static_cast<double>(peak), totals[static_cast<std::size_t>(peak)]);
  // Narrow bars at either end: the label grows inward, inside the axes.
  const auto last = static_cast<std::ptrdiff_t>(n) - 1;
  Qt::Alignment side = Qt::AlignHCenter;
  if (n > 4 && peak < 2) side = Qt::AlignLeft;
  if (n > 4 && peak > last - 2) side = Qt::AlignRight;
  label->setPositionAlignment(side | Qt::AlignBottom);
  label->setText(tr("peak %1").arg(qs(format_bytes(totals[static_cast<std::size_t>(peak)], 1))));
  label->setColor(m.fits ? plotPalette().text : plot_color::red);
  label->setVisible(true);
  xAxis->setLabel(tr("pipeline stage of the plan's layout, %1").arg(qs(m.axes)));
}

void MemoryPlot::drawZero(const BudgetView& v) {
  const Scenario& s = v.scenario;
  std::vector<std::vector<double>> parts(kParts);
  std::vector<double> totals;
  for (const TrainingMemory& m : v.memory_by_zero) {
    parts[0].push_back(static_cast<double>(m.weights));
    parts[1].push_back(static_cast<double>(m.grads));
    parts[2].push_back(static_cast<double>(m.optimizer));
    parts[3].push_back(static_cast<double>(m.activations));
    parts[4].push_back(0);
    parts[5].push_back(0);
    totals.push_back(static_cast<double>(m.total));
  }
  const std::vector<double> stages = keysOf(4);
  bars_->setData(stages, parts);
  setCurve(totals_, stages, totals);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int z = 0; z <= 3; ++z) ticker->addTick(z, QStringLiteral("ZeRO-%1").arg(z));
  xAxis->setTicker(ticker);
  lo_ = kZeroFrom;
  hi_ = kZeroTo;
  xAxis->setRange(lo_, hi_);
  while (labels_.size() < 4)
    labels_.push_back(addPointLabel(this, Qt::AlignHCenter | Qt::AlignBottom));
  for (std::size_t z = 0; z < 4; ++z) {
    labels_[z]->position->setCoords(static_cast<double>(z), totals[z]);
    labels_[z]->setText(qs(format_bytes(totals[z], 1)));
    labels_[z]->setColor(v.fits_device_by_zero[z] ? plotPalette().text : plot_color::red);
    labels_[z]->setVisible(true);
  }
  xAxis->setLabel(tr("ZeRO stage at DP %1, micro-batch %2 × %3 (data parallelism only)")
                      .arg(s.training.dp_degree)
                      .arg(s.training.micro_batch)
                      .arg(qs(format_count(static_cast<double>(s.training.seq_len), 0))));
}

void MemoryPlot::drawBaseline(const BudgetView* b) {
  setBaselineVisible(b != nullptr);
  if (b)
    baseline_ = barsOf(*b);
  else
    baseline_.reset();
  showBaseline();
  requestReplot();
}

void MemoryPlot::showBaseline() {
  if (!baseline_) return;
  QCPGraph* tops = ghostBarTops(totals_, 12);
  // Ghost tops only over bars that mean the same thing.
  if (baseline_->by_stage == by_stage_ && baseline_->totals.size() == count_)
    setCurve(tops, keysOf(count_), baseline_->totals);
  else
    tops->data()->clear();
  setCurve(ghost(hbm_), {lo_, hi_}, {baseline_->hbm_bytes, baseline_->hbm_bytes});
}

}  // namespace napkin
