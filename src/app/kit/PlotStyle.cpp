#include "PlotStyle.h"

namespace napkin {

PlotPalette PlotPalette::light() {
  PlotPalette p;
  p.background = QColor(255, 255, 255);
  p.text = QColor(30, 30, 30);
  p.grid = QColor(30, 30, 30, 45);
  p.note_fill = QColor(255, 255, 255, 215);
  p.hover_fill = QColor(255, 255, 240, 235);
  return p;
}

PlotPalette PlotPalette::darkScreen() {
  PlotPalette p;
  p.background = QColor(30, 30, 30);
  p.text = QColor(220, 220, 220);
  p.grid = QColor(220, 220, 220, 70);
  p.note_fill = QColor(30, 30, 30, 215);
  p.hover_fill = QColor(60, 60, 50, 235);
  p.dark = true;
  return p;
}

PlotPalette PlotPalette::report() {
  PlotPalette p = light();
  p.text = QColor(0, 0, 0);
  p.grid = QColor(0, 0, 0, 45);
  return p;
}

PlotPalette PlotPalette::fromWidget(const QPalette& palette) {
  const QColor base = palette.color(QPalette::Base), text = palette.color(QPalette::WindowText);
  PlotPalette p = base.lightness() < 128 ? darkScreen() : light();
  p.background = base;
  p.text = text;
  p.grid = text;
  p.grid.setAlpha(p.dark ? 70 : 45);
  p.note_fill = base;
  p.note_fill.setAlpha(215);
  return p;
}

namespace {
QFont sized(const QFont& base, double points, bool bold = false) {
  QFont f = base;
  f.setPointSizeF(points);
  f.setBold(bold);
  return f;
}
}  // namespace

QFont PlotFonts::tick(const QFont& base) { return sized(base, 8.5); }
QFont PlotFonts::title(const QFont& base) { return sized(base, 9.5, true); }
QFont PlotFonts::note(const QFont& base) { return sized(base, 8); }
QFont PlotFonts::small(const QFont& base) { return sized(base, 7.5); }

QPen plotPen(const QColor& color, double width, Qt::PenStyle style) {
  QPen p(color, width);
  p.setStyle(style);
  return p;
}

QColor ghostColor(const QColor& color) {
  QColor c = color;
  c.setAlpha(std::max(40, color.alpha() * 45 / 100));
  return c;
}

QPen ghostPen(const QPen& pen) {
  QPen p = pen;
  p.setColor(ghostColor(pen.color()));
  p.setStyle(Qt::DashLine);
  return p;
}

}  // namespace napkin
