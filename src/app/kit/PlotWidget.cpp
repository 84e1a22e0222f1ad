#include "PlotWidget.h"

#include "WheelPassThrough.h"
#include "nice_numbers.h"

#include <QApplication>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <limits>

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

// A baseline's ghost curves go on the grid layer: drawn after the grid lines
// that layer already holds and before the live curves on "main". A layer of
// their own would make every plot reallocate and clear its paint buffers when
// it is built (QCustomPlot::addLayer), about half the cost of opening a panel.
const QLatin1String kGhostLayer("grid");

// A legend under the plot takes as many of its columns as its widest entry
// leaves room for at the plot's width: a narrow plot stacks its entries
// instead of cutting them off at the right.
void fitLegendColumns(QCustomPlot* plot) {
  QCPLegend* legend = plot->legend;
  const int wanted = legend->property("napkinColumns").toInt();
  if (wanted < 1 || legend->itemCount() == 0) return;
  double widest = 0;
  for (int i = 0; i < legend->itemCount(); ++i)
    if (QCPAbstractLegendItem* item = legend->item(i))
      widest = std::max(widest, static_cast<double>(item->minimumOuterSizeHint().width()));
  const double room = plot->viewport().width() - legend->margins().left() -
                      legend->margins().right() - plot->plotLayout()->margins().left() -
                      plot->plotLayout()->margins().right();
  const double spacing = legend->columnSpacing();
  const int fit = widest > 0 ? static_cast<int>((room + spacing) / (widest + spacing)) : wanted;
  const int columns = std::clamp(fit, 1, wanted);
  if (legend->wrap() != columns) {
    legend->setWrap(columns);
    legend->setFillOrder(QCPLayoutGrid::foColumnsFirst, true);
  }
}

}  // namespace

QString fmtSi(double v) {
  if (std::fabs(v) >= 1e15) return fmtSci(v);
  return scaled(v, {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}}, "");
}

