#include "MenuButton.h"

#include <QMenu>
#include <QStyle>
#include <QToolButton>

namespace napkin {

QToolButton* menuButton(QWidget* parent, const QString& object_name, const QString& text,
                        const QString& tooltip) {
  auto* b = new QToolButton(parent);
  b->setObjectName(object_name);
  b->setText(text);
  b->setToolTip(tooltip);
  b->setPopupMode(QToolButton::InstantPopup);
  b->setMenu(new QMenu(b));
  // The arrow is drawn inside the button: room for it beside the text, and
  // a row never squeezes the button below that.
  b->setMinimumWidth(b->sizeHint().width() +
                     b->style()->pixelMetric(QStyle::PM_MenuButtonIndicator));
  b->setSizePolicy(QSizePolicy::Minimum, QSizePolicy::Fixed);
  return b;
}

}  // namespace napkin
