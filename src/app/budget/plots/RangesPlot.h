// The base of the plots of the range analysis (the Monte Carlo histogram and
// the tornado): a note that says what is shown, "(updating…)" while new draws
// are computed, and the baseline's days as one ghost line.
#pragma once

#include "BudgetPlot.h"

namespace napkin {

class RangesPlot : public BudgetPlot {
 public:
  // `line` draws the baseline's days (as a faded dashed ghost).
  RangesPlot(const QString& title, QWidget* parent, const QPen& line, Qt::Alignment note_corner,
             double note_x, double note_y);
  // Draws are being computed (the bars shown are from the previous inputs).
  void setPending(bool pending);
  QString noteText() const { return note_->text(); }
  void drawBaseline(const BudgetView* b) final;

 protected:
  // Nothing to draw yet: no input is a range (`none`), or draws are still
  // coming (`computing`). Returns false when that is already on screen.
  bool drawWithoutRanges(const BudgetView& v, const QString& computing, const QString& none);
  // Shows `text` as the note, not pending.
  void setNote(const QString& text);
  // The bars and markers a plot hides while it has no ranges.
  virtual void clearRanges() = 0;
  // The baseline's days the ghost line marks.
  virtual double baselineDays(const RangeReport& r) const = 0;

 private:
  QCPGraph* ghost_line_;  // empty itself: its ghost is the baseline's line
  Note* note_;
  QString text_;
  bool pending_ = false;
};

}  // namespace napkin
