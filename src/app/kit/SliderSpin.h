// One control row: a label, a slider (linear or logarithmic) and a spin box
// that accepts plain or scientific notation. Emits valueEdited continuously
// while the slider is dragged, and gesture signals around a drag so that one
// drag is one undo step.
//
// What is shown is what is used: the slider lands on values a person would
// type (a ladder: 1-2-5, powers of two, multiples of a step, two significant
// digits), every value is rounded to what the spin box displays, and a value
// set from outside is displayed with as many digits as it needs. Application
// shortcuts (undo, save, export …) work while the spin box has focus; the wheel
// changes a control only when it has focus (otherwise it scrolls the column);
// a typed value that is refused says why (refused()), and the tooltip states
// the accepted range.
#pragma once

#include <QDoubleSpinBox>
#include <QWidget>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "nice_numbers.h"

class QComboBox;
class QLabel;
class QSlider;
class QVBoxLayout;

namespace napkin {

// A QDoubleSpinBox that reads "1e14", "2.5e3" and "1,000", shows large values
// in scientific notation, and shows as many digits as its value needs.
class SciSpinBox : public QDoubleSpinBox {
  Q_OBJECT
 public:
  explicit SciSpinBox(QWidget* parent = nullptr);
  void setScientific(bool on) { scientific_ = on; }
  // The digits shown after the point (the value itself is never rounded by the box).
  void setDisplayDecimals(int d) { display_decimals_ = d; }
  int displayDecimals() const { return display_decimals_; }
  // The range a typed value must fall in (the box itself may show values outside it).
  void setAcceptedRange(double lo, double hi);
  // The values whose text sets the box's width (the slider's span), when
  // narrower than the accepted range: a box that accepts 10 million is as
  // wide as 100,000 until such a value is shown.
  void setWidthRange(double lo, double hi);
  double acceptedMin() const { return accepted_lo_; }
  double acceptedMax() const { return accepted_hi_; }
  // How the arrows and Page keys step: value → value after `steps`.
  void setStepper(std::function<double(double value, int steps)> stepper) {
    stepper_ = std::move(stepper);
  }
  // Widens the box when the value shown needs more room than the range's ends.
  void fitText();
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  QString textFromValue(double value) const override;
  double valueFromText(const QString& text) const override;
  QValidator::State validate(QString& text, int& pos) const override;
  void fixup(QString& text) const override;
  void stepBy(int steps) override;
  // Why `text` would be refused ("" when it is accepted).
  QString refusal(const QString& text) const;

 signals:
  // A typed value was refused; `reason` names the value and the accepted range.
  void refused(const QString& reason);

 protected:
  bool event(QEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void focusOutEvent(QFocusEvent* event) override;
  StepEnabled stepEnabled() const override;

 private:
  QString stripped(const QString& text) const;
  bool isSpecialText(const QString& text) const;  // the special value's text, any case
  void checkTyped();

  int extra_width_ = 0;   // px the shown text needs beyond the range's ends
  int ends_width_ = 0;    // px of the wider of the range's ends, for ends_measured_for_
  int shrink_width_ = 0;  // px the width range's ends need less than the range's ends
  std::optional<std::pair<double, double>> width_range_;
  std::pair<double, double> ends_measured_for_{NAN, NAN};
  QString ends_measured_affixes_;  // prefix and suffix they were measured with
  bool scientific_ = false;
  int display_decimals_ = 0;
  double accepted_lo_ = 0, accepted_hi_ = 99.99;
  std::function<double(double, int)> stepper_;
};

class SliderSpin : public QWidget {
  Q_OBJECT
 public:
  enum class Scale { linear, log };
  struct Spec {
    QString label;
    double min = 0, max = 1;
    Scale scale = Scale::linear;
    int decimals = 0;  // 0 and integer = true: whole numbers
    bool integer = false;
    bool scientific = false;
    // Shown value = value × factor: a change of unit only (100 for a fraction
    // shown in %, 1000 for seconds shown in ms). Never a way to squeeze a
    // range: min and max are in the value's own unit.
    double display_factor = 1;
    QString suffix;
    QString tooltip;
    Ladder ladder = {};  // where the slider lands (within [min, max])
    // What a typed value may be, when wider than the slider's span (NaN:
    // [min, max]). The slider spans the values people usually pick; the box
    // takes every value the model accepts.
    double accept_min = std::numeric_limits<double>::quiet_NaN();
    double accept_max = std::numeric_limits<double>::quiet_NaN();
    // Shown in the box instead of the lowest accepted value, and typed to
    // enter it ("estimated" where 0 means "use Napkin's estimate"); "": the number.
    QString special_text;
    double acceptMin() const { return std::isnan(accept_min) ? min : accept_min; }
    double acceptMax() const { return std::isnan(accept_max) ? max : accept_max; }
  };

  explicit SliderSpin(const Spec& spec, QWidget* parent = nullptr);

  // Sets the value without emitting valueEdited. A value outside [min, max]
  // (from a file) is shown as it is, with the slider at its end.
  void setValue(double value);
  double value() const { return value_; }
  const Spec& spec() const { return spec_; }
  QSlider* slider() const { return slider_; }
  SciSpinBox* spinBox() const { return spin_; }
  QLabel* label() const { return label_; }
  // The value rounded to what the spin box shows (and, for a slider move,
  // to the ladder first): the number the model receives.
  double shownValue(double v) const;
  // "1 – 100,000 chips": the accepted range in display units.
  QString rangeText() const;
  // An input the plan does not use right now (the MFU slider while the plan
  // runs at a predicted MFU): disabled, its tooltip saying why, showing
  // `in_use` (the value the plan runs with) when given; the input's own value
  // returns with the next sync. An empty reason enables it again with its own
  // tooltip.
  void setUnused(const QString& why, std::optional<double> in_use = std::nullopt);
  bool isUnused() const { return !unused_why_.isEmpty(); }

 signals:
  void valueEdited(double value);
  void gestureStarted();
  void gestureFinished();
  // A typed value was refused: "Chips: 1e9 is outside 1 – 100,000".
  void refused(const QString& message);

 private:
  int toPosition(double value) const;
  double fromPosition(int position) const;
  double stepped(double value, int steps) const;
  void onSlider(int position);
  void onSpin(double shown);

  Spec spec_;
  std::vector<double> stops_;  // the slider's positions when the ladder is discrete
  double value_ = 0;
  bool shown_ = false;  // setValue() has displayed value_
  QString tooltip_;     // the spec's tooltip with the accepted range
  QString unused_why_;
  QLabel* label_;
  QSlider* slider_;
  SciSpinBox* spin_;
};

// Lets the wheel change `w` only while it has focus; otherwise the wheel
// event goes to the parent (the scrolling control column). Sets Qt::StrongFocus.
void guardWheel(QWidget* w);

// The other control row: a label and a combo box, added to a control group.
// The combo carries `key` as object name, the tooltip and an accessible name.
QComboBox* addLabelledCombo(QVBoxLayout* group, const QString& key, const QString& label,
                            const QString& tooltip, int label_width);

}  // namespace napkin
