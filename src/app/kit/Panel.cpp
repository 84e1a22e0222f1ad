#include "Panel.h"

#include "SliderSpin.h"

namespace napkin {

bool Panel::hiddenBehindTab(const QWidget* w) {
  return w->window()->isVisible() && !w->isVisible();
}

void Panel::requestRefresh() {
  if (hiddenBehindTab(this)) {
    stale_ = true;
    return;
  }
  stale_ = false;
  refresh();
}

void Panel::refreshIfStale() {
  if (!stale_) return;
  stale_ = false;
  refresh();
}

void Panel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  refreshIfStale();
}

void Panel::forwardRefusals() {
  for (SliderSpin* s : findChildren<SliderSpin*>())
    connect(s, &SliderSpin::refused, this,
            [this](const QString& message) { emit statusMessage(message, 8000); });
}

}  // namespace napkin
