// The kit's controls driven like a user: ladders, "what is shown is what is
// used", the wheel over unfocused controls, refused typing with a reason,
// application shortcuts while a spin box has focus, and the control column.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QLineEdit>
#include <QMainWindow>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalSpy>
#include <QSlider>
#include <QTest>
#include <QVBoxLayout>
#include <QWheelEvent>

#include "ControlColumn.h"
#include "SliderSpin.h"

using namespace napkin;

namespace {

SliderSpin::Spec mfuSpec() {
  SliderSpin::Spec s;
  s.label = QStringLiteral("MFU");
  s.min = 0.10;
  s.max = 0.70;
  s.display_factor = 100;
  s.suffix = QStringLiteral("%");
  s.ladder = Ladder::multipleOf(0.01);
  return s;
}

SliderSpin::Spec chipsSpec() {
  SliderSpin::Spec s;
  s.label = QStringLiteral("Chips");
  s.min = 1;
  s.max = 100000;
  s.scale = SliderSpin::Scale::log;
  s.integer = true;
  s.ladder = Ladder::oneTwoFive();
  return s;
}

void wheel(QWidget* w, int delta) {
  const QPointF at(w->width() / 2.0, w->height() / 2.0);
  QWheelEvent e(at, w->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                Qt::NoScrollPhase, false);
  QApplication::sendEvent(w, &e);
}

void typeAndEnter(SciSpinBox* spin, const QString& text) {
  spin->setFocus();
  spin->selectAll();
  QTest::keyClicks(spin, text);
  QTest::keyClick(spin, Qt::Key_Return);
}

}  // namespace

TEST(Ladder, SnapsToValuesAPersonWouldType) {
  EXPECT_DOUBLE_EQ(Ladder::oneTwoFive().snap(22646, 1, 100000), 20000);
  EXPECT_DOUBLE_EQ(Ladder::oneTwoFive().snap(4000, 1, 100000), 5000);
  EXPECT_DOUBLE_EQ(Ladder::powersOfTwo().snap(2500, 1, 1 << 20), 2048);
  EXPECT_DOUBLE_EQ(Ladder::powersOfTwo().snap(3000, 1, 1 << 20), 4096);  // nearer in log
  EXPECT_DOUBLE_EQ(Ladder::multipleOf(128).snap(1551, 64, 32768), 1536);
  EXPECT_DOUBLE_EQ(Ladder::multipleOf(128).snap(70, 64, 32768),
                   64);  // the minimum is on every ladder
  EXPECT_DOUBLE_EQ(Ladder::significant(2).snap(2.5389, 0.1, 20), 2.5);
  EXPECT_NEAR(Ladder::multipleOf(0.01).snap(0.2554, 0.1, 0.7), 0.26, 1e-12);
  const std::vector<double> v = Ladder::oneTwoFive().values(1, 100000, 1000);
  ASSERT_EQ(v.size(), 16u);
  EXPECT_DOUBLE_EQ(v.front(), 1);
  EXPECT_DOUBLE_EQ(v[3], 10);
  EXPECT_DOUBLE_EQ(v.back(), 100000);
  EXPECT_TRUE(Ladder::significant(2).values(1, 10, 1000).empty());  // continuous
}

TEST(SliderSpin, CountsAreGroupedLikeTheReadouts) {
  SliderSpin::Spec spec;
  spec.label = QStringLiteral("Global batch");
  spec.min = 65536;
  spec.max = 268435456;
  spec.integer = true;
  spec.suffix = QStringLiteral("tokens");
  SliderSpin batch(spec);
  batch.setValue(4194304);
  EXPECT_EQ(batch.spinBox()->text(), QStringLiteral("4,194,304 tokens"));
  // What is shown reads back as the value used; typed groups are accepted.
  EXPECT_DOUBLE_EQ(batch.spinBox()->valueFromText(batch.spinBox()->text()), 4194304);
  EXPECT_DOUBLE_EQ(batch.spinBox()->valueFromText(QStringLiteral("8,388,608")), 8388608);
  batch.setValue(268435456);
  EXPECT_EQ(batch.spinBox()->text(), QStringLiteral("268,435,456 tokens"));
}

