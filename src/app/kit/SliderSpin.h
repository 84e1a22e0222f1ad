// One control row: a label, a slider (linear or logarithmic) and a spin box
// that accepts plain or scientific notation. Emits valueEdited continuously
// while the slider is dragged, and gesture signals around a drag so that one
// drag is one undo step.
#pragma once

#include <QDoubleSpinBox>
#include <QWidget>

class QComboBox;
class QLabel;
class QSlider;
class QVBoxLayout;

namespace napkin {

// A QDoubleSpinBox that reads "1e14", "2.5e3" and "1,000" and shows large
// values in scientific notation.
class SciSpinBox : public QDoubleSpinBox {
  Q_OBJECT
 public:
  explicit SciSpinBox(QWidget* parent = nullptr);
  void setScientific(bool on) { scientific_ = on; }
  void setLogStep(bool on) { log_step_ = on; }
  QString textFromValue(double value) const override;
  double valueFromText(const QString& text) const override;
  QValidator::State validate(QString& text, int& pos) const override;
  void stepBy(int steps) override;

 private:
  bool scientific_ = false;
  bool log_step_ = false;
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
    double display_factor = 1;  // shown value = value × factor (e.g. 100 for %)
    QString suffix;
    QString tooltip;
  };

  explicit SliderSpin(const Spec& spec, QWidget* parent = nullptr);

  // Sets the value without emitting valueEdited.
  void setValue(double value);
  double value() const { return value_; }
  QSlider* slider() const { return slider_; }
  SciSpinBox* spinBox() const { return spin_; }
  QLabel* label() const { return label_; }

 signals:
  void valueEdited(double value);
  void gestureStarted();
  void gestureFinished();

 private:
  int toPosition(double value) const;
  double fromPosition(int position) const;
  double snap(double value) const;
  void onSlider(int position);
  void onSpin(double shown);

  Spec spec_;
  double value_ = 0;
  QLabel* label_;
  QSlider* slider_;
  SciSpinBox* spin_;
};

// The other control row: a label and a combo box, added to a control group.
// The combo carries `key` as object name, the tooltip and an accessible name.
QComboBox* addLabelledCombo(QVBoxLayout* group, const QString& key, const QString& label,
                            const QString& tooltip, int label_width);

}  // namespace napkin
