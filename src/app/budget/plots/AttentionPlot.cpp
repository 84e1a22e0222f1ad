#include "AttentionPlot.h"
#include "Text.h"

#include "format.h"

namespace napkin {

namespace {}  // namespace

AttentionPlot::AttentionPlot(QWidget* parent)
    : BudgetPlot(tr("Where 6ND breaks: attention"), parent) {
  setXAxis(tr("sequence length (tokens)"), true, fmtSi);
  setYAxis(tr("share / error"), true, fmtPercent);
  setHoverFormat(fmtSi, fmtPercent);
  share_ = addCurve(this, tr("attention share"), plotPen(plot_color::blue));
  error_ = addCurve(this, tr("6ND undercount"), plotPen(plot_color::red, 1.6, Qt::DashLine));
  showLegendBelow();
  seq_ = new VMarker(this, plotPen(plot_color::orange, 1.2, Qt::DotLine));
  note_ = new Note(this, Qt::AlignRight | Qt::AlignBottom, 0.98, 0.97);
}

void AttentionPlot::drawView(const BudgetView& v) {
  const Scenario& s = v.scenario;
  if (!inputsChanged(v.params.non_embedding_active, s.shape.n_layers, s.shape.d_model,
                     s.training.seq_len))
    return;
  setCurve(share_, v.attention_fraction);
  setCurve(error_, v.six_nd_error);
  xAxis->setRange(v.attention_fraction.x.front(), v.attention_fraction.x.back());
  ValueRange lo, hi;
  lo.add(v.attention_fraction.y, true);
  hi.add(v.six_nd_error.y, true);
  yAxis->setRange(std::max(lo.valid ? lo.lo / 2 : 1e-5, 1e-5),
                  std::max(hi.valid ? hi.hi * 2 : 1.0, 1.0));
  seq_->place(static_cast<double>(s.training.seq_len));
  note_->setText(tr("@ %1: %2 of FLOPs\n6ND low by %3")
                     .arg(qs(format_count(static_cast<double>(s.training.seq_len), 0)),
                          qs(format_percent(v.attention_fraction_at_seq)),
                          qs(format_percent(v.six_nd_error_at_seq))));
  requestReplot();
}

void AttentionPlot::drawBaseline(const BudgetView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  setCurve(ghost(share_), b->attention_fraction);
  setCurve(ghost(error_), b->six_nd_error);
  requestReplot();
}

}  // namespace napkin
