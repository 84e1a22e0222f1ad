#include "isoflops/plots/RecipePlot.h"
#include "Text.h"

#include <algorithm>

namespace napkin {

namespace {

// The law the candidate is compared with: the fit, else the true law.
std::optional<LossLaw> baseLaw(const IsoflopsShown& s) {
  if (s.fit) return s.fit->law;
  return s.ladder.truth;
}

struct Curves {
  RecipeComparison comparison;
  RecipeCurves curves;
};

Curves curvesFor(const IsoflopsShown& s, const LossLaw& base) {
  const LossLaw cand = candidate_law(base, s.candidate);
  Curves c;
  c.comparison = compare_recipes(base, cand, s.target());
  const std::optional<double> x = c.comparison.crossover_flops;
  const double lo = std::min(1e17, x.value_or(1e17) / 3);
  const double hi = std::max({1e27, s.target() * 10, x.value_or(1e27) * 3});
  c.curves = recipe_curves(base, cand, log_spaced_flops(lo, hi, 90));
  return c;
}

}  // namespace

RecipePlot::RecipePlot(QWidget* parent)
    : IsoflopsPlot(tr("(5) Baseline vs candidate recipe"), parent) {
  setXAxis(tr("compute C (FLOPs)"), true, fmtSci);
  setYAxis(tr("optimal loss (nats/token)"), false);
  setY2Axis(tr("Δ = candidate − baseline (nats)"), false);
  yAxis2->setLabelColor(plot_color::purple);
  yAxis2->setTickLabelColor(plot_color::purple);
  base_ = addCurve(this, tr("baseline (fitted)"), plotPen(plot_color::blue, 2.0));
  cand_ = addCurve(this, tr("candidate"), plotPen(plot_color::orange, 2.0, Qt::DashLine));
  delta_ = addGraph(xAxis, yAxis2);
  delta_->setName(tr("Δ (right)"));
  delta_->setPen(plotPen(plot_color::purple, 1.3));
  zero_ = addGraph(xAxis, yAxis2);
  zero_->setPen(plotPen(plot_color::purple, 0.8, Qt::DotLine));
  showLegendBelow(3);
  zero_->removeFromLegend();
  target_ = new VMarker(this, plotPen(plot_color::red, 1.1, Qt::DotLine));
  cross_ = new VMarker(this, plotPen(plot_color::purple, 1.3, Qt::DashDotLine));
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);
}

void RecipePlot::drawView(const IsoflopsShown& s) {
  const std::optional<LossLaw> base = baseLaw(s);
  const CandidateRecipe& r = s.candidate;
  if (!inputsChanged(s.target(), lawKey(base), static_cast<int>(r.preset), r.a_multiplier,
                     r.b_multiplier, r.alpha_delta, r.beta_delta, s.fit.has_value()))
    return;
  if (!base) {
    for (QCPGraph* g : {base_, cand_, delta_, zero_}) g->data()->clear();
    cross_->setVisible(false);
    note_->setText(tr("no fitted law yet"));
    requestReplot();
    return;
  }
  const Curves c = curvesFor(s, *base);
  const RecipeCurves& rc = c.curves;
  const RecipeComparison& cmp = c.comparison;
  const double lo = rc.flops.front(), hi = rc.flops.back();
  setCurve(base_, rc.flops, rc.baseline);
  setCurve(cand_, rc.flops, rc.candidate);
  setCurve(delta_, rc.flops, rc.delta);
  setCurve(zero_, {lo, hi}, {0.0, 0.0});
  ValueRange y, d;
  y.add(rc.baseline);
  y.add(rc.candidate);
  d.add(rc.delta);
  d.add({0.0});
  // Δ in the lower part of the plot, under the notes.
  const double dspan = std::max(d.hi - d.lo, 1e-3);
  yAxis2->setRange(d.lo - 0.1 * dspan, d.hi + 1.2 * dspan);
  base_->setName(s.fit ? tr("baseline (fit)") : tr("baseline (true)"));
  xAxis->setRange(lo, hi);
  if (y.valid) {
    const double span = std::max(y.hi - y.lo, 1e-3);
    yAxis->setRange(y.lo - 0.05 * span, y.hi + 0.05 * span);
  }
  target_->place(s.target());
  const bool cross =
      cmp.crossover_flops && *cmp.crossover_flops >= lo && *cmp.crossover_flops <= hi;
  cross_->setVisible(cross);
  if (cross) cross_->place(*cmp.crossover_flops);
  QString text = tr("at C* = %1:\nΔ = %2 nats\n→ %3")
                     .arg(fmtSci(s.target()))
                     .arg((cmp.delta < 0 ? QStringLiteral("\u2212") : QStringLiteral("+")) +
                          fixed(std::abs(cmp.delta), 4))
                     .arg(cmp.candidate_wins ? tr("candidate wins") : tr("baseline wins"));
  if (cmp.crossover_flops) {
    text += tr("\ncrossover at %1;\n%2 wins above")
                .arg(fmtSci(*cmp.crossover_flops))
                .arg(cmp.candidate_wins_above_crossover.value_or(false) ? tr("candidate")
                                                                        : tr("baseline"));
    if (cmp.crossovers_flops.size() > 1)
      text += tr(" (%1 crossings)").arg(cmp.crossovers_flops.size());
  } else {
    text += tr("\nno crossover\nin 1e16–1e28");
  }
  note_->setText(text);
  requestReplot();
}

void RecipePlot::drawBaseline(const IsoflopsShown* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  if (const std::optional<LossLaw> base = baseLaw(*b)) {
    const Curves c = curvesFor(*b, *base);
    setCurve(ghost(base_), c.curves.flops, c.curves.baseline);
    setCurve(ghost(cand_), c.curves.flops, c.curves.candidate);
  }
  requestReplot();
}

}  // namespace napkin