// The accepted range reads as numbers are written: no trailing zeros.
TEST(SliderSpin, TheAcceptedRangeHasNoTrailingZeros) {
  SliderSpin::Spec spec;
  spec.label = QStringLiteral("Storage per chip");
  spec.min = 1e7;
  spec.max = 1e10;
  spec.accept_min = 1e6;
  spec.accept_max = 1e13;
  spec.decimals = 3;
  spec.display_factor = 1e-9;
  spec.suffix = QStringLiteral("GB/s");
  EXPECT_EQ(SliderSpin(spec).rangeText(), QStringLiteral("0.001 \u2013 10,000 GB/s"));
  spec.accept_min = 2.5e8;
  EXPECT_EQ(SliderSpin(spec).rangeText(), QStringLiteral("0.25 \u2013 10,000 GB/s"));
}

TEST(SliderSpin, ADragKeepsTheBoxWidthAndShowsEveryValueWhole) {
  // The box is as wide as the slider's widest value with its unit; a drag
  // along the slider never changes its width (each change relaid out the
  // whole control column and every plot beside it), and no value is clipped.
  SliderSpin::Spec spec;
  spec.label = QStringLiteral("Global batch");
  spec.min = 65536;
  spec.max = 268435456;
  spec.accept_min = 1;  // typed values reach further than the slider
  spec.accept_max = 1e9;
  spec.integer = true;
  spec.scale = SliderSpin::Scale::log;
  spec.ladder = Ladder::powersOfTwo();
  spec.suffix = QStringLiteral("tokens");
  SliderSpin batch(spec);
  batch.resize(batch.sizeHint());
  batch.show();
  QCoreApplication::processEvents();
  SciSpinBox* spin = batch.spinBox();
  const int width = spin->sizeHint().width();
  QSlider* slider = batch.slider();
  for (int i = slider->minimum(); i <= slider->maximum(); ++i) {
    slider->setValue(i);
    QCoreApplication::processEvents();
    EXPECT_EQ(spin->sizeHint().width(), width) << spin->text().toStdString();
    QLineEdit* edit = spin->findChild<QLineEdit*>();
    ASSERT_NE(edit, nullptr);
    EXPECT_GE(edit->contentsRect().width(), edit->fontMetrics().horizontalAdvance(spin->text()))
        << spin->text().toStdString();
  }
  // A typed value beyond the slider's widest widens the box rather than clipping it.
  batch.setValue(1e9);
  EXPECT_GT(spin->sizeHint().width(), width);
}

// Issue 27 item 14: enabled, five significant digits (not 1.4565966e+12); the value stays exact.
TEST(SliderSpin, ADisabledBoxShowsADerivedValueShortAndFiveDigitsWhenEnabled) {
  SliderSpin::Spec spec;
  spec.label = QStringLiteral("Train tokens");
  spec.min = 1e9;
  spec.max = 1e15;
  spec.scale = SliderSpin::Scale::log;
  spec.decimals = 2;
  spec.scientific = true;
  SliderSpin tokens(spec);
  tokens.setValue(1.4565966e12);
  EXPECT_EQ(tokens.spinBox()->text(), QStringLiteral("1.4566e+12"));
  tokens.setEnabled(false);  // derived, not typable: three significant digits
  EXPECT_EQ(tokens.spinBox()->text(), QStringLiteral("1.46e+12"));
  EXPECT_DOUBLE_EQ(tokens.value(), 1.4565966e12);  // the value itself is not rounded
  // Showing and hiding the box (closing the window) reads its text back: the
  // short text must not become an edit.
  QSignalSpy edited(&tokens, &SliderSpin::valueEdited);
  tokens.show();
  tokens.hide();
  EXPECT_EQ(edited.count(), 0);
  EXPECT_DOUBLE_EQ(tokens.value(), 1.4565966e12);
  tokens.setEnabled(true);
  EXPECT_EQ(tokens.spinBox()->text(), QStringLiteral("1.4566e+12"));
  EXPECT_DOUBLE_EQ(tokens.value(), 1.4565966e12);
}

