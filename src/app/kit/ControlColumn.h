// A panel's controls, declared rather than positioned: each control has a key,
// a label, a unit, a range, a ladder and a binding (how it reads and edits
// the value it controls). The column scrolls, so every control is reachable on
// a small screen, and the wheel scrolls it unless a control has focus.
//
//   SliderSpin* chips = column.slider(
//       {.key = QStringLiteral("chips"), .label = tr("Chips"), .min = 1, .max = 100000,
//        .scale = Scale::log, .ladder = Ladder::oneTwoFive(), .integer = true,
//        .tooltip = tr("Number of accelerators …")},
//       binding);
//
// The binding is plain functions, so the kit knows no scenario: a panel binds
// to its shared scenario (with an undo step per edit) or to its own settings.
#pragma once

#include <QScrollArea>
#include <QVariant>
#include <functional>
#include <optional>
#include <vector>

#include "SliderSpin.h"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QHBoxLayout;
class QVBoxLayout;

namespace napkin {

template <typename T>
struct Binding {
  std::function<T()> get;      // the current value
  std::function<void(T)> set;  // the user changed it
};

struct SliderDecl {
  QString key = {};         // object name, also what tests look for: "chips"
  QString label = {};       // "Chips"
  QString unit = {};        // after the number: "days", "$/chip-h", "%"
  double min = 0, max = 1;  // in the value's own unit
  SliderSpin::Scale scale = SliderSpin::Scale::linear;
  Ladder ladder = {};
  int decimals = 0;  // digits after the point, as displayed
  bool integer = false;
  bool scientific = false;
  double display_factor = 1;  // a unit change only: 100 shows a fraction in %
  QString tooltip = {};
  // A typed value may lie beyond the slider's span, within these (NaN: [min, max]).
  double accept_min = std::numeric_limits<double>::quiet_NaN();
  double accept_max = std::numeric_limits<double>::quiet_NaN();
  QString special_text = {};  // shown instead of the lowest accepted value ("estimated")
};

struct ComboItem {
  QString text;
  QVariant data;
};

// Items of a combo of counts: `zero_text` for 0 (or for `none`, the data of
// "not set" where 0 is not it), then `values` ascending, with `set` (when > 0
// and off the list: a file or the CLI set it) listed in its place, so it
// shows as itself and never as another value.
std::vector<ComboItem> countItems(const QString& zero_text, std::vector<qint64> values, qint64 set,
                                  qint64 none = 0);
// The same for fractions, shown to two decimals (0.85; three where two would
// round: 0.833), `zero_text` for 0.
std::vector<ComboItem> fractionItems(const QString& zero_text, std::vector<double> values,
                                     double set);

struct ComboDecl {
  QString key = {};
  QString label = {};
  QString tooltip = {};
  std::vector<ComboItem> items = {};
  // Items that depend on the current values (re-read on every sync).
  std::function<std::vector<ComboItem>()> dynamic_items = {};
  // The user may also type a value: text that names no item is bound as
  // itself (a QString), shown as typed while the binding holds it; a value
  // the binding refuses snaps back with the model's message.
  bool editable = false;
};

struct CheckDecl {
  QString key = {};
  QString label = {};
  QString tooltip = {};
  bool same_row = false;  // beside the previous check box
};

// A check box the plan does not use right now, as SliderSpin::setUnused does
// for a slider: disabled, its tooltip saying why above its own, showing
// `in_use` (the state the plan runs with) when given, without emitting an
// edit; the box's own state returns with the next sync. An empty reason
// enables it again with its own tooltip.
void setCheckUnused(QCheckBox* box, const QString& why, std::optional<bool> in_use = std::nullopt);

class ControlColumn : public QScrollArea {
  Q_OBJECT
 public:
  explicit ControlColumn(QWidget* parent = nullptr);

  // Starts a titled group; the controls declared next go into it.
  QGroupBox* group(const QString& title);
  SliderSpin* slider(const SliderDecl& decl, Binding<double> binding);
  QComboBox* combo(const ComboDecl& decl, Binding<QVariant> binding);
  QCheckBox* check(const CheckDecl& decl, Binding<bool> binding);
  // Closes the column: the groups sit at the top.
  void finish();

  // Sets every control from its binding, without emitting edits.
  void sync();

 signals:
  // A slider drag started or ended (one drag is one undo step).
  void gestureStarted();
  void gestureFinished();

 private:
  QVBoxLayout* current();
  void fitWidth();
  bool eventFilter(QObject* watched, QEvent* event) override;
  bool finished_ = false;

  QWidget* host_;
  QVBoxLayout* layout_;
  QVBoxLayout* group_ = nullptr;
  QHBoxLayout* check_row_ = nullptr;
  std::vector<std::function<void()>> syncs_;
};

}  // namespace napkin
