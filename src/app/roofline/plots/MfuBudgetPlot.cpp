#include "MfuBudgetPlot.h"

#include "format.h"

namespace napkin {

namespace {
std::vector<double> fractions(const MfuBudget& m) {
  return {m.mfu, m.vector_fraction, m.memory_fraction, m.comms_fraction, m.optimizer_fraction};
}
}  // namespace

MfuBudgetPlot::MfuBudgetPlot(QWidget* parent)
    : RooflinePanelPlot(tr("MFU budget: the step, by busy unit"), parent) {
  setObjectName(QStringLiteral("plot_mfu"));
  setYAxis(tr("seconds of the step (s)"), false, numberText);
  setHoverFormat([](double v) { return v < 0.5 ? tr("this step") : tr("lever removed"); },
                 [](double v) { return numberText(v) + QStringLiteral(" s"); });
  xAxis->setLabel(tr("the step as measured, and with its biggest lever removed"));
  xAxis->setRange(-0.6, 1.6);
  bars_ = new StackedBars(this,
                          {{tr("matmul"), QColor(76, 150, 90)},
                           {tr("vector"), plot_color::part_purple},
                           {tr("memory"), plot_color::part_red},
                           {tr("comms"), QColor(230, 150, 50)},
                           {tr("optimizer"), plot_color::part_gray}},
                          0.5);
  totals_ = addCurve(this, tr("total"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  totals_->removeFromLegend();
  for (int k = 0; k < 10; ++k) {
    QCPItemText* t = addPointLabel(this, Qt::AlignCenter);
    t->setColor(Qt::white);
    labels_.push_back(t);
  }
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.985, 0.02);
  showLegendBelow(5);
}

void MfuBudgetPlot::drawView(const RooflineView& v) {
  const MfuBudget& m = v.data.mfu_budget;
  const MfuBudget& w = v.data.mfu_without_lever;
  const std::vector<double> f0 = fractions(m), f1 = fractions(w);
  if (!inputsChanged(f0, f1, m.total_seconds, w.total_seconds, v.data.hfu_over_mfu)) return;
  std::vector<std::vector<double>> parts(5);
  double base0 = 0, base1 = 0;
  for (std::size_t k = 0; k < 5; ++k) {
    const double s0 = f0[k] * m.total_seconds, s1 = f1[k] * w.total_seconds;
    parts[k] = {s0, s1};
    labels_[k]->position->setCoords(0, base0 + s0 / 2);
    labels_[k + 5]->position->setCoords(1, base1 + s1 / 2);
    labels_[k]->setText(qs(format_percent(f0[k])));
    labels_[k + 5]->setText(qs(format_percent(f1[k])));
    labels_[k]->setVisible(f0[k] >= 0.045);
    labels_[k + 5]->setVisible(f1[k] >= 0.045);
    base0 += s0;
    base1 += s1;
  }
  bars_->setData({0, 1}, parts);
  setCurve(totals_, {0, 1}, {m.total_seconds, w.total_seconds});
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  ticker->addTick(0, tr("this step\nMFU %1").arg(qs(format_percent(m.mfu))));
  ticker->addTick(1, m.biggest_lever == MfuLever::none
                         ? tr("nothing to remove\nMFU %1").arg(qs(format_percent(w.mfu)))
                         : tr("without %1\nMFU %2")
                               .arg(qs(to_string(m.biggest_lever)), qs(format_percent(w.mfu))));
  xAxis->setTicker(ticker);
  yAxis->setRange(0, m.total_seconds * 1.22);
  const double hfu = v.data.hfu;
  note_->setText(tr("MFU %1 · HFU %2 (× %3)\nbiggest lever: %4")
                     .arg(qs(format_percent(m.mfu)),
                          hfu <= 1.0 + 1e-12 ? qs(format_percent(hfu)) : tr("over 100 %"))
                     .arg(v.data.hfu_over_mfu, 0, 'f', 2)
                     .arg(qs(to_string(m.biggest_lever))));
  requestReplot();
}

void MfuBudgetPlot::drawBaseline(const RooflineView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  QCPGraph* tops = ghostBarTops(totals_);
  setCurve(tops, {0, 1},
           {b->data.mfu_budget.total_seconds, b->data.mfu_without_lever.total_seconds});
  requestReplot();
}

}  // namespace napkin
