#include "MemoryPlot.h"
#include "Text.h"

#include "format.h"

namespace napkin {

namespace {
constexpr double kHbmFrom = -0.6, kHbmTo = 3.6;  // the HBM line spans the four bars
}  // namespace

MemoryPlot::MemoryPlot(QWidget* parent) : BudgetPlot(tr("Training memory per device"), parent) {
  setYAxis(tr("bytes per device"), false, fmtBytes);
  setHoverFormat(
      [](double v) {
        return v < -0.3 || v > 3.3 ? tr("any stage")
                                   : QStringLiteral("ZeRO-%1").arg(std::lround(v));
      },
      fmtBytes);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (int z = 0; z <= 3; ++z) ticker->addTick(z, QStringLiteral("ZeRO-%1").arg(z));
  xAxis->setTicker(ticker);
  xAxis->setRange(kHbmFrom, kHbmTo);
  bars_ = new StackedBars(this, {{tr("weights"), plot_color::part_blue},
                                 {tr("grads"), plot_color::part_green},
                                 {tr("optimizer"), plot_color::part_red},
                                 {tr("activations"), plot_color::part_purple}});
  hbm_ = addCurve(this, QString(), plotPen(plot_color::red, 1.6, Qt::DashLine));
  totals_ = addCurve(this, tr("total"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  totals_->removeFromLegend();
  showLegendBelow(3);
  for (int z = 0; z <= 3; ++z)
    labels_.push_back(addPointLabel(this, Qt::AlignHCenter | Qt::AlignBottom));
}

void MemoryPlot::drawView(const BudgetView& v) {
  const Scenario& s = v.scenario;
  std::vector<double> totals;
  for (const TrainingMemory& m : v.memory_by_zero) totals.push_back(static_cast<double>(m.total));
  if (!inputsChanged(totals, v.memory_by_zero[0].activations, v.memory_by_zero[3].weights,
                     v.memory_by_zero[3].optimizer, v.chip_hbm_bytes, s.training.dp_degree,
                     s.training.micro_batch, s.training.seq_len, s.chip))
    return;
  std::vector<std::vector<double>> parts(4);
  double top = static_cast<double>(v.chip_hbm_bytes);
  for (const TrainingMemory& m : v.memory_by_zero) {
    parts[0].push_back(static_cast<double>(m.weights));
    parts[1].push_back(static_cast<double>(m.grads));
    parts[2].push_back(static_cast<double>(m.optimizer));
    parts[3].push_back(static_cast<double>(m.activations));
    top = std::max(top, static_cast<double>(m.total));
  }
  const std::vector<double> stages{0, 1, 2, 3};
  bars_->setData(stages, parts);
  setCurve(totals_, stages, totals);
  yAxis->setRange(0, top * 1.18);
  for (std::size_t z = 0; z < 4; ++z) {
    const TrainingMemory& m = v.memory_by_zero[z];
    labels_[z]->position->setCoords(static_cast<double>(z), static_cast<double>(m.total));
    labels_[z]->setText(qs(format_bytes(static_cast<double>(m.total), 1)));
    labels_[z]->setColor(v.fits_device_by_zero[z] ? plotPalette().text : plot_color::red);
  }
  const double hbm = static_cast<double>(v.chip_hbm_bytes);
  hbm_->setData({kHbmFrom, kHbmTo}, {hbm, hbm});
  hbm_->setName(tr("%1 HBM").arg(qs(s.chip)));
  xAxis->setLabel(tr("ZeRO stage at DP %1, micro-batch %2 × %3")
                      .arg(s.training.dp_degree)
                      .arg(s.training.micro_batch)
                      .arg(qs(format_count(static_cast<double>(s.training.seq_len), 0))));
  requestReplot();
}

void MemoryPlot::drawBaseline(const BudgetView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  std::vector<double> totals;
  for (const TrainingMemory& m : b->memory_by_zero) totals.push_back(static_cast<double>(m.total));
  QCPGraph* tops = ghostBarTops(totals_, 12);
  setCurve(tops, {0, 1, 2, 3}, totals);
  const double hbm = static_cast<double>(b->chip_hbm_bytes);
  setCurve(ghost(hbm_), {kHbmFrom, kHbmTo}, {hbm, hbm});
  requestReplot();
}

}  // namespace napkin
