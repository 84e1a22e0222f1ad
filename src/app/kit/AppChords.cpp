#include "AppChords.h"

#include <QEvent>
#include <QKeyEvent>
#include <QKeySequence>
#include <QWidget>

namespace napkin {

namespace {

// Declines the shortcut override of the window's chords, so the window's
// shortcuts run instead of the line edit's own.
class AppChordFilter : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() == QEvent::ShortcutOverride &&
        isAppChord(static_cast<const QKeyEvent*>(event))) {
      event->ignore();
      return true;
    }
    return QObject::eventFilter(watched, event);
  }
};

}  // namespace

bool isAppChord(const QKeyEvent* k) {
  const bool chord = k->modifiers() & (Qt::ControlModifier | Qt::AltModifier | Qt::MetaModifier);
  if (!chord) return false;
  static const QKeySequence::StandardKey kEditing[] = {QKeySequence::Copy,
                                                       QKeySequence::Cut,
                                                       QKeySequence::Paste,
                                                       QKeySequence::SelectAll,
                                                       QKeySequence::MoveToNextWord,
                                                       QKeySequence::MoveToPreviousWord,
                                                       QKeySequence::SelectNextWord,
                                                       QKeySequence::SelectPreviousWord,
                                                       QKeySequence::DeleteStartOfWord,
                                                       QKeySequence::DeleteEndOfWord};
  for (QKeySequence::StandardKey s : kEditing)
    if (k->matches(s)) return false;
  return true;
}

void passAppChords(QWidget* field) { field->installEventFilter(new AppChordFilter(field)); }

}  // namespace napkin
