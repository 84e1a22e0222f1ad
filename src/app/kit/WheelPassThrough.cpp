#include "WheelPassThrough.h"

#include <qcustomplot.h>
#include <QAbstractScrollArea>
#include <QCoreApplication>
#include <QScrollBar>
#include <QWheelEvent>

namespace napkin {

namespace {

// Sends the wheel to the nearest scroll area enclosing `w` (not `w` itself).
bool scrollPage(QWidget* w, const QWheelEvent* e) {
  for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
    if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
      if (area == w) continue;
      QWheelEvent copy(area->viewport()->mapFromGlobal(e->globalPosition()), e->globalPosition(),
                       e->pixelDelta(), e->angleDelta(), e->buttons(), e->modifiers(), e->phase(),
                       e->inverted(), e->source());
      QCoreApplication::sendEvent(area->viewport(), &copy);
      return true;
    }
  return false;
}

class PlotWheel : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::Wheel) return false;
    auto* plot = static_cast<QCustomPlot*>(watched);
    if (plot->interactions().testFlag(QCP::iRangeZoom)) return false;  // the plot zooms
    return scrollPage(plot, static_cast<QWheelEvent*>(event));
  }
};

class TextWheel : public QObject {
 public:
  TextWheel(QAbstractScrollArea* box) : QObject(box), box_(box) {}
  bool eventFilter(QObject*, QEvent* event) override {
    if (event->type() != QEvent::Wheel) return false;
    const auto* e = static_cast<QWheelEvent*>(event);
    const QScrollBar* bar = box_->verticalScrollBar();
    const int dy = e->angleDelta().y();
    const bool can = dy > 0 ? bar->value() > bar->minimum() : bar->value() < bar->maximum();
    if (dy == 0 || can) return false;  // the text still scrolls
    return scrollPage(box_, e);
  }

 private:
  QAbstractScrollArea* box_;
};

}  // namespace

void passWheelToPage(QWidget* plot) { plot->installEventFilter(new PlotWheel(plot)); }

void passWheelAtEnds(QWidget* text_box) {
  auto* box = qobject_cast<QAbstractScrollArea*>(text_box);
  if (!box) return;
  box->viewport()->installEventFilter(new TextWheel(box));
}

}  // namespace napkin