TEST(SliderSpin, WhatIsShownIsWhatIsUsed) {
  SliderSpin mfu(mfuSpec());
  QSignalSpy edited(&mfu, &SliderSpin::valueEdited);
  for (int p = mfu.slider()->minimum(); p <= mfu.slider()->maximum(); ++p) {
    mfu.slider()->setValue(p);
    const double v = mfu.value();
    // Whole percent, and the box shows exactly that number.
    EXPECT_NEAR(v * 100, std::round(v * 100), 1e-9) << v;
    EXPECT_DOUBLE_EQ(mfu.spinBox()->value() / 100, v);
    EXPECT_EQ(mfu.spinBox()->text(), QString::number(std::lround(v * 100)) + QStringLiteral(" %"));
  }
  EXPECT_GT(edited.count(), 50);
  // A value from a file that is not on the ladder is shown with the digits it needs.
  mfu.setValue(0.2554);
  EXPECT_EQ(mfu.spinBox()->text(), QStringLiteral("25.54 %"));
  EXPECT_DOUBLE_EQ(mfu.value(), 0.2554);
}

TEST(SliderSpin, ChipSliderLandsOnOneTwoFive) {
  SliderSpin chips(chipsSpec());
  EXPECT_EQ(chips.slider()->maximum(), 15);  // 1, 2, 5 … 100,000
  for (int p = 0; p <= chips.slider()->maximum(); ++p) {
    chips.slider()->setValue(p);
    const double v = chips.value();
    const double m = v / std::pow(10.0, std::floor(std::log10(v)));
    EXPECT_TRUE(std::fabs(m - 1) < 1e-9 || std::fabs(m - 2) < 1e-9 || std::fabs(m - 5) < 1e-9) << v;
  }
  // The spin arrows walk the same ladder, from a typed value too.
  chips.setValue(3000);
  chips.spinBox()->stepBy(1);
  EXPECT_EQ(chips.value(), 5000);
  chips.spinBox()->stepBy(-1);
  EXPECT_EQ(chips.value(), 2000);
}

TEST(SliderSpin, DisplayFactorIsAUnitChangeNotARangeSqueeze) {
  // The Huber δ bug: the range was given in display units. A factor only
  // changes the unit; the range, the value and the shown number agree.
  SliderSpin::Spec s;
  s.label = QStringLiteral("Step floor");
  s.min = 0;
  s.max = 0.01;
  s.decimals = 2;
  s.display_factor = 1000;
  s.suffix = QStringLiteral("ms");
  SliderSpin w(s);
  w.setValue(0.00125);
  EXPECT_EQ(w.spinBox()->text(), QStringLiteral("1.25 ms"));
  w.spinBox()->stepBy(1);
  EXPECT_NEAR(w.value(), 0.00126, 1e-12);
  EXPECT_EQ(w.spinBox()->text(), QStringLiteral("1.26 ms"));
}

TEST(SliderSpin, RefusedTypingSaysWhyAndTheTooltipStatesTheRange) {
  QWidget host;
  auto* layout = new QVBoxLayout(&host);
  auto* chips = new SliderSpin(chipsSpec(), &host);
  auto* other = new QLineEdit(&host);
  layout->addWidget(chips);
  layout->addWidget(other);
  host.show();
  QApplication::setActiveWindow(&host);
  ASSERT_TRUE(QTest::qWaitForWindowActive(&host));
  chips->setValue(1000);
  EXPECT_TRUE(chips->spinBox()->toolTip().contains(QStringLiteral("1 \u2013 100,000")))
      << chips->spinBox()->toolTip().toStdString();
  QSignalSpy refused(chips, &SliderSpin::refused);
  QSignalSpy edited(chips, &SliderSpin::valueEdited);
  for (const char* bad : {"abc", "1e9", "-5"}) {
    typeAndEnter(chips->spinBox(), QString::fromLatin1(bad));
    EXPECT_EQ(chips->value(), 1000) << bad;
  }
  ASSERT_EQ(refused.count(), 3);
  EXPECT_EQ(edited.count(), 0);
  const QString first = refused.at(0).at(0).toString();
  EXPECT_TRUE(first.startsWith(QStringLiteral("Chips:"))) << first.toStdString();
  EXPECT_TRUE(first.contains(QStringLiteral("\"abc\" is not a number"))) << first.toStdString();
  EXPECT_TRUE(refused.at(1).at(0).toString().contains(QStringLiteral("1 \u2013 100,000")));
  // Leaving the box with a bad value is refused with a reason too.
  chips->spinBox()->setFocus();
  chips->spinBox()->selectAll();
  QTest::keyClicks(chips->spinBox(), QStringLiteral("0"));
  other->setFocus();
  EXPECT_EQ(refused.count(), 4);
  typeAndEnter(chips->spinBox(), QStringLiteral("3000"));
  EXPECT_EQ(chips->value(), 3000);
  EXPECT_EQ(edited.count(), 1);
}

