// The scenario as a multi-page report: cover with the inputs and the headline
// answer, one section per panel (each panel's reportSection(): curated
// tables, formulas and vector charts), and a recommendation memo derived from
// the numbers. Paints on any paged device, so export (PDF) and print share
// one layout.
#pragma once

#include <QDateTime>
#include <QPageSize>
#include <QString>
#include <memory>
#include <vector>

class QPagedPaintDevice;

namespace napkin {

class MainWindow;
class PlotWidget;
class ReportLayout;
struct Scenario;

struct ReportOptions {
  QPageSize page_size = defaultPageSize();
  QDateTime generated = defaultDate();
  // A4, or Letter where the locale measures in US units.
  static QPageSize defaultPageSize();
  // Now, or SOURCE_DATE_EPOCH when set (the same scenario then gives the same report).
  static QDateTime defaultDate();
};

class ReportWriter {
 public:
  // Reads the window's scenario and its panels (the same numbers the screen shows).
  explicit ReportWriter(MainWindow* window, ReportOptions options = {});

  // Paints every page; returns the page count.
  int paint(QPagedPaintDevice* device);
  // The report's blocks, laid out for the width of `device` once its page
  // size is set (paint() does that), from panels brought up to date; the
  // charts it draws in `charts`.
  std::unique_ptr<ReportLayout> layout(QPagedPaintDevice* device,
                                       std::vector<PlotWidget*>* charts = nullptr);
  // Writes a PDF atomically (a temporary file renamed into place): on failure
  // returns false with a message naming the path and the reason, and leaves no
  // partial file and any previous file untouched.
  bool writePdf(const QString& path, QString* error);
  // The PDF's title: "Napkin report: Llama-3-70B on 2,048 × H100".
  static QString documentTitle(const Scenario& s);

 private:
  MainWindow* window_;
  ReportOptions options_;
};

}  // namespace napkin
