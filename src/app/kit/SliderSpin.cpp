#include "SliderSpin.h"

#include "AppChords.h"

#include <QAbstractScrollArea>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QRegularExpression>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

namespace napkin {

namespace {

constexpr int kSteps = 1000;             // slider positions of a continuous control
constexpr std::size_t kMaxStops = 1001;  // a discrete ladder with more values is continuous
constexpr int kInternalDecimals = 15;    // the box never rounds the value itself
constexpr int kShownSignificant = 5;     // digits shown of a value that has more

QString grouped(double v, int decimals) {
  QLocale l = QLocale::c();
  l.setNumberOptions(QLocale::DefaultNumberOptions);
  if (std::fabs(v) >= 1e15 || (v != 0 && std::fabs(v) < 1e-3)) return QString::number(v, 'g', 3);
  return l.toString(v, 'f', decimals);
}

// The wheel over a control without focus scrolls the nearest scroll area
// (the control column) instead of changing the value.
class WheelGuard : public QObject {
 public:
  using QObject::QObject;
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::Wheel) return false;
    auto* w = static_cast<QWidget*>(watched);
    if (w->hasFocus()) return false;
    const auto* e = static_cast<QWheelEvent*>(event);
    for (QWidget* p = w->parentWidget(); p; p = p->parentWidget())
      if (auto* area = qobject_cast<QAbstractScrollArea*>(p)) {
        QWheelEvent copy(area->viewport()->mapFromGlobal(e->globalPosition()), e->globalPosition(),
                         e->pixelDelta(), e->angleDelta(), e->buttons(), e->modifiers(), e->phase(),
                         e->inverted(), e->source());
        QCoreApplication::sendEvent(area->viewport(), &copy);
        return true;
      }
    event->ignore();
    return true;
  }
};

}  // namespace

// ---------------------------------------------------------------- SciSpinBox

SciSpinBox::SciSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
  setKeyboardTracking(false);
  setAccelerated(true);
  QDoubleSpinBox::setDecimals(kInternalDecimals);
  setCorrectionMode(QAbstractSpinBox::CorrectToPreviousValue);
  guardWheel(this);
}

void SciSpinBox::fitText() {
  // A value off the ladder (from a file or a sourced default) may need more
  // digits than the range's ends: the box widens instead of clipping them.
  const QFontMetrics fm(font());
  const auto width = [&](double v) {
    return fm.horizontalAdvance(prefix() + textFromValue(v) + suffix());
  };
  // A drag keeps its range and its unit: measured once, not on every value.
  const QString affixes = prefix() + QChar(0) + suffix();
  if (ends_measured_for_ != std::pair(minimum(), maximum()) || ends_measured_affixes_ != affixes) {
    ends_measured_for_ = {minimum(), maximum()};
    ends_measured_affixes_ = affixes;
    const int ends = std::max(width(minimum()), width(maximum()));
    ends_width_ =
        width_range_ ? std::max(width(width_range_->first), width(width_range_->second)) : ends;
    shrink_width_ = std::max(0, ends - ends_width_);
  }
  const int extra = std::max(0, width(value()) - ends_width_);
  if (extra == extra_width_) return;  // a slider drag's values fit: no relayout
  extra_width_ = extra;
  updateGeometry();
}

void SciSpinBox::setWidthRange(double lo, double hi) {
  width_range_ = std::pair(lo, hi);
  ends_measured_for_ = {NAN, NAN};
  extra_width_ = -1;  // re-measured below
  fitText();
}

QSize SciSpinBox::minimumSizeHint() const {
  QSize hint = QDoubleSpinBox::minimumSizeHint() - QSize(shrink_width_, 0);
  hint.setWidth(std::max(hint.width(), 40));
  return hint;
}

