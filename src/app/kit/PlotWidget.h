// A QCustomPlot with what every Napkin plot offers: a hover read-out of the
// nearest data point (kept inside the axes, off the tick labels), axis
// formatting with units, log axes, tick labels that never overlap, integer
// ticks where only whole numbers mean something, a redraw memo, the faded
// dashed "ghost" copies a pinned baseline draws behind the current curves, and
// a context menu to save the plot (PNG, vector PDF) and its data (CSV), or copy
// the data.
//
// A plot class derives from PlotWidget and draws from a view struct:
//   void draw(const View& v) { if (!inputsChanged(v.x, v.y)) return; ...; requestReplot(); }
// and draws a baseline's view through ghost(graph) copies of its graphs.
#pragma once

#include <qcustomplot.h>
#include <concepts>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "PlotStyle.h"

namespace napkin {

// The numbers a plot was last drawn from, as one comparable key.
class RedrawMemo {
 public:
  // True, and remembers `values`, when they differ from the last call.
  template <typename... T>
  bool remember(const T&... values) {
    next_.clear();
    (add(values), ...);
    if (next_ == last_ && valid_) return false;
    last_.swap(next_);
    valid_ = true;
    return true;
  }
  // Forgets the last inputs: the next remember() is true.
  void invalidate() { valid_ = false; }

 private:
  template <typename T>
  requires std::is_arithmetic_v<T> || std::is_enum_v<T>
  void add(T v) { next_.push_back(static_cast<double>(v)); }
  void add(const std::string& s) {
    next_.push_back(static_cast<double>(std::hash<std::string>{}(s)));
  }
  void add(const QString& s) { next_.push_back(static_cast<double>(qHash(s))); }
  void add(const std::vector<double>& v) {
    next_.push_back(static_cast<double>(v.size()));
    next_.insert(next_.end(), v.begin(), v.end());
  }
  template <typename T>
  void add(const std::optional<T>& v) {
    next_.push_back(v.has_value() ? 1.0 : 0.0);
    if (v) add(*v);
  }
  // Any curve with x and y vectors (the model's Curve).
  template <typename C>
  requires requires(const C& c) {
    { c.x } -> std::convertible_to<const std::vector<double>&>;
    { c.y } -> std::convertible_to<const std::vector<double>&>;
  }
  void add(const C& c) {
    add(c.x);
    add(c.y);
  }

  std::vector<double> last_, next_;
  bool valid_ = false;
};

// An axis title that fits `room` px: as is when it does, else broken between
// words so no line is wider (a word longer than the room stays whole).
QString fitted_axis_title(const QString& title, const QFontMetricsF& fm, double room);
// The room an axis title has on a chart of w × h laid out at that size:
// QCustomPlot centres a title on the axis rect, not on the chart, so it
// reaches as far as the nearer edge of the chart (width for a horizontal
// axis, height for a vertical one).
double axis_title_room(const QCPAxis* axis, int w, int h);

class PlotWidget : public QCustomPlot {
  Q_OBJECT
 public:
  using Formatter = std::function<QString(double)>;

  explicit PlotWidget(const QString& title, QWidget* parent = nullptr);

  void setXAxis(const QString& label, bool log, Formatter fmt = {});
  void setYAxis(const QString& label, bool log, Formatter fmt = {});
  // The right-hand value axis, shown.
  void setY2Axis(const QString& label, bool log, Formatter fmt = {});
  // Ticks at whole numbers only (expert indices, counts): no "2.5".
  void setIntegerTicks(QCPAxis* axis);
  // Formatters for the hover read-out (default: the axis formatters).
  void setHoverFormat(Formatter x, Formatter y);

  // The redraw memo: a plot class draws only when inputsChanged(...) is true.
  template <typename... T>
  bool inputsChanged(const T&... values) {
    return memo_.remember(values...);
  }
  void invalidate() { memo_.invalidate(); }

