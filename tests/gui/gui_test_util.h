// Helpers the widget tests share.
#pragma once

#include <QString>
#include <QTest>

#include "SliderSpin.h"

namespace napkin {

// Types `value` into a slider's spin box and presses Return, as a user would.
inline void typeInto(SliderSpin* s, const QString& value) {
  SciSpinBox* spin = s->spinBox();
  spin->setFocus();
  spin->selectAll();
  QTest::keyClicks(spin, value);
  QTest::keyClick(spin, Qt::Key_Return);
}

}  // namespace napkin
