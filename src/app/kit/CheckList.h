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

 private:
  std::vector<CheckItem> checks_;
  QString html_;
};

}  // namespace napkin
