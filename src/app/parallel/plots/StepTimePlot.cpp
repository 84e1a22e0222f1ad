#include "StepTimePlot.h"
#include "Text.h"

#include <algorithm>

#include "format.h"

namespace napkin {

namespace {
constexpr int kParts = 9;          // step_parts()
constexpr double kBarHalf = 0.34;  // half a bar's height, in rows

QColor partColor(int i) {
  static const QColor colors[kParts + 1] = {plot_color::part_blue,   plot_color::part_purple,
                                            plot_color::part_orange, plot_color::part_light,
                                            plot_color::part_gray,   plot_color::part_green,
                                            plot_color::part_red,    plot_color::teal,
                                            plot_color::gray,        plot_color::dark};
  return colors[i];
}

// Row of part i: the first part on top, the step at the bottom.
double rowOf(int i) { return static_cast<double>(kParts - i); }

std::vector<double> endsOf(const std::vector<StepPart>& parts) {
  std::vector<double> e;
  double t = 0;
  for (const StepPart& p : parts) e.push_back(t += p.seconds);
  return e;
}
}  // namespace

StepTimePlot::StepTimePlot(QWidget* parent) : ParallelPlot(tr("Where a step's time goes"), parent) {
  setXAxis(tr("seconds into the step"), false,
           [](double v) { return v == 0 ? QStringLiteral("0") : qs(format_seconds(v)); });
  setYAxis(QString(), false);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const std::vector<StepPart> names = step_parts(StepTime{});
  for (int i = 0; i < kParts; ++i)
    ticker->addTick(rowOf(i), qs(names[static_cast<std::size_t>(i)].name));
  ticker->addTick(rowOf(kParts), tr("step"));
  yAxis->setTicker(ticker);
  yAxis->setRange(-0.6, kParts + 0.6);
  yAxis->grid()->setVisible(false);
  for (int i = 0; i <= kParts; ++i) {
    auto* r = new QCPItemRect(this);
    r->setPen(Qt::NoPen);
    r->setBrush(partColor(i));
    r->setClipToAxisRect(true);
    rects_.push_back(r);
  }
  ends_ = addCurve(this, tr("cumulative"), QPen(Qt::NoPen),
                   QCPScatterStyle(QCPScatterStyle::ssDisc, plot_color::dark, 4), false);
  ends_->removeFromLegend();
  setHoverFormat([](double v) { return qs(format_seconds(v)); },
                 [names](double row) {
                   const int i = kParts - static_cast<int>(std::lround(row));
                   return i >= 0 && i < kParts ? qs(names[static_cast<std::size_t>(i)].name)
                                               : tr("step");
                 });
}

void StepTimePlot::drawView(const ParallelView& v) {
  std::vector<StepPart> parts =
      v.layout && v.layout->valid ? step_parts(v.layout->time) : std::vector<StepPart>{};
  std::vector<double> ends = endsOf(parts);
  if (!inputsChanged(ends)) return;
  parts_ = parts;
  const double total = ends.empty() ? 0.0 : ends.back();
  double start = 0;
  for (int i = 0; i < kParts; ++i) {
    QCPItemRect* r = rects_[static_cast<std::size_t>(i)];
    const double sec = parts.empty() ? 0.0 : parts[static_cast<std::size_t>(i)].seconds;
    r->topLeft->setCoords(start, rowOf(i) + kBarHalf);
    r->bottomRight->setCoords(start + sec, rowOf(i) - kBarHalf);
    r->setVisible(sec > 0);
    start += sec;
  }
  QCPItemRect* step = rects_.back();
  step->topLeft->setCoords(0, rowOf(kParts) + kBarHalf);
  step->bottomRight->setCoords(total, rowOf(kParts) - kBarHalf);
  step->setVisible(total > 0);
  std::vector<double> rows;
  for (int i = 0; i < static_cast<int>(parts.size()); ++i) rows.push_back(rowOf(i));
  if (!parts.empty()) {
    ends.push_back(total);
    rows.push_back(rowOf(kParts));
  }
  setCurve(ends_, ends, rows);
  xAxis->setRange(0, std::max(total, 1e-3) * 1.05);
  if (parts.empty()) {
    xAxis->setLabel(tr("seconds into the step (no valid layout)"));
  } else {
    const StepTime& t = v.layout->time;
    xAxis->setLabel(tr("seconds into the step: %1, bubble %2, exposed comm %3")
                        .arg(qs(format_seconds(total)), qs(format_percent(t.bubble_share())),
                             qs(format_percent(t.exposed_comm_share()))));
  }
  requestReplot();
}

void StepTimePlot::drawBaseline(const ParallelView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  std::vector<double> ends, rows;
  if (b->layout && b->layout->valid) {
    ends = endsOf(step_parts(b->layout->time));
    for (int i = 0; i < kParts; ++i) rows.push_back(rowOf(i));
    ends.push_back(ends.back());
    rows.push_back(rowOf(kParts));
  }
  QCPGraph* g = ghost(ends_);
  g->setLineStyle(QCPGraph::lsNone);
  g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle,
                                     ghostPen(plotPen(plotPalette().text, 1.5)), Qt::NoBrush, 7));
  setCurve(g, ends, rows);
  requestReplot();
}

}  // namespace napkin
