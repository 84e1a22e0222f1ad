// Long tooltips wrap to a readable width. Qt shows a plain-text tooltip on one
// line however long it is (a long explanation becomes a 1,500-px line across
// the screen); shown as rich text, it wraps at about 80 characters. The
// widgets keep their plain text, which tests and screen readers read; only
// what is shown changes.
#pragma once

#include <QString>

namespace napkin {

// The rich-text form of plain text: escaped (a "<" in it stays a "<"), its
// line breaks kept.
QString wrappedTip(const QString& plain);

// From now on, every widget's plain tooltip longer than one short line is
// shown wrapped. Once per application; later calls do nothing.
void installReadableTooltips();

}  // namespace napkin
