#include "ServingFrontierPlot.h"

#include <cmath>

#include "format.h"

namespace napkin {

namespace {

struct Curve {
  std::vector<double> x, y;  // TPOT P50 (s), output tokens/s per chip
};

Curve curve(const ServingFrontierView& f) {
  Curve c;
  for (const FrontierPoint& p : f.points) {
    c.x.push_back(p.tpot_p50_seconds);
    c.y.push_back(p.output_tokens_per_second_per_chip);
  }
  return c;
}

// Output tokens per second per chip at the P99-TTFT-limited request rate.
double rate_throughput(const ServingPanelView& v) {
  const double chips = static_cast<double>(std::max<std::int64_t>(1, v.view.chosen.chips));
  return v.frontier.max_request_rate_per_second * v.frontier.output_tokens_per_request / chips;
}

}  // namespace

ServingFrontierPlot::ServingFrontierPlot(QWidget* parent)
    : ServingPlot(tr("Latency-throughput frontier"), parent) {
  setObjectName(QStringLiteral("plot_serving_frontier"));
  setXAxis(tr("time per output token, P50 (s)"), true, fmtSi);
  setYAxis(tr("output tokens/s per chip"), true, fmtSi);
  setHoverFormat(secondsText, numberText);
  curve_ = addCurve(this, tr("offline, concurrency 1, 2, 4, …"), plotPen(plot_color::blue, 2.0),
                    QCPScatterStyle(QCPScatterStyle::ssCircle, plot_color::blue, Qt::white, 5));
  rate_ = new HMarker(this, plotPen(plot_color::red, 1.4, Qt::DashLine));
  first_ = addPointLabel(this, Qt::AlignLeft | Qt::AlignTop);
  last_ = addPointLabel(this, Qt::AlignRight | Qt::AlignBottom);
  note_ = new Note(this, Qt::AlignLeft | Qt::AlignTop, 0.02, 0.03);
  showLegendBelow(2);
}

void ServingFrontierPlot::drawView(const ServingPanelView& v) {
  const ServingFrontierView& f = v.frontier;
  const Curve c = curve(f);
  const std::optional<std::int64_t>& budget = v.inputs.max_tokens_per_step;
  const std::optional<bool>& chunked = v.inputs.chunked_prefill;
  const double memory = v.scenario.roofline.serving_layout.engine_memory_fraction;
  if (!inputsChanged(c.x, c.y, f.max_request_rate_per_second, f.ttft_p99_target_seconds, f.error,
                     v.error, v.scenario.serving.engine, budget.value_or(0), chunked.has_value(),
                     chunked.value_or(false), v.inputs.prompt_spread, v.inputs.output_spread,
                     memory))
    return;
  setCurve(curve_, c.x, c.y);
  const bool any = !c.x.empty();
  first_->setVisible(any);
  last_->setVisible(any);
  rate_->setVisible(any && f.max_request_rate_per_second > 0);
  if (!any) {
    note_->setText(v.error.empty() ? tr("No frontier: %1").arg(qs(f.error))
                                   : tr("No frontier: %1").arg(qs(v.error)));
    requestReplot();
    return;
  }
  ValueRange xr, yr;
  xr.add(c.x, true);
  yr.add(c.y, true);
  const double rated = rate_throughput(v);
  if (rated > 0) yr.add({rated}, true);
  xAxis->setRange(xr.lo / 1.5, xr.hi * 1.5);
  yAxis->setRange(yr.lo / 1.5, yr.hi * 2.0);
  const FrontierPoint& a = f.points.front();
  const FrontierPoint& b = f.points.back();
  const QString from = qs(format_grouped(static_cast<double>(a.concurrency)));
  const QString to = qs(format_grouped(static_cast<double>(b.concurrency)));
  // Ends within 5 % of each other on both axes are one place (an engine that
  // runs one request at a time whatever the concurrency: a prompt that fills
  // the iteration's tokens without chunking): one label names both.
  auto near = [](double u, double w) { return u > 0 && w > 0 && std::abs(std::log(w / u)) < 0.05; };
  const bool one_place =
      f.points.size() > 1 && near(c.x.front(), c.x.back()) && near(c.y.front(), c.y.back());
  first_->position->setCoords(c.x.front(), c.y.front());
  first_->setText(one_place ? tr(" concurrency %1 to %2: the same").arg(from, to)
                            : tr(" concurrency %1").arg(from));
  last_->setVisible(!one_place);
  last_->position->setCoords(c.x.back(), c.y.back());
  last_->setText(tr("concurrency %1 ").arg(to));
  if (rated > 0) rate_->place(rated);
  // The engine, and the scheduler settings that are not its defaults.
  QString engine = tr("%1 engine").arg(qs(v.scenario.serving.engine));
  if (budget)
    engine += tr(", %1 tokens/iteration").arg(qs(format_grouped(static_cast<double>(*budget))));
  if (chunked) engine += *chunked ? tr(", chunked prefill") : tr(", no chunked prefill");
  if (memory > 0) engine += tr(", memory fraction %1").arg(qs(format_grouped(memory, 2)));
  // Lengths spread as the benchmark run's (the same requests fit in both).
  if (v.inputs.prompt_spread > 0 || v.inputs.output_spread > 0)
    engine += tr(", lengths ± %1 / ± %2")
                  .arg(qs(format_grouped(static_cast<double>(v.inputs.prompt_spread))),
                       qs(format_grouped(static_cast<double>(v.inputs.output_spread))));
  const QString layout = qs(describe(v.view.chosen.layout));
  if (f.max_request_rate_per_second > 0)
    note_->setText(tr("%1 on %2, %3\nP99 TTFT ≤ %4 up to %5 requests/s\n(%6 tokens/s "
                      "per chip, dashed)")
                       .arg(layout, chipsText(v.view.chosen.chips), engine,
                            secondsText(f.ttft_p99_target_seconds),
                            numberText(f.max_request_rate_per_second), numberText(rated)));
  else
    note_->setText(tr("%1 on %2, %3\nP99 TTFT misses %4 at any request rate")
                       .arg(layout, chipsText(v.view.chosen.chips), engine,
                            secondsText(f.ttft_p99_target_seconds)));
  requestReplot();
}

void ServingFrontierPlot::drawBaseline(const ServingPanelView* b) {
  setBaselineVisible(b != nullptr);
  if (!b) return;
  const Curve c = curve(b->frontier);
  setCurve(ghost(curve_), c.x, c.y);
  requestReplot();
}

}  // namespace napkin
