// Lays out widgets (plots) in as many columns as fit — three, two or one —
// each cell at least `min_cell`; the rows share the height they get. Inside a
// scroll area a narrow window gets one or two columns and scrolls, instead of
// squeezing the plots or pushing them off screen.
#pragma once

#include <QWidget>
#include <vector>

namespace napkin {

class ReflowGrid : public QWidget {
  Q_OBJECT
 public:
  explicit ReflowGrid(QWidget* parent = nullptr);

  void setMinimumCell(const QSize& cell);
  void setMaxColumns(int n);
  void addWidget(QWidget* w);
  int columns() const { return columns_; }
  int columnsFor(int width) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void relayout();
  int rowsFor(int columns) const;

  std::vector<QWidget*> items_;
  QSize min_cell_{300, 240};
  int max_columns_ = 3;
  int columns_ = 3;
  int spacing_ = 4;
};

}  // namespace napkin
