#include "ReadoutGrid.h"

#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QEvent>
#include <QMenu>
#include <QRegularExpression>
#include <cmath>

#include "PlotStyle.h"
#include "ReadableTooltips.h"

namespace napkin {

namespace {

constexpr int kGap = 6;         // between name, value and change
constexpr int kColumnGap = 18;  // between two columns of rows
constexpr int kMargin = 4;

QString defaultFormat(double v) { return QString::number(v, 'g', 3); }

QColor toneColor(Tone t, const QPalette& pal) {
  switch (t) {
    case Tone::ok: return plot_color::ok;
    case Tone::warn: return plot_color::warn;
    case Tone::fail: return plot_color::fail;
    case Tone::normal: break;
  }
  return pal.color(QPalette::WindowText);
}

}  // namespace

NumberLabel::NumberLabel(QWidget* parent) : QLabel(parent) {
  setTextFormat(Qt::PlainText);
  setFocusPolicy(Qt::ClickFocus);
}

void NumberLabel::setSelectable(bool on) {
  const Qt::TextInteractionFlags flags =
      on ? Qt::TextSelectableByMouse | Qt::TextSelectableByKeyboard : Qt::NoTextInteraction;
  if (textInteractionFlags() != flags) setTextInteractionFlags(flags);
}

void NumberLabel::enterEvent(QEnterEvent* event) {
  setSelectable(true);
  QLabel::enterEvent(event);
}

void NumberLabel::leaveEvent(QEvent* event) {
  QLabel::leaveEvent(event);
  if (!hasSelectedText() && !hasFocus()) setSelectable(false);
}

void NumberLabel::mousePressEvent(QMouseEvent* event) {
  setSelectable(true);
  QLabel::mousePressEvent(event);
}

void NumberLabel::mouseDoubleClickEvent(QMouseEvent* event) {
  setSelectable(true);
  QLabel::mouseDoubleClickEvent(event);
  const int start = selectionStart();
  if (start < 0) return;
  // Widen the word Qt selected to the whole whitespace-delimited token,
  // without trailing punctuation: "2.956e+24", "$72,576", "−15.7".
  const QString t = text();
  int a = start, b = start + static_cast<int>(selectedText().size());
  while (a > 0 && !t[a - 1].isSpace()) --a;
  while (b < t.size() && !t[b].isSpace()) ++b;
  while (b > a && QStringLiteral(",;:").contains(t[b - 1])) --b;
  setSelection(a, b - a);
}

ReadoutGrid::ReadoutGrid(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
  sections_.push_back({});  // rows before any addSection()
  measure();
}

ReadoutGrid::Section ReadoutGrid::addSection(const QString& title) {
  SectionWidgets s;
  s.title = new QLabel(title, this);
  QFont f = s.title->font();
  f.setBold(true);
  f.setPointSizeF(f.pointSizeF() * 0.92);
  s.title->setFont(f);
  s.title->setForegroundRole(QPalette::PlaceholderText);
  s.title->setWordWrap(true);  // a long title wraps on a narrow window, never clips
  sections_.push_back(s);
  measure();
  relayout();
  updateGeometry();
  return {static_cast<int>(sections_.size()) - 1};
}

void ReadoutGrid::setSectionTitle(Section s, const QString& title) {
  QLabel* l = sections_.at(static_cast<std::size_t>(s.index)).title;
  if (!l || l->text() == title) return;
  const int before = titleHeight(l, width());
  l->setText(title);
  if (titleHeight(l, width()) != before) {  // it wraps onto more or fewer lines
    relayout();
    updateGeometry();
  }
}

int ReadoutGrid::titleHeight(const QLabel* title, int width) const {
  if (width <= 2 * kMargin) return title_h_;
  // One line (the usual case, and on every tick of a drag): no text layout.
  if (title->fontMetrics().horizontalAdvance(title->text()) <= width - 2 * kMargin) return title_h_;
  return std::max(title_h_, title->heightForWidth(width - 2 * kMargin));
}

QString ReadoutGrid::sectionTitle(Section s) const {
  const QLabel* l = sections_.at(static_cast<std::size_t>(s.index)).title;
  return l ? l->text() : QString();
}

ReadoutGrid::Row ReadoutGrid::add(const ReadoutSpec& spec) {
  RowWidgets r;
  r.spec = spec;
  if (!r.spec.format) r.spec.format = defaultFormat;
  r.section = static_cast<int>(sections_.size()) - 1;
  r.name = new QLabel(spec.name + QLatin1Char(':'), this);
  r.name->setToolTip(wrappedTip(spec.tooltip));
  r.value = new NumberLabel(this);
  r.value->setObjectName(QStringLiteral("readout_") + spec.key);
  r.value->setAccessibleName(spec.name);
  r.value->setToolTip(wrappedTip(spec.tooltip));
  r.value->setContextMenuPolicy(Qt::NoContextMenu);  // the grid's menu copies
  QFont bold = r.value->font();
  bold.setBold(true);
  r.value->setFont(bold);
  r.delta = new QLabel(this);
  r.delta->setObjectName(QStringLiteral("delta_") + spec.key);
  r.delta->setVisible(false);
  const int index = static_cast<int>(rows_.size());
  sections_.back().rows.push_back(index);
  rows_.push_back(r);
  measure();
  relayout();
  updateGeometry();
  return {index};
}

void ReadoutGrid::set(Row row, const Readout& readout) {
  RowWidgets& r = rows_.at(static_cast<std::size_t>(row.index));
  const bool tone_changed = r.readout.tone != readout.tone;
  const bool note_changed = r.readout.note != readout.note;
  r.readout = readout;
  const QString shown =
      readout.unit.isEmpty() ? readout.value : readout.value + QLatin1Char(' ') + readout.unit;
  if (r.value->text() != shown) r.value->setText(shown);
  if (note_changed) {
    const QString tip = readout.note.isEmpty() ? r.spec.tooltip
                                               : r.spec.tooltip + QLatin1Char('\n') +
                                                     tr("About: %1").arg(readout.note);
    r.value->setToolTip(wrappedTip(tip));
    r.name->setToolTip(wrappedTip(tip));
  }
  if (tone_changed) applyTone(r);
  if (QFontMetrics(r.value->font()).horizontalAdvance(shown) + 2 > value_w_) {
    measure();
    relayout();
  }
  updateDelta(r);
  if (QFontMetrics(r.delta->font()).horizontalAdvance(r.delta->text()) + 2 > delta_w_ &&
      r.delta->isVisibleTo(this)) {
    measure();  // a longer change than any so far: the column widens, never clips it
    relayout();
  }
}

void ReadoutGrid::setBaseline(Row row, std::optional<double> number) {
  setBaseline(row, BaselineReadout{.number = number});
}

void ReadoutGrid::setBaseline(Row row, const BaselineReadout& baseline) {
  RowWidgets& r = rows_.at(static_cast<std::size_t>(row.index));
  const int delta_w = delta_w_;
  r.baseline = baseline.number;
  r.baseline_second = baseline.number ? baseline.second : std::nullopt;
  r.baseline_text = baseline.number ? baseline.text : QString();
  updateDelta(r);
  measure();
  if (delta_w_ != delta_w) relayout();
}

void ReadoutGrid::clearBaselines() {
  for (RowWidgets& r : rows_) {
    r.baseline.reset();
    r.baseline_second.reset();
    r.baseline_text.clear();
    updateDelta(r);
  }
  measure();
  relayout();
}

void ReadoutGrid::setMaxColumns(int n) {
  max_columns_ = std::max(1, n);
  relayout();
}

void ReadoutGrid::updateDelta(RowWidgets& r) {
  const QString t = [&] {
    if (!r.baseline || !r.readout.number) return QString();
    const double b = *r.baseline, v = *r.readout.number;
    if (!std::isfinite(b) || !std::isfinite(v)) return QString();
    const double d = v - b;
    // The second number's change ("+$1,234,567"), when the row has one.
    QString second;
    if (r.spec.second_format && r.baseline_second && r.readout.second &&
        std::isfinite(*r.baseline_second) && std::isfinite(*r.readout.second) &&
        *r.readout.second != *r.baseline_second) {
      const double d2 = *r.readout.second - *r.baseline_second;
      second = (d2 > 0 ? QStringLiteral("+") : QStringLiteral("\u2212")) +
               r.spec.second_format(std::fabs(d2));
    }
    if (d == 0) {
      if (!second.isEmpty()) return second;
      if (!r.baseline_text.isEmpty() && r.baseline_text != r.readout.value)
        return tr("was %1").arg(r.baseline_text);
      return tr("= baseline");
    }
    const QString sign = d > 0 ? QStringLiteral("+") : QStringLiteral("\u2212");
    const QString magnitude = r.spec.format(std::fabs(d));
    QString abs = sign + magnitude;
    // A bare number ("2.8", "2.56e23") takes the row's unit ("2.8 days",
    // "2.56e23 FLOPs"); a formatted one ("725 ms", "9.5 pp") has its own.
    static const QRegularExpression kHasUnit(QStringLiteral("[A-DF-Za-df-z%$\u00d7]"));
    if (!r.readout.unit.isEmpty() && !abs.contains(kHasUnit))
      abs += QLatin1Char(' ') + r.readout.unit;
    const QString tail = second.isEmpty() ? QString() : QStringLiteral(", ") + second;
    if (b == 0) return abs + tail;
    const QString relative =
        sign + QString::number(std::fabs(d) / std::fabs(b) * 100.0, 'f', 1) + QStringLiteral(" %");
    // A change that rounds to nothing at the row's precision ("+0.0 days")
    // shows as its relative change alone.
    static const QRegularExpression kNonZero(QStringLiteral("[1-9]"));
    if (!magnitude.contains(kNonZero)) return relative + tail;
    return relative + QStringLiteral(" (") + abs + QLatin1Char(')') + tail;
  }();
  r.delta->setText(t);
  r.delta->setVisible(!t.isEmpty());
  QColor c = palette().color(QPalette::PlaceholderText);
  if (r.baseline && r.readout.number && *r.readout.number != *r.baseline &&
      r.spec.better != Better::none) {
    const bool up = *r.readout.number > *r.baseline;
    c = up == (r.spec.better == Better::higher) ? plot_color::ok : plot_color::fail;
  }
  QPalette p = r.delta->palette();
  if (p.color(QPalette::WindowText) != c) {
    p.setColor(QPalette::WindowText, c);
    r.delta->setPalette(p);
  }
}

void ReadoutGrid::applyTone(RowWidgets& r) {
  QPalette p = palette();
  p.setColor(QPalette::WindowText, toneColor(r.readout.tone, palette()));
  r.value->setPalette(p);
}

void ReadoutGrid::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange)
    for (RowWidgets& r : rows_) {
      applyTone(r);
      updateDelta(r);
    }
  if (event->type() == QEvent::FontChange) {
    measure();
    relayout();
  }
}

