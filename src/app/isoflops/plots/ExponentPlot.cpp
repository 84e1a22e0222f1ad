#include "isoflops/plots/ExponentPlot.h"
#include "Text.h"

#include <algorithm>

namespace napkin {

namespace {

// The C grid of the plot: a third of the smallest budget to three times the
// larger of C* and the largest budget.
// The law the curves come from when the ladder has no exponents of its own.
std::optional<LossLaw> lawFor(const IsoflopsShown& s) {
  return s.view().exponents ? std::nullopt : fittedLaw(s);
}

}  // namespace

ExponentPlot::ExponentPlot(QWidget* parent) : IsoflopsPlot(tr("(2) N_opt, D_opt vs C"), parent) {
  setXAxis(tr("compute C (FLOPs)"), true, fmtSci);
  setYAxis(tr("N_opt (params) / D_opt (tokens)"), true, fmtSi);
  kaplan_ = addCurve(this, tr("Kaplan a = 0.73"), plotPen(plot_color::gray, 1.3, Qt::DashLine));
  chinchilla_ =
      addCurve(this, tr("Chinchilla a ≈ 0.5"), plotPen(plot_color::gray, 1.3, Qt::DotLine));
  n_fit_ = addCurve(this, tr("N_opt fit"), plotPen(plot_color::blue));
  d_fit_ = addCurve(this, tr("D_opt fit"), plotPen(plot_color::green));
  n_pts_ = addCurve(
      this, tr("N_opt (vertex)"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(plot_color::blue, 1.5), Qt::white, 7), false);
  d_pts_ = addCurve(
      this, tr("D_opt (vertex)"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssSquare, QPen(plot_color::green, 1.5), Qt::white, 7),
      false);
  showLegendBelow(2);
  n_pts_->removeFromLegend();
  d_pts_->removeFromLegend();
  target_ = new VMarker(this, plotPen(plot_color::red, 1.1, Qt::DotLine));
  note_ = new Note(this, Qt::AlignLeft | Qt::AlignTop, 0.02, 0.03);
}

void ExponentPlot::drawView(const IsoflopsShown& s) {
  const IsoflopsView& v = s.view();
  const std::optional<LossLaw> law = lawFor(s);
  std::vector<double> key = {v.target_flops, v.ladder_min_flops, v.ladder_max_flops};
  for (const IsoflopOptimum& o : v.optima) key.insert(key.end(), {o.budget_flops, o.n_opt});
  if (v.exponents) key.insert(key.end(), {v.exponents->a, v.exponents->n_coefficient});
  if (!inputsChanged(key, lawKey(law))) return;
  const std::vector<double> cs = flopsGrid(v, 60);
  std::vector<double> px, pn, pd;
  for (const IsoflopOptimum& o : v.optima) {
    px.push_back(o.budget_flops);
    pn.push_back(o.n_opt);
    pd.push_back(o.d_opt);
  }
  setCurve(n_pts_, px, pn);
  setCurve(d_pts_, px, pd);
  QString head;
  const std::optional<ExponentCurves> curves = exponent_curves(v, law, cs);
  ValueRange y;
  if (curves) {
    const ScalingExponents& e = curves->exponents;
    const QString from = curves->from_law ? tr("law") : tr("fit");
    n_fit_->setName(tr("N ∝ C^%1 (%2)").arg(fixed(e.a, 3), from));
    d_fit_->setName(tr("D ∝ C^%1 (%2)").arg(fixed(e.b, 3), from));
    head = curves->from_law
               ? tr("from the fitted law (no budget labels)\na = β/(α+β) = %1\nb = %2, a + b = 1")
                     .arg(fixed(e.a, 4), fixed(e.b, 4))
               : tr("a = %1   b = %2\na + b = %3 %4")
                     .arg(fixed(e.a, 4), fixed(e.b, 4), fixed(e.sum, 4),
                          e.sums_to_one ? QStringLiteral("\u2713") : QStringLiteral("\u2717"));
    setCurve(n_fit_, cs, curves->n_opt);
    setCurve(d_fit_, cs, curves->d_opt);
    setCurve(kaplan_, cs, curves->kaplan_n);
    setCurve(chinchilla_, cs, curves->chinchilla_n);
    for (const std::vector<double>* series :
         {&curves->n_opt, &curves->d_opt, &curves->kaplan_n, &curves->chinchilla_n,
          static_cast<const std::vector<double>*>(&pn),
          static_cast<const std::vector<double>*>(&pd)})
      y.add(*series, true);
  } else {
    for (QCPGraph* g : {n_fit_, d_fit_, kaplan_, chinchilla_}) g->data()->clear();
  }
  xAxis->setRange(cs.front(), cs.back());
  if (y.valid) yAxis->setRange(y.lo / 3, y.hi * 30);
  target_->place(v.target_flops);
  note_->setText(head.isEmpty() ? tr("no exponents (see status)") : head);
  requestReplot();
}

void ExponentPlot::drawBaseline(const IsoflopsShown* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  const std::vector<double> cs = flopsGrid(b->view(), 60);
  if (const auto curves = exponent_curves(b->view(), lawFor(*b), cs)) {
    setCurve(ghost(n_fit_), cs, curves->n_opt);
    setCurve(ghost(d_fit_), cs, curves->d_opt);
  }
  requestReplot();
}

}  // namespace napkin
