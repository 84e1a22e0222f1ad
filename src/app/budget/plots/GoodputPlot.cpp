#include "GoodputPlot.h"
#include "Text.h"

#include "format.h"

namespace napkin {

namespace {
QString minutes(double m) {
  return m >= 120 ? qs(format_grouped(m / 60.0, 1)) + QStringLiteral(" h")
                  : qs(format_grouped(m, m < 10 ? 1 : 0)) + QStringLiteral(" min");
}
}  // namespace

GoodputPlot::GoodputPlot(QWidget* parent)
    : BudgetPlot(tr("Goodput vs checkpoint interval"), parent) {
  setXAxis(tr("checkpoint interval (minutes)"), true, fmtSi);
  setYAxis(tr("goodput (share of wall-clock)"), false, fmtPercent);
  curve_ = addCurve(this, tr("goodput"), plotPen(plot_color::blue));
  optimum_dot_ = addCurve(
      this, tr("Young/Daly optimum"), QPen(Qt::NoPen),
      QCPScatterStyle(QCPScatterStyle::ssDiamond, plot_color::green, plot_color::green, 9), false);
  current_dot_ = addCurve(
      this, tr("chosen"), QPen(Qt::NoPen),
      QCPScatterStyle(QCPScatterStyle::ssCircle, plot_color::orange, plot_color::orange, 7), false);
  optimum_ = new VMarker(this, plotPen(plot_color::green, 1.2, Qt::DashLine));
  showLegendBelow(3);
  note_ = new Note(this, Qt::AlignRight | Qt::AlignBottom, 0.98, 0.97);
}

void GoodputPlot::drawView(const BudgetView& v) {
  const GoodputCurve& g = v.goodput_curve;
  const RunReport& run = v.run();
  if (!inputsChanged(g.interval_minutes, g.goodput, g.optimum_minutes, g.current_minutes,
                     run.goodput.expected_crashes, run.params))
    return;
  setCurve(curve_, g.interval_minutes, g.goodput);
  optimum_minutes_ = g.optimum_minutes;
  // At 0 (free writes) the optimum is off the logarithmic axis: said, not drawn.
  const bool drawn = g.optimum_minutes && *g.optimum_minutes > 0;
  optimum_->setVisible(drawn);
  if (drawn) {
    optimum_->place(*g.optimum_minutes);
    setCurve(optimum_dot_, {*g.optimum_minutes}, {g.optimum_goodput});
  } else {
    setCurve(optimum_dot_, {}, {});
  }
  setCurve(current_dot_, {g.current_minutes}, {g.current_goodput});
  if (!g.interval_minutes.empty())
    xAxis->setRange(g.interval_minutes.front(), g.interval_minutes.back());
  ValueRange y;
  y.add(g.goodput);
  const double lo = y.valid ? std::max(0.0, y.lo - 0.05) : 0.0;
  yAxis->setRange(lo, 1.02);
  QString text = tr("%1 on %2 chips, %3 crashes expected\n")
                     .arg(qs(format_count(run.params)),
                          qs(format_grouped(static_cast<double>(v.plan_inputs.n_chips), 0)),
                          qs(format_grouped(run.goodput.expected_crashes, 0)));
  if (g.optimum_minutes)
    text += (*g.optimum_minutes > 0 ? tr("optimum every %1: %2\n").arg(minutes(*g.optimum_minutes))
                                    : tr("optimum as often as possible: %1\n"))
                .arg(qs(format_percent(g.optimum_goodput, 1)));
  else
    text += tr("no interruptions: no optimum\n");
  text += tr("chosen every %1: %2")
              .arg(minutes(g.current_minutes), qs(format_percent(g.current_goodput, 1)));
  note_->setText(text);
  requestReplot();
}

void GoodputPlot::drawBaseline(const BudgetView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  setCurve(ghost(curve_), b->goodput_curve.interval_minutes, b->goodput_curve.goodput);
  requestReplot();
}

}  // namespace napkin
