#include "LifetimePlot.h"
#include "Text.h"

#include "format.h"

namespace napkin {

namespace {}  // namespace

LifetimePlot::LifetimePlot(QWidget* parent)
    : BudgetPlot(tr("Lifetime FLOPs: train + serve"), parent) {
  setXAxis(tr("served tokens"), true, fmtSi);
  setYAxis(tr("lifetime FLOPs"), true, fmtSci);
  chinchilla_ = addCurve(this, tr("Chinchilla answer"), plotPen(plot_color::blue));
  small_ = addCurve(this, tr("smaller, same loss"), plotPen(plot_color::orange));
  showLegendBelow();
  crossover_ = new VMarker(this, plotPen(plot_color::gray, 1.2, Qt::DashLine));
  served_ = new VMarker(this, plotPen(plot_color::orange, 1.2, Qt::DotLine));
  note_ = new Note(this, Qt::AlignLeft | Qt::AlignTop, 0.02, 0.03);
}

void LifetimePlot::drawView(const BudgetView& v) {
  const Scenario& s = v.scenario;
  const InferenceAwarePlan& p = v.report.plan;
  if (!inputsChanged(p.chinchilla.params, p.chinchilla.train_tokens, p.same_loss.params,
                     p.same_loss.train_tokens, s.serving.served_tokens, p.crossover_served_tokens))
    return;
  setCurve(chinchilla_, v.lifetime_chinchilla);
  setCurve(small_, v.lifetime_small);
  chinchilla_->setName(tr("Chinchilla %1").arg(qs(format_count(p.chinchilla.params))));
  small_->setName(tr("%1, same loss").arg(qs(format_count(p.same_loss.params))));
  xAxis->setRange(v.lifetime_chinchilla.x.front(), v.lifetime_chinchilla.x.back());
  ValueRange y;
  y.add(v.lifetime_chinchilla.y, true);
  y.add(v.lifetime_small.y, true);
  if (y.valid) yAxis->setRange(y.lo / 2, y.hi * 2);
  const bool cross = p.crossover_served_tokens.has_value();
  crossover_->setVisible(cross);
  if (cross) crossover_->place(*p.crossover_served_tokens);
  served_->place(s.serving.served_tokens);
  note_->setText(
      (cross ? tr("crossover: %1 served\n").arg(qs(format_count(*p.crossover_served_tokens, 1)))
             : tr("no crossover\n")) +
      tr("@ %1: %2× fewer FLOPs")
          .arg(qs(format_count(s.serving.served_tokens, 1)),
               qs(format_grouped(v.lifetime_flops_ratio, 2))));
  requestReplot();
}

void LifetimePlot::drawBaseline(const BudgetView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  setCurve(ghost(chinchilla_), b->lifetime_chinchilla);
  setCurve(ghost(small_), b->lifetime_small);
  requestReplot();
}

}  // namespace napkin