QString ReadoutGrid::text(Row row) const {
  const Readout& r = readout(row);
  return r.unit.isEmpty() ? r.value : r.value + QLatin1Char(' ') + r.unit;
}

QString ReadoutGrid::name(Row row) const {
  return rows_.at(static_cast<std::size_t>(row.index)).spec.name;
}

const Readout& ReadoutGrid::readout(Row row) const {
  return rows_.at(static_cast<std::size_t>(row.index)).readout;
}

QString ReadoutGrid::deltaText(Row row) const {
  return rows_.at(static_cast<std::size_t>(row.index)).delta->text();
}

NumberLabel* ReadoutGrid::valueLabel(Row row) const {
  return rows_.at(static_cast<std::size_t>(row.index)).value;
}

std::vector<ReportRow> ReadoutGrid::reportRows() const {
  std::vector<ReportRow> out;
  for (const RowWidgets& r : rows_)
    out.push_back({r.spec.name, r.readout.value, r.readout.unit, r.readout.note, r.readout.tone});
  return out;
}

std::vector<ReportTable> ReadoutGrid::reportTables() const {
  std::vector<ReportTable> out;
  for (const SectionWidgets& s : sections_) {
    if (s.rows.empty()) continue;
    ReportTable t{s.title ? s.title->text() : QString(), {}};
    for (int i : s.rows) {
      const RowWidgets& r = rows_[static_cast<std::size_t>(i)];
      t.rows.push_back(
          {r.spec.name, r.readout.value, r.readout.unit, r.readout.note, r.readout.tone});
    }
    out.push_back(t);
  }
  return out;
}

