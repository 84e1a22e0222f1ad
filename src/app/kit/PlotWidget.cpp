#include "PlotWidget.h"

#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QMenu>
#include <QMessageBox>
#include <QTextStream>
#include <cmath>
#include <limits>

#include "format.h"

namespace napkin {

namespace {

QString scaled(double v, const std::initializer_list<std::pair<double, const char*>>& steps,
               const char* unit_below) {
  if (!std::isfinite(v)) return QStringLiteral("\u2014");
  for (const auto& [scale, suffix] : steps)
    if (std::fabs(v) >= scale * 0.9995)
      return QString::number(v / scale, 'g', 3) + QString::fromUtf8(suffix);
  return QString::number(v, 'g', 3) + QString::fromUtf8(unit_below);
}

}  // namespace

QString fmtSi(double v) {
  if (std::fabs(v) >= 1e15) return fmtSci(v);
  return scaled(v, {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}}, "");
}

QString fmtSci(double v) {
  if (!std::isfinite(v)) return QStringLiteral("\u2014");
  if (v == 0) return QStringLiteral("0");
  const int e = static_cast<int>(std::floor(std::log10(std::fabs(v)) + 1e-9));
  const double m = v / std::pow(10.0, e);
  return QString::number(m, 'g', 3) + QStringLiteral("e") + QString::number(e);
}

QString fmtBytes(double v) {
  if (v == 0) return QStringLiteral("0");
  return scaled(v, {{1e15, " PB"}, {1e12, " TB"}, {1e9, " GB"}, {1e6, " MB"}, {1e3, " kB"}}, " B");
}

QString fmtPercent(double v) {
  if (!std::isfinite(v)) return QStringLiteral("\u2014");
  return QString::number(v * 100.0, 'g', std::fabs(v) >= 10 ? 4 : 3) + QStringLiteral(" %");
}

namespace {

// An axis ticker that keeps QCustomPlot's tick placement (linear or log) and
// labels ticks with one of our formatters.
template <typename Base>
class FormattedTicker : public Base {
 public:
  explicit FormattedTicker(PlotWidget::Formatter f) : fmt_(std::move(f)) {}

 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override {
    if (fmt_) return fmt_(tick);
    return Base::getTickLabel(tick, locale, format, precision);
  }

 private:
  PlotWidget::Formatter fmt_;
};

void setupAxis(QCPAxis* axis, const QString& label, bool log, const PlotWidget::Formatter& fmt) {
  axis->setLabel(label);
  axis->setNumberFormat(QStringLiteral("g"));  // our labels, never QCustomPlot's "·10^" rewrite
  if (log) {
    auto t = QSharedPointer<FormattedTicker<QCPAxisTickerLog>>::create(fmt);
    t->setLogBase(10);
    t->setSubTickCount(8);
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(t);
  } else {
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<FormattedTicker<QCPAxisTicker>>::create(fmt));
  }
}

}  // namespace

PlotWidget::PlotWidget(const QString& title, QWidget* parent) : QCustomPlot(parent), title_(title) {
  setAccessibleName(title);
  setToolTip(QString());
  setMinimumSize(200, 160);
  QFont f = font();
  f.setPointSizeF(8.5);
  xAxis->setTickLabelFont(f);
  yAxis->setTickLabelFont(f);
  yAxis2->setTickLabelFont(f);
  xAxis->setLabelFont(f);
  yAxis->setLabelFont(f);
  yAxis2->setLabelFont(f);
  legend->setFont(f);
  plotLayout()->insertRow(0);
  QFont tf = f;
  tf.setBold(true);
  tf.setPointSizeF(9.5);
  plotLayout()->addElement(0, 0, new QCPTextElement(this, title, tf));
  axisRect()->setAutoMargins(QCP::msAll);
  setNoAntialiasingOnDrag(true);
  setContextMenuPolicy(Qt::CustomContextMenu);
  connect(this, &QWidget::customContextMenuRequested, this, &PlotWidget::showMenu);
  setMouseTracking(true);

  hover_dot_ = new QCPItemTracer(this);
  hover_dot_->setStyle(QCPItemTracer::tsCircle);
  hover_dot_->setSize(7);
  hover_dot_->setPen(QPen(QColor(20, 20, 20), 1.2));
  hover_dot_->setBrush(Qt::NoBrush);
  hover_dot_->setVisible(false);
  hover_dot_->setInterpolating(false);
  hover_label_ = new QCPItemText(this);
  hover_label_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  hover_label_->setPadding(QMargins(4, 2, 4, 2));
  hover_label_->setBrush(QColor(255, 255, 240, 235));
  hover_label_->setPen(QPen(QColor(120, 120, 120)));
  hover_label_->setFont(f);
  hover_label_->setClipToAxisRect(false);
  hover_label_->setVisible(false);
  hover_label_->position->setType(QCPItemPosition::ptAbsolute);
  applyPalette(palette());
}

