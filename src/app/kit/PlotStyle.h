// One look for every plot: the data colours (defined once, so "orange" is the
// same orange on every panel), the frame palettes (light and dark screens, the
// printed report), fonts and pens, and the faded dashed pen of a baseline's
// ghost curves.
#pragma once

#include <QColor>
#include <QFont>
#include <QPalette>
#include <QPen>

namespace napkin {

// Data colours. Line colours follow the Tableau 10 set; the "part" colours
// (stacked components such as weights, gradients, optimizer states) follow a
// muted set that reads well as filled areas.
namespace plot_color {
inline const QColor blue{31, 119, 180};
inline const QColor orange{255, 127, 14};
inline const QColor green{44, 160, 44};
inline const QColor red{200, 30, 30};
inline const QColor purple{128, 80, 170};
inline const QColor gray{120, 120, 120};
inline const QColor teal{23, 150, 160};
inline const QColor dark{40, 40, 40};
// Filled parts.
inline const QColor part_blue{76, 114, 176};
inline const QColor part_green{85, 168, 104};
inline const QColor part_red{196, 78, 82};
inline const QColor part_purple{129, 114, 178};
inline const QColor part_orange{221, 132, 82};
inline const QColor part_gray{150, 150, 150};
inline const QColor part_light{205, 205, 205};
// Verdicts, shared with the read-outs.
inline const QColor ok{46, 125, 50};
inline const QColor warn{200, 120, 0};
inline const QColor fail{198, 40, 40};
}  // namespace plot_color

// The colours of a plot's frame (not its data).
struct PlotPalette {
  QColor background;
  QColor text;       // axes, ticks, labels, title, legend, notes
  QColor grid;       // dotted major grid
  QColor note_fill;  // behind notes, so they stay readable over curves
  QColor hover_fill;
  bool dark = false;

  static PlotPalette light();
  static PlotPalette darkScreen();
  // Paper: the light palette with pure white and black.
  static PlotPalette report();
  // The light or dark palette, whichever matches a widget palette.
  static PlotPalette fromWidget(const QPalette& palette);
};

// Fonts, derived from the widget font so they follow the desktop's size.
struct PlotFonts {
  static QFont tick(const QFont& base);   // tick labels, axis labels, legend
  static QFont title(const QFont& base);  // the plot title
  static QFont note(const QFont& base);   // notes inside the axes
  static QFont small(const QFont& base);  // labels on bars
};

// A cosmetic pen of `width` px.
QPen plotPen(const QColor& color, double width = 1.8, Qt::PenStyle style = Qt::SolidLine);
// The pen of a baseline's ghost: the same colour, faded, dashed.
QPen ghostPen(const QPen& pen);
QColor ghostColor(const QColor& color);

}  // namespace napkin