QSize SciSpinBox::sizeHint() const {
  // Fits the range's ends, and what is shown when that is wider; the layout
  // shrinks the slider beside it, never the number (its policy keeps this
  // width as the minimum).
  QSize hint = QDoubleSpinBox::sizeHint() + QSize(extra_width_ - shrink_width_, 0);
  hint.setWidth(std::max(hint.width(), 86));
  return hint;
}

void SciSpinBox::setAcceptedRange(double lo, double hi) {
  accepted_lo_ = lo;
  accepted_hi_ = hi;
  setRange(lo, hi);
}

QString SciSpinBox::textFromValue(double value) const {
  // The fewest digits (from the display decimals up) that read back as the
  // value, thousands grouped as the read-outs group them (4,194,304).
  const auto close = [value](const QString& t) {
    const double back = QString(t).remove(QLatin1Char(',')).toDouble();
    return std::fabs(back - value) <= 1e-12 * std::max(1.0, std::fabs(value));
  };
  // A disabled box shows a derived value nobody typed: three significant
  // digits read better than the exact ones, which a narrow box would clip.
  const int extra_digits = isEnabled() ? 6 : 0;
  if (scientific_ && value != 0 && (std::fabs(value) >= 1e5 || std::fabs(value) < 1e-3)) {
    QString t;
    for (int d = 2; d <= 2 + std::min(extra_digits, kShownSignificant - 3); ++d)
      if (close(t = QString::number(value, 'e', d))) break;
    return t;
  }
  // A value nobody typed (a derived rate, a ratio from a file) is shown to at
  // most five significant digits, never 0.473587601; the box still holds it
  // exactly (valueFromText reads this text back as the value).
  const int most_decimals =
      value == 0
          ? 0
          : kShownSignificant - 1 - static_cast<int>(std::floor(std::log10(std::fabs(value))));
  const int last = std::clamp(most_decimals, display_decimals_, display_decimals_ + extra_digits);
  QLocale grouping = QLocale::c();
  grouping.setNumberOptions(QLocale::DefaultNumberOptions);
  QString t;
  for (int d = display_decimals_; d <= last; ++d)
    if (close(t = grouping.toString(value, 'f', d))) break;
  // A tiny negative rounded away (or −0) is 0.00, not "−0.00".
  if (t.startsWith(QLatin1Char('-')) && !t.contains(QRegularExpression(QStringLiteral("[1-9]"))))
    t.remove(0, 1);
  return t;
}

QString SciSpinBox::stripped(const QString& text) const {
  QString t = text;
  t.remove(suffix()).remove(prefix()).remove(QLatin1Char(',')).remove(QLatin1Char(' '));
  return t;
}

bool SciSpinBox::isSpecialText(const QString& text) const {
  // The line edit may have appended the suffix ("estimated GB").
  return !specialValueText().isEmpty() &&
         stripped(text).compare(QString(specialValueText()).remove(QLatin1Char(' ')),
                                Qt::CaseInsensitive) == 0;
}

double SciSpinBox::valueFromText(const QString& text) const {
  if (isSpecialText(text)) return accepted_lo_;
  // The text shown for the current value reads back as that value, even
  // where it is shown short (a disabled box): leaving a box never edits.
  if (stripped(text) == stripped(textFromValue(value()))) return value();
  bool ok = false;
  const double v = stripped(text).toDouble(&ok);
  return ok && std::isfinite(v) ? v : value();
}

QString SciSpinBox::refusal(const QString& text) const {
  if (isSpecialText(text)) return {};
  const QString t = stripped(text);
  if (t.isEmpty()) return tr("no value was typed");
  bool ok = false;
  const double v = t.toDouble(&ok);
  if (!ok || !std::isfinite(v)) return tr("\"%1\" is not a number").arg(t);
  if (v < accepted_lo_ || v > accepted_hi_) return tr("%1 is outside the accepted range").arg(t);
  return {};
}

QValidator::State SciSpinBox::validate(QString& text, int& /*pos*/) const {
  // Anything may be typed; Enter accepts it or says why not (refused()).
  return refusal(text).isEmpty() ? QValidator::Acceptable : QValidator::Intermediate;
}

