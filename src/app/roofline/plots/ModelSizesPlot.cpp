#include "ModelSizesPlot.h"

namespace napkin {

ModelSizesPlot::ModelSizesPlot(QWidget* parent)
    : RooflinePanelPlot(tr("The answer is a smaller model"), parent) {
  setObjectName(QStringLiteral("plot_sizes"));
  setXAxis(tr("model parameters N"), true, fmtSi);
  setYAxis(tr("chips"), true, fmtSi);
  need_ = addCurve(this, tr("chips for the budget"), plotPen(plot_color::green, 2.0),
                   QCPScatterStyle(QCPScatterStyle::ssSquare, plot_color::green, Qt::white, 5));
  need_->setLineStyle(QCPGraph::lsStepCenter);
  hold_ =
      addCurve(this, tr("chips to hold weights"), plotPen(plot_color::purple, 1.6, Qt::DashLine));
  none_ = addCurve(
      this, tr("none: no slice meets it"), QPen(Qt::NoPen),
      QCPScatterStyle(QCPScatterStyle::ssCross, QPen(plot_color::red, 2), Qt::NoBrush, 8), false);
  xAxis->setRange(0.8e9, 1.25e12);
  model_ = new VMarker(this, plotPen(plot_color::blue, 1.2, Qt::DotLine));
  note_ = new Note(this, Qt::AlignLeft | Qt::AlignTop, 0.02, 0.02);
  showLegendBelow(3);
}

void ModelSizesPlot::drawView(const RooflineView& v) {
  const RooflinePanelData& d = v.data;
  const TurnInputs& turn = v.inputs.turn;
  const double n_active = d.active_params;
  std::vector<double> nx, ny, hx, hy, ux, uy;
  const double top = static_cast<double>(turn.max_chips) * 3;
  double ymax = 8;
  for (const ModelSizePoint& m : d.model_sizes) {
    hx.push_back(m.n_params);
    hy.push_back(static_cast<double>(m.chips_to_hold_weights));
    ymax = std::max(ymax, hy.back());
    if (m.chips_for_budget) {
      nx.push_back(m.n_params);
      ny.push_back(static_cast<double>(*m.chips_for_budget));
      ymax = std::max(ymax, ny.back());
    } else {
      ux.push_back(m.n_params);
      uy.push_back(top);
      ymax = std::max(ymax, top);
    }
  }
  if (!inputsChanged(turn.budget_seconds, n_active, v.budgetBelowOverhead(), turn.max_chips,
                     d.chips_for_budget, d.chips_to_hold_weights, ny, hy, ux,
                     v.scenario.serving.weight_dtype))
    return;
  setCurve(need_, nx, ny);
  setCurve(hold_, hx, hy);
  hold_->setName(tr("chips to hold %1 weights").arg(dtypeText(v.scenario.serving.weight_dtype)));
  setCurve(none_, ux, uy);
  none_->setName(v.budgetBelowOverhead()
                     ? tr("none (budget \u2264 overhead)")
                     : tr("none (> %1 chips)").arg(fmtSi(static_cast<double>(turn.max_chips))));
  yAxis->setRange(0.5, ymax * 40);
  model_->place(n_active);
  const QString need = (!v.budgetBelowOverhead() && d.chips_for_budget)
                           ? chipsText(*d.chips_for_budget)
                           : tr("none");
  QString text = tr("this model (%1 active): %2 for the budget,\n%3 to hold the weights")
                     .arg(fmtSi(n_active), need, chipsText(d.chips_to_hold_weights));
  const double one = d.largest_servable.largest_on_one_chip;
  const double any = d.largest_servable.largest_on_any;
  if (!v.budgetBelowOverhead())
    text += QLatin1Char('\n') + (any > 0 ? tr("largest that meets it: %1 (on one chip: %2)")
                                               .arg(fmtSi(any), one > 0 ? fmtSi(one) : tr("none"))
                                         : tr("no size in 1B\u20131T meets it"));
  note_->setText(text);
  requestReplot();
}

void ModelSizesPlot::drawBaseline(const RooflineView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  std::vector<double> nx, ny;
  for (const ModelSizePoint& m : b->data.model_sizes)
    if (m.chips_for_budget) {
      nx.push_back(m.n_params);
      ny.push_back(static_cast<double>(*m.chips_for_budget));
    }
  setCurve(ghost(need_), nx, ny);
  requestReplot();
}

}  // namespace napkin