void PlotWidget::setXAxis(const QString& label, bool log, Formatter fmt) {
  x_fmt_ = fmt;
  if (!hover_x_) hover_x_ = fmt;
  setupAxis(xAxis, label, log, fmt);
}

void PlotWidget::setYAxis(const QString& label, bool log, Formatter fmt) {
  y_fmt_ = fmt;
  if (!hover_y_) hover_y_ = fmt;
  setupAxis(yAxis, label, log, fmt);
}

void PlotWidget::setHoverFormat(Formatter x, Formatter y) {
  hover_x_ = std::move(x);
  hover_y_ = std::move(y);
}

void PlotWidget::applyPalette(const QPalette& pal) {
  const QColor base = pal.color(QPalette::Base), text = pal.color(QPalette::WindowText);
  const bool dark = base.lightness() < 128;
  setBackground(base);
  QColor grid = text;
  grid.setAlpha(dark ? 70 : 45);
  for (QCPAxis* axis : {xAxis, yAxis, xAxis2, yAxis2}) {
    axis->setBasePen(QPen(text, 1));
    axis->setTickPen(QPen(text, 1));
    axis->setSubTickPen(QPen(text, 1));
    axis->setLabelColor(text);
    axis->setTickLabelColor(text);
    axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
    axis->grid()->setSubGridPen(Qt::NoPen);
  }
  legend->setTextColor(text);
  for (int i = 0; i < plotLayout()->elementCount(); ++i)
    if (auto* t = qobject_cast<QCPTextElement*>(plotLayout()->elementAt(i))) t->setTextColor(text);
  QColor note = base;
  note.setAlpha(215);
  for (int i = 0; i < itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(item(i))) {
      if (t == hover_label_) continue;
      // Notes drawn in a data colour (e.g. red for "does not fit") keep it.
      if (t->color() == Qt::black || t->color() == QColor(30, 30, 30) || t->color() == text ||
          t->color() == QColor(Qt::white))
        t->setColor(text);
      if (t->brush().style() != Qt::NoBrush) t->setBrush(note);
    }
  hover_label_->setBrush(dark ? QColor(60, 60, 50, 235) : QColor(255, 255, 240, 235));
  hover_label_->setColor(text);
  hover_dot_->setPen(QPen(text, 1.2));
  requestReplot();
}

void PlotWidget::changeEvent(QEvent* event) {
  QCustomPlot::changeEvent(event);
  if (event->type() == QEvent::PaletteChange) applyPalette(palette());
}

void PlotWidget::setDragMode(bool dragging) {
  if (dragging) {
    setNotAntialiasedElements(QCP::aeAll);
  } else {
    setNotAntialiasedElements(QCP::aeNone);
    setAntialiasedElements(QCP::aePlottables | QCP::aeItems | QCP::aeLegendItems | QCP::aeAxes);
    requestReplot();
  }
}

void PlotWidget::showLegendBelow(int columns) {
  legend->setVisible(true);
  if (legend->layout() != plotLayout()) {
    axisRect()->insetLayout()->take(legend);
    plotLayout()->addElement(plotLayout()->rowCount(), 0, legend);
    plotLayout()->setRowStretchFactor(plotLayout()->rowCount() - 1, 0.001);
  }
  legend->setWrap(columns);
  legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  legend->setBorderPen(Qt::NoPen);
  legend->setBrush(Qt::NoBrush);
  legend->setMargins(QMargins(2, 0, 2, 2));
  legend->setRowSpacing(0);
  legend->setColumnSpacing(8);
  legend->setIconSize(18, 9);
  legend->setIconTextPadding(4);
}