void SciSpinBox::fixup(QString& /*text*/) const {}

void SciSpinBox::stepBy(int steps) {
  if (stepper_) {
    setValue(std::clamp(stepper_(value(), steps), accepted_lo_, accepted_hi_));
    return;
  }
  QDoubleSpinBox::stepBy(steps);
}

QAbstractSpinBox::StepEnabled SciSpinBox::stepEnabled() const {
  StepEnabled e = StepNone;
  if (value() < accepted_hi_) e |= StepUpEnabled;
  if (value() > accepted_lo_) e |= StepDownEnabled;
  return e;
}

bool SciSpinBox::event(QEvent* event) {
  // The window's chords pass the line edit (AppChords.h).
  if (event->type() == QEvent::ShortcutOverride &&
      isAppChord(static_cast<const QKeyEvent*>(event))) {
    event->ignore();
    return true;
  }
  const bool handled = QDoubleSpinBox::event(event);
  if (event->type() == QEvent::EnabledChange) {
    lineEdit()->setText(value() == minimum() && !specialValueText().isEmpty()
                            ? specialValueText()
                            : prefix() + textFromValue(value()) +
                                  suffix());  // exact digits once typable
    fitText();
  }
  return handled;
}

void SciSpinBox::checkTyped() {
  const QString why = refusal(lineEdit()->displayText());
  if (!why.isEmpty()) emit refused(why);
}

void SciSpinBox::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) checkTyped();
  QDoubleSpinBox::keyPressEvent(event);
}

void SciSpinBox::focusOutEvent(QFocusEvent* event) {
  checkTyped();
  QDoubleSpinBox::focusOutEvent(event);
}

// ---------------------------------------------------------------- SliderSpin

SliderSpin::SliderSpin(const Spec& spec, QWidget* parent) : QWidget(parent), spec_(spec) {
  if (spec_.integer) spec_.decimals = 0;
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(6);
  label_ = new QLabel(spec.label, this);
  label_->setMinimumWidth(88);
  slider_ = new QSlider(Qt::Horizontal, this);
  if (spec_.scale == Scale::linear || spec_.ladder.kind == Ladder::Kind::one_two_five ||
      spec_.ladder.kind == Ladder::Kind::powers_of_two)
    stops_ = spec_.ladder.values(spec_.min, spec_.max, kMaxStops);
  slider_->setRange(0, stops_.empty() ? kSteps : static_cast<int>(stops_.size()) - 1);
  slider_->setPageStep(stops_.empty() ? kSteps / 10
                                      : std::max<int>(1, static_cast<int>(stops_.size()) / 10));
  slider_->setMinimumWidth(80);
  slider_->setAccessibleName(spec.label);
  guardWheel(slider_);
  spin_ = new SciSpinBox(this);
  spin_->setScientific(spec.scientific);
  spin_->setDisplayDecimals(spec_.decimals);
  spin_->setAcceptedRange(spec.acceptMin() * spec.display_factor,
                          spec.acceptMax() * spec.display_factor);
  if (spec.acceptMin() < spec.min || spec.acceptMax() > spec.max)
    spin_->setWidthRange(spec.min * spec.display_factor, spec.max * spec.display_factor);
  spin_->setStepper([this](double shown, int steps) {
    return stepped(shown / spec_.display_factor, steps) * spec_.display_factor;
  });
  if (!spec.suffix.isEmpty()) spin_->setSuffix(QLatin1Char(' ') + spec.suffix);
  spin_->setSpecialValueText(spec.special_text);
  spin_->setAccessibleName(spec.label);
  label_->setBuddy(spin_);
  layout->addWidget(label_, 0);
  layout->addWidget(slider_, 1);
  layout->addWidget(spin_, 0);
  tooltip_ = (spec.tooltip.isEmpty() ? QString() : spec.tooltip + QLatin1Char('\n')) +
             tr("Accepted: %1").arg(rangeText());
  for (QWidget* w : {static_cast<QWidget*>(label_), static_cast<QWidget*>(slider_),
                     static_cast<QWidget*>(spin_)})
    w->setToolTip(tooltip_);

  connect(slider_, &QSlider::valueChanged, this, &SliderSpin::onSlider);
  connect(slider_, &QSlider::sliderPressed, this, &SliderSpin::gestureStarted);
  connect(slider_, &QSlider::sliderReleased, this, &SliderSpin::gestureFinished);
  connect(spin_, &QDoubleSpinBox::valueChanged, this, &SliderSpin::onSpin);
  connect(spin_, &SciSpinBox::refused, this, [this](const QString& why) {
    emit refused(tr("%1: %2; accepted %3").arg(spec_.label, why, rangeText()));
  });
  setValue(spec.min);
}

