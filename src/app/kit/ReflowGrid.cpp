#include "ReflowGrid.h"

#include <algorithm>

namespace napkin {

ReflowGrid::ReflowGrid(QWidget* parent) : QWidget(parent) {
  QSizePolicy p(QSizePolicy::Preferred, QSizePolicy::Expanding);
  p.setHeightForWidth(true);
  setSizePolicy(p);
}

void ReflowGrid::setMinimumCell(const QSize& cell) {
  min_cell_ = cell;
  relayout();
  updateGeometry();
}

void ReflowGrid::setMaxColumns(int n) {
  max_columns_ = std::max(1, n);
  relayout();
  updateGeometry();
}

void ReflowGrid::addWidget(QWidget* w) {
  w->setParent(this);
  items_.push_back(w);
  w->show();
  relayout();
  updateGeometry();
}

int ReflowGrid::columnsFor(int width) const {
  const int n = (width + spacing_) / (min_cell_.width() + spacing_);
  return std::clamp(n, 1,
                    std::max(1, std::min<int>(max_columns_, static_cast<int>(items_.size()))));
}

int ReflowGrid::rowsFor(int columns) const {
  const int n = static_cast<int>(items_.size());
  return (n + columns - 1) / std::max(1, columns);
}

int ReflowGrid::heightForWidth(int width) const {
  const int rows = rowsFor(columnsFor(width));
  return rows * min_cell_.height() + std::max(0, rows - 1) * spacing_;
}

QSize ReflowGrid::sizeHint() const {
  const int cols = std::max(1, std::min<int>(max_columns_, static_cast<int>(items_.size())));
  const int rows = rowsFor(cols);
  return {cols * min_cell_.width() + (cols - 1) * spacing_,
          rows * min_cell_.height() + std::max(0, rows - 1) * spacing_};
}

QSize ReflowGrid::minimumSizeHint() const {
  return {min_cell_.width(), heightForWidth(width() > 0 ? width() : sizeHint().width())};
}

void ReflowGrid::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  relayout();
}

void ReflowGrid::relayout() {
  const int cols = columnsFor(width());
  const int rows = rowsFor(cols);
  // More columns or fewer, or a height the layout gave before it knew this
  // width: ask again, so the page grows (and scrolls) to hold every row
  // instead of cutting the last plots off.
  if (cols != columns_ || height() < heightForWidth(width())) {
    columns_ = cols;
    updateGeometry();
  }
  if (rows == 0) return;
  const int w = (width() - (cols - 1) * spacing_) / cols;
  const int h = std::max(min_cell_.height(), (height() - (rows - 1) * spacing_) / rows);
  for (std::size_t i = 0; i < items_.size(); ++i) {
    const int r = static_cast<int>(i) / cols, c = static_cast<int>(i) % cols;
    items_[i]->setGeometry(c * (w + spacing_), r * (h + spacing_), w, h);
  }
}

}  // namespace napkin
