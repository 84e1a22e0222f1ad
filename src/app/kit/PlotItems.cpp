#include "PlotItems.h"

#include <cmath>

#include "PlotStyle.h"
#include "PlotWidget.h"

namespace napkin {

VMarker::VMarker(PlotWidget* plot, const QPen& pen, QCPAxis* x_axis) {
  line_ = new QCPItemStraightLine(plot);
  line_->setPen(pen);
  QCPAxis* xa = x_axis ? x_axis : plot->xAxis;
  for (QCPItemPosition* p : {line_->point1, line_->point2}) {
    p->setAxes(xa, plot->yAxis);
    p->setAxisRect(plot->axisRect());
    p->setTypeX(QCPItemPosition::ptPlotCoords);
    p->setTypeY(QCPItemPosition::ptAxisRectRatio);
  }
  place(xa->range().center());
}

void VMarker::place(double x) {
  line_->point1->setCoords(x, 0);
  line_->point2->setCoords(x, 1);
}

HMarker::HMarker(PlotWidget* plot, const QPen& pen, QCPAxis* y_axis) {
  line_ = new QCPItemStraightLine(plot);
  line_->setPen(pen);
  QCPAxis* ya = y_axis ? y_axis : plot->yAxis;
  for (QCPItemPosition* p : {line_->point1, line_->point2}) {
    p->setAxes(plot->xAxis, ya);
    p->setAxisRect(plot->axisRect());
    p->setTypeX(QCPItemPosition::ptAxisRectRatio);
    p->setTypeY(QCPItemPosition::ptPlotCoords);
  }
  place(ya->range().center());
}

void HMarker::place(double y) {
  line_->point1->setCoords(0, y);
  line_->point2->setCoords(1, y);
}

namespace {

// The smallest a note steps down to on a narrow plot: a point under the
// labels on bars (PlotFonts::small, 7.5 pt) and still legible on screen.
constexpr double kMinNotePt = 6.5;
// The note's text as given (Note::setText), before any clause is wrapped.
constexpr const char* kFullText = "napkinFullText";

// A note on a narrow or short plot takes a smaller font, half a point at a
// time down to kMinNotePt, rather than run over an axis or out of the plot.
void fitInsideAxes(QCustomPlot* plot, QCPItemText* note, double full_pt) {
  if (!note->visible() || note->text().isEmpty()) return;
  // The axis rect at the size this replot (or report page) draws at: a
  // replot lays out only after beforeReplot, so lay out now.
  QCPLayoutGrid* layout = plot->plotLayout();
  for (auto phase :
       {QCPLayoutElement::upPreparation, QCPLayoutElement::upMargins, QCPLayoutElement::upLayout})
    layout->update(phase);
  const QRectF area = QRectF(plot->axisRect()->rect()).adjusted(-0.5, -0.5, 0.5, 0.5);
  const QString full = note->property(kFullText).toString();
  if (!full.isEmpty()) note->setText(full);
  auto fits = [&] {
    return area.contains(
        QRectF(note->topLeft->pixelPosition(), note->bottomRight->pixelPosition()));
  };
  QFont f = note->font();
  f.setPointSizeF(full_pt);
  for (;;) {
    note->setFont(f);
    if (fits() || f.pointSizeF() - 0.5 < kMinNotePt) break;
    f.setPointSizeF(f.pointSizeF() - 0.5);
  }
  // Still too wide at the smallest size: each clause on a line of its own.
  if (!fits() && note->text().contains(QStringLiteral(", ")))
    note->setText(note->text().replace(QStringLiteral(", "), QStringLiteral(",\n")));
}

}  // namespace

Note::Note(PlotWidget* plot, Qt::Alignment align, double rx, double ry) {
  text_ = new QCPItemText(plot);
  text_->setPositionAlignment(align);
  text_->setTextAlignment(align & Qt::AlignRight ? Qt::AlignRight : Qt::AlignLeft);
  const QFont font = PlotFonts::note(plot->font());
  text_->setFont(font);
  text_->setPadding(QMargins(3, 1, 3, 1));
  text_->position->setType(QCPItemPosition::ptAxisRectRatio);
  text_->position->setCoords(rx, ry);
  plot->registerNote(text_);
  QObject::connect(
      plot, &QCustomPlot::beforeReplot, text_,
      [plot, note = text_, full_pt = font.pointSizeF()] { fitInsideAxes(plot, note, full_pt); });
}

void Note::setText(const QString& text) {
  text_->setProperty(kFullText, text);
  text_->setText(text);
}

QCPItemText* addPointLabel(PlotWidget* plot, Qt::Alignment align) {
  auto* t = new QCPItemText(plot);
  t->setPositionAlignment(align);
  t->setFont(PlotFonts::small(plot->font()));
  t->setColor(plot->plotPalette().text);
  return t;
}

StackedBars::StackedBars(PlotWidget* plot, const std::vector<Part>& parts, double width) {
  QCPBars* below = nullptr;
  for (const Part& p : parts) {
    auto* b = new QCPBars(plot->xAxis, plot->yAxis);
    b->setName(p.name);
    b->setBrush(p.color);
    b->setPen(QPen(p.color.darker(130)));
    b->setWidth(width);
    if (below) b->moveAbove(below);
    below = b;
    bars_.push_back(b);
  }
}

void StackedBars::setData(const std::vector<double>& keys,
                          const std::vector<std::vector<double>>& values) {
  for (std::size_t k = 0; k < bars_.size(); ++k) {
    QVector<double> x, y;
    for (std::size_t i = 0; i < keys.size() && k < values.size() && i < values[k].size(); ++i)
      if (std::isfinite(keys[i]) && std::isfinite(values[k][i])) {
        x.push_back(keys[i]);
        y.push_back(values[k][i]);
      }
    bars_[k]->setData(x, y, true);
  }
}

void setCurve(QCPGraph* g, const std::vector<double>& x, const std::vector<double>& y) {
  const bool log_x = g->keyAxis()->scaleType() == QCPAxis::stLogarithmic;
  const bool log_y = g->valueAxis()->scaleType() == QCPAxis::stLogarithmic;
  QVector<double> xs, ys;
  const std::size_t n = std::min(x.size(), y.size());
  xs.reserve(static_cast<qsizetype>(n));
  ys.reserve(static_cast<qsizetype>(n));
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(x[i]) || !std::isfinite(y[i])) continue;
    if ((log_x && x[i] <= 0) || (log_y && y[i] <= 0)) continue;
    xs.push_back(x[i]);
    ys.push_back(y[i]);
  }
  g->setData(xs, ys, true);
}

QCPGraph* addCurve(PlotWidget* plot, const QString& name, const QPen& pen,
                   const QCPScatterStyle& scatter, bool line) {
  QCPGraph* g = plot->addGraph();
  g->setName(name);
  g->setPen(pen);
  g->setScatterStyle(scatter);
  if (!line) g->setLineStyle(QCPGraph::lsNone);
  return g;
}

void ValueRange::add(const std::vector<double>& v, bool positive_only) {
  for (double x : v) {
    if (!std::isfinite(x) || (positive_only && x <= 0)) continue;
    if (!valid) {
      lo = hi = x;
      valid = true;
    } else {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
    }
  }
}

}  // namespace napkin
