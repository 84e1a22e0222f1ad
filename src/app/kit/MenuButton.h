// A button that opens a menu of actions when clicked ("Copy launch flags",
// "Cluster profile"): a QToolButton in instant-popup mode whose width always
// leaves room for its text and the menu arrow drawn inside it.
#pragma once

#include <QString>

class QToolButton;
class QWidget;

namespace napkin {

// The button with an empty menu (add actions to button->menu()).
QToolButton* menuButton(QWidget* parent, const QString& object_name, const QString& text,
                        const QString& tooltip);

}  // namespace napkin
