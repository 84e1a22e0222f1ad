#include "RangesPlot.h"

#include <algorithm>

namespace napkin {

RangesPlot::RangesPlot(const QString& title, QWidget* parent, const QPen& line,
                       Qt::Alignment note_corner, double note_x, double note_y)
    : BudgetPlot(title, parent) {
  ghost_line_ = addCurve(this, QString(), line);
  ghost_line_->removeFromLegend();
  note_ = new Note(this, note_corner, note_x, note_y);
}

void RangesPlot::setPending(bool pending) {
  if (pending == pending_) return;
  pending_ = pending;
  note_->setText(pending_ ? text_ + tr("\n(updating…)") : text_);
  requestReplot();
}

void RangesPlot::setNote(const QString& text) {
  text_ = text;
  pending_ = false;
  note_->setText(text_);
}

bool RangesPlot::drawWithoutRanges(const BudgetView& v, const QString& computing,
                                   const QString& none) {
  if (!inputsChanged(0.0, v.scenario.ranges.any() ? 1.0 : 0.0)) return false;
  clearRanges();
  setNote(v.scenario.ranges.any() ? computing : none);
  xAxis->setRange(0, std::max(1.0, 2.0 * v.run().wall_clock_days));
  yAxis->setRange(0, 1);
  requestReplot();
  return true;
}

void RangesPlot::drawBaseline(const BudgetView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  if (b->ranges) {
    const double d = baselineDays(*b->ranges);
    setCurve(ghost(ghost_line_), {d, d}, {0.0, 1e12});
  } else {  // a baseline without ranges has nothing to draw here
    setCurve(ghost(ghost_line_), {}, {});
  }
  requestReplot();
}

}  // namespace napkin