  // The plotted data as CSV: one block per graph / bar set, "series,x,y".
  QString dataCsv() const;
  // Writes the plot as PNG (".png") or vector PDF, or its data as CSV
  // (".csv"), rendered in memory and written through the atomic writer: false
  // with *error (the path and the reason) on failure, the previous file then
  // untouched.
  bool exportTo(const QString& path, QString* error = nullptr);
  // The plot as a one-page vector PDF (empty when it cannot be painted).
  QByteArray pdfBytes();
  // The hover read-out text currently shown ("" when none).
  QString hoverText() const;
  // Where the hover read-out is drawn, in widget pixels (empty when hidden).
  QRectF hoverRect() const;
  // Shows the read-out for the data point nearest to a widget position.
  void hoverAt(const QPointF& pos);
  // Requests a replot at the next event-loop turn; bursts merge into one. A
  // plot scrolled out of view replots when it is next painted, so a change
  // pays only for the plots a person can see.
  void requestReplot();
  // While a slider is dragged, draw without antialiasing (a frame's budget);
  // the release redraws at full quality.
  void setDragMode(bool dragging);
  // The title `axis` was given, before it was wrapped to fit the plot (every
  // replot breaks a title wider than its room between words).
  QString axisTitle(const QCPAxis* axis) const;
  // Shows the legend as one row under the plot, where it covers no data.
  void showLegendBelow(int columns = 4);
  QString title() const { return title_; }
  // Colours the frame of the plot (background, axes, grid, title, legend,
  // notes) from the palette a widget palette calls for: the system's light or
  // dark one on screen. Data colours are left alone.
  void applyPalette(const QPalette& palette);
  void applyPlotPalette(const PlotPalette& palette);
  const PlotPalette& plotPalette() const { return palette_; }
  // Notes drawn in the one note style (PlotItems' Note registers itself).
  void registerNote(QCPItemText* note);

  // --- a pinned baseline's ghosts
  // The faded, dashed copy of `graph` that draws the baseline's data behind
  // it (created on first use; the legend gains one "baseline" entry).
  QCPGraph* ghost(QCPGraph* graph);
  // The ghost of `graph` drawn as a dash `half_width` px either side of each
  // point (a baseline's bar totals, across the tops of the current bars).
  QCPGraph* ghostBarTops(QCPGraph* graph, int half_width = 14);
  // Shows or hides every ghost and the "baseline" legend entry.
  void setBaselineVisible(bool on);
  bool baselineVisible() const { return baseline_visible_; }
  int ghostCount() const { return static_cast<int>(ghosts_.size()); }

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;
  void paintEvent(QPaintEvent* event) override;

 private:
  void showMenu(const QPoint& pos);
  void saveImage();
  void saveCsv();
  void setupAxis(QCPAxis* axis, const QString& label, bool log, const Formatter& fmt);
  void fitAxisTitles();  // before each replot

  QString title_;
  Formatter x_fmt_, y_fmt_, hover_x_, hover_y_;
  QCPItemText* hover_label_ = nullptr;
  QCPItemTracer* hover_dot_ = nullptr;
  RedrawMemo memo_;
  PlotPalette palette_ = PlotPalette::light();
  std::vector<QPointer<QCPItemText>> notes_;
  std::vector<std::pair<QCPGraph*, QCPGraph*>> ghosts_;  // (graph, its ghost)
  QCPGraph* baseline_legend_ = nullptr;
  bool baseline_visible_ = true;
  bool unseen_changes_ = false;  // changed while scrolled out of view
  struct AxisTitle {
    QString given, shown;  // as the plot set it; as drawn (wrapped to fit)
  };
  std::vector<std::pair<const QCPAxis*, AxisTitle>> titles_;
};

// Shared number formats for axes and read-outs.
// Axis and hover formats: three significant digits, no trailing zeros.
QString fmtSi(double v);       // 1.2K, 3.4M, 5.6B, 7.8T, 1e15
QString fmtSci(double v);      // 1e24, 2.5e24
QString fmtBytes(double v);    // 185 GB, 1.25 TB
QString fmtPercent(double v);  // 0.35 → 35 %

}  // namespace napkin