QString fmtSci(double v) {
  if (!std::isfinite(v)) return QStringLiteral("\u2014");
  if (v == 0) return QStringLiteral("0");
  return QString::number(decade_mantissa(v), 'g', 3) + QStringLiteral("e") +
         QString::number(decade_exponent(v));
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

// An axis ticker that keeps QCustomPlot's tick placement (linear or log),
// labels ticks with one of our formatters, optionally keeps whole numbers
// only, and drops every other tick until no two labels overlap at the axis'
// current length ("1.5B2B" cannot happen).
template <typename Base>
class FormattedTicker : public Base {
 public:
  FormattedTicker(QCPAxis* axis, PlotWidget::Formatter f) : axis_(axis), fmt_(std::move(f)) {}
  void setIntegerOnly(bool on) { integer_ = on; }

 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override {
    if (fmt_) return fmt_(tick);
    return Base::getTickLabel(tick, locale, format, precision);
  }
  double getTickStep(const QCPRange& range) override {
    const double step = Base::getTickStep(range);
    return integer_ ? std::max(1.0, std::round(step)) : step;
  }
  int getSubTickCount(double step) override {
    if (integer_) return std::max(0, static_cast<int>(std::lround(step)) - 1);
    return thinned_ ? 0 : Base::getSubTickCount(step);
  }
  QVector<double> createTickVector(double step, const QCPRange& range) override {
    QVector<double> ticks = Base::createTickVector(step, range);
    if (integer_) {
      QVector<double> whole;
      for (double t : ticks)
        if (std::fabs(t - std::round(t)) < 1e-9) whole.push_back(std::round(t));
      ticks = whole;
    }
    if (fmt_) ticks = exactWhereLabelsRepeat(ticks);
    thinned_ = false;
    while (ticks.size() > 2 && overlap(ticks)) {
      QVector<double> half;
      for (qsizetype i = 0; i < ticks.size(); i += 2) half.push_back(ticks[i]);
      ticks = half;
      thinned_ = true;
    }
    return ticks;
  }

 private:
  // A formatter with fewer digits than the step repeats labels ("44 44 45 46
  // 46" for 44, 44.5, … 46): then only the ticks whose label reads back as
  // the tick stay, so every label is where its number is.
  QVector<double> exactWhereLabelsRepeat(const QVector<double>& ticks) {
    bool repeats = false;
    for (qsizetype i = 1; i < ticks.size() && !repeats; ++i)
      repeats = fmt_(ticks[i]) == fmt_(ticks[i - 1]);
    if (!repeats) return ticks;
    static const QRegularExpression kNumber(QStringLiteral("^[-\u2212]?[0-9][0-9,]*(\\.[0-9]+)?"));
    QVector<double> exact;
    for (double t : ticks) {
      const QRegularExpressionMatch m = kNumber.match(fmt_(t));
      if (!m.hasMatch()) return ticks;  // a label that is not a plain number: leave as placed
      const double back =
          m.captured().remove(QLatin1Char(',')).replace(QChar(0x2212), QLatin1Char('-')).toDouble();
      if (std::fabs(back - t) <= 1e-9 * std::max(1.0, std::fabs(t))) exact.push_back(t);
    }
    return exact.size() >= 2 ? exact : ticks;
  }

  // True when two neighbouring labels would touch at the axis' pixel scale.
  bool overlap(const QVector<double>& ticks) {
    if (!axis_ || !axis_->axisRect()) return false;
    const bool horizontal = axis_->orientation() == Qt::Horizontal;
    const int length = horizontal ? axis_->axisRect()->width() : axis_->axisRect()->height();
    if (length <= 0) return false;
    const QFontMetricsF fm(axis_->tickLabelFont());
    constexpr double kMinLabelGapPx = 8;
    auto extent = [&](double t) {
      if (!horizontal) return fm.height();
      return fm.horizontalAdvance(getTickLabel(t, QLocale::c(), QLatin1Char('g'), 6));
    };
    for (qsizetype i = 1; i < ticks.size(); ++i) {
      const double a = axis_->coordToPixel(ticks[i - 1]), b = axis_->coordToPixel(ticks[i]);
      if (!std::isfinite(a) || !std::isfinite(b)) continue;
      if (std::fabs(b - a) < (extent(ticks[i - 1]) + extent(ticks[i])) / 2 + kMinLabelGapPx)
        return true;
    }
    return false;
  }

  QCPAxis* axis_;
  PlotWidget::Formatter fmt_;
  bool integer_ = false;
  bool thinned_ = false;
};

}  // namespace

void PlotWidget::setupAxis(QCPAxis* axis, const QString& label, bool log, const Formatter& fmt) {
  axis->setLabel(label);
  axis->setNumberFormat(QStringLiteral("g"));  // our labels, never QCustomPlot's "·10^" rewrite
  if (log) {
    auto t = QSharedPointer<FormattedTicker<QCPAxisTickerLog>>::create(axis, fmt);
    t->setLogBase(10);
    t->setSubTickCount(8);
    axis->setScaleType(QCPAxis::stLogarithmic);
    axis->setTicker(t);
  } else {
    axis->setScaleType(QCPAxis::stLinear);
    axis->setTicker(QSharedPointer<FormattedTicker<QCPAxisTicker>>::create(axis, fmt));
  }
}

