// The page every panel is built on: its control column on the left and, on
// the right, what it shows in a page that scrolls vertically (so every
// read-out and plot is reachable on a small screen), with titled boxes.
#pragma once

#include <QSize>
#include <QString>
#include <vector>

class QGroupBox;
class QHBoxLayout;
class QScrollArea;
class QVBoxLayout;
class QWidget;

namespace napkin {

class ControlColumn;
class ReflowGrid;

// The panel's root layout with `column` added on the left; the caller adds
// the results (a scroll area or a layout) with stretch 1.
QHBoxLayout* panelRoot(QWidget* panel, ControlColumn* column);

// The usual page: `column` on the left and a scrolling page "resultsScroll"
// filling the rest; `*page` receives the page's layout to fill.
QScrollArea* resultsPage(QWidget* panel, ControlColumn* column, QVBoxLayout** page);

// A vertically scrolling page named `name` (what tests look for), its frame
// the form ui/ScrollingPage.ui; `*page` receives the layout to fill. The
// scroll area owns the page.
QScrollArea* scrollingPage(QWidget* parent, const QString& name, QVBoxLayout** page);

// The panel's plots (and any boxes among them) in a grid named `name` (what
// tests look for) that reflows from `max_columns` columns to two or one, each
// cell at least `min_cell`; added to `page` with stretch 1.
ReflowGrid* addPlotGrid(QVBoxLayout* page, const QString& name, const std::vector<QWidget*>& cells,
                        QSize min_cell, int max_columns = 3);

// A titled box around one widget: read-outs, checks, a table.
QGroupBox* titledBox(const QString& title, QWidget* content, QWidget* parent);

}  // namespace napkin
