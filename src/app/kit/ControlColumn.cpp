#include "ControlColumn.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QVBoxLayout>

#include "AppChords.h"
#include "Text.h"
#include "format.h"

namespace napkin {

namespace {
constexpr int kLabelWidth = 88;       // the label column of slider and combo rows
constexpr int kMostLabelWidth = 160;  // ... widened to a box's longest label, up to this

// The rows of a box start their sliders and combos at one x: every label as
// wide as the box's longest ("Scale-out bandwidth" beside "GPUs per node").
void alignLabels(QWidget* box) {
  std::vector<QLabel*> labels;
  for (QWidget* row : box->findChildren<QWidget*>(Qt::FindDirectChildrenOnly)) {
    if (auto* s = qobject_cast<SliderSpin*>(row))
      labels.push_back(s->label());
    else if (row->findChild<QComboBox*>(QString(), Qt::FindDirectChildrenOnly))
      if (auto* l = row->findChild<QLabel*>(QString(), Qt::FindDirectChildrenOnly))
        labels.push_back(l);
  }
  int width = kLabelWidth;
  for (QLabel* l : labels) width = std::max(width, l->sizeHint().width());
  width = std::min(width, kMostLabelWidth);
  for (QLabel* l : labels) l->setMinimumWidth(width);
}
}  // namespace

ControlColumn::ControlColumn(QWidget* parent) : QScrollArea(parent) {
  setObjectName(QStringLiteral("controlColumn"));
  setWidgetResizable(true);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setFrameShape(QFrame::NoFrame);
  host_ = new QWidget(this);
  layout_ = new QVBoxLayout(host_);
  layout_->setSpacing(4);
  layout_->setContentsMargins(2, 2, 2, 2);
  setWidget(host_);
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Expanding);
  // A box that widens for a long value asks for a new layout: refit then,
  // not on every value change.
  host_->installEventFilter(this);
}

bool ControlColumn::eventFilter(QObject* watched, QEvent* event) {
  if (watched == host_ && event->type() == QEvent::LayoutRequest && finished_) fitWidth();
  return QScrollArea::eventFilter(watched, event);
}

QGroupBox* ControlColumn::group(const QString& title) {
  auto* box = new QGroupBox(title, host_);
  group_ = new QVBoxLayout(box);
  group_->setSpacing(2);
  group_->setContentsMargins(6, 4, 6, 4);
  layout_->addWidget(box);
  check_row_ = nullptr;
  return box;
}

QVBoxLayout* ControlColumn::current() {
  if (!group_) group(QString());
  return group_;
}

SliderSpin* ControlColumn::slider(const SliderDecl& d, Binding<double> b) {
  SliderSpin::Spec spec;
  spec.label = d.label;
  spec.min = d.min;
  spec.max = d.max;
  spec.scale = d.scale;
  spec.decimals = d.decimals;
  spec.integer = d.integer;
  spec.scientific = d.scientific;
  spec.display_factor = d.display_factor;
  spec.suffix = d.unit;
  spec.tooltip = d.tooltip;
  spec.ladder = d.ladder;
  spec.accept_min = d.accept_min;
  spec.accept_max = d.accept_max;
  spec.special_text = d.special_text;
  QVBoxLayout* g = current();
  auto* w = new SliderSpin(spec, g->parentWidget());
  w->setObjectName(d.key);
  g->addWidget(w);
  alignLabels(g->parentWidget());
  check_row_ = nullptr;
  connect(w, &SliderSpin::valueEdited, this, [set = b.set](double v) { set(v); });
  connect(w, &SliderSpin::gestureStarted, this, &ControlColumn::gestureStarted);
  connect(w, &SliderSpin::gestureFinished, this, &ControlColumn::gestureFinished);
  syncs_.push_back([w, get = b.get] { w->setValue(get()); });
  return w;
}

namespace {

// `zero_text` with `none`, then `values` ascending with `set` (> 0, off the
// list) in its place, each shown to the decimals `decimals(value)` gives.
template <typename T, typename Decimals>
std::vector<ComboItem> listedItems(const QString& zero_text, std::vector<T> values, T set, T none,
                                   Decimals decimals) {
  if (set > 0 && std::find(values.begin(), values.end(), set) == values.end())
    values.push_back(set);
  std::sort(values.begin(), values.end());
  std::vector<ComboItem> items{{zero_text, QVariant(none)}};
  for (const T v : values)
    items.push_back({qs(format_grouped(static_cast<double>(v), decimals(v))), QVariant(v)});
  return items;
}

}  // namespace

