#include "WindowPlacement.h"

#include <algorithm>

namespace napkin {

QRect fitOnScreen(const QRect& wanted, const QRect& available, const QSize& minimum) {
  const QRect room = available.marginsRemoved(kFrameAllowance);
  if (room.isEmpty()) return wanted;
  QSize size = wanted.size().boundedTo(room.size()).expandedTo(minimum);
  QRect out(wanted.topLeft(), size);
  if (!room.contains(out)) out.moveCenter(room.center());
  // A screen smaller than the minimum: at least the top left is on it.
  out.moveLeft(std::max(out.left(), room.left()));
  out.moveTop(std::max(out.top(), room.top()));
  return out;
}

}  // namespace napkin
