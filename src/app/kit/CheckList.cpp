#include "CheckList.h"

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
}

}  // namespace napkin
