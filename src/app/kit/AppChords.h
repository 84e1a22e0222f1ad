// Keys a text field hands to the window: while a value is being typed, the
// window's Undo, Save, Export and panel keys still fire. A line edit would
// take Ctrl+Z, Ctrl+Shift+Z, Ctrl+E … for itself; it keeps only what text
// editing needs (copy, cut, paste, select all, word moves and deletes).
#pragma once

class QKeyEvent;
class QWidget;

namespace napkin {

// A Ctrl, Alt or Meta chord that text editing does not need.
bool isAppChord(const QKeyEvent* key);
// Lets the window's chords through `field`: an editable combo (which hands
// its line edit the shortcut override itself) or a line edit.
void passAppChords(QWidget* field);

}  // namespace napkin
