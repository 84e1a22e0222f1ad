// The wheel over a widget that has nothing to do with it (a plot without
// zoom, a text box already at its end) scrolls the page it sits on instead
// of being swallowed.
#pragma once

class QWidget;

namespace napkin {

// Over `plot` (a QCustomPlot without range zoom) the wheel scrolls the
// nearest scroll area around it.
void passWheelToPage(QWidget* plot);
// Over a scrolling text box, the wheel scrolls the text while it can and
// then the page around it.
void passWheelAtEnds(QWidget* text_box);

}  // namespace napkin
