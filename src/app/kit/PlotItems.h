// The items plots are made of, once: vertical and horizontal markers that are
// safe on log axes (the other coordinate is a fraction of the axis rect, never
// a data value that a log axis cannot show), notes in one style, stacked bar
// sets, and curves that drop the points an axis cannot draw.
#pragma once

#include <qcustomplot.h>
#include <QString>
#include <vector>

namespace napkin {

class PlotWidget;

// A vertical line at a data x, spanning the axis rect whatever the y scale.
class VMarker {
 public:
  VMarker(PlotWidget* plot, const QPen& pen, QCPAxis* x_axis = nullptr);
  void place(double x);
  void setVisible(bool on) { line_->setVisible(on); }
  bool visible() const { return line_->visible(); }
  double x() const { return line_->point1->coords().x(); }
  QCPItemStraightLine* item() const { return line_; }

 private:
  QCPItemStraightLine* line_;
};

// A horizontal line at a data y, spanning the axis rect whatever the x scale.
class HMarker {
 public:
  HMarker(PlotWidget* plot, const QPen& pen, QCPAxis* y_axis = nullptr);
  void place(double y);
  void setVisible(bool on) { line_->setVisible(on); }
  bool visible() const { return line_->visible(); }
  double y() const { return line_->point1->coords().y(); }
  QCPItemStraightLine* item() const { return line_; }

 private:
  QCPItemStraightLine* line_;
};

// A note inside the axes, placed by fractions of the axis rect (0,0 top left;
// 1,1 bottom right) and anchored by `align`; one font, padding and fill for
// every plot, following the light or dark palette.
class Note {
 public:
  Note(PlotWidget* plot, Qt::Alignment align, double rx, double ry);
  // The text as given; where the axes are too narrow for it even at the
  // smallest note size, its clauses (", ") are drawn on lines of their own.
  void setText(const QString& text);
  QString text() const { return text_->text(); }
  // A data colour for a verdict ("does not fit" in red); default: the palette's text.
  void setColor(const QColor& c) { text_->setColor(c); }
  void setVisible(bool on) { text_->setVisible(on); }
  QCPItemText* item() const { return text_; }

 private:
  QCPItemText* text_;
};

// A label pinned to a data point (a bar's top, a marker's foot).
QCPItemText* addPointLabel(PlotWidget* plot, Qt::Alignment align);

// Bar sets stacked bottom to top, one per part (weights, grads, ...).
class StackedBars {
 public:
  struct Part {
    QString name;
    QColor color;
  };
  StackedBars(PlotWidget* plot, const std::vector<Part>& parts, double width = 0.6);
  // values[part][i] at keys[i].
  void setData(const std::vector<double>& keys, const std::vector<std::vector<double>>& values);
  QCPBars* part(std::size_t i) const { return bars_.at(i); }
  std::size_t size() const { return bars_.size(); }

 private:
  std::vector<QCPBars*> bars_;
};

// Sets a graph's data to the points both of whose coordinates are finite and,
// on a log axis, positive: a law evaluated far outside its range never puts
// nan into a plot or its CSV.
void setCurve(QCPGraph* graph, const std::vector<double>& x, const std::vector<double>& y);
template <typename C>
void setCurve(QCPGraph* graph, const C& curve) {
  setCurve(graph, curve.x, curve.y);
}

// A named graph with a pen (and optionally a scatter style and no line).
QCPGraph* addCurve(PlotWidget* plot, const QString& name, const QPen& pen,
                   const QCPScatterStyle& scatter = QCPScatterStyle(), bool line = true);

// [lo, hi] of the finite values of some vectors (for axis ranges).
struct ValueRange {
  double lo = 0, hi = 0;
  bool valid = false;
  void add(const std::vector<double>& v, bool positive_only = false);
};

}  // namespace napkin
