#include "AdaptiveRow.h"

#include <QBoxLayout>

namespace napkin {

AdaptiveRow::AdaptiveRow(int breakpoint, QWidget* parent)
    : QWidget(parent), breakpoint_(breakpoint) {
  layout_ = new QBoxLayout(QBoxLayout::LeftToRight, this);
  layout_->setContentsMargins(0, 0, 0, 0);
  layout_->setSpacing(4);
}

void AdaptiveRow::addWidget(QWidget* w, int stretch) {
  layout_->addWidget(w, stretch);
  stretch_.push_back(std::max(1, stretch));
}

int AdaptiveRow::heightForWidth(int width) const {
  const auto hfw = [](QLayoutItem* it, int w) {
    return it->hasHeightForWidth() ? it->heightForWidth(w) : it->sizeHint().height();
  };
  int total = 0;
  for (int s : stretch_) total += s;
  int h = 0;
  const int n = layout_->count();
  if (width >= breakpoint_) {
    const int room = width - layout_->spacing() * (n - 1);
    for (int i = 0; i < n; ++i)
      h = std::max(h,
                   hfw(layout_->itemAt(i), room * stretch_[static_cast<std::size_t>(i)] / total));
  } else {
    for (int i = 0; i < n; ++i) h += hfw(layout_->itemAt(i), width) + (i ? layout_->spacing() : 0);
  }
  return h;
}

bool AdaptiveRow::sideBySide() const { return layout_->direction() == QBoxLayout::LeftToRight; }

QSize AdaptiveRow::minimumSizeHint() const {
  int w = 0, h = 0;
  for (int i = 0; i < layout_->count(); ++i) {
    const QSize s = layout_->itemAt(i)->minimumSize();
    w = std::max(w, s.width());
    h = sideBySide() ? std::max(h, s.height()) : h + s.height() + layout_->spacing();
  }
  return {w, h};
}

void AdaptiveRow::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  const auto dir = width() >= breakpoint_ ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom;
  if (dir != layout_->direction()) {
    layout_->setDirection(dir);
    // Stacked, each part takes the height it needs; side by side, the widths
    // follow the stretch factors.
    for (int i = 0; i < layout_->count(); ++i)
      layout_->setStretch(
          i, dir == QBoxLayout::LeftToRight ? stretch_[static_cast<std::size_t>(i)] : 0);
    updateGeometry();
  }
}

}  // namespace napkin