std::vector<ComboItem> countItems(const QString& zero_text, std::vector<qint64> values, qint64 set,
                                  qint64 none) {
  return listedItems(zero_text, std::move(values), set, none, [](qint64) { return 0; });
}

std::vector<ComboItem> fractionItems(const QString& zero_text, std::vector<double> values,
                                     double set) {
  // Two decimals, three where two would round a file's value (0.833).
  return listedItems(zero_text, std::move(values), set, 0.0, [](double v) {
    return std::abs(v * 100 - std::round(v * 100)) < 1e-9 ? 2 : 3;
  });
}

QComboBox* ControlColumn::combo(const ComboDecl& d, Binding<QVariant> b) {
  QComboBox* c = addLabelledCombo(current(), d.key, d.label, d.tooltip, kLabelWidth);
  alignLabels(current()->parentWidget());
  check_row_ = nullptr;
  for (const ComboItem& it : d.items) c->addItem(it.text, it.data);
  connect(c, &QComboBox::activated, this, [c, set = b.set](int i) { set(c->itemData(i)); });
  if (d.editable) {
    c->setEditable(true);
    c->setInsertPolicy(QComboBox::NoInsert);
    passAppChords(c);
    connect(c->lineEdit(), &QLineEdit::editingFinished, this, [c, set = b.set] {
      const QString typed = c->currentText().trimmed();
      const int i = c->findText(typed);
      set(i >= 0 ? c->itemData(i) : QVariant(typed));
    });
  }
  syncs_.push_back([c, get = b.get, dyn = d.dynamic_items] {
    const QSignalBlocker block(c);
    if (dyn) {
      const std::vector<ComboItem> items = dyn();
      bool same = static_cast<int>(items.size()) == c->count();
      for (int i = 0; same && i < c->count(); ++i)
        same = c->itemText(i) == items[static_cast<std::size_t>(i)].text &&
               c->itemData(i) == items[static_cast<std::size_t>(i)].data;
      if (!same) {
        c->clear();
        for (const ComboItem& it : items) c->addItem(it.text, it.data);
      }
    }
    const QVariant value = get();
    const int i = c->findData(value);
    if (i < 0 && c->isEditable()) {
      c->setCurrentIndex(-1);
      c->setEditText(value.toString());
    } else {
      c->setCurrentIndex(std::max(i, 0));
    }
  });
  return c;
}

QCheckBox* ControlColumn::check(const CheckDecl& d, Binding<bool> b) {
  QVBoxLayout* g = current();
  if (!d.same_row || !check_row_) {
    auto* row = new QWidget(g->parentWidget());
    check_row_ = new QHBoxLayout(row);
    check_row_->setContentsMargins(0, 0, 0, 0);
    g->addWidget(row);
  }
  auto* c = new QCheckBox(d.label, check_row_->parentWidget());
  c->setObjectName(d.key);
  c->setToolTip(d.tooltip);
  check_row_->addWidget(c);
  connect(c, &QCheckBox::toggled, this, [set = b.set](bool on) { set(on); });
  syncs_.push_back([c, get = b.get] {
    const QSignalBlocker block(c);
    c->setChecked(get());
  });
  return c;
}

void setCheckUnused(QCheckBox* box, const QString& why, std::optional<bool> in_use) {
  // The box's own tooltip, kept the first time it is replaced.
  const char* kOwnTip = "napkinOwnToolTip";
  if (!box->property(kOwnTip).isValid()) box->setProperty(kOwnTip, box->toolTip());
  const QString own = box->property(kOwnTip).toString();
  if (!why.isEmpty() && in_use) {
    const QSignalBlocker block(box);
    box->setChecked(*in_use);
  }
  box->setEnabled(why.isEmpty());
  QString tip = why.isEmpty() ? own : why;
  if (!why.isEmpty() && !own.isEmpty()) tip += QStringLiteral("\n\n") + own;
  box->setToolTip(tip);
}

void ControlColumn::finish() {
  layout_->addStretch(1);
  finished_ = true;
  fitWidth();
}

void ControlColumn::fitWidth() {
  // Wide enough for every row without a horizontal scroll bar.
  setMinimumWidth(host_->minimumSizeHint().width() + verticalScrollBar()->sizeHint().width() + 2);
}

void ControlColumn::sync() {
  for (const auto& s : syncs_) s();
}

}  // namespace napkin
