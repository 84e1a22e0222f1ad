// How a panel handles scenario changes while it sits behind another tab: it
// marks itself stale instead of redrawing, and catches up when shown (its
// showEvent calls refreshIfStale()), so a drag elsewhere stays within a frame.
#pragma once

#include <QWidget>

namespace napkin {

// True when `panel` is hidden behind another tab of a visible window: the
// caller skips its redraw and `stale` remembers to catch up.
inline bool deferWhileHidden(const QWidget* panel, bool& stale) {
  if (panel->window()->isVisible() && !panel->isVisible()) {
    stale = true;
    return true;
  }
  return false;
}

}  // namespace napkin
