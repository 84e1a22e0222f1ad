// The report's page layout: a column of blocks (HTML text, rows of charts,
// page breaks), paginated onto a paged device with a header line, the date
// and "Page n of m".
#pragma once

#include <QString>
#include <QTextDocument>
#include <memory>
#include <vector>

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
  void pageBreak();

  // Paints every page; returns the page count.
  int paint(QCPPainter* painter, QPagedPaintDevice* device, const QString& header,
            const QString& date) const;

 private:
  struct Block {
    std::unique_ptr<QTextDocument> doc;  // text, or
    std::vector<PlotWidget*> charts;     // a row of charts
    bool page_break = false;
    double height = 0;
  };
  double width_;
  std::vector<Block> blocks_;
};

// Layout unit: 96 dpi, so charts and fonts come out at their on-screen proportions.
constexpr int kReportDpi = 96;
constexpr double kReportMargin = 56;  // ~15 mm

}  // namespace napkin
