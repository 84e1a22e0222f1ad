// A plot's data and picture leaving the app: CSV, PNG, vector PDF, the
// clipboard, and the context menu that offers them.
#include "PlotWidget.h"

#include "atomic_writer.h"

#include <QApplication>
#include <QBuffer>
#include <QClipboard>
#include <QFileDialog>
#include <QImageWriter>
#include <QMenu>
#include <QMessageBox>
#include <QPdfWriter>
#include <QTextStream>

namespace napkin {

QString PlotWidget::dataCsv() const {
  QString out;
  QTextStream s(&out);
  s << "series,x,y\n";
  auto quoted = [](QString n) {
    n.replace(QLatin1Char('"'), QLatin1String("\"\""));
    return QLatin1Char('"') + n + QLatin1Char('"');
  };
  for (int i = 0; i < graphCount(); ++i) {
    const QCPGraph* g = graph(i);
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
      s << quoted(g->name()) << ',' << QString::number(it->key, 'g', 17) << ','
        << QString::number(it->value, 'g', 17) << '\n';
  }
  auto* self = const_cast<PlotWidget*>(this);  // QCustomPlot::plottable() is not const
  for (int i = 0; i < plottableCount(); ++i) {
    const auto* bars = qobject_cast<QCPBars*>(self->plottable(i));
    if (!bars) continue;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
      s << quoted(bars->name()) << ',' << QString::number(it->key, 'g', 17) << ','
        << QString::number(it->value, 'g', 17) << '\n';
  }
  return out;
}

QByteArray PlotWidget::pdfBytes() {
  // QCustomPlot::savePdf writes only to a file name (a temporary one would sit
  // in TMPDIR, where a short write is reported as success): paint into memory
  // with the same settings (a page the size of the plot in points, vector
  // painting, no cosmetic pens).
  QByteArray pdf;
  QBuffer buffer(&pdf);
  buffer.open(QIODevice::WriteOnly);
  {
    QPdfWriter writer(&buffer);
    writer.setCreator(QStringLiteral("Napkin"));
    writer.setTitle(title_);
    writer.setResolution(96);  // QCustomPlot's QPrinter::ScreenResolution
    writer.setPageLayout(QPageLayout(
        QPageSize(QSize(width(), height()), QPageSize::Point, QString(), QPageSize::ExactMatch),
        QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    const QRect old_viewport = viewport();
    setViewport(QRect(0, 0, width(), height()));
    QCPPainter painter;
    if (!painter.begin(&writer)) {
      setViewport(old_viewport);
      return {};
    }
    painter.setMode(QCPPainter::pmVectorized);
    painter.setMode(QCPPainter::pmNoCaching);
    painter.setMode(QCPPainter::pmNonCosmetic);
    painter.setWindow(mViewport);
    if (mBackgroundBrush.style() != Qt::NoBrush && mBackgroundBrush.color() != Qt::white &&
        mBackgroundBrush.color().alpha() > 0)
      painter.fillRect(viewport(), mBackgroundBrush);
    draw(&painter);
    painter.end();
    setViewport(old_viewport);
  }
  return pdf;
}

bool PlotWidget::exportTo(const QString& path, QString* error) {
  QByteArray bytes;
  if (path.endsWith(QLatin1String(".csv"), Qt::CaseInsensitive)) {
    bytes = dataCsv().toUtf8();
  } else if (path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive)) {
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    QImageWriter writer(&buffer, "png");
    if (!writer.write(toPixmap(0, 0, 2.0).toImage())) bytes.clear();
  } else {
    bytes = pdfBytes();
    // A PDF ends with "%%EOF": anything else is not passed on as the plot.
    const qsizetype eof = bytes.lastIndexOf("%%EOF");
    if (!bytes.startsWith("%PDF-") || eof < 0 || eof < bytes.size() - 1024) bytes.clear();
  }
  if (bytes.isEmpty()) {
    if (error)
      *error = tr("%1: the plot could not be rendered; the file was not touched").arg(path);
    return false;
  }
  return write_file_atomically(path, bytes, error);
}

void PlotWidget::showMenu(const QPoint& pos) {
  QMenu menu(this);
  menu.addAction(tr("Save plot as PNG or PDF (vector)…"), this, &PlotWidget::saveImage);
  menu.addAction(tr("Save data as CSV…"), this, &PlotWidget::saveCsv);
  menu.addAction(tr("Copy data as CSV"), this,
                 [this] { QApplication::clipboard()->setText(dataCsv()); });
  menu.addAction(tr("Copy plot image"), this,
                 [this] { QApplication::clipboard()->setPixmap(toPixmap()); });
  menu.exec(mapToGlobal(pos));
}

void PlotWidget::saveImage() {
  QString selected;
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Save plot"), title_ + QStringLiteral(".pdf"),
                                   tr("PDF, vector (*.pdf);;PNG image (*.png)"), &selected);
  if (path.isEmpty()) return;
  QString error;
  if (!exportTo(path, &error)) QMessageBox::warning(this, tr("Save plot"), error);
}

void PlotWidget::saveCsv() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save data"), title_ + QStringLiteral(".csv"), tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QString error;
  if (!exportTo(path, &error)) QMessageBox::warning(this, tr("Save data"), error);
}

}  // namespace napkin
