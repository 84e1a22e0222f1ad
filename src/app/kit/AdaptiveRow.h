// Two or more widgets side by side when the row is at least `breakpoint`
// pixels wide, stacked otherwise (read-outs beside the checks on a wide
// window, above them on a laptop).
#pragma once

#include <QWidget>
#include <vector>

class QBoxLayout;

namespace napkin {

class AdaptiveRow : public QWidget {
  Q_OBJECT
 public:
  explicit AdaptiveRow(int breakpoint, QWidget* parent = nullptr);
  void addWidget(QWidget* w, int stretch = 0);
  bool sideBySide() const;
  // The stacked minimum: the row never forces a horizontal scroll bar.
  QSize minimumSizeHint() const override;
  // The height at `width`, laid out as that width would lay it out.
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  int breakpoint_;
  QBoxLayout* layout_;
  std::vector<int> stretch_;
};

}  // namespace napkin