QString ReadoutGrid::toTsv() const {
  QString out;
  for (const SectionWidgets& s : sections_) {
    if (s.title && !s.rows.empty()) out += s.title->text() + QLatin1Char('\n');
    for (int i : s.rows) {
      const RowWidgets& r = rows_[static_cast<std::size_t>(i)];
      out += r.spec.name + QLatin1Char('\t') + r.readout.value + QLatin1Char('\t') +
             r.readout.unit + QLatin1Char('\t') + r.readout.note;
      if (!r.delta->text().isEmpty()) out += QLatin1Char('\t') + r.delta->text();
      out += QLatin1Char('\n');
    }
  }
  // Zero-width spaces (line-break hints in long notes) stay off the clipboard:
  // a layout pasted into a --layout flag must read as it prints.
  return out.remove(QChar(0x200B));
}

void ReadoutGrid::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addAction(tr("Copy read-outs"), this,
                 [this] { QApplication::clipboard()->setText(toTsv()); });
  for (const RowWidgets& r : rows_)
    if (r.value->geometry().adjusted(-kGap, 0, kGap, 0).contains(event->pos()) ||
        r.name->geometry().contains(event->pos())) {
      const QString v = r.value->text();
      menu.addAction(tr("Copy %1").arg(r.spec.name), this,
                     [v] { QApplication::clipboard()->setText(v); });
    }
  menu.exec(event->globalPos());
}

