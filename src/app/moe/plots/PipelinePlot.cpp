#include "moe/plots/PipelinePlot.h"

#include <algorithm>

#include "format.h"

namespace napkin {

namespace {
// Chunk colours, cycling.
const QColor& chunkColor(std::int64_t chunk) {
  static const QColor colors[] = {plot_color::part_blue,   plot_color::part_green,
                                  plot_color::part_red,    plot_color::part_purple,
                                  plot_color::part_orange, plot_color::teal};
  return colors[static_cast<std::size_t>(chunk) % 6];
}
}  // namespace

PipelinePlot::PipelinePlot(QWidget* parent)
    : MoePlot(tr("Pipelined prefill: chunks through stages"), parent) {
  setObjectName(QStringLiteral("plot_gantt"));
  setXAxis(tr("time (ms)"), false);
  setYAxis(tr("stage (chip)"), false);
  setIntegerTicks(yAxis);
  yAxis->setRangeReversed(true);
  xAxis->grid()->setZeroLinePen(Qt::NoPen);
  yAxis->grid()->setZeroLinePen(Qt::NoPen);
  outline_ = addCurve(this, tr("pipeline outline"), plotPen(plot_color::gray, 1.0, Qt::DotLine));
  outline_->removeFromLegend();
}

void PipelinePlot::drawView(const MoeFrame& f) {
  const MoeScenarioView& v = f.scenario;
  const PipelineInputs& in = v.pipe_inputs;
  if (!inputsChanged(in.chunks, in.stages, in.compute_ms, in.transfer_ms)) return;
  const std::size_t need = v.gantt.size() * 2;
  while (rects_.size() < need) {
    auto* r = new QCPItemRect(this);
    r->setClipToAxisRect(true);
    rects_.push_back(r);
  }
  for (std::size_t i = 0; i < v.gantt.size(); ++i) {
    const MoeGanttBar& b = v.gantt[i];
    const QColor& col = chunkColor(b.chunk);
    const double y = static_cast<double>(b.stage);
    QCPItemRect* comp = rects_[2 * i];
    comp->setVisible(true);
    comp->topLeft->setCoords(b.compute_start_ms, y - 0.32);
    comp->bottomRight->setCoords(b.compute_end_ms, y + 0.18);
    comp->setBrush(col);
    comp->setPen(QPen(col.darker(130)));
    QCPItemRect* hop = rects_[2 * i + 1];
    hop->setVisible(b.has_hop);
    if (b.has_hop) {
      QColor light = col;
      light.setAlpha(110);
      hop->topLeft->setCoords(b.hop_start_ms, y + 0.2);
      hop->bottomRight->setCoords(b.hop_end_ms, y + 0.36);
      hop->setBrush(light);
      hop->setPen(Qt::NoPen);
    }
  }
  for (std::size_t i = need; i < rects_.size(); ++i) rects_[i]->setVisible(false);
  setCurve(outline_, v.outline_ms, v.outline_stage);
  // Wide enough for a baseline's ghost too.
  xAxis->setRange(0, std::max(v.gantt_end_ms, ghost_end_ms_) * 1.02);
  yAxis->setRange(-0.6, static_cast<double>(std::max(in.stages, ghost_stages_)) - 0.4);
  xAxis->setLabel(tr("time (ms) · faint: hop · bubble %1 ms · %2 busy")
                      .arg(QString::fromStdString(format_grouped(v.pipe.bubble_ms, 1)))
                      .arg(QString::fromStdString(format_percent(v.pipe.utilization))));
  replotIfSeen();
}

void PipelinePlot::drawBaseline(const MoeRunOfRecord* b) {
  setBaselineVisible(b != nullptr);
  ghost_end_ms_ = b ? b->scenario.gantt_end_ms : 0;
  ghost_stages_ = b ? b->scenario.pipe_inputs.stages : 0;
  invalidate();  // the ranges follow the ghost at the next draw
  if (b) setCurve(ghost(outline_), b->scenario.outline_ms, b->scenario.outline_stage);
  replotIfSeen();
}

int PipelinePlot::barCount() const {
  int n = 0;
  for (std::size_t i = 0; i < rects_.size(); i += 2) n += rects_[i]->visible() ? 1 : 0;
  return n;
}

}  // namespace napkin
