#include "report/ReportLayout.h"

#include <qcustomplot.h>
#include <QPagedPaintDevice>
#include <QPicture>

#include "PlotWidget.h"

namespace napkin {

namespace {

constexpr double kHeaderGap = 26;
constexpr double kChartHeight = 250;
constexpr double kWideChartHeight = 290;

const char* kCss =
    "body { font-family: 'DejaVu Sans'; font-size: 9pt; color: #202020; }"
    "h1 { font-size: 18pt; margin: 0 0 4px 0; } h2 { font-size: 13pt; margin: 10px 0 4px 0; color: "
    "#1f4e79; }"
    "h3 { font-size: 10pt; margin: 8px 0 2px 0; }"
    "table { border-collapse: collapse; } td, th { padding: 1px 6px; }"
    "th { text-align: left; background: #e8eef5; } .num { text-align: right; }"
    ".ok { background: #2e7d32; color: white; font-weight: bold; }"
    ".fail { background: #c62828; color: white; font-weight: bold; }"
    ".warn { background: #c87800; color: white; font-weight: bold; }"
    ".muted { color: #606060; } .formula { font-family: 'DejaVu Sans Mono'; font-size: 8.5pt; }";

// Breaks an axis title between words so no line is wider than `width`.
QString wrapped(const QString& text, const QFontMetricsF& fm, double width) {
  QStringList lines;
  QString line;
  for (const QString& word : text.split(QLatin1Char(' '))) {
    const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
    if (!line.isEmpty() && fm.horizontalAdvance(longer) > width) {
      lines << line;
      line = word;
    } else {
      line = longer;
    }
  }
  lines << line;
  return lines.join(QLatin1Char('\n'));
}

// A chart on the page is narrower than on screen: an axis title longer than
// its axis wraps for the page (and is put back after).
std::vector<std::pair<QCPAxis*, QString>> wrapAxisTitles(PlotWidget* chart, int w, int h) {
  std::vector<std::pair<QCPAxis*, QString>> saved;
  for (QCPAxis* axis : chart->axisRect()->axes()) {
    const QString title = axis->label();
    const QFontMetricsF fm(axis->labelFont());
    const double room = (axis->orientation() == Qt::Horizontal ? w : h) - 24.0;
    if (title.isEmpty() || title.contains(QLatin1Char('\n')) || fm.horizontalAdvance(title) <= room)
      continue;
    saved.emplace_back(axis, title);
    axis->setLabel(wrapped(title, fm, room));
  }
  return saved;
}

}  // namespace

void ReportLayout::html(const QString& body) {
  Block b;
  b.doc = std::make_unique<QTextDocument>();
  b.doc->setDefaultStyleSheet(QString::fromLatin1(kCss));
  QFont f(QStringLiteral("DejaVu Sans"));
  f.setPointSizeF(9);
  b.doc->setDefaultFont(f);
  b.doc->setDocumentMargin(0);
  b.doc->setTextWidth(width_);
  b.doc->setHtml(QStringLiteral("<body>") + body + QStringLiteral("</body>"));
  b.height = b.doc->size().height() + 6;
  blocks_.push_back(std::move(b));
}

void ReportLayout::charts(std::vector<PlotWidget*> row) {
  Block b;
  b.charts = std::move(row);
  b.height = (b.charts.size() == 1 ? kWideChartHeight : kChartHeight) + 8;
  blocks_.push_back(std::move(b));
}

void ReportLayout::pageBreak() {
  Block b;
  b.page_break = true;
  blocks_.push_back(std::move(b));
}

int ReportLayout::paint(QCPPainter* painter, QPagedPaintDevice* device, const QString& header,
                        const QString& date) const {
  const double page_w = device->width(), page_h = device->height();
  const double top = kReportMargin + kHeaderGap, bottom = page_h - kReportMargin;
  std::vector<std::vector<std::pair<const Block*, double>>> pages(1);
  double y = top;
  for (const Block& blk : blocks_) {
    if (blk.page_break) {
      if (!pages.back().empty()) {
        pages.emplace_back();
        y = top;
      }
      continue;
    }
    if (y + blk.height > bottom && !pages.back().empty()) {
      pages.emplace_back();
      y = top;
    }
    pages.back().push_back({&blk, y});
    y += blk.height;
  }
  const int total = static_cast<int>(pages.size());
  QFont small(QStringLiteral("DejaVu Sans"));
  small.setPointSizeF(7.5);
  for (int i = 0; i < total; ++i) {
    if (i > 0) device->newPage();
    painter->setFont(small);
    painter->setPen(QColor(90, 90, 90));
    const QFontMetricsF fm(small, device);
    const double date_w = fm.horizontalAdvance(date) + 16;
    painter->drawText(QRectF(kReportMargin, kReportMargin - 10, width_ - date_w, 16),
                      Qt::AlignLeft | Qt::AlignVCenter,
                      fm.elidedText(header, Qt::ElideRight, width_ - date_w));
    painter->drawText(QRectF(kReportMargin, kReportMargin - 10, width_, 16),
                      Qt::AlignRight | Qt::AlignVCenter, date);
    painter->drawLine(QPointF(kReportMargin, kReportMargin + 10),
                      QPointF(page_w - kReportMargin, kReportMargin + 10));
    painter->drawText(QRectF(kReportMargin, page_h - kReportMargin + 10, width_, 16),
                      Qt::AlignHCenter | Qt::AlignVCenter,
                      QObject::tr("Page %1 of %2").arg(i + 1).arg(total));
    for (const auto& [blk, at] : pages[static_cast<std::size_t>(i)]) {
      if (blk->doc) {
        painter->save();
        painter->translate(kReportMargin, at);
        blk->doc->drawContents(painter, QRectF(0, 0, width_, blk->height));
        painter->restore();
      } else {
        const double gap = 12;
        const double n = static_cast<double>(blk->charts.size());
        const double w = (width_ - gap * (n - 1)) / n;
        for (std::size_t c = 0; c < blk->charts.size(); ++c) {
          painter->save();
          painter->translate(kReportMargin + static_cast<double>(c) * (w + gap), at);
          const int cw = static_cast<int>(w), ch = static_cast<int>(blk->height - 8);
          const auto titles = wrapAxisTitles(blk->charts[c], cw, ch);
          {
            // QCustomPlot places (and thins) the ticks before it lays the axes
            // out: a first pass at the chart's size on the page, so the
            // labels are spaced for this width, not the screen's ("100 ms200 ms").
            QPicture scratch;
            QCPPainter layout(&scratch);
            blk->charts[c]->toPainter(&layout, cw, ch);
          }
          blk->charts[c]->toPainter(painter, cw, ch);
          for (const auto& [axis, title] : titles) axis->setLabel(title);
          painter->restore();
        }
      }
    }
  }
  return total;
}

}  // namespace napkin
