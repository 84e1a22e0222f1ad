#include "EpochsPlot.h"
#include "Text.h"

#include "format.h"

namespace napkin {

namespace {}  // namespace

EpochsPlot::EpochsPlot(QWidget* parent) : BudgetPlot(tr("Loss vs epochs of the data"), parent) {
  setXAxis(tr("epochs over the unique tokens"), true, fmtSi);
  setYAxis(tr("loss (nats/token)"), false);
  law_ = addCurve(this, tr("Muennighoff 2023"), plotPen(plot_color::blue));
  fresh_ = addCurve(this, tr("if all fresh"), plotPen(plot_color::gray, 1.4, Qt::DashLine));
  toy_ = addCurve(this, tr("seed toy"), QPen(Qt::NoPen),
                  QCPScatterStyle(QCPScatterStyle::ssCircle, plot_color::orange, 5), false);
  run_ = addCurve(this, tr("planned run"), QPen(Qt::NoPen),
                  QCPScatterStyle(QCPScatterStyle::ssDiamond, plot_color::red, plot_color::red, 9),
                  false);
  one_epoch_ = new VMarker(this, plotPen(plot_color::gray, 1.0, Qt::DotLine));
  showLegendBelow(4);
  note_ = new Note(this, Qt::AlignRight | Qt::AlignTop, 0.98, 0.03);
}

void EpochsPlot::drawView(const BudgetView& v) {
  const EpochCurve& c = v.loss_vs_epochs;
  if (!inputsChanged(c.epochs, c.loss, c.toy_loss, c.marked_epochs, c.n_params, c.unique_tokens))
    return;
  setCurve(law_, c.epochs, c.loss);
  setCurve(fresh_, c.epochs, c.loss_fresh);
  setCurve(toy_, c.toy_epochs, c.toy_loss);
  if (c.marked_epochs)
    setCurve(run_, {*c.marked_epochs}, {c.marked_loss});
  else
    setCurve(run_, {}, {});
  one_epoch_->place(1.0);
  if (!c.epochs.empty()) xAxis->setRange(c.epochs.front(), c.epochs.back());
  ValueRange y;
  y.add(c.loss);
  y.add(c.loss_fresh);
  y.add(c.toy_loss);
  if (y.valid) {
    const double pad = std::max(0.01, 0.08 * (y.hi - y.lo));
    yAxis->setRange(y.lo - pad, y.hi + pad);
  }
  QString text = tr("N = %1, U = %2 unique tokens")
                     .arg(qs(format_count(c.n_params)), qs(format_count(c.unique_tokens, 1)));
  if (c.marked_epochs)
    text += tr("\nrun: %1 epochs, loss %2")
                .arg(qs(format_grouped(*c.marked_epochs, *c.marked_epochs < 10 ? 2 : 1)),
                     qs(format_grouped(c.marked_loss, 3)));
  note_->setText(text);
  requestReplot();
}

void EpochsPlot::drawBaseline(const BudgetView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  setCurve(ghost(law_), b->loss_vs_epochs.epochs, b->loss_vs_epochs.loss);
  requestReplot();
}

}  // namespace napkin
