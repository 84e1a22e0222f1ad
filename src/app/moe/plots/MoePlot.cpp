#include "moe/plots/MoePlot.h"

#include <algorithm>
#include <cmath>

namespace napkin {

void MoePlot::replotIfSeen() {
  if (isVisible() && visibleRegion().isEmpty()) {
    unseen_changes_ = true;
    return;
  }
  unseen_changes_ = false;
  requestReplot();
}

void MoePlot::paintEvent(QPaintEvent* event) {
  if (unseen_changes_) {  // scrolled into view: this paint shows the old buffer, the next the new
    unseen_changes_ = false;
    requestReplot();
  }
  PlotWidget::paintEvent(event);
}

void setBarValues(QCPBars* b, const std::vector<double>& values) {
  auto data = b->data();
  if (data->size() != static_cast<int>(values.size())) {
    QVector<double> k(static_cast<qsizetype>(values.size())), v(k.size());
    for (qsizetype i = 0; i < k.size(); ++i) {
      k[i] = static_cast<double>(i);
      v[i] = values[static_cast<std::size_t>(i)];
    }
    b->setData(k, v, true);
    return;
  }
  std::size_t i = 0;
  for (auto it = data->begin(); it != data->end(); ++it) it->value = values[i++];
}

QCPBars* addBars(PlotWidget* plot, const QColor& color, const QString& name) {
  auto* b = new QCPBars(plot->xAxis, plot->yAxis);
  b->setName(name);
  b->setPen(Qt::NoPen);
  b->setBrush(color);
  b->setWidthType(QCPBars::wtPlotCoords);
  b->setWidth(0.8);
  return b;
}

void setLevel(QCPGraph* graph, std::int64_t experts, double y) {
  graph->setData(QVector<double>{-0.5, static_cast<double>(experts) - 0.5}, QVector<double>{y, y},
                 true);
}

double stepAxisEnd(std::size_t steps) {
  constexpr double kStepBlock = 600;
  return std::max(kStepBlock, std::ceil(static_cast<double>(steps) / kStepBlock) * kStepBlock);
}

}  // namespace napkin
