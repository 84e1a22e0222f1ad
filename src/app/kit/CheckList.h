// Sanity checks as a list of OK / FAIL badges with a bold name and a detail
// that says what the check is about and its threshold. Rich text in a text
// browser: an update relayouts one document, not the window.
#pragma once

#include <QTextBrowser>
#include <vector>

namespace napkin {

struct CheckItem {
  QString name;
  bool ok = false;
  QString detail;
};

class CheckList : public QTextBrowser {
  Q_OBJECT
 public:
  explicit CheckList(QWidget* parent = nullptr);
  // Redraws only when the checks differ from those shown.
  void setChecks(const std::vector<CheckItem>& checks);
  const std::vector<CheckItem>& checks() const { return checks_; }
  // While held (a slider drag) the list grows when the checks need more room
  // and never shrinks: a check that comes and goes with the value must not
  // move and resize every plot below it tick after tick. Released, it fits
  // the checks again.
  void setHoldHeight(bool hold);
  // Tall enough for every check at a width, so none hides behind a scroll bar.
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;

 private:
  std::vector<CheckItem> checks_;
  QString html_;
  int height_ = 0;  // the document's height when last laid out
  bool hold_ = false;
  int unheld_minimum_height_ = 0;
  // heightForWidth at one width, kept until the checks' height changes (the
  // layout asks on every relayout; cloning the document each time costs a frame).
  mutable std::vector<std::pair<int, int>> cached_;  // (width, height)
};

}  // namespace napkin
