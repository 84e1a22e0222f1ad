#include "FrontierPlot.h"
#include "Text.h"

#include "format.h"

namespace napkin {

namespace {}  // namespace

FrontierPlot::FrontierPlot(QWidget* parent) : BudgetPlot(tr("Budget → (N, D)"), parent) {
  setXAxis(tr("training compute C (FLOPs)"), true, fmtSci);
  setYAxis(tr("parameters N / tokens D"), true, fmtSi);
  params_ = addCurve(this, tr("N params"), plotPen(plot_color::blue));
  tokens_ = addCurve(this, tr("D tokens"), plotPen(plot_color::green));
  points_ =
      addCurve(this, tr("this C"), plotPen(plot_color::red),
               QCPScatterStyle(QCPScatterStyle::ssCircle, plot_color::red, Qt::white, 8), false);
  showLegendBelow(3);
  marker_ = new VMarker(this, plotPen(plot_color::red, 1.0, Qt::DotLine));
  note_ = new Note(this, Qt::AlignLeft | Qt::AlignTop, 0.02, 0.03);
}

void FrontierPlot::drawView(const BudgetView& v) {
  const BudgetReport& r = v.report;
  if (!inputsChanged(r.flops, v.scenario.tokens_per_param)) return;
  setCurve(params_, v.frontier_params);
  setCurve(tokens_, v.frontier_tokens);
  setCurve(points_, {r.flops, r.flops}, {r.split.params, r.split.tokens});
  xAxis->setRange(v.frontier_params.x.front(), v.frontier_params.x.back());
  yAxis->setRange(v.frontier_params.y.front() / 2, v.frontier_tokens.y.back() * 2);
  marker_->place(r.flops);
  note_->setText(tr("C = %1\nN = %2, D = %3")
                     .arg(qs(format_sci(r.flops, 2)), qs(format_count(r.split.params)),
                          qs(format_count(r.split.tokens, 2))));
  requestReplot();
}

void FrontierPlot::drawBaseline(const BudgetView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  const BudgetReport& r = b->report;
  setCurve(ghost(points_), {r.flops, r.flops}, {r.split.params, r.split.tokens});
  setCurve(ghost(params_), b->frontier_params);
  setCurve(ghost(tokens_), b->frontier_tokens);
  requestReplot();
}

}  // namespace napkin
