#include "ReadableTooltips.h"

#include <QApplication>
#include <QHelpEvent>
#include <QObject>
#include <QRect>
#include <QToolTip>
#include <QWidget>

namespace napkin {

namespace {

// Up to this many characters a plain tooltip is one short line as it is.
constexpr qsizetype kShortTip = 80;

// Shows a widget's long plain tooltip as rich text, which Qt wraps.
class TooltipWrapper : public QObject {
 public:
  using QObject::QObject;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::ToolTip || !watched->isWidgetType()) return false;
    auto* widget = static_cast<QWidget*>(watched);
    const QString tip = widget->toolTip();
    if (tip.size() <= kShortTip || Qt::mightBeRichText(tip)) return false;
    const auto* help = static_cast<QHelpEvent*>(event);
    QToolTip::showText(help->globalPos(), wrappedTip(tip), widget, QRect(),
                       widget->toolTipDuration());
    return true;
  }
};

}  // namespace

QString wrappedTip(const QString& plain) {
  if (plain.isEmpty()) return plain;
  QString html = plain.toHtmlEscaped();
  html.replace(QLatin1Char('\n'), QStringLiteral("<br>"));
  return QStringLiteral("<p>") + html + QStringLiteral("</p>");
}

void installReadableTooltips() {
  static TooltipWrapper* installed = nullptr;
  if (installed || !qApp) return;
  installed = new TooltipWrapper(qApp);
  qApp->installEventFilter(installed);
}

}  // namespace napkin
