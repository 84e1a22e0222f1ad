// Why a panel cannot show a plan for its inputs: one red, wrapped, selectable
// line above the results, hidden when there is nothing to say. While held (a
// slider drag) a message that goes away keeps its room until the release, so
// a drag across the edge of what can be computed does not resize every plot
// below it on every tick.
#pragma once

#include <QLabel>

namespace napkin {

class MessageLabel : public QLabel {
  Q_OBJECT
 public:
  explicit MessageLabel(QWidget* parent = nullptr);
  // Shows `message`, or nothing when it is empty.
  void setMessage(const QString& message);
  void setHold(bool hold);

 private:
  bool hold_ = false;
};

}  // namespace napkin
