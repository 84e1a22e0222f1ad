#include "MessageLabel.h"

namespace napkin {

MessageLabel::MessageLabel(QWidget* parent) : QLabel(parent) {
  setObjectName(QStringLiteral("message"));
  setWordWrap(true);
  setStyleSheet(QStringLiteral("color: #b71c1c;"));
  setTextInteractionFlags(Qt::TextSelectableByMouse);
  hide();
}

void MessageLabel::setMessage(const QString& message) {
  if (text() != message) setText(message);
  if (!message.isEmpty())
    show();
  else if (!hold_)
    hide();
}

void MessageLabel::setHold(bool hold) {
  hold_ = hold;
  if (!hold && text().isEmpty()) hide();
}

}  // namespace napkin
