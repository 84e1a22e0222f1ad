#include "isoflops/plots/DecompositionPlot.h"
#include "Text.h"

#include <algorithm>

namespace napkin {

namespace {

// The splits shown, in slot order: the fitted law, then the true law.
std::vector<LossDecomposition> splits(const IsoflopsShown& s) {
  std::vector<LossDecomposition> out;
  if (s.forecast.fitted_split) out.push_back(*s.forecast.fitted_split);
  if (s.forecast.truth_split) out.push_back(*s.forecast.truth_split);
  return out;
}

}  // namespace

DecompositionPlot::DecompositionPlot(QWidget* parent)
    : IsoflopsPlot(tr("(4) Loss at C*: E + capacity + data"), parent) {
  setYAxis(tr("loss (nats/token)"), false);
  bars_ = new StackedBars(this,
                          {{tr("E"), plot_color::part_gray},
                           {tr("capacity A/N^α"), plot_color::part_blue},
                           {tr("data B/D^β"), plot_color::part_green}},
                          0.55);
  totals_ = addCurve(
      this, tr("total"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssPlus, QPen(plot_color::dark, 1.2), Qt::NoBrush, 9), false);
  totals_->removeFromLegend();
  for (auto& t : labels_) {
    t = addPointLabel(this, Qt::AlignHCenter | Qt::AlignVCenter);
    t->setPadding(QMargins(3, 1, 3, 1));
    t->setBrush(QColor(255, 255, 255, 200));
    t->setTextAlignment(Qt::AlignLeft);
  }
  showLegendBelow(3);
  note_ = new Note(this, Qt::AlignHCenter | Qt::AlignVCenter, 0.5, 0.5);
}

void DecompositionPlot::drawView(const IsoflopsShown& s) {
  const std::vector<LossDecomposition> parts = splits(s);
  std::vector<double> key;
  for (const LossDecomposition& d : parts)
    key.insert(key.end(), {d.irreducible, d.capacity, d.data});
  if (!inputsChanged(key, s.target(), static_cast<int>(s.fit_state), s.ladder.truth.has_value()))
    return;
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  std::vector<double> keys;
  std::vector<std::vector<double>> values(3);
  std::vector<double> totals;
  double top = 0;
  int slot = 0;
  auto add = [&](const LossDecomposition& d, const QString& name) {
    keys.push_back(slot);
    values[0].push_back(d.irreducible);
    values[1].push_back(d.capacity);
    values[2].push_back(d.data);
    totals.push_back(d.total);
    ticker->addTick(slot, name);
    QCPItemText* t = labels_[static_cast<std::size_t>(slot)];
    t->setVisible(true);
    t->position->setCoords(slot, d.irreducible * 0.5);
    t->setText(tr("data %1\ncap. %2\nE %3\n= %4")
                   .arg(fixed(d.data, 3), fixed(d.capacity, 3), fixed(d.irreducible, 3),
                        fixed(d.total, 3)));
    top = std::max(top, d.total);
    ++slot;
  };
  if (s.forecast.fitted_split)
    add(*s.forecast.fitted_split, s.fitStale() ? tr("fitted (updating…)") : tr("fitted law"));
  if (s.forecast.truth_split) add(*s.forecast.truth_split, tr("true law"));
  for (int i = slot; i < 2; ++i) labels_[static_cast<std::size_t>(i)]->setVisible(false);
  bars_->setData(keys, values);
  setCurve(totals_, keys, totals);
  xAxis->setTicker(ticker);
  xAxis->setRange(-0.6, std::max(0, slot - 1) + 0.6);
  yAxis->setRange(0, std::max(top, 0.1) * 1.06);
  xAxis->setLabel(tr("each law at its own optimum for C* = %1").arg(fmtSci(s.target())));
  note_->setVisible(slot == 0);
  note_->setText(s.fit_state == JobState::cancelled ? tr("fit cancelled: press Recompute")
                                                    : tr("no fitted law (see status)"));
  requestReplot();
}

void DecompositionPlot::drawBaseline(const IsoflopsShown* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  std::vector<double> keys, totals;
  for (const LossDecomposition& d : splits(*b)) {
    keys.push_back(static_cast<double>(keys.size()));
    totals.push_back(d.total);
  }
  setCurve(ghost(totals_), keys, totals);
  requestReplot();
}

}  // namespace napkin