TEST(SliderSpin, WheelScrollsTheColumnUnlessTheControlHasFocus) {
  ControlColumn column;
  column.resize(340, 200);
  std::vector<SliderSpin*> sliders;
  double value = 1000;
  column.group(QStringLiteral("Many"));
  for (int i = 0; i < 20; ++i)
    sliders.push_back(column.slider({.key = QStringLiteral("s%1").arg(i),
                                     .label = QStringLiteral("S%1").arg(i),
                                     .min = 1,
                                     .max = 100000,
                                     .scale = SliderSpin::Scale::log,
                                     .integer = true},
                                    {[&] { return value; }, [&](double v) { value = v; }}));
  column.finish();
  column.sync();
  column.show();
  QCoreApplication::processEvents();
  QSlider* s = sliders[2]->slider();
  const int before = s->value();
  const int scrolled = column.verticalScrollBar()->value();
  wheel(s, -120 * 3);
  EXPECT_EQ(s->value(), before);                             // not focused: the value stays
  EXPECT_GT(column.verticalScrollBar()->value(), scrolled);  // and the column scrolls
  wheel(sliders[2]->spinBox(), -120);
  EXPECT_EQ(sliders[2]->value(), 1000);
  // Focused, the wheel moves it.
  s->setFocus();
  ASSERT_TRUE(s->hasFocus());
  wheel(s, 120);
  EXPECT_NE(s->value(), before);
}

TEST(SliderSpin, ApplicationShortcutsWorkWhileTheSpinBoxHasFocus) {
  QMainWindow w;
  auto* chips = new SliderSpin(chipsSpec());
  w.setCentralWidget(chips);
  QAction undo(QStringLiteral("Undo"), &w), redo(QStringLiteral("Redo"), &w),
      redo_y(QStringLiteral("Redo"), &w), save(QStringLiteral("Save"), &w),
      save_as(QStringLiteral("Save As"), &w), exporter(QStringLiteral("Export"), &w),
      pin(QStringLiteral("Pin"), &w);
  undo.setShortcut(QKeySequence(QStringLiteral("Ctrl+Z")));
  redo.setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+Z")));
  redo_y.setShortcut(QKeySequence(QStringLiteral("Ctrl+Y")));
  save.setShortcut(QKeySequence(QStringLiteral("Ctrl+S")));
  save_as.setShortcut(QKeySequence(QStringLiteral("Ctrl+Shift+S")));
  exporter.setShortcut(QKeySequence(QStringLiteral("Ctrl+E")));
  pin.setShortcut(QKeySequence(QStringLiteral("Ctrl+B")));
  for (QAction* a : {&undo, &redo, &redo_y, &save, &save_as, &exporter, &pin}) w.addAction(a);
  w.show();
  QApplication::setActiveWindow(&w);
  ASSERT_TRUE(QTest::qWaitForWindowActive(&w));
  SciSpinBox* spin = chips->spinBox();
  typeAndEnter(spin, QStringLiteral("3000"));
  ASSERT_TRUE(spin->hasFocus());
  struct Case {
    QAction* action;
    Qt::Key key;
    Qt::KeyboardModifiers mods;
  };
  const Case cases[] = {{&undo, Qt::Key_Z, Qt::ControlModifier},
                        {&redo, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier},
                        {&redo_y, Qt::Key_Y, Qt::ControlModifier},
                        {&save, Qt::Key_S, Qt::ControlModifier},
                        {&save_as, Qt::Key_S, Qt::ControlModifier | Qt::ShiftModifier},
                        {&exporter, Qt::Key_E, Qt::ControlModifier},
                        {&pin, Qt::Key_B, Qt::ControlModifier}};
  for (const Case& c : cases) {
    QSignalSpy fired(c.action, &QAction::triggered);
    QTest::keyClick(spin, c.key, c.mods);
    EXPECT_EQ(fired.count(), 1) << c.action->text().toStdString() << " "
                                << c.action->shortcut().toString().toStdString();
  }
  // Text editing keeps its own keys: select all and copy stay in the box.
  QAction copy(QStringLiteral("Copy"), &w);
  copy.setShortcut(QKeySequence::Copy);
  w.addAction(&copy);
  QSignalSpy copied(&copy, &QAction::triggered);
  QTest::keyClick(spin, Qt::Key_C, Qt::ControlModifier);
  EXPECT_EQ(copied.count(), 0);
}

