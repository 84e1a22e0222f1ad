#include "KvHeadsPlot.h"

#include <algorithm>

#include "format.h"
#include "hardware.h"

namespace napkin {

namespace {
struct KvSeries {
  std::vector<double> heads, gb, concurrent;
};
KvSeries kvSeries(const std::vector<GqaPoint>& points) {
  std::vector<GqaPoint> sorted = points;  // kv_heads_sweep lists MHA first
  std::sort(sorted.begin(), sorted.end(),
            [](const GqaPoint& a, const GqaPoint& b) { return a.n_kv_heads < b.n_kv_heads; });
  KvSeries s;
  for (const GqaPoint& g : sorted) {
    s.heads.push_back(static_cast<double>(g.n_kv_heads));
    s.gb.push_back(static_cast<double>(g.kv_bytes_per_request) / 1e9);
    s.concurrent.push_back(static_cast<double>(g.concurrent_requests));
  }
  return s;
}
}  // namespace

KvHeadsPlot::KvHeadsPlot(QWidget* parent)
    : RooflinePanelPlot(tr("KV heads: cache and concurrency"), parent) {
  setObjectName(QStringLiteral("plot_kv"));
  setXAxis(tr("KV heads"), true, fmtSi);
  setYAxis(tr("KV cache per request (GB)"), true, fmtSi);
  setY2Axis(tr("concurrent requests"), false, fmtSi);
  setHoverFormat(numberText, numberText);
  kv_ = addCurve(this, tr("KV per request (GB)"), plotPen(plot_color::blue, 2.0),
                 QCPScatterStyle(QCPScatterStyle::ssCircle, plot_color::blue, Qt::white, 6));
  concurrent_ = addGraph(xAxis, yAxis2);
  concurrent_->setName(tr("concurrent requests"));
  concurrent_->setPen(plotPen(plot_color::green, 2.0));
  concurrent_->setScatterStyle(
      QCPScatterStyle(QCPScatterStyle::ssSquare, plot_color::green, Qt::white, 6));
  mine_ = new VMarker(this, plotPen(plot_color::orange, 1.2, Qt::DotLine));
  note_ = new Note(this, Qt::AlignHCenter | Qt::AlignTop, 0.5, 0.02);
  showLegendBelow(2);
}

void KvHeadsPlot::drawView(const RooflineView& v) {
  const ModelShape& m = v.inputs.shape;
  const KvSeries s = kvSeries(v.data.kv_heads);
  if (!inputsChanged(v.inputs.chip, m.n_kv_heads, m.n_heads, s.gb, s.concurrent,
                     v.scenario.serving.kv_dtype) ||
      s.heads.empty())
    return;
  setCurve(kv_, s.heads, s.gb);
  setCurve(concurrent_, s.heads, s.concurrent);
  xAxis->setRange(0.7, std::max(2.0, static_cast<double>(m.n_heads)) * 1.4);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  for (double h : s.heads) ticker->addTick(h, QString::number(static_cast<qlonglong>(h)));
  xAxis->setTicker(ticker);
  xAxis->setScaleType(QCPAxis::stLogarithmic);
  yAxis->setRange(*std::min_element(s.gb.begin(), s.gb.end()) / 3,
                  *std::max_element(s.gb.begin(), s.gb.end()) * 12);
  yAxis2->setRange(
      0, std::max(1.0, *std::max_element(s.concurrent.begin(), s.concurrent.end())) * 1.35);
  xAxis->setLabel(tr("KV heads (of %1 query heads; 1 = MQA, %1 = MHA)").arg(m.n_heads));
  mine_->place(static_cast<double>(m.n_kv_heads));
  const GqaPoint *mine = nullptr, *mha = nullptr;
  for (const GqaPoint& g : v.data.kv_heads) {
    if (g.n_kv_heads == m.n_kv_heads) mine = &g;
    if (g.n_kv_heads == m.n_heads) mha = &g;
  }
  const KvServing& kv = v.inputs.kv;
  const double node_hbm =
      static_cast<double>(chip_by_name(v.inputs.chip).hbm_bytes) * static_cast<double>(kv.n_chips);
  const double weights = v.data.resident_weight_bytes;
  if (mine && mha && mine->concurrent_requests == 0)
    // No request fits: say it is the weights, not the cache, that leave no room.
    note_->setText(
        tr("this model: %1 KV heads, %2/request at %3 tokens (%4 KV cache)\n"
           "0 requests on %5\u00d7 %6: the weights (%7) and workspace (%8) leave "
           "no room in %9 of HBM")
            .arg(mine->n_kv_heads)
            .arg(fmtBytes(static_cast<double>(mine->kv_bytes_per_request)),
                 qs(format_count(static_cast<double>(v.inputs.operations.context_tokens), 0)),
                 dtypeText(v.scenario.serving.kv_dtype))
            .arg(kv.n_chips)
            .arg(qs(v.inputs.chip), fmtBytes(weights),
                 fmtBytes(static_cast<double>(kv.workspace_bytes)), fmtBytes(node_hbm)));
  else if (mine && mha)
    note_->setText(
        tr("this model: %1 KV heads, %2/request at %3 tokens (%4 KV cache)\n"
           "%5 concurrent on 8\u00d7 %6 (MHA: %7), %8\u00d7 smaller cache")
            .arg(mine->n_kv_heads)
            .arg(fmtBytes(static_cast<double>(mine->kv_bytes_per_request)),
                 qs(format_count(static_cast<double>(v.inputs.operations.context_tokens), 0)),
                 dtypeText(v.scenario.serving.kv_dtype))
            .arg(mine->concurrent_requests)
            .arg(qs(v.inputs.chip))
            .arg(mha->concurrent_requests)
            .arg(numberText(mine->saving)));
  requestReplot();
}

QString KvHeadsPlot::noteText() const { return note_->text(); }

void KvHeadsPlot::drawBaseline(const RooflineView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  const KvSeries s = kvSeries(b->data.kv_heads);
  setCurve(ghost(kv_), s.heads, s.gb);
  requestReplot();
}

}  // namespace napkin
