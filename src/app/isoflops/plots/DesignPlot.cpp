#include "isoflops/plots/DesignPlot.h"

#include <algorithm>
#include <cmath>

#include "Text.h"
#include "format.h"

namespace napkin {

namespace {

constexpr int kDesigns = 6;

// Each design's variance at its slot (designs with none are left out).
void variances(const LadderDesignOptions& d, std::vector<double>& x, std::vector<double>& y) {
  for (std::size_t i = 0; i < d.options.size(); ++i)
    if (d.options[i].variance > 0) {
      x.push_back(static_cast<double>(i));
      y.push_back(d.options[i].variance);
    }
}

}  // namespace

DesignPlot::DesignPlot(QWidget* parent) : IsoflopsPlot(tr("(6) Ladder design: Var at C*"), parent) {
  setYAxis(tr("Var(ŷ at C*) ∝"), true, fmtSi);
  const QString names[kDesigns] = {tr("this ladder"), tr("clustered"), tr("spread"),
                                   tr("skewed"),      tr("two-point"), tr("3 % plan")};
  setHoverFormat(
      [names](double v) {
        const long i = std::lround(v);
        return i >= 0 && i < kDesigns ? names[i] : QString();
      },
      fmtSi);
  this_ = new QCPBars(xAxis, yAxis);
  this_->setName(tr("this ladder"));
  this_->setBrush(plot_color::blue);
  this_->setPen(QPen(plot_color::blue.darker(130)));
  this_->setWidth(0.6);
  others_ = new QCPBars(xAxis, yAxis);
  others_->setName(tr("alternative designs"));
  others_->setBrush(QColor(170, 170, 170));
  others_->setPen(QPen(plot_color::gray));
  others_->setWidth(0.6);
  tops_ = addCurve(
      this, tr("variance"), Qt::NoPen,
      QCPScatterStyle(QCPScatterStyle::ssPlus, QPen(plot_color::dark, 1.0), Qt::NoBrush, 7), false);
  tops_->setVisible(false);  // only its ghost is drawn
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const QString ticks[kDesigns] = {tr("this"), tr("clust."), tr("spread"),
                                   tr("skew"), tr("2-pt"),   tr("3 %")};
  for (int i = 0; i < kDesigns; ++i) ticker->addTick(i, ticks[i]);
  xAxis->setTicker(ticker);
  xAxis->setRange(-0.6, kDesigns - 0.4);
  for (int i = 0; i < kDesigns; ++i)
    labels_.push_back(addPointLabel(this, Qt::AlignHCenter | Qt::AlignBottom));
  showLegendBelow(2);
  tops_->removeFromLegend();
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);
}

void DesignPlot::drawView(const IsoflopsShown& s) {
  const IsoflopsView& v = s.view();
  if (!inputsChanged(v.target_flops, v.design_log10_flops)) return;
  const LadderDesignOptions designs = ladder_design_options(v.design_log10_flops, v.target_flops);
  QString plan;
  if (designs.plan) {
    const LadderDesign& p = *designs.plan;
    plan = tr("3 % plan: %1 budgets %2–%3,\n%4 of C*")
               .arg(p.budgets_flops.size())
               .arg(fmtSci(p.budgets_flops.front()), fmtSci(p.budgets_flops.back()),
                    QString::fromStdString(format_percent(p.fraction_of_flagship, 2)));
  } else {
    plan = tr("3 % plan: C* too small\nfor a ladder from %1")
               .arg(fmtSci(std::pow(10.0, v.design_log10_flops.front())));
  }
  this_->data()->clear();
  others_->data()->clear();
  std::vector<double> x, y;
  variances(designs, x, y);
  for (QCPItemText* t : labels_) t->setVisible(false);
  for (std::size_t k = 0; k < x.size(); ++k) {
    const auto i = static_cast<std::size_t>(x[k]);
    (i == 0 ? this_ : others_)->addData(x[k], y[k]);
    labels_[i]->setVisible(true);
    labels_[i]->position->setCoords(x[k], y[k]);
    labels_[i]->setText(QString::number(y[k], y[k] < 10 ? 'f' : 'g', y[k] < 10 ? 2 : 3));
  }
  setCurve(tops_, x, y);
  ValueRange r;
  r.add(y, true);
  if (r.valid) {
    yAxis->setRange(r.lo / 3, r.hi * 12);
    this_->setBaseValue(r.lo / 3);
    others_->setBaseValue(r.lo / 3);
  }
  xAxis->setLabel(
      tr("design, Var at log10 C* = %1 (x = log10 C)").arg(fixed(designs.target_log10_flops, 1)));
  note_->setText(plan);
  requestReplot();
}

void DesignPlot::drawBaseline(const IsoflopsShown* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  const LadderDesignOptions designs =
      ladder_design_options(b->view().design_log10_flops, b->target());
  std::vector<double> x, y;
  variances(designs, x, y);
  QCPGraph* g = ghost(tops_);
  setCurve(g, x, y);
  requestReplot();
}

}  // namespace napkin
