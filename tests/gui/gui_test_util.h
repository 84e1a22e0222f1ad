// Helpers the widget tests share.
#pragma once

#include <gtest/gtest.h>

#include <QComboBox>
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

// Picks the combo entry showing `text` with the keyboard, as a user would.
inline void pick(QComboBox* combo, const QString& text) {
  const int i = combo->findText(text);
  ASSERT_GE(i, 0) << text.toStdString();
  combo->setFocus();
  while (combo->currentIndex() != i)
    QTest::keyClick(combo, combo->currentIndex() < i ? Qt::Key_Down : Qt::Key_Up);
}

}  // namespace napkin
