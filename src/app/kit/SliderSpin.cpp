#include "SliderSpin.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QSignalBlocker>
#include <QSlider>
#include <QVBoxLayout>
#include <cmath>

namespace napkin {

namespace {
constexpr int kSteps = 1000;
}

SciSpinBox::SciSpinBox(QWidget* parent) : QDoubleSpinBox(parent) {
  setKeyboardTracking(false);
  setAccelerated(true);
}

QString SciSpinBox::textFromValue(double value) const {
  if (scientific_ && value != 0 && (std::fabs(value) >= 1e5 || std::fabs(value) < 1e-3))
    return QString::number(value, 'e', 2);
  return QLocale::c().toString(value, 'f', decimals());
}

double SciSpinBox::valueFromText(const QString& text) const {
  QString t = text;
  t.remove(suffix()).remove(prefix()).remove(QLatin1Char(',')).remove(QLatin1Char(' '));
  bool ok = false;
  const double v = t.toDouble(&ok);
  return ok ? v : value();
}

QValidator::State SciSpinBox::validate(QString& text, int& /*pos*/) const {
  QString t = text;
  t.remove(suffix()).remove(prefix()).remove(QLatin1Char(',')).remove(QLatin1Char(' '));
  if (t.isEmpty() || t == QLatin1String("-") || t.endsWith(QLatin1Char('e')) ||
      t.endsWith(QLatin1String("e-")) || t.endsWith(QLatin1String("e+")))
    return QValidator::Intermediate;
  bool ok = false;
  const double v = t.toDouble(&ok);
  if (!ok || !std::isfinite(v)) return QValidator::Invalid;
  if (v < minimum() || v > maximum()) return QValidator::Intermediate;
  return QValidator::Acceptable;
}

void SciSpinBox::stepBy(int steps) {
  if (!log_step_) {
    QDoubleSpinBox::stepBy(steps);
    return;
  }
  // One step is a factor of 10^(1/10) on a logarithmic control.
  const double v = std::max(value(), minimum() > 0 ? minimum() : 1e-12);
  setValue(std::clamp(v * std::pow(10.0, 0.1 * steps), minimum(), maximum()));
}

SliderSpin::SliderSpin(const Spec& spec, QWidget* parent) : QWidget(parent), spec_(spec) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(6);
  label_ = new QLabel(spec.label, this);
  label_->setMinimumWidth(88);
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setRange(0, kSteps);
  slider_->setMinimumWidth(80);
  slider_->setAccessibleName(spec.label);
  spin_ = new SciSpinBox(this);
  spin_->setScientific(spec.scientific);
  spin_->setLogStep(spec.scale == Scale::log);
  spin_->setDecimals(spec.integer ? 0 : spec.decimals);
  spin_->setRange(spec.min * spec.display_factor, spec.max * spec.display_factor);
  if (!spec.suffix.isEmpty()) spin_->setSuffix(QLatin1Char(' ') + spec.suffix);
  spin_->setMinimumWidth(86);
  spin_->setAccessibleName(spec.label);
  label_->setBuddy(spin_);
  layout->addWidget(label_, 0);
  layout->addWidget(slider_, 1);
  layout->addWidget(spin_, 0);
  for (QWidget* w : {static_cast<QWidget*>(label_), static_cast<QWidget*>(slider_),
                     static_cast<QWidget*>(spin_)})
    w->setToolTip(spec.tooltip);

  connect(slider_, &QSlider::valueChanged, this, &SliderSpin::onSlider);
  connect(slider_, &QSlider::sliderPressed, this, &SliderSpin::gestureStarted);
  connect(slider_, &QSlider::sliderReleased, this, &SliderSpin::gestureFinished);
  connect(spin_, &QDoubleSpinBox::valueChanged, this, &SliderSpin::onSpin);
  setValue(spec.min);
}

double SliderSpin::snap(double v) const {
  v = std::clamp(v, spec_.min, spec_.max);
  if (spec_.integer) v = std::round(v);
  return v;
}

int SliderSpin::toPosition(double v) const {
  double t = 0;
  if (spec_.scale == Scale::log)
    t = (std::log(v) - std::log(spec_.min)) / (std::log(spec_.max) - std::log(spec_.min));
  else
    t = (v - spec_.min) / (spec_.max - spec_.min);
  return static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * kSteps));
}

double SliderSpin::fromPosition(int p) const {
  const double t = static_cast<double>(p) / kSteps;
  if (spec_.scale == Scale::log)
    return std::exp(std::log(spec_.min) + t * (std::log(spec_.max) - std::log(spec_.min)));
  return spec_.min + t * (spec_.max - spec_.min);
}

void SliderSpin::setValue(double v) {
  value_ = snap(v);
  const QSignalBlocker b1(slider_), b2(spin_);
  slider_->setValue(toPosition(value_));
  spin_->setValue(value_ * spec_.display_factor);
}

void SliderSpin::onSlider(int position) {
  const double v = snap(fromPosition(position));
  if (v == value_) return;
  value_ = v;
  {
    const QSignalBlocker b(spin_);
    spin_->setValue(value_ * spec_.display_factor);
  }
  emit valueEdited(value_);
}

void SliderSpin::onSpin(double shown) {
  const double v = snap(shown / spec_.display_factor);
  if (v == value_) return;
  value_ = v;
  {
    const QSignalBlocker b(slider_);
    slider_->setValue(toPosition(value_));
  }
  emit valueEdited(value_);
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
  l->setToolTip(tooltip);
  l->setBuddy(c);
  h->addWidget(l);
  h->addWidget(c, 1);
  group->addWidget(row);
  return c;
}

}  // namespace napkin
