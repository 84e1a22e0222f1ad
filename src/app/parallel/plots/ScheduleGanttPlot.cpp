#include "ScheduleGanttPlot.h"
#include "Text.h"

#include <algorithm>

#include "format.h"

namespace napkin {

namespace {
constexpr double kTaskHalf = 0.38;  // half a bar's height, in rows
constexpr int kMaxBars = 4096;      // beyond this the chart is unreadable anyway

QColor opColor(const ScheduleOp& op) {
  if (op.weight) return plot_color::part_orange;  // zb-h1's deferred weight gradient
  const QColor base = op.forward ? plot_color::part_blue : plot_color::part_green;
  return op.chunk == 0
             ? base
             : base.lighter(100 + static_cast<int>(std::min<std::int64_t>(op.chunk, 4)) * 18);
}

double rowOf(std::int64_t stage, std::int64_t stages) {
  return static_cast<double>(stages - 1 - stage);  // stage 0 on top
}
}  // namespace

ScheduleGanttPlot::ScheduleGanttPlot(QWidget* parent)
    : ParallelPlot(tr("Pipeline schedule (first micro-batches)"), parent) {
  setXAxis(tr("seconds"), false, [](double v) { return qs(format_seconds(v)); });
  setYAxis(tr("stage"), false);
  yAxis->grid()->setVisible(false);
  // Legend entries (thick lines, no data), then the bars' midpoints (hover, CSV).
  addCurve(this, tr("forward"), plotPen(plot_color::part_blue, 6));
  addCurve(this, tr("backward"), plotPen(plot_color::part_green, 6));
  weightLegend_ = addCurve(this, tr("weight gradient (W)"), plotPen(plot_color::part_orange, 6));
  forward_ = addCurve(this, tr("forward ops"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  backward_ = addCurve(this, tr("backward ops"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  for (QCPGraph* g : {forward_, backward_}) {
    g->setLineStyle(QCPGraph::lsNone);
    g->removeFromLegend();
  }
  makespan_ = addCurve(this, tr("end"), plotPen(plot_color::dark, 1.2, Qt::DotLine));
  makespan_->removeFromLegend();
  weightLegend_->setVisible(false);
  weightLegend_->removeFromLegend();
  showLegendBelow(3);
}

QCPItemRect* ScheduleGanttPlot::rect(int i) {
  while (static_cast<int>(pool_.size()) <= i) {
    auto* r = new QCPItemRect(this);
    r->setPen(QPen(Qt::white, 0.5));
    r->setClipToAxisRect(true);
    r->setSelectable(false);
    pool_.push_back(r);
  }
  return pool_[static_cast<std::size_t>(i)];
}

void ScheduleGanttPlot::drawView(const ParallelView& v) {
  const PipelineSchedule& s = v.schedule;
  const double step = v.layout && v.layout->valid ? v.layout->step_seconds : 0.0;
  const double bubble = v.layout && v.layout->valid ? v.layout->time.bubble_share() : 0.0;
  if (!inputsChanged(s.makespan_seconds, s.bubble_fraction, s.stages, s.chunks, s.micro_batches,
                     static_cast<int>(s.order), static_cast<int>(v.job.software.pipe_schedule),
                     static_cast<double>(s.ops.size()), step, bubble,
                     v.layout ? v.layout->micro_batches : std::int64_t{0}))
    return;
  const int n = std::min(static_cast<int>(s.ops.size()), kMaxBars);
  std::vector<double> fx, fy, bx, by;
  for (int i = 0; i < n; ++i) {
    const ScheduleOp& op = s.ops[static_cast<std::size_t>(i)];
    const double row = rowOf(op.stage, s.stages);
    QCPItemRect* r = rect(i);
    r->topLeft->setCoords(op.start_seconds, row + kTaskHalf);
    r->bottomRight->setCoords(op.end_seconds, row - kTaskHalf);
    r->setBrush(opColor(op));
    r->setVisible(true);
    (op.forward ? fx : bx).push_back(0.5 * (op.start_seconds + op.end_seconds));
    (op.forward ? fy : by).push_back(row);
  }
  // The W entry only where there are W bars (it is not in the legend otherwise).
  if (const bool zb = s.order == PipeSchedule::zb_h1; zb != weightLegend_->visible()) {
    weightLegend_->setVisible(zb);
    if (zb)
      weightLegend_->addToLegend();
    else
      weightLegend_->removeFromLegend();
  }
  for (int i = n; i < shown_; ++i) pool_[static_cast<std::size_t>(i)]->setVisible(false);
  shown_ = n;
  forward_->setData(QVector<double>(fx.begin(), fx.end()), QVector<double>(fy.begin(), fy.end()));
  backward_->setData(QVector<double>(bx.begin(), bx.end()), QVector<double>(by.begin(), by.end()));
  const double rows = static_cast<double>(std::max<std::int64_t>(s.stages, 1));
  setCurve(makespan_, {s.makespan_seconds, s.makespan_seconds}, {-0.5, rows - 0.5});
  makespan_->setVisible(n > 0);
  xAxis->setRange(0, std::max(s.makespan_seconds, 1e-6) * 1.02);
  yAxis->setRange(-0.6, rows - 0.4);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  const std::int64_t every = std::max<std::int64_t>(1, s.stages / 8);
  for (std::int64_t st = 0; st < s.stages; st += every)
    ticker->addTick(rowOf(st, s.stages), QString::number(st));
  yAxis->setTicker(ticker);
  if (n == 0) {
    xAxis->setLabel(tr("seconds (no valid layout)"));
  } else {
    // What is drawn, and what of the job's schedule is not (the step time
    // has it): DualPipe's two-way order, zb-h1's split when interleaved.
    const PipeSchedule job = v.job.software.pipe_schedule;
    QString kind = s.order == PipeSchedule::zb_h1 ? tr("zb-h1")
                   : s.chunks > 1                 ? tr("interleaved, %1 chunks").arg(s.chunks)
                                                  : tr("1F1B");
    if (job == PipeSchedule::dualpipe)
      kind = tr("1F1B order, not DualPipe's");
    else if (job == PipeSchedule::zb_h1 && s.order != PipeSchedule::zb_h1)
      kind += tr(" without zb-h1's W split");
    xAxis->setLabel(tr("seconds: %1, %2 of %3 micro-batches; bubble here %4, in the step %5")
                        .arg(kind)
                        .arg(s.micro_batches)
                        .arg(v.layout->micro_batches)
                        .arg(qs(format_percent(s.bubble_fraction)))
                        .arg(qs(format_percent(bubble))));
  }
  requestReplot();
}

void ScheduleGanttPlot::drawBaseline(const ParallelView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  const double end = b->schedule.makespan_seconds;
  const double rows = static_cast<double>(std::max<std::int64_t>(b->schedule.stages, 1));
  setCurve(ghost(makespan_), {end, end}, {-0.5, rows - 0.5});
  requestReplot();
}

}  // namespace napkin