QString PlotWidget::hoverText() const {
  return hover_label_->visible() ? hover_label_->text() : QString();
}

void PlotWidget::hoverAt(const QPointF& pos) {
  double best = std::numeric_limits<double>::max();
  QString text;
  QCPGraph* best_graph = nullptr;
  double bx = 0, by = 0;
  auto consider = [&](const QString& name, QCPAxis* xa, QCPAxis* ya, double x, double y,
                      QCPGraph* g) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    const double px = xa->coordToPixel(x), py = ya->coordToPixel(y);
    const double d = std::hypot(px - pos.x(), py - pos.y());
    if (d < best) {
      best = d;
      const Formatter& fx =
          hover_x_ ? hover_x_ : Formatter([](double v) { return QString::number(v, 'g', 4); });
      const Formatter& fy =
          hover_y_ ? hover_y_ : Formatter([](double v) { return QString::number(v, 'g', 4); });
      text = (name.isEmpty() ? QString() : name + QLatin1Char('\n')) + xa->label() +
             QStringLiteral(": ") + fx(x) + QLatin1Char('\n') + ya->label() + QStringLiteral(": ") +
             fy(y);
      best_graph = g;
      bx = x;
      by = y;
    }
  };
  for (int i = 0; i < graphCount(); ++i) {
    QCPGraph* g = graph(i);
    if (!g->visible() || g->name().isEmpty()) continue;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
      consider(g->name(), g->keyAxis(), g->valueAxis(), it->key, it->value, g);
  }
  for (int i = 0; i < plottableCount(); ++i) {
    auto* bars = qobject_cast<QCPBars*>(plottable(i));
    if (!bars || !bars->visible()) continue;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
      consider(bars->name(), bars->keyAxis(), bars->valueAxis(), it->key, it->value, nullptr);
  }
  if (best > 40 || text.isEmpty()) {
    hover_label_->setVisible(false);
    hover_dot_->setVisible(false);
  } else {
    hover_label_->setText(text);
    QPointF at = pos + QPointF(10, -6);
    // Keep the label inside the widget.
    const QFontMetrics fm(hover_label_->font());
    const QRect br = fm.boundingRect(QRect(0, 0, 400, 200), 0, text);
    if (at.x() + br.width() + 12 > width()) at.setX(pos.x() - br.width() - 18);
    if (at.y() - br.height() - 6 < 0) at.setY(pos.y() + br.height() + 12);
    hover_label_->position->setCoords(at);
    hover_label_->setVisible(true);
    if (best_graph) {
      hover_dot_->setGraph(best_graph);
      hover_dot_->setGraphKey(bx);
      hover_dot_->setVisible(true);
    } else {
      hover_dot_->setGraph(nullptr);
      hover_dot_->position->setAxes(xAxis, yAxis);
      hover_dot_->position->setCoords(bx, by);
      hover_dot_->setVisible(true);
    }
  }
  requestReplot();
}

void PlotWidget::mouseMoveEvent(QMouseEvent* event) {
  QCustomPlot::mouseMoveEvent(event);
  hoverAt(event->position());
}

void PlotWidget::leaveEvent(QEvent* event) {
  QCustomPlot::leaveEvent(event);
  hover_label_->setVisible(false);
  hover_dot_->setVisible(false);
  requestReplot();
}

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
  bool ok = false;
  if (path.endsWith(QLatin1String(".png"), Qt::CaseInsensitive))
    ok = savePng(path, 0, 0, 2.0);
  else
    ok = savePdf(path, 0, 0, QCP::epNoCosmetic, QStringLiteral("Napkin"), title_);
  if (!ok) QMessageBox::warning(this, tr("Save plot"), tr("Could not write %1.").arg(path));
}

void PlotWidget::saveCsv() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Save data"), title_ + QStringLiteral(".csv"), tr("CSV (*.csv)"));
  if (path.isEmpty()) return;
  QSaveFile f(path);
  if (!f.open(QIODevice::WriteOnly) || f.write(dataCsv().toUtf8()) < 0 || !f.commit())
    QMessageBox::warning(this, tr("Save data"),
                         tr("Could not write %1: %2").arg(path, f.errorString()));
}

}  // namespace napkin
