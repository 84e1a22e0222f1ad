#include "RooflineChart.h"

#include <algorithm>
#include <cmath>

#include "hardware.h"
#include "nice_numbers.h"

namespace napkin {

namespace {
constexpr double kX0 = 0.1, kX1 = 1e5;  // FLOP/byte: batch-1 decode to the largest matmuls
const QColor kOverlay[] = {QColor(214, 39, 40),   QColor(148, 103, 189), QColor(140, 86, 75),
                           QColor(227, 119, 194), QColor(127, 127, 127), QColor(188, 189, 34),
                           QColor(23, 190, 207),  QColor(255, 127, 14)};
const QCPScatterStyle::ScatterShape kShapes[] = {
    QCPScatterStyle::ssSquare, QCPScatterStyle::ssTriangle, QCPScatterStyle::ssCircle,
    QCPScatterStyle::ssDiamond, QCPScatterStyle::ssTriangleInverted};

void setRoof(QCPGraph* g, const std::vector<RooflineCurvePoint>& c) {
  std::vector<double> x, y;
  for (const RooflineCurvePoint& pt : c) {
    x.push_back(pt.intensity);
    y.push_back(pt.attainable_flops_per_s);
  }
  setCurve(g, x, y);
}
}  // namespace

RooflineChart::RooflineChart(QWidget* parent)
    : RooflinePanelPlot(tr("Roofline: where the operations sit"), parent) {
  setObjectName(QStringLiteral("plot_roofline"));
  setXAxis(tr("arithmetic intensity (FLOP/byte)"), true, fmtSi);
  setYAxis(tr("attainable FLOP/s"), true, fmtSi);
  roof_ = addCurve(this, QString(), plotPen(plot_color::blue, 2.4));
  std::size_t i = 0;
  for (const Chip* c : chip_list()) {  // the user's chips too
    QCPGraph* o = addCurve(this, qs(c->name), plotPen(kOverlay[i++ % 8], 1.3, Qt::DashLine));
    o->setVisible(false);
    o->removeFromLegend();
    overlays_.push_back(o);
  }
  for (int k = 0; k < 5; ++k) {
    QCPGraph* g = addCurve(this, QString(), QPen(Qt::NoPen),
                           QCPScatterStyle(kShapes[k], plot_color::dark, Qt::white, 9), false);
    g->removeFromLegend();
    ops_.push_back(g);
    QCPItemText* t = addPointLabel(this, Qt::AlignHCenter | Qt::AlignTop);
    t->position->setType(QCPItemPosition::ptAxisRectRatio);
    t->setTextAlignment(Qt::AlignHCenter);
    t->setBrush(QColor(255, 255, 255, 215));
    t->setPadding(QMargins(3, 1, 3, 1));
    labels_.push_back(t);
    auto* a = new QCPItemLine(this);
    a->setPen(plotPen(QColor(110, 110, 110), 0.9));
    a->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 6, 8));
    a->start->setType(QCPItemPosition::ptAbsolute);
    a->start->setParentAnchor(t->top);
    a->start->setCoords(0, 0);
    a->setLayer(QStringLiteral("grid"));  // under every label, so no arrow crosses a text
    arrows_.push_back(a);
  }
  ridge_ = new VMarker(this, plotPen(plot_color::blue, 1.0, Qt::DotLine));
  ridge_label_ = addPointLabel(this, Qt::AlignLeft | Qt::AlignTop);
  ridge_label_->position->setTypeX(QCPItemPosition::ptPlotCoords);
  ridge_label_->position->setTypeY(QCPItemPosition::ptAxisRectRatio);
  showLegendBelow(5);
  xAxis->setRange(kX0, kX1);
}

