#include "PrecisionCostPlot.h"

#include "format.h"

namespace napkin {

namespace {
constexpr double kHeadroom = 1.55;  // axis top ÷ the tallest bar (and the J line's top)
constexpr double kLabelRow = 0.03;  // the labels' top, a share of the plot's height
constexpr int kMostPrecisions = 5;  // cost_vs_precision: four formats, NVFP4 on Blackwell

struct Series {
  std::vector<double> x, dollars, jx, joules;
};
Series series(const ServingPanelView& v) {
  Series s;
  for (std::size_t i = 0; i < v.view.precisions.size(); ++i) {
    const PrecisionPoint& p = v.view.precisions[i];
    if (!p.best) continue;
    s.x.push_back(static_cast<double>(i));
    s.dollars.push_back(p.best->result.cost.dollars_per_million_tokens);
    s.joules.push_back(p.best->result.cost.joules_per_token);
  }
  return s;
}
}  // namespace

PrecisionCostPlot::PrecisionCostPlot(QWidget* parent)
    : ServingPlot(tr("Cost of a token vs weight precision"), parent) {
  setObjectName(QStringLiteral("plot_precision"));
  setYAxis(tr("$ per million tokens"), false, numberText);
  setY2Axis(tr("J per token"), false, numberText);
  xAxis->setRange(-0.6, 3.6);
  dollars_ = new QCPBars(xAxis, yAxis);
  dollars_->setName(tr("$ per million tokens"));
  dollars_->setBrush(plot_color::part_green);
  dollars_->setPen(QPen(plot_color::part_green.darker(130)));
  dollars_->setWidth(0.55);
  dollar_tops_ =
      addCurve(this, tr("$ per million tokens"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  dollar_tops_->removeFromLegend();
  joules_ = addGraph(xAxis, yAxis2);
  joules_->setName(tr("J per token"));
  joules_->setPen(plotPen(plot_color::purple, 1.8));
  joules_->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssDiamond, plot_color::purple, Qt::white, 7));
  // Each precision's label in one row along the top: $ per million tokens and
  // J per token are both proportional to chip-seconds per token, so the J
  // diamonds sit at the bars' tops and a label there would be drawn over.
  for (int i = 0; i < kMostPrecisions; ++i) {
    QCPItemText* t = addPointLabel(this, Qt::AlignHCenter | Qt::AlignTop);
    t->position->setTypeX(QCPItemPosition::ptPlotCoords);
    t->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
    labels_.push_back(t);
  }
  showLegendBelow(2);
}

void PrecisionCostPlot::drawView(const ServingPanelView& v) {
  const Series s = series(v);
  std::vector<double> chips;
  for (const PrecisionPoint& p : v.view.precisions)
    chips.push_back(p.best ? static_cast<double>(p.best->chips) : 0.0);
  if (!inputsChanged(s.dollars, s.joules, chips, v.view.precision, v.error)) return;
  dollars_->setData(QVector<double>(s.x.begin(), s.x.end()),
                    QVector<double>(s.dollars.begin(), s.dollars.end()));
  setCurve(dollar_tops_, s.x, s.dollars);
  setCurve(joules_, s.x, s.joules);
  double dmax = 0, jmax = 0;
  for (double d : s.dollars) dmax = std::max(dmax, d);
  for (double j : s.joules) jmax = std::max(jmax, j);
  // The data in the lower two thirds, under the row of labels. With no
  // precision served the axes have no scale to show: no tick labels (the
  // labels say "none").
  const bool served = !s.dollars.empty();
  yAxis->setTickLabels(served);
  yAxis2->setTickLabels(served);
  yAxis->setRange(0, served ? std::max(dmax, 1e-9) * kHeadroom : 1.0);
  yAxis2->setRange(0, served ? std::max(jmax, 1e-9) * kHeadroom : 1.0);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (std::size_t i = 0; i < v.view.precisions.size() && i < labels_.size(); ++i) {
    const PrecisionPoint& p = v.view.precisions[i];
    ticker->addTick(static_cast<double>(i),
                    tr("%1\n%2 bits").arg(dtypeText(p.weights), numberText(p.bits_per_weight)));
    QCPItemText* t = labels_[i];
    t->setVisible(true);
    t->position->setCoords(static_cast<double>(i), kLabelRow);
    if (p.best) {
      t->setText(tr("%1\n%2 chips")
                     .arg(qs(format_dollars(p.best->result.cost.dollars_per_million_tokens, 3)))
                     .arg(p.best->chips));
      t->setColor(plotPalette().text);
    } else {
      t->setText(tr("none"));
      t->setColor(plot_color::red);
    }
  }
  for (std::size_t i = v.view.precisions.size(); i < labels_.size(); ++i)
    labels_[i]->setVisible(false);
  xAxis->setTicker(ticker);
  xAxis->setRange(-0.6, static_cast<double>(v.view.precisions.size()) - 0.4);
  xAxis->setLabel(tr("weight precision (KV cache at %1), each at the search's answer")
                      .arg(dtypeText(v.scenario.serving.kv_dtype)));
  requestReplot();
}

void PrecisionCostPlot::drawBaseline(const ServingPanelView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  const Series s = series(*b);
  QCPGraph* g = ghostBarTops(dollar_tops_, 12);
  setCurve(g, s.x, s.dollars);
  setCurve(ghost(joules_), s.x, s.joules);
  requestReplot();
}

}  // namespace napkin
