#include "PanelPage.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QScrollArea>
#include <QVBoxLayout>

#include "ControlColumn.h"
#include "ReflowGrid.h"
#include "ui_ScrollingPage.h"

namespace napkin {

QHBoxLayout* panelRoot(QWidget* panel, ControlColumn* column) {
  auto* root = new QHBoxLayout(panel);
  root->setContentsMargins(4, 4, 4, 4);
  root->setSpacing(6);
  root->addWidget(column, 0);
  return root;
}

QScrollArea* scrollingPage(QWidget* parent, const QString& name, QVBoxLayout** page) {
  auto* scroll = new QScrollArea(parent);
  scroll->setObjectName(name);
  Ui::ScrollingPage ui;  // ui/ScrollingPage.ui
  ui.setupUi(scroll);
  *page = ui.page;
  return scroll;
}

ReflowGrid* addPlotGrid(QVBoxLayout* page, const QString& name, const std::vector<QWidget*>& cells,
                        QSize min_cell, int max_columns) {
  auto* grid = new ReflowGrid(page->parentWidget());
  grid->setObjectName(name);
  grid->setMinimumCell(min_cell);
  grid->setMaxColumns(max_columns);
  for (QWidget* w : cells) grid->addWidget(w);
  page->addWidget(grid, 1);
  return grid;
}

QScrollArea* resultsPage(QWidget* panel, ControlColumn* column, QVBoxLayout** page) {
  QHBoxLayout* root = panelRoot(panel, column);
  QScrollArea* scroll = scrollingPage(panel, QStringLiteral("resultsScroll"), page);
  root->addWidget(scroll, 1);
  return scroll;
}

QGroupBox* titledBox(const QString& title, QWidget* content, QWidget* parent) {
  auto* b = new QGroupBox(title, parent);
  auto* l = new QVBoxLayout(b);
  l->setContentsMargins(6, 4, 6, 4);
  l->addWidget(content);
  return b;
}

}  // namespace napkin
