// For the panels not yet on the kit: how a panel handles scenario changes
// while it sits behind another tab (it marks itself stale instead of
// redrawing, and catches up when shown). A panel on the kit calls
// Panel::requestRefresh() instead; this file goes when the last panel has
// migrated.
#pragma once

#include "Panel.h"

namespace napkin {

inline bool deferWhileHidden(const QWidget* panel, bool& stale) {
  if (Panel::hiddenBehindTab(panel)) {
    stale = true;
    return true;
  }
  return false;
}

}  // namespace napkin
