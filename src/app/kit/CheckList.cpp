#include "CheckList.h"

#include <QTextDocument>
#include <cmath>
#include <memory>
#include <vector>

#include "PlotStyle.h"

namespace napkin {

CheckList::CheckList(QWidget* parent) : QTextBrowser(parent) {
  setFrameShape(QFrame::NoFrame);
  setOpenLinks(false);
  setVerticalScrollBarPolicy(Qt::ScrollBarAsNeeded);
  viewport()->setAutoFillBackground(false);
  setStyleSheet(QStringLiteral("background: transparent; color: palette(window-text);"));
  document()->setDocumentMargin(2);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.92);
  setFont(small);
}

void CheckList::setChecks(const std::vector<CheckItem>& checks) {
  QString html = QStringLiteral("<table cellspacing='3'>");
  for (const CheckItem& c : checks)
    html +=
        QStringLiteral(
            "<tr><td valign='top'><span style='background:%1;color:white;font-weight:bold'>"
            "&nbsp;%2&nbsp;</span></td><td><b>%3</b>: %4</td></tr>")
            .arg((c.ok ? plot_color::ok : plot_color::fail).name(), c.ok ? tr("OK") : tr("FAIL"),
                 c.name.toHtmlEscaped(), c.detail.toHtmlEscaped());
  html += QStringLiteral("</table>");
  checks_ = checks;
  if (html == html_) return;
  html_ = html;
  setHtml(html);
  // The row it sits in grows when the checks need more room than they have,
  // and shrinks only when they need two lines less (numbers that change with
  // every slider tick must not relayout the window on every tick).
  const int h = static_cast<int>(std::ceil(document()->size().height()));
  const int line = fontMetrics().height();
  if (h > std::max(height_, viewport()->height()) || (!hold_ && h < height_ - 2 * line)) {
    height_ = h;
    cached_.clear();
    updateGeometry();
  }
}

void CheckList::setHoldHeight(bool hold) {
  if (hold == hold_) return;
  hold_ = hold;
  if (hold) {
    unheld_minimum_height_ = minimumHeight();
    setMinimumHeight(std::max(minimumHeight(), height()));
    return;
  }
  setMinimumHeight(unheld_minimum_height_);
  height_ = static_cast<int>(std::ceil(document()->size().height()));
  cached_.clear();
  updateGeometry();
}

int CheckList::heightForWidth(int width) const {
  for (const auto& [w, h] : cached_)
    if (w == width) return h;
  const std::unique_ptr<QTextDocument> doc(document()->clone());
  doc->setTextWidth(std::max(40, width - 2 * frameWidth() - 4));
  const int h = static_cast<int>(std::ceil(doc->size().height())) + 2 * frameWidth() + 4;
  if (cached_.size() > 8) cached_.clear();
  cached_.emplace_back(width, h);
  return h;
}

QSize CheckList::sizeHint() const {
  const int w = QTextBrowser::sizeHint().width();
  return {w, heightForWidth(width() > 0 ? width() : w)};
}

}  // namespace napkin
