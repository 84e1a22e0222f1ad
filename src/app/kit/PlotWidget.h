// A QCustomPlot with what every Napkin plot offers: a hover read-out of the
// nearest data point, axis formatting with units, log axes, and a context
// menu to save the plot (PNG, vector PDF) and its data (CSV), or copy the data.
#pragma once

#include <qcustomplot.h>
#include <functional>

namespace napkin {

class PlotWidget : public QCustomPlot {
  Q_OBJECT
 public:
  using Formatter = std::function<QString(double)>;

  explicit PlotWidget(const QString& title, QWidget* parent = nullptr);

  void setXAxis(const QString& label, bool log, Formatter fmt = {});
  void setYAxis(const QString& label, bool log, Formatter fmt = {});
  // Formatters for the hover read-out (default: the axis formatters).
  void setHoverFormat(Formatter x, Formatter y);

  // The plotted data as CSV: one block per graph / bar set, "series,x,y".
  QString dataCsv() const;
  // The hover read-out text currently shown ("" when none).
  QString hoverText() const;
  // Shows the read-out for the data point nearest to a widget position.
  void hoverAt(const QPointF& pos);
  // Requests a replot at the next event-loop turn; bursts merge into one.
  void requestReplot() { replot(QCustomPlot::rpQueuedReplot); }
  // While a slider is dragged, draw without antialiasing (a frame's budget);
  // the release redraws at full quality.
  void setDragMode(bool dragging);
  // Shows the legend as one row under the plot, where it covers no data.
  void showLegendBelow(int columns = 4);
  QString title() const { return title_; }
  // Colours the frame of the plot (background, axes, grid, title, legend,
  // notes) from a palette: the system's light or dark one on screen, a light
  // one in the printed report. Data colours are left alone.
  void applyPalette(const QPalette& palette);

 protected:
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;

 private:
  void showMenu(const QPoint& pos);
  void saveImage();
  void saveCsv();

  QString title_;
  Formatter x_fmt_, y_fmt_, hover_x_, hover_y_;
  QCPItemText* hover_label_ = nullptr;
  QCPItemTracer* hover_dot_ = nullptr;
};

// Shared number formats for axes and read-outs.
// Axis and hover formats: three significant digits, no trailing zeros.
QString fmtSi(double v);       // 1.2K, 3.4M, 5.6B, 7.8T, 1e15
QString fmtSci(double v);      // 1e24, 2.5e24
QString fmtBytes(double v);    // 185 GB, 1.25 TB
QString fmtPercent(double v);  // 0.35 → 35 %

}  // namespace napkin