QString SliderSpin::rangeText() const {
  // A bound with the control's digits but no trailing zeros: "0.001 –
  // 10,000 GB/s", not "10,000.000".
  auto bound = [d = spec_.decimals](double v) {
    QString text = grouped(v, d);
    if (text.contains(QLatin1Char('.')) && !text.contains(QLatin1Char('e'))) {
      while (text.endsWith(QLatin1Char('0'))) text.chop(1);
      if (text.endsWith(QLatin1Char('.'))) text.chop(1);
    }
    return text;
  };
  const QString unit = spec_.suffix.isEmpty() ? QString() : QLatin1Char(' ') + spec_.suffix;
  return bound(spec_.acceptMin() * spec_.display_factor) + QStringLiteral(" \u2013 ") +
         bound(spec_.acceptMax() * spec_.display_factor) + unit;
}

double SliderSpin::shownValue(double v) const {
  v = std::clamp(v, spec_.acceptMin(), spec_.acceptMax());
  const double shown = v * spec_.display_factor;
  double back = shown;
  if (spec_.scientific && shown != 0 && (std::fabs(shown) >= 1e5 || std::fabs(shown) < 1e-3))
    back = QString::number(shown, 'e', 2).toDouble();
  else
    back = QString::number(shown, 'f', spec_.decimals).toDouble();
  double out = back / spec_.display_factor;
  if (spec_.integer) out = std::round(out);
  return std::clamp(out, spec_.acceptMin(), spec_.acceptMax());
}

int SliderSpin::toPosition(double v) const {
  if (!stops_.empty()) {
    const bool log = spec_.scale == Scale::log && stops_.front() > 0;
    const auto it = std::find(stops_.begin(), stops_.end(), nearest_value(v, stops_, log));
    return static_cast<int>(it - stops_.begin());
  }
  double t = 0;
  t = scale_fraction(v, spec_.min, spec_.max, spec_.scale == Scale::log);
  return static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * kSteps));
}

double SliderSpin::fromPosition(int p) const {
  if (!stops_.empty())
    return stops_[static_cast<std::size_t>(
        std::clamp<int>(p, 0, static_cast<int>(stops_.size()) - 1))];
  const double t = static_cast<double>(p) / kSteps;
  double v = scale_value(t, spec_.min, spec_.max, spec_.scale == Scale::log);
  if (p == 0) v = spec_.min;
  if (p == kSteps) v = spec_.max;
  return spec_.ladder.snap(v, spec_.min, spec_.max);
}