TEST(ControlColumn, DeclaredControlsReadAndWriteTheirBindings) {
  struct Settings {
    double days = 30;
    QString chip = QStringLiteral("H100");
    bool gated = true;
  } s;
  ControlColumn column;
  column.group(QStringLiteral("Budget"));
  SliderSpin* days = column.slider({.key = QStringLiteral("days"),
                                    .label = QStringLiteral("Days"),
                                    .unit = QStringLiteral("days"),
                                    .min = 1,
                                    .max = 365,
                                    .ladder = Ladder::multipleOf(1),
                                    .integer = true},
                                   {[&] { return s.days; }, [&](double v) { s.days = v; }});
  QComboBox* chip = column.combo(
      {.key = QStringLiteral("chip"),
       .label = QStringLiteral("Chip"),
       .items = {{QStringLiteral("H100"), QStringLiteral("H100")},
                 {QStringLiteral("TPU v5e"), QStringLiteral("TPU v5e")}}},
      {[&] { return QVariant(s.chip); }, [&](const QVariant& v) { s.chip = v.toString(); }});
  QCheckBox* gated =
      column.check({.key = QStringLiteral("gated"), .label = QStringLiteral("Gated")},
                   {[&] { return s.gated; }, [&](bool on) { s.gated = on; }});
  column.finish();
  column.sync();
  column.resize(360, 300);
  column.show();
  QCoreApplication::processEvents();
  EXPECT_EQ(days->value(), 30);
  EXPECT_EQ(days->objectName(), QStringLiteral("days"));
  EXPECT_EQ(days->slider()->maximum(), 364);  // one position per whole day
  EXPECT_EQ(chip->currentText(), QStringLiteral("H100"));
  EXPECT_TRUE(gated->isChecked());
  days->slider()->setValue(days->slider()->maximum());
  EXPECT_EQ(s.days, 365);
  chip->setFocus();
  QTest::keyClick(chip, Qt::Key_Down);
  EXPECT_EQ(s.chip, QStringLiteral("TPU v5e"));
  QTest::mouseClick(gated, Qt::LeftButton, Qt::NoModifier, QPoint(6, gated->height() / 2));
  EXPECT_FALSE(s.gated);
  s = Settings{};
  column.sync();
  EXPECT_EQ(days->value(), 30);
  EXPECT_EQ(chip->currentText(), QStringLiteral("H100"));
  EXPECT_TRUE(gated->isChecked());
}

// A combo's list shows each value as itself: counts grouped, fractions to two
// decimals and to three where a file's value needs them, an off-list value in
// its place, the unset item first.
TEST(ControlColumn, ComboListsShowAnOffListValueAsItself) {
  const std::vector<ComboItem> counts = countItems(QStringLiteral("auto"), {2048, 8192}, 6000);
  ASSERT_EQ(counts.size(), 4u);
  EXPECT_EQ(counts[0].text, QStringLiteral("auto"));
  EXPECT_EQ(counts[2].text, QStringLiteral("6,000"));
  EXPECT_EQ(counts[2].data.toLongLong(), 6000);
  const std::vector<ComboItem> fractions =
      fractionItems(QStringLiteral("engine default"), {0.8, 0.9}, 0.833);
  ASSERT_EQ(fractions.size(), 4u);
  EXPECT_EQ(fractions[0].data.toDouble(), 0.0);
  EXPECT_EQ(fractions[1].text, QStringLiteral("0.80"));
  EXPECT_EQ(fractions[2].text, QStringLiteral("0.833"));
  EXPECT_DOUBLE_EQ(fractions[2].data.toDouble(), 0.833);
  EXPECT_EQ(fractionItems(QStringLiteral("x"), {0.8}, 0.8).size(), 2u);  // listed once
}
