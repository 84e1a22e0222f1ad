#include "isoflops/plots/LadderPlot.h"

#include <algorithm>
#include <cmath>

#include "nice_numbers.h"

namespace napkin {

namespace {

// A perceptual blue → purple → red → orange ramp (plasma without its pale
// yellow end, which vanishes on white): one colour per budget.
QColor ramp(double t) {
  static const QColor stops[] = {QColor(13, 8, 135), QColor(126, 3, 168), QColor(204, 71, 120),
                                 QColor(240, 130, 40)};
  t = std::clamp(t, 0.0, 1.0) * 3.0;
  const int i = std::min(2, static_cast<int>(t));
  const double f = t - i;
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + f * (b.redF() - a.redF())),
                          static_cast<float>(a.greenF() + f * (b.greenF() - a.greenF())),
                          static_cast<float>(a.blueF() + f * (b.blueF() - a.blueF())));
}

std::vector<double> pointsKey(const IsoflopsView& v) {
  std::vector<double> k;
  k.reserve(v.points.size() * 5 + v.optima.size() * 2 + 2);
  for (const LadderPoint& p : v.points)
    k.insert(k.end(), {p.n_params, p.n_tokens, p.loss, p.budget_flops, p.outlier ? 1.0 : 0.0});
  for (const IsoflopOptimum& o : v.optima) k.insert(k.end(), {o.n_opt, o.loss_opt});
  k.push_back(v.labelled ? 1 : 0);
  return k;
}

}  // namespace

LadderPlot::LadderPlot(QWidget* parent)
    : IsoflopsPlot(tr("(1) IsoFLOPs: loss vs N per budget"), parent) {
  setXAxis(tr("parameters N"), true, fmtSi);
  setYAxis(tr("final loss (nats/token)"), false);
  vertices_ = addCurve(
      this, tr("vertex"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssDiamond, QPen(plot_color::dark, 1.3), Qt::white, 8),
      false);
  outliers_ = addCurve(
      this, tr("outlier"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssCrossCircle, QPen(plot_color::red, 1.5), Qt::white, 9),
      false);
  showLegendBelow(4);
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);
}

void LadderPlot::drawView(const IsoflopsShown& s) {
  const IsoflopsView& v = s.view();
  if (!inputsChanged(pointsKey(v))) return;
  const LadderGroups grouped = ladder_groups(v);
  const std::vector<LadderGroup>& groups = grouped.groups;
  auto groupName = [&v](double c) {
    if (v.labelled) return fmtSci(c);
    return QStringLiteral("~%1e%2")
        .arg(QString::number(decade_mantissa(c), 'f', 1))
        .arg(decade_exponent(c));
  };
  while (points_.size() < groups.size()) {
    points_.push_back(addCurve(this, QString(), Qt::NoPen, QCPScatterStyle(), false));
    curves_.push_back(addCurve(this, QString(), plotPen(plot_color::dark)));
    curves_.back()->removeFromLegend();
  }
  std::vector<double> vx, vy;
  ValueRange n_range, l_range;
  for (std::size_t i = 0; i < points_.size(); ++i) {
    QCPGraph* pts = points_[i];
    QCPGraph* curve = curves_[i];
    const bool used = i < groups.size();
    pts->setVisible(used);
    curve->setVisible(used && groups[i].optimum.has_value());
    if (!used) {
      pts->removeFromLegend();
      continue;
    }
    const LadderGroup& g = groups[i];
    const QColor c = ramp(
        groups.size() > 1 ? static_cast<double>(i) / static_cast<double>(groups.size() - 1) : 0.0);
    pts->setName(groupName(g.budget_flops));
    pts->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, c, v.labelled ? 5.5 : 4.5));
    pts->addToLegend();
    setCurve(pts, g.n_params, g.loss);
    n_range.add(g.n_params, true);
    l_range.add(g.loss);
    if (g.optimum) {
      curve->setPen(plotPen(c, 1.4));
      setCurve(curve, g.curve_n_params, g.curve_loss);
      vx.push_back(g.optimum->n_opt);
      vy.push_back(g.optimum->loss_opt);
    }
  }
  setCurve(vertices_, vx, vy);
  vertices_->setVisible(!vx.empty());
  setCurve(outliers_, grouped.outlier_n, grouped.outlier_loss);
  outliers_->setVisible(!grouped.outlier_n.empty());
  for (QCPGraph* g : {vertices_, outliers_}) {
    if (g->visible())
      g->addToLegend();
    else
      g->removeFromLegend();
  }
  // Vertices inside the view; an outlier beyond it is noted, not allowed to
  // squash every parabola.
  double nmin = n_range.lo, nmax = n_range.hi, lmin = l_range.lo;
  const double lmax = l_range.hi;
  for (std::size_t j = 0; j < vx.size(); ++j)
    if (n_range.valid && vx[j] > nmin / 3 && vx[j] < nmax * 3) {
      lmin = std::min(lmin, vy[j]);
      nmin = std::min(nmin, vx[j]);
      nmax = std::max(nmax, vx[j]);
    }
  if (n_range.valid && l_range.valid) {
    xAxis->setRange(nmin / 1.4, nmax * 1.4);
    const double span = std::max(lmax - lmin, 1e-3);
    yAxis->setRange(lmin - 0.06 * span, lmax + 0.22 * span);
  }
  QStringList notes;
  int above = 0;
  for (double l : grouped.outlier_loss)
    if (l > yAxis->range().upper) ++above;
  if (above) notes << tr("%1 outlier(s) above the view").arg(above);
  if (!v.skipped.empty()) notes << tr("%1 budget(s): no vertex").arg(v.skipped.size());
  if (!v.labelled) notes << tr("no budget labels: no parabolas\ncolour = 6ND");
  note_->setText(notes.join(QLatin1Char('\n')));
  note_->setVisible(!notes.isEmpty());
  requestReplot();
}

void LadderPlot::drawBaseline(const IsoflopsShown* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  std::vector<double> vx, vy;
  for (const IsoflopOptimum& o : b->view().optima) {
    vx.push_back(o.n_opt);
    vy.push_back(o.loss_opt);
  }
  setCurve(ghost(vertices_), vx, vy);
  requestReplot();
}

}  // namespace napkin
