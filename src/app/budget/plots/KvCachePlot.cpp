#include "KvCachePlot.h"
#include "Text.h"

#include "format.h"

namespace napkin {

namespace {}  // namespace

KvCachePlot::KvCachePlot(QWidget* parent) : BudgetPlot(tr("KV cache per request"), parent) {
  setXAxis(tr("context (tokens)"), true, fmtSi);
  setYAxis(tr("bytes per request"), true, fmtBytes);
  mha_ = addCurve(this, tr("MHA"), plotPen(plot_color::gray));
  scenario_ = addCurve(this, tr("scenario GQA"), plotPen(plot_color::blue));
  mqa_ = addCurve(this, tr("MQA"), plotPen(plot_color::green));
  left_ = addCurve(this, QString(), plotPen(plot_color::red, 1.4, Qt::DashLine));
  showLegendBelow(2);
  context_ = new VMarker(this, plotPen(plot_color::orange, 1.2, Qt::DotLine));
  note_ = new Note(this, Qt::AlignRight | Qt::AlignBottom, 0.98, 0.97);
}

void KvCachePlot::drawView(const BudgetView& v) {
  const Scenario& s = v.scenario;
  if (!inputsChanged(s.shape.n_layers, s.shape.n_heads, s.shape.n_kv_heads, s.shape.d_head,
                     s.serving.context_len, v.hbm_left_bytes, v.max_concurrent,
                     v.serve_weight_bytes, s.chip))
    return;
  setCurve(mha_, v.kv_mha);
  setCurve(scenario_, v.kv_scenario);
  scenario_->setName(s.shape.n_kv_heads == s.shape.n_heads
                         ? tr("scenario (MHA)")
                         : tr("scenario (%1 KV heads)").arg(s.shape.n_kv_heads));
  setCurve(mqa_, v.kv_mqa);
  const double x0 = v.kv_mha.x.front(), x1 = v.kv_mha.x.back();
  xAxis->setRange(x0, x1);
  const double left = v.hbm_left_bytes;
  yAxis->setRange(v.kv_mqa.y.front() / 2, std::max(v.kv_mha.y.back(), left) * 2);
  setCurve(left_, {x0, x1}, {left, left});
  left_->setVisible(left > 0);
  left_->setName(tr("HBM left, 8× %1").arg(qs(s.chip)));
  context_->place(static_cast<double>(s.serving.context_len));
  note_->setText(left > 0
                     ? tr("%1 left after weights\n%2 requests @ %3")
                           .arg(qs(format_bytes(left, 0)))
                           .arg(v.max_concurrent)
                           .arg(qs(format_count(static_cast<double>(s.serving.context_len), 0)))
                     : tr("weights (%1) leave\nno HBM on 8× %2")
                           .arg(qs(format_bytes(v.serve_weight_bytes, 0)), qs(s.chip)));
  requestReplot();
}

void KvCachePlot::drawBaseline(const BudgetView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  setCurve(ghost(scenario_), b->kv_scenario);
  const double left = b->hbm_left_bytes;
  setCurve(ghost(left_), {b->kv_mha.x.front(), b->kv_mha.x.back()}, {left, left});
  requestReplot();
}

}  // namespace napkin