double SliderSpin::stepped(double v, int steps) const {
  // Beyond the slider's span (a typed value): step on, within what is accepted.
  const bool beyond = v < spec_.min || v > spec_.max;
  const double lo = beyond ? spec_.acceptMin() : spec_.min;
  const double hi = beyond ? spec_.acceptMax() : spec_.max;
  if (!stops_.empty() && !beyond) {
    int i = toPosition(v);
    const double at = stops_[static_cast<std::size_t>(i)];
    // Off the ladder: the first step lands on the neighbouring stop.
    if (steps > 0 && at > v) --i;
    if (steps < 0 && at < v) ++i;
    return fromPosition(i + steps);
  }
  double next = v;
  if (spec_.ladder.kind == Ladder::Kind::multiple && spec_.ladder.step > 0)
    next = v + steps * spec_.ladder.step;
  else if (spec_.scale == Scale::log)
    next = std::max(v, spec_.min > 0 ? spec_.min : 1e-300) * tenth_decades(steps);
  else
    next = v + steps * last_digit(spec_.decimals) / spec_.display_factor;
  if (beyond && (spec_.ladder.kind == Ladder::Kind::one_two_five ||
                 spec_.ladder.kind == Ladder::Kind::powers_of_two))
    next = v * (steps > 0 ? 2.0 : 0.5);  // a coarse ladder steps by doubling out there
  next = spec_.ladder.snap(next, lo, hi);
  const double shown = shownValue(next);
  // Rounding must not undo the step.
  if (shown == v && next != v) return std::clamp(next, lo, hi);
  return shown;
}

void SliderSpin::setValue(double v) {
  if (!std::isfinite(v)) return;
  if (spec_.integer) v = std::round(v);
  if (shown_ && v == value_) return;  // a sync that changes nothing costs nothing
  shown_ = true;
  value_ = v;
  const QSignalBlocker b1(slider_), b2(spin_);
  slider_->setValue(toPosition(value_));
  const double shown = value_ * spec_.display_factor;
  // A value from a file outside the control's range is shown as it is.
  const double lo = std::min(spin_->acceptedMin(), shown),
               hi = std::max(spin_->acceptedMax(), shown);
  if (spin_->minimum() != lo || spin_->maximum() != hi) spin_->setRange(lo, hi);
  spin_->setValue(shown);
  spin_->fitText();
}

void SliderSpin::onSlider(int position) {
  const double v = shownValue(fromPosition(position));
  if (v == value_) return;
  value_ = v;
  {
    const QSignalBlocker b(spin_);
    spin_->setValue(value_ * spec_.display_factor);
    spin_->fitText();
  }
  emit valueEdited(value_);
}

void SliderSpin::onSpin(double shown) {
  double v = shown / spec_.display_factor;
  if (spec_.integer) v = std::round(v);
  if (v == value_) return;
  value_ = v;
  {
    const QSignalBlocker b(slider_);
    slider_->setValue(toPosition(value_));
  }
  emit valueEdited(value_);
}

void guardWheel(QWidget* w) {
  w->setFocusPolicy(Qt::StrongFocus);
  w->installEventFilter(new WheelGuard(w));
}

QComboBox* addLabelledCombo(QVBoxLayout* group, const QString& key, const QString& label,
                            const QString& tooltip, int label_width) {
  auto* row = new QWidget(group->parentWidget());
  auto* h = new QHBoxLayout(row);
  h->setContentsMargins(0, 0, 0, 0);
  auto* l = new QLabel(label, row);
  l->setMinimumWidth(label_width);
  auto* c = new QComboBox(row);
  c->setObjectName(key);
  c->setToolTip(tooltip);
  c->setAccessibleName(label);
  guardWheel(c);
  l->setToolTip(tooltip);
  l->setBuddy(c);
  h->addWidget(l);
  h->addWidget(c, 1);
  group->addWidget(row);
  return c;
}

void SliderSpin::setUnused(const QString& why, std::optional<double> in_use) {
  if (!why.isEmpty() && in_use) setValue(*in_use);
  if (why == unused_why_) return;
  unused_why_ = why;
  setEnabled(why.isEmpty());
  const QString tip = why.isEmpty() ? tooltip_ : why + QStringLiteral("\n\n") + tooltip_;
  for (QWidget* w : {static_cast<QWidget*>(this), static_cast<QWidget*>(label_),
                     static_cast<QWidget*>(slider_), static_cast<QWidget*>(spin_)})
    w->setToolTip(tip);
}

}  // namespace napkin
