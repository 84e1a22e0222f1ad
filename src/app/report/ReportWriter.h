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
#include <optional>
#include <vector>

#include "scenario.h"

class QPagedPaintDevice;

namespace napkin {

class Panel;
class PlotWidget;
class ReportLayout;

// What a report is made of, as a value: the document, the panels whose
// sections it prints (in tab order) and the pinned baseline.
struct ReportInput {
  Scenario scenario;
  QString file_path;  // empty: an unsaved scenario
  // The scenario differs from the file at file_path (changes not saved); the
  // file as saved, when it could be read back: the cover names what changed.
  bool unsaved_changes = false;
  std::optional<Scenario> saved;
  std::vector<Panel*> panels;
  std::optional<Scenario> baseline;  // plan A of the "Plan A vs plan B" page
  QString baseline_label;
};

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
  // The scenario and its panels as the screen shows them (the panels are
  // brought up to date before their sections are read).
  explicit ReportWriter(ReportInput input, ReportOptions options = {});

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
  ReportInput input_;
  ReportOptions options_;
};

}  // namespace napkin
