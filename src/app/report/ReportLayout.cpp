#include "report/ReportLayout.h"

#include <qcustomplot.h>
#include <QAbstractTextDocumentLayout>
#include <QPagedPaintDevice>
#include <QPicture>
#include <QTextBlock>
#include <QTextLayout>
#include <algorithm>

#include "PlotWidget.h"

namespace napkin {

namespace {

constexpr double kHeaderGap = 26;
constexpr double kChartHeight = 250;
constexpr double kWideChartHeight = 290;
// Text shorter than this share of a page moves to the next page whole.
constexpr double kWholeTextShare = 0.3;
// No slice of text shorter than this is left at the foot of a page.
constexpr double kShortestSlice = 60;
// A chart row shrinks to the room left on a page when this share of it fits.
constexpr double kShrinkChartShare = 0.85;

// Where a text may go on to the next page: below a line no other line (a
// neighbouring table cell) crosses, and not right below a heading.
std::vector<double> textCuts(QTextDocument* doc) {
  struct Line {
    double top, bottom;
    bool heading;
  };
  std::vector<Line> lines;
  QAbstractTextDocumentLayout* layout = doc->documentLayout();
  for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
    const QRectF r = layout->blockBoundingRect(b);
    const QTextLayout* tl = b.layout();
    const bool heading = b.blockFormat().headingLevel() > 0;
    if (!tl || tl->lineCount() == 0) continue;
    for (int i = 0; i < tl->lineCount(); ++i) {
      const QTextLine line = tl->lineAt(i);
      lines.push_back({r.top() + line.y(), r.top() + line.y() + line.height(), heading});
    }
  }
  std::vector<double> cuts;
  for (const Line& l : lines) {
    if (l.heading) continue;
    const double c = l.bottom;
    const bool crossed = std::any_of(lines.begin(), lines.end(), [c](const Line& o) {
      return o.top < c - 0.5 && o.bottom > c + 0.5;
    });
    if (!crossed) cuts.push_back(c);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

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

}  // namespace

std::vector<std::pair<QCPAxis*, QString>> ReportLayout::layOutChart(PlotWidget* chart, int w,
                                                                    int h) {
  {
    // What a replot at the page's size does first: a legend under the plot
    // takes the columns this width leaves (PlotWidget).
    const QRect screen = chart->viewport();
    chart->setViewport(QRect(0, 0, w, h));
    emit chart->beforeReplot();
    chart->setViewport(screen);
  }
  std::vector<std::pair<QCPAxis*, QString>> titles;
  for (QCPAxis* axis : chart->axisRect()->axes()) {
    const QString title = chart->axisTitle(axis);  // as the plot set it, not as wrapped on screen
    if (!title.isEmpty() && !title.contains(QLatin1Char('\n'))) titles.emplace_back(axis, title);
  }
  // QCustomPlot places (and thins) the ticks before it lays the axes out: a
  // pass at the chart's size on the page spaces the labels for this width,
  // not the screen's ("100 ms200 ms"), and says where the axis rect lies. A
  // title wider than its room is wrapped between words, and the chart laid
  // out again (a wrapped title takes another line of margin).
  for (int pass = 0; pass < 3; ++pass) {
    QPicture scratch;
    QCPPainter layout(&scratch);
    chart->toPainter(&layout, w, h);
    bool changed = false;
    for (const auto& [axis, title] : titles) {
      const QFontMetricsF fm(axis->labelFont());
      const QString fit = fitted_axis_title(title, fm, axis_title_room(axis, w, h));
      if (fit != axis->label()) {
        axis->setLabel(fit);
        changed = true;
      }
    }
    if (!changed) break;
  }
  return titles;
}

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
  b.cuts = textCuts(b.doc.get());
  blocks_.push_back(std::move(b));
}

void ReportLayout::charts(std::vector<PlotWidget*> row) {
  Block b;
  b.charts = std::move(row);
  b.height = (b.charts.size() == 1 ? kWideChartHeight : kChartHeight) + 8;
  blocks_.push_back(std::move(b));
}

void ReportLayout::pageBreak() { sectionBreak(1); }

void ReportLayout::sectionBreak(double min_free_share) {
  Block b;
  b.page_break = true;
  b.min_free_share = min_free_share;
  blocks_.push_back(std::move(b));
}

ReportLayout::BlockInfo ReportLayout::info(std::size_t i) const {
  const Block& b = blocks_[i];
  return {!b.doc && !b.page_break, b.page_break, b.height,
          b.doc ? b.doc->documentLayout()->documentSize().width() : 0.0};
}

double ReportLayout::contentTop() { return kReportMargin + kHeaderGap; }

double ReportLayout::contentBottom(const QPagedPaintDevice* device) {
  return device->height() - kReportMargin;
}

std::vector<ReportLayout::Placed> ReportLayout::place(double top, double bottom) const {
  std::vector<Placed> out;
  const double page_h = bottom - top;
  int page = 0;
  double y = top;
  bool empty = true;
  auto next_page = [&] {
    ++page;
    y = top;
    empty = true;
  };
  auto put = [&](std::size_t i, double h, double offset) {
    out.push_back({i, page, y, h, offset});
    y += h;
    empty = false;
  };
  for (std::size_t i = 0; i < blocks_.size(); ++i) {
    const Block& b = blocks_[i];
    const double room = bottom - y;
    if (b.page_break) {
      if (!empty && room < b.min_free_share * page_h) next_page();
      continue;
    }
    if (!b.doc) {  // a row of charts: whole, shrunk a little to fit
      double h = std::min(b.height, page_h);
      if (h > room && !empty) {
        if (room >= kShrinkChartShare * h)
          h = room;
        else
          next_page();
      }
      put(i, h, 0);
      continue;
    }
    // Text: whole when it fits; a short one on the next page; a long one
    // cut below a line, its slices filling the pages.
    if (b.height <= room) {
      put(i, b.height, 0);
      continue;
    }
    if (b.height <= kWholeTextShare * page_h && !empty) {
      next_page();
      put(i, b.height, 0);
      continue;
    }
    double offset = 0;
    while (true) {
      const double rest = b.height - offset;
      const double here = bottom - y;
      if (rest <= here) {
        put(i, rest, offset);
        break;
      }
      // The lowest cut that fits here.
      const auto it = std::upper_bound(b.cuts.begin(), b.cuts.end(), offset + here);
      const double cut = it == b.cuts.begin() ? offset : *std::prev(it);
      if (cut - offset >= std::min(kShortestSlice, here) && cut > offset) {
        put(i, cut - offset, offset);
        offset = cut;
      } else if (empty) {  // no line boundary in a whole page: cut at its foot
        put(i, here, offset);
        offset += here;
      }
      next_page();
    }
  }
  return out;
}

int ReportLayout::paint(QCPPainter* painter, QPagedPaintDevice* device, const QString& header,
                        const QString& date) const {
  const double page_w = device->width(), page_h = device->height();
  const std::vector<Placed> placed = place(contentTop(), contentBottom(device));
  std::vector<std::vector<Placed>> pages(1);
  for (const Placed& p : placed) {
    pages.resize(std::max(pages.size(), static_cast<std::size_t>(p.page) + 1));
    pages[static_cast<std::size_t>(p.page)].push_back(p);
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
    for (const Placed& p : pages[static_cast<std::size_t>(i)]) {
      const Block* blk = &blocks_[p.block];
      const double at = p.y;
      if (blk->doc) {
        // A slice of the text: the lines from `offset`, clipped to its height.
        painter->save();
        painter->translate(kReportMargin, at - p.offset);
        blk->doc->drawContents(painter, QRectF(0, p.offset, width_, p.height));
        painter->restore();
      } else {
        const double gap = 12;
        const double n = static_cast<double>(blk->charts.size());
        const double w = (width_ - gap * (n - 1)) / n;
        for (std::size_t c = 0; c < blk->charts.size(); ++c) {
          painter->save();
          painter->translate(kReportMargin + static_cast<double>(c) * (w + gap), at);
          const int cw = static_cast<int>(w), ch = static_cast<int>(p.height - 8);
          const auto titles = layOutChart(blk->charts[c], cw, ch);
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