void ReadoutGrid::measure() {
  const QFontMetrics fn(font());
  QFont bold = font();
  bold.setBold(true);
  const QFontMetrics fb(bold);
  name_w_ = 0;
  for (const RowWidgets& r : rows_) {
    name_w_ = std::max(name_w_, fn.horizontalAdvance(r.name->text()) + 2);
    value_w_ = std::max({value_w_, fb.horizontalAdvance(r.spec.widest) + 2,
                         fb.horizontalAdvance(r.value->text()) + 2});
  }
  bool any_baseline = false;
  for (const RowWidgets& r : rows_) any_baseline = any_baseline || r.baseline.has_value();
  if (!any_baseline) {
    delta_w_ = 0;
  } else {
    // As wide as the longest change shown so far (it only grows while a
    // baseline is pinned, so a drag does not make the grid jump).
    delta_w_ =
        std::max(delta_w_, fn.horizontalAdvance(QStringLiteral("\u2212100.0 % (\u22121.23e+24)")));
    for (const RowWidgets& r : rows_)
      if (r.baseline) delta_w_ = std::max(delta_w_, fn.horizontalAdvance(r.delta->text()) + 2);
  }
  row_h_ = fb.height() + 4;
  title_h_ = fn.height() + 4;
}

int ReadoutGrid::cellWidth() const {
  return name_w_ + kGap + value_w_ + (delta_w_ > 0 ? kGap + delta_w_ : 0);
}

int ReadoutGrid::columnsFor(int width) const {
  const int cell = cellWidth() + kColumnGap;
  const int n = (width - 2 * kMargin + kColumnGap) / std::max(1, cell);
  return std::clamp(n, 1, max_columns_);
}

int ReadoutGrid::layoutHeight(int columns, int width) const {
  int h = 2 * kMargin;
  for (const SectionWidgets& s : sections_) {
    if (s.rows.empty()) continue;
    if (s.title) h += titleHeight(s.title, width);
    const int n = static_cast<int>(s.rows.size());
    h += (n + columns - 1) / columns * row_h_;
  }
  return h;
}

int ReadoutGrid::heightForWidth(int width) const { return layoutHeight(columnsFor(width), width); }

QSize ReadoutGrid::sizeHint() const {
  const int cols = std::min(max_columns_, std::max(1, rowCount()));
  const int w = 2 * kMargin + cols * cellWidth() + (cols - 1) * kColumnGap;
  return {w, layoutHeight(cols, w)};
}

QSize ReadoutGrid::minimumSizeHint() const {
  return {2 * kMargin + cellWidth(), layoutHeight(columnsFor(width()), width())};
}

void ReadoutGrid::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  relayout();
}

void ReadoutGrid::relayout() {
  const int cols = columnsFor(width());
  const bool changed = cols != columns_;
  columns_ = cols;
  const int cell = cellWidth() + kColumnGap;
  int y = kMargin;
  for (const SectionWidgets& s : sections_) {
    if (s.title) {
      s.title->setVisible(!s.rows.empty());
      if (!s.rows.empty()) {
        const int h = titleHeight(s.title, width());
        s.title->setGeometry(kMargin, y, std::max(0, width() - 2 * kMargin), h);
        y += h;
      }
    }
    const int n = static_cast<int>(s.rows.size());
    const int per_column = (n + cols - 1) / cols;
    for (int i = 0; i < n; ++i) {
      const RowWidgets& r = rows_[static_cast<std::size_t>(s.rows[static_cast<std::size_t>(i)])];
      const int x = kMargin + (i / per_column) * cell, ry = y + (i % per_column) * row_h_;
      r.name->setFixedSize(name_w_, row_h_);
      r.name->move(x, ry);
      int vx = x + name_w_ + kGap;
      // Fixed-size labels: a changing number does not relayout the window.
      r.value->setFixedSize(value_w_, row_h_);
      r.value->move(vx, ry);
      r.delta->setFixedSize(std::max(1, delta_w_), row_h_);
      r.delta->move(vx + value_w_ + kGap, ry);
    }
    y += per_column * row_h_;
  }
  if (changed) updateGeometry();
}

}  // namespace napkin
