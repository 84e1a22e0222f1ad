// The report's page layout: a column of blocks (HTML text, rows of charts,
// page breaks), paginated onto a paged device with a header line, the date
// and "Page n of m".
#pragma once

#include <QString>
#include <QTextDocument>
#include <memory>
#include <utility>
#include <vector>

class QCPAxis;
class QCPPainter;
class QPagedPaintDevice;

namespace napkin {

class PlotWidget;

class ReportLayout {
 public:
  explicit ReportLayout(double width) : width_(width) {}

  void html(const QString& body);
  // A row of charts drawn side by side across the text width.
  void charts(std::vector<PlotWidget*> row);
  // The next block starts a page.
  void pageBreak();
  // The next block (a section's title with its first tables) starts a page
  // unless at least this share of the page is still free below.
  void sectionBreak(double min_free_share = 0.4);

  // Where a block, or a slice of a block taller than a page, lands: its page,
  // its top on the page, its height there and, for a slice, where in the
  // block it starts.
  struct Placed {
    std::size_t block = 0;
    int page = 0;
    double y = 0;
    double height = 0;
    double offset = 0;
  };
  // Lays the blocks out on pages whose content runs from `top` to `bottom`:
  // nothing ends below `bottom`; a chart row that does not fit goes to the
  // next page whole (shrunk to fit when most of it fits); text taller than a
  // page is cut between lines or table rows, never through them.
  std::vector<Placed> place(double top, double bottom) const;
  // What place() works from, for tests: a block's kind, height and, for
  // text, the width its widest line or table needs (≤ the text width, or
  // something is cut off at the right).
  struct BlockInfo {
    bool chart_row = false;
    bool page_break = false;
    double height = 0;
    double needed_width = 0;
  };
  std::size_t size() const { return blocks_.size(); }
  BlockInfo info(std::size_t i) const;
  double width() const { return width_; }
  // Top and bottom of the content on a page of `device`.
  static double contentTop();
  static double contentBottom(const QPagedPaintDevice* device);

  // Lays `chart` out at w × h as it is drawn on a page: ticks spaced for that
  // width, an axis title longer than its room wrapped between words. Returns
  // each axis title as it was, to be put back after drawing.
  static std::vector<std::pair<QCPAxis*, QString>> layOutChart(PlotWidget* chart, int w, int h);

  // Paints every page; returns the page count.
  int paint(QCPPainter* painter, QPagedPaintDevice* device, const QString& header,
            const QString& date) const;

 private:
  struct Block {
    std::unique_ptr<QTextDocument> doc;  // text, or
    std::vector<PlotWidget*> charts;     // a row of charts
    bool page_break = false;
    double min_free_share = 1;  // a break: start a page unless this much is free
    double height = 0;
    std::vector<double> cuts;  // text: heights at which it may go on to the next page
  };
  double width_;
  std::vector<Block> blocks_;
};

// Layout unit: 96 dpi, so charts and fonts come out at their on-screen proportions.
constexpr int kReportDpi = 96;
constexpr double kReportMargin = 56;  // ~15 mm

}  // namespace napkin