void RooflineChart::drawView(const RooflineView& v) {
  const RooflinePanelData& d = v.data;
  const RooflineScenario& sc = v.inputs;
  std::vector<double> key;
  for (const PlacedOperation& op : d.operations) {
    key.push_back(op.flops);
    key.push_back(op.bytes);
  }
  std::string overlays;
  for (const std::string& o : sc.overlay_chips) overlays += o + ";";
  if (!inputsChanged(sc.chip, overlays, d.ridge_flops_per_byte, key, sc.operations.decode_batch,
                     sc.operations.prompt_tokens, sc.operations.context_tokens,
                     sc.operations.matmul_dim))
    return;
  const Chip& chip = chip_by_name(sc.chip);
  setRoof(roof_, d.roofline);
  roof_->setName(tr("%1 (ridge %2)").arg(qs(sc.chip), intensityText(d.ridge_flops_per_byte)));
  double lo = d.roofline.empty() ? 1e9 : d.roofline.front().attainable_flops_per_s;
  double hi = chip.peak_flops_per_s;
  std::size_t i = 0;
  for (const Chip* c : chip_list()) {
    if (i == overlays_.size()) break;  // a chip registered after the chart was built
    QCPGraph* g = overlays_[i++];
    // d.overlays follows sc.overlay_chips (the order they were ticked), not the list.
    const auto at =
        std::find(sc.overlay_chips.begin(), sc.overlay_chips.end(), std::string(c->name));
    const auto j = static_cast<std::size_t>(at - sc.overlay_chips.begin());
    if (at != sc.overlay_chips.end() && j < d.overlays.size()) {
      setRoof(g, d.overlays[j]);
      g->setVisible(true);
      if (!legend->hasItemWithPlottable(g)) g->addToLegend();
      if (!d.overlays[j].empty()) lo = std::min(lo, d.overlays[j].front().attainable_flops_per_s);
      hi = std::max(hi, c->peak_flops_per_s);
    } else {
      g->data()->clear();
      g->setVisible(false);
      g->removeFromLegend();
    }
  }
  yAxis->setRange(lo / 100, hi * 4);
  ridge_->place(d.ridge_flops_per_byte);
  ridge_label_->position->setCoords(d.ridge_flops_per_byte, 0.02);
  ridge_label_->setText(tr("ridge %1").arg(intensityText(d.ridge_flops_per_byte)));

  // Operations: points on the roof, labels in a staggered row under it,
  // spread so that they neither overlap nor leave the axes.
  std::vector<std::pair<double, std::size_t>> order;  // (where on the log axis 0…1, which)
  for (std::size_t n = 0; n < d.operations.size() && n < ops_.size(); ++n)
    order.push_back({scale_fraction(d.operations[n].intensity, kX0, kX1, true), n});
  std::sort(order.begin(), order.end());
  const double gap = 0.115, left = 0.08, right = 0.92;
  for (std::size_t n = 0; n < order.size(); ++n) {
    order[n].first = std::clamp(order[n].first, left, right);
    if (n > 0) order[n].first = std::max(order[n].first, order[n - 1].first + gap);
  }
  for (std::size_t n = order.size(); n-- > 0;) {
    order[n].first =
        std::min(order[n].first, right - gap * static_cast<double>(order.size() - 1 - n));
    if (n + 1 < order.size()) order[n].first = std::min(order[n].first, order[n + 1].first - gap);
  }
  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    const std::size_t n = order[rank].second;
    const PlacedOperation& op = d.operations[n];
    QCPGraph* g = ops_[n];
    const QColor c = op.bound == Bound::memory ? plot_color::red : plot_color::green.darker(120);
    g->setScatterStyle(QCPScatterStyle(kShapes[n % 5], c, Qt::white, 9));
    setCurve(g, {op.intensity}, {op.attainable_flops_per_s});
    const QString title = operationTitle(op, sc.operations, sc.shape);
    g->setName(tr("%1: %2\nFLOPs: %3 · bytes: %4")
                   .arg(title, boundText(op.bound), fmtSci(op.flops), fmtBytes(op.bytes)));
    QCPItemText* t = labels_[n];
    t->setText(title + QLatin1Char('\n') + boundText(op.bound));
    t->setColor(c.darker(115));
    t->position->setCoords(order[rank].first, rank % 2 == 0 ? 0.66 : 0.81);
    arrows_[n]->end->setCoords(op.intensity, op.attainable_flops_per_s);
  }
  requestReplot();
}

void RooflineChart::drawBaseline(const RooflineView* b) {
  setBaselineVisible(b != nullptr);
  for (QCPGraph* g : baseline_ops_) g->setVisible(b != nullptr);
  if (!b) {
    requestReplot();
    return;
  }
  setRoof(ghost(roof_), b->data.roofline);
  // Plan A's operations, faded, where they sit on A's roofline.
  for (std::size_t n = 0; n < b->data.operations.size() && n < 5; ++n) {
    if (baseline_ops_.size() <= n) {
      QCPGraph* g = addCurve(this, QString(), QPen(Qt::NoPen), QCPScatterStyle(), false);
      g->removeFromLegend();
      baseline_ops_.push_back(g);
    }
    const PlacedOperation& op = b->data.operations[n];
    const QColor c = ghostColor(op.bound == Bound::memory ? plot_color::red : plot_color::green);
    QCPGraph* g = baseline_ops_[n];
    g->setScatterStyle(QCPScatterStyle(kShapes[n % 5], QPen(c, 1.6), QBrush(Qt::NoBrush), 9));
    g->setName(
        tr("baseline %1: %2")
            .arg(operationTitle(op, b->inputs.operations, b->inputs.shape), boundText(op.bound)));
    setCurve(g, {op.intensity}, {op.attainable_flops_per_s});
    g->setVisible(true);
  }
  requestReplot();
}

}  // namespace napkin
