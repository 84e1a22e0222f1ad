#include "report/ReportWriter.h"

#include <qcustomplot.h>
#include <QCoreApplication>
#include <QFileInfo>
#include <QLocale>
#include <QPdfWriter>
#include <cmath>
#include <stdexcept>

#include "Panel.h"
#include "PlotWidget.h"
#include "Text.h"
#include "atomic_writer.h"
#include "budget_view.h"
#include "compare.h"
#include "format.h"
#include "report/ComparePage.h"
#include "report/ReportHtml.h"
#include "report/ReportLayout.h"

namespace napkin {

QDateTime ReportOptions::defaultDate() {
  // SOURCE_DATE_EPOCH (reproducible-builds.org) pins the date for identical reports.
  bool ok = false;
  const qint64 epoch = qEnvironmentVariable("SOURCE_DATE_EPOCH").toLongLong(&ok);
  return ok ? QDateTime::fromSecsSinceEpoch(epoch, Qt::UTC) : QDateTime::currentDateTime();
}

QPageSize ReportOptions::defaultPageSize() {
  return QLocale().measurementSystem() == QLocale::ImperialUSSystem ? QPageSize(QPageSize::Letter)
                                                                    : QPageSize(QPageSize::A4);
}

namespace {

// Paper is white whatever the screen's palette: the charts are drawn with
// the report palette, then given back their screen palette.
struct PaperPalette {
  std::vector<PlotWidget*> plots;
  explicit PaperPalette(std::vector<PlotWidget*> p) : plots(std::move(p)) {
    for (PlotWidget* plot : plots) plot->applyPlotPalette(PlotPalette::report());
  }
  ~PaperPalette() {
    for (PlotWidget* plot : plots) plot->applyPalette(plot->palette());
  }
};

}  // namespace

ReportWriter::ReportWriter(ReportInput input, ReportOptions options)
    : input_(std::move(input)), options_(std::move(options)) {}

namespace {

// The cover's line for a scenario that is not as its file was saved: "Not as
// saved in plan.napkin.json: Chips 2,048 chips → 4,096 chips; Days 90 days →
// 60 days." (the comparison's names and values, the first dozen).
QString unsavedChangesHtml(const ReportInput& in, const QString& file) {
  if (!in.unsaved_changes || in.file_path.isEmpty()) return {};
  QStringList changes;
  if (in.saved)
    for (const InputDifference& d : differing_inputs(*in.saved, in.scenario))
      changes << QStringLiteral("%1 %2 → %3").arg(qs(d.name), qs(d.a), qs(d.b));
  constexpr int kShown = 12;
  const qsizetype more = changes.size() - kShown;
  if (more > 0) {
    changes = changes.mid(0, kShown);
    changes << QObject::tr("%n more", nullptr, static_cast<int>(more));
  }
  return QStringLiteral("<p class='muted'>%1</p>")
      .arg(reportEscape(changes.isEmpty() ? QObject::tr("With changes not saved to %1.").arg(file)
                                          : QObject::tr("Not as saved in %1: %2.")
                                                .arg(file, changes.join(QStringLiteral("; ")))));
}

QString reportTitle(const Scenario& s) {
  return QObject::tr("%1 on %2 × %3 for %4 days")
      .arg(qs(s.model_name), qs(format_grouped(static_cast<double>(s.n_chips))), qs(s.chip),
           qs(format_grouped(s.days, s.days == std::floor(s.days) ? 0 : 1)));
}

}  // namespace

std::unique_ptr<ReportLayout> ReportWriter::layout(QPagedPaintDevice* device,
                                                   std::vector<PlotWidget*>* charts) {
  const Scenario& s = input_.scenario;
  const BudgetView view = make_budget_view(s);
  if (!view.valid()) throw std::invalid_argument(view.error);

  // The sections, from panels brought up to date.
  std::vector<ReportSection> sections;
  for (Panel* p : input_.panels) {
    p->refreshIfStale();
    sections.push_back(p->reportSection());
    if (charts)
      for (PlotWidget* c : sections.back().charts) charts->push_back(c);
  }

  // The device works at 96 dpi (see writePdf and MainWindow::printReport):
  // fonts in points, charts and text documents then keep their on-screen
  // proportions, and PDF coordinates stay floating point, so nothing is lost.
  auto out = std::make_unique<ReportLayout>(device->width() - 2 * kReportMargin);
  ReportLayout& layout = *out;
  const QString date =
      QLocale::c().toString(options_.generated, QStringLiteral("yyyy-MM-dd HH:mm"));
  const QString file = input_.file_path.isEmpty() ? QObject::tr("unsaved scenario")
                                                  : QFileInfo(input_.file_path).fileName();

  // ---- plan A vs plan B, when a baseline is pinned
  if (input_.baseline) {
    layout.html(comparePageHtml(*input_.baseline, input_.baseline_label, s, file));
    layout.pageBreak();
  }

  // ---- cover
  layout.html(
      QStringLiteral("<h1>Napkin report</h1><p style='font-size:12pt'>%1</p><p class='muted'>%2 "
                     "· %3 · Napkin %4</p>")
          .arg(reportEscape(reportTitle(s)), date, reportEscape(file),
               reportEscape(QCoreApplication::applicationVersion())) +
      unsavedChangesHtml(input_, file));
  layout.html(headlineHtml(view));
  layout.html(QStringLiteral("<h2>%1</h2>").arg(QObject::tr("Scenario inputs")) +
              inputsHtml(s, view.plan));

  // ---- one section per panel, in tab order: each starts a page unless
  // much of the page is still free (no half-empty pages between sections)
  int number = 1;
  for (const ReportSection& sec : sections) {
    layout.sectionBreak();
    for (const QString& block : sectionBlocks(number++, sec)) layout.html(block);
    const std::size_t per_row = static_cast<std::size_t>(std::max(1, sec.charts_per_row));
    for (std::size_t i = 0; i < sec.charts.size(); i += per_row)
      layout.charts({sec.charts.begin() + static_cast<std::ptrdiff_t>(i),
                     sec.charts.begin() +
                         static_cast<std::ptrdiff_t>(std::min(i + per_row, sec.charts.size()))});
  }

  // ---- recommendation memo
  layout.sectionBreak();
  layout.html(memoHtml(view));
  return out;
}

int ReportWriter::paint(QPagedPaintDevice* device) {
  device->setPageSize(options_.page_size);
  device->setPageMargins(QMarginsF(0, 0, 0, 0));
  std::vector<PlotWidget*> charts;
  const std::unique_ptr<ReportLayout> blocks = layout(device, &charts);
  const PaperPalette paper(charts);

  QCPPainter painter;
  if (!painter.begin(device)) return 0;
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
  const QString date =
      QLocale::c().toString(options_.generated, QStringLiteral("yyyy-MM-dd HH:mm"));
  const QString title = reportTitle(input_.scenario);
  const int pages = blocks->paint(&painter, device, QStringLiteral("Napkin · %1").arg(title), date);
  painter.end();
  return pages;
}

QString ReportWriter::documentTitle(const Scenario& s) {
  return QObject::tr("Napkin report: %1 on %2 × %3")
      .arg(qs(s.model_name), qs(format_grouped(static_cast<double>(s.n_chips))), qs(s.chip));
}

bool ReportWriter::writePdf(const QString& path, QString* error) {
  // Through the atomic writer: every write and the flush are checked, the
  // previous file survives a failure, a device or FIFO is written through.
  AtomicFile file(path);
  if (!file.open(QIODevice::WriteOnly)) {
    if (error) *error = file.errorString();
    return false;
  }
  {
    QPdfWriter pdf(&file);
    pdf.setResolution(kReportDpi);
    pdf.setCreator(QStringLiteral("Napkin %1").arg(QCoreApplication::applicationVersion()));
    const QString title = documentTitle(input_.scenario);
    pdf.setTitle(title);
    const QString subject =
        QObject::tr("LLM pre-training budget, scaling, MoE and roofline analysis");
    pdf.setDocumentXmpMetadata(
        QStringLiteral(
            "<?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?><x:xmpmeta xmlns:x='adobe:ns:meta/'>"
            "<rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>"
            "<rdf:Description rdf:about='' xmlns:dc='http://purl.org/dc/elements/1.1/' "
            "xmlns:xmp='http://ns.adobe.com/xap/1.0/'>"
            "<dc:title><rdf:Alt><rdf:li xml:lang='x-default'>%1</rdf:li></rdf:Alt></dc:title>"
            "<dc:creator><rdf:Seq><rdf:li>Napkin</rdf:li></rdf:Seq></dc:creator>"
            "<dc:description><rdf:Alt><rdf:li "
            "xml:lang='x-default'>%2</rdf:li></rdf:Alt></dc:description>"
            "<xmp:CreatorTool>Napkin %3</xmp:CreatorTool>"
            "</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end='w'?>")
            .arg(title.toHtmlEscaped(), subject.toHtmlEscaped(),
                 QCoreApplication::applicationVersion())
            .toUtf8());
    if (paint(&pdf) == 0) {
      file.cancel();
      if (error) *error = QObject::tr("%1: could not paint the report").arg(path);
      return false;
    }
  }
  if (!file.commit()) {
    // The writer says so when a previous file is untouched: once.
    if (error)
      *error = file.errorString().contains(QLatin1String("untouched"))
                   ? file.errorString()
                   : QObject::tr("%1 (any previous file is untouched)").arg(file.errorString());
    return false;
  }
  return true;
}

}  // namespace napkin