PlotWidget::PlotWidget(const QString& title, QWidget* parent) : QCustomPlot(parent), title_(title) {
  setAccessibleName(title);
  setToolTip(QString());
  setMinimumSize(200, 160);
  const QFont f = PlotFonts::tick(font());
  for (QCPAxis* axis : {xAxis, yAxis, xAxis2, yAxis2}) {
    axis->setTickLabelFont(f);
    axis->setLabelFont(f);
    // Default tickers also thin their labels (axes a plot class never formats).
    axis->setTicker(QSharedPointer<FormattedTicker<QCPAxisTicker>>::create(axis, Formatter{}));
  }
  legend->setFont(f);
  plotLayout()->insertRow(0);
  plotLayout()->addElement(0, 0, new QCPTextElement(this, title, PlotFonts::title(font())));
  axisRect()->setAutoMargins(QCP::msAll);
  setNoAntialiasingOnDrag(true);
  setContextMenuPolicy(Qt::CustomContextMenu);
  connect(this, &QWidget::customContextMenuRequested, this, &PlotWidget::showMenu);
  connect(this, &QCustomPlot::beforeReplot, this, &PlotWidget::fitAxisTitles);
  setMouseTracking(true);
  passWheelToPage(this);  // no zoom here: the wheel scrolls the page

  hover_dot_ = new QCPItemTracer(this);
  hover_dot_->setStyle(QCPItemTracer::tsCircle);
  hover_dot_->setSize(7);
  hover_dot_->setBrush(Qt::NoBrush);
  hover_dot_->setVisible(false);
  hover_dot_->setInterpolating(false);
  hover_label_ = new QCPItemText(this);
  hover_label_->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  hover_label_->setPadding(QMargins(4, 2, 4, 2));
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

void PlotWidget::setY2Axis(const QString& label, bool log, Formatter fmt) {
  yAxis2->setVisible(true);
  setupAxis(yAxis2, label, log, fmt);
}

void PlotWidget::setIntegerTicks(QCPAxis* axis) {
  auto t = QSharedPointer<FormattedTicker<QCPAxisTicker>>::create(
      axis, axis == xAxis ? x_fmt_ : (axis == yAxis ? y_fmt_ : Formatter{}));
  t->setIntegerOnly(true);
  axis->setScaleType(QCPAxis::stLinear);
  axis->setTicker(t);
}

void PlotWidget::setHoverFormat(Formatter x, Formatter y) {
  hover_x_ = std::move(x);
  hover_y_ = std::move(y);
}

void PlotWidget::applyPalette(const QPalette& pal) {
  applyPlotPalette(PlotPalette::fromWidget(pal));
}

void PlotWidget::registerNote(QCPItemText* note) {
  notes_.emplace_back(note);
  note->setColor(palette_.text);
  note->setBrush(palette_.note_fill);
}

void PlotWidget::applyPlotPalette(const PlotPalette& p) {
  const QColor old_text = palette_.text;
  palette_ = p;
  setBackground(p.background);
  for (QCPAxis* axis : {xAxis, yAxis, xAxis2, yAxis2}) {
    axis->setBasePen(QPen(p.text, 1));
    axis->setTickPen(QPen(p.text, 1));
    axis->setSubTickPen(QPen(p.text, 1));
    axis->setLabelColor(p.text);
    axis->setTickLabelColor(p.text);
    axis->grid()->setPen(QPen(p.grid, 1, Qt::DotLine));
    axis->grid()->setSubGridPen(Qt::NoPen);
  }
  legend->setTextColor(p.text);
  for (int i = 0; i < plotLayout()->elementCount(); ++i)
    if (auto* t = qobject_cast<QCPTextElement*>(plotLayout()->elementAt(i)))
      t->setTextColor(p.text);
  for (const QPointer<QCPItemText>& n : notes_)
    if (n) {
      if (n->color() == old_text || n->color() == QColor(30, 30, 30)) n->setColor(p.text);
      n->setBrush(p.note_fill);
    }
  // Notes a panel made without PlotItems: text in a neutral colour follows the
  // palette, text in a data colour (e.g. red for "does not fit") keeps it.
  for (int i = 0; i < itemCount(); ++i)
    if (auto* t = qobject_cast<QCPItemText*>(item(i))) {
      if (t == hover_label_) continue;
      if (t->color() == Qt::black || t->color() == QColor(30, 30, 30) || t->color() == old_text ||
          t->color() == QColor(Qt::white))
        t->setColor(p.text);
      if (t->brush().style() != Qt::NoBrush) t->setBrush(p.note_fill);
    }
  hover_label_->setBrush(p.hover_fill);
  hover_label_->setColor(p.text);
  hover_dot_->setPen(QPen(p.text, 1.2));
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
  legend->setProperty("napkinColumns", columns);
  if (!legend->property("napkinFits").toBool()) {
    legend->setProperty("napkinFits", true);
    connect(this, &QCustomPlot::beforeReplot, this, [this] { fitLegendColumns(this); });
  }
  legend->setBorderPen(Qt::NoPen);
  legend->setBrush(Qt::NoBrush);
  legend->setMargins(QMargins(2, 0, 2, 2));
  legend->setRowSpacing(0);
  legend->setColumnSpacing(8);
  legend->setIconSize(18, 9);
  legend->setIconTextPadding(4);
}

QCPGraph* PlotWidget::ghost(QCPGraph* graph) {
  for (const auto& [g, gh] : ghosts_)
    if (g == graph) return gh;
  QCPGraph* gh = addGraph(graph->keyAxis(), graph->valueAxis());
  gh->setLayer(kGhostLayer);
  gh->setPen(ghostPen(graph->pen()));
  gh->setLineStyle(graph->lineStyle());
  QCPScatterStyle sc = graph->scatterStyle();
  sc.setPen(ghostPen(sc.pen()));
  sc.setBrush(Qt::NoBrush);
  gh->setScatterStyle(sc);
  gh->setName(tr("baseline: %1").arg(graph->name()));
  gh->removeFromLegend();
  gh->setVisible(baseline_visible_);
  ghosts_.emplace_back(graph, gh);
  if (!baseline_legend_) {
    baseline_legend_ = addGraph();
    baseline_legend_->setName(tr("baseline"));
    baseline_legend_->setPen(ghostPen(plotPen(palette_.text, 1.6)));
    baseline_legend_->setVisible(baseline_visible_);
    if (!baseline_visible_) baseline_legend_->removeFromLegend();
  }
  return gh;
}

QCPGraph* PlotWidget::ghostBarTops(QCPGraph* graph, int half_width) {
  QCPGraph* gh = ghost(graph);
  QPainterPath dash;
  dash.moveTo(-half_width, 0);
  dash.lineTo(half_width, 0);
  gh->setLineStyle(QCPGraph::lsNone);
  // ssCustom scales its path by size ÷ 6 (pen included, on a PDF): at size 6
  // the dash is its own 2 × half_width wide and 2 px thick, not a smudge.
  gh->setScatterStyle(QCPScatterStyle(dash, ghostPen(plotPen(palette_.text, 2)), Qt::NoBrush, 6));
  return gh;
}

void PlotWidget::setBaselineVisible(bool on) {
  baseline_visible_ = on;
  for (const auto& [g, gh] : ghosts_) gh->setVisible(on);
  if (baseline_legend_) {
    baseline_legend_->setVisible(on);
    if (on)
      baseline_legend_->addToLegend();
    else
      baseline_legend_->removeFromLegend();
  }
  requestReplot();
}

QString PlotWidget::hoverText() const {
  return hover_label_->visible() ? hover_label_->text() : QString();
}

QRectF PlotWidget::hoverRect() const {
  if (!hover_label_->visible()) return {};
  const QFontMetrics fm(hover_label_->font());
  const QRect br = fm.boundingRect(QRect(0, 0, 400, 200), 0, hover_label_->text());
  const QMargins pad = hover_label_->padding();
  return QRectF(
      hover_label_->position->pixelPosition(),
      QSizeF(br.width() + pad.left() + pad.right(), br.height() + pad.top() + pad.bottom()));
}

void PlotWidget::hoverAt(const QPointF& pos) {
  double best = std::numeric_limits<double>::max();
  QString text;
  QCPGraph* best_graph = nullptr;
  QCPAxis *best_x = xAxis, *best_y = yAxis;
  double bx = 0, by = 0;
  const Formatter plain = [](double v) { return QString::number(v, 'g', 4); };
  auto consider = [&](const QString& name, QCPAxis* xa, QCPAxis* ya, double x, double y,
                      QCPGraph* g) {
    if (!std::isfinite(x) || !std::isfinite(y)) return;
    const double px = xa->coordToPixel(x), py = ya->coordToPixel(y);
    const double d = std::hypot(px - pos.x(), py - pos.y());
    if (d < best) {
      best = d;
      const Formatter& fx = hover_x_ && xa == xAxis ? hover_x_ : plain;
      const Formatter& fy = hover_y_ && ya == yAxis ? hover_y_ : plain;
      text = (name.isEmpty() ? QString() : name + QLatin1Char('\n')) + xa->label() +
             QStringLiteral(": ") + fx(x) + QLatin1Char('\n') + ya->label() + QStringLiteral(": ") +
             fy(y);
      best_graph = g;
      best_x = xa;
      best_y = ya;
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
    // Keep the label inside the axes, so it never covers the tick labels (or,
    // if the axes are smaller than the label, inside the widget).
    const QFontMetrics fm(hover_label_->font());
    const QRect br = fm.boundingRect(QRect(0, 0, 400, 200), 0, text);
    const double w = br.width() + 10, h = br.height() + 6;
    QRectF box = axisRect()->rect();
    if (box.width() < w + 4 || box.height() < h + 4) box = rect();
    double x = pos.x() + 12, y = pos.y() - h - 8;
    if (x + w > box.right()) x = pos.x() - w - 12;
    if (y < box.top()) y = pos.y() + 12;
    x = std::clamp(x, box.left() + 2, std::max(box.left() + 2, box.right() - w - 2));
    y = std::clamp(y, box.top() + 2, std::max(box.top() + 2, box.bottom() - h - 2));
    hover_label_->position->setCoords(x, y);
    hover_label_->setVisible(true);
    if (best_graph) {
      hover_dot_->setGraph(best_graph);
      hover_dot_->setGraphKey(bx);
    } else {
      hover_dot_->setGraph(nullptr);
      hover_dot_->position->setAxes(best_x, best_y);
      hover_dot_->position->setCoords(bx, by);
    }
    hover_dot_->setVisible(true);
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

QString fitted_axis_title(const QString& title, const QFontMetricsF& fm, double room) {
  if (room <= 0 || fm.horizontalAdvance(title) <= room) return title;
  QStringList lines;
  QString line;
  for (const QString& word : title.split(QLatin1Char(' '))) {
    const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
    if (!line.isEmpty() && fm.horizontalAdvance(longer) > room) {
      lines << line;
      line = word;
    } else {
      line = longer;
    }
  }
  lines << line;
  return lines.join(QLatin1Char('\n'));
}

double axis_title_room(const QCPAxis* axis, int w, int h) {
  const QRectF r = axis->axisRect()->rect();
  const bool horizontal = axis->orientation() == Qt::Horizontal;
  const double centre = horizontal ? r.center().x() : r.center().y();
  const double size = horizontal ? w : h;
  return 2.0 * std::min(centre, size - centre) - 12.0;
}

QString PlotWidget::axisTitle(const QCPAxis* axis) const {
  for (const auto& [a, t] : titles_)
    if (a == axis && axis->label() == t.shown) return t.given;
  return axis->label();
}

// A title the plot set anew is taken as given; a title it set with line
// breaks of its own is left as it is.
void PlotWidget::fitAxisTitles() {
  const QRect v = viewport();
  for (QCPAxis* axis : axisRect()->axes()) {
    const QString now = axis->label();
    auto it = std::find_if(titles_.begin(), titles_.end(),
                           [&](const auto& entry) { return entry.first == axis; });
    if (it == titles_.end()) it = titles_.insert(titles_.end(), {axis, AxisTitle{now, now}});
    AxisTitle& t = it->second;
    if (now != t.shown) t.given = now;
    t.shown = t.given.contains(QLatin1Char('\n'))
                  ? t.given
                  : fitted_axis_title(t.given, QFontMetricsF(axis->labelFont()),
                                      axis_title_room(axis, v.width(), v.height()));
    if (t.shown != now) axis->setLabel(t.shown);
  }
}

void PlotWidget::requestReplot() {
  if (isVisible() && visibleRegion().isEmpty()) {
    unseen_changes_ = true;
    return;
  }
  unseen_changes_ = false;
  replot(QCustomPlot::rpQueuedReplot);
}

void PlotWidget::paintEvent(QPaintEvent* event) {
  if (unseen_changes_) {  // scrolled into view: draw the current data into the buffer first
    unseen_changes_ = false;
    replot(QCustomPlot::rpQueuedRefresh);
  }
  QCustomPlot::paintEvent(event);
}

}  // namespace napkin
