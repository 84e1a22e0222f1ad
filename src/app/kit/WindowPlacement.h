// Where a top-level window opens: inside the screen's available area (no
// part of it, its title bar or its status bar under a panel or off-screen).
#pragma once

#include <QMargins>
#include <QRect>

namespace napkin {

// The window frame a window manager adds around the client area, which is not
// known before the window is first mapped: a title bar of up to 40 px and
// borders of up to 8 px on the common Linux desktops and on Windows.
inline constexpr QMargins kFrameAllowance{8, 40, 8, 8};

// The client geometry for `wanted` on a screen whose available area is
// `available`: shrunk so that it and its frame fit, and moved (centred) when
// the frame would cross the available area's edge; kept where it is otherwise.
// Never smaller than `minimum` (a screen smaller than that cannot be helped).
QRect fitOnScreen(const QRect& wanted, const QRect& available, const QSize& minimum = {});

}  // namespace napkin
