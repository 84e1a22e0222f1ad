#include "DisaggregationPlot.h"

#include "format.h"

namespace napkin {

DisaggregationPlot::DisaggregationPlot(QWidget* parent)
    : ServingPlot(tr("Disaggregated pools vs one shared pool"), parent) {
  setObjectName(QStringLiteral("plot_disaggregation"));
  setYAxis(tr("chips"), false, fmtSi);
  setHoverFormat([](double v) { return v < 0.5 ? tr("disaggregated") : tr("shared"); }, fmtSi);
  xAxis->setRange(-0.6, 1.6);
  auto ticker = QSharedPointer<QCPAxisTickerText>::create();
  ticker->addTick(0, tr("prefill + decode pools"));
  ticker->addTick(1, tr("one shared pool"));
  xAxis->setTicker(ticker);
  bars_ = new StackedBars(this,
                          {{tr("prefill pool"), plot_color::part_blue},
                           {tr("decode pool"), plot_color::part_orange},
                           {tr("shared pool"), plot_color::part_green}},
                          0.5);
  totals_ = addCurve(this, tr("chips"), QPen(Qt::NoPen), QCPScatterStyle(), false);
  totals_->removeFromLegend();
  for (int i = 0; i < 2; ++i)
    labels_.push_back(addPointLabel(this, Qt::AlignHCenter | Qt::AlignBottom));
  note_ = new Note(this, Qt::AlignLeft | Qt::AlignTop, 0.02, 0.02);
  showLegendBelow(3);
}

void DisaggregationPlot::drawView(const ServingPanelView& v) {
  const std::optional<Disaggregation>& d = v.view.disaggregation;
  const double pre = d ? static_cast<double>(d->prefill.chips) : 0;
  const double dec = d ? static_cast<double>(d->decode.chips) : 0;
  const double sh = d ? static_cast<double>(d->shared.chips) : 0;
  if (!inputsChanged(d.has_value(), pre, dec, sh, d ? d->verdict : std::string(), v.error)) return;
  bars_->setData({0, 1}, {{pre, 0}, {dec, 0}, {0, sh}});
  setCurve(totals_, {0, 1}, {pre + dec, sh});
  yAxis->setRange(0, std::max({pre + dec, sh, 1.0}) * 1.45);
  for (QCPItemText* t : labels_) t->setVisible(d.has_value());
  if (d) {
    labels_[0]->position->setCoords(0, pre + dec);
    labels_[0]->setText(d->disaggregated_chips > 0
                            ? tr("%1\n%2 tok/s/chip")
                                  .arg(chipsText(d->disaggregated_chips),
                                       numberText(d->disaggregated_tokens_per_second_per_chip))
                            : tr("none"));
    labels_[1]->position->setCoords(1, sh);
    labels_[1]->setText(
        d->shared.chips > 0
            ? tr("%1\n%2 tok/s/chip")
                  .arg(chipsText(d->shared.chips), numberText(d->shared_tokens_per_second_per_chip))
            : tr("none"));
    note_->setText(
        tr("%1 generated tokens/day\nwinner: %2")
            .arg(qs(format_count(v.scenario.roofline.serving_layout.generated_tokens_per_day, 1)),
                 qs(to_string(d->winner))));
  } else {
    note_->setText(v.valid() ? tr("set a TTFT and a TPOT bound\nto size the two pools")
                             : tr("no serving layout"));
  }
  requestReplot();
}

void DisaggregationPlot::drawBaseline(const ServingPanelView* b) {
  setBaselineVisible(b != nullptr);
  if (!b || !b->view.disaggregation) return;
  const Disaggregation& d = *b->view.disaggregation;
  QCPGraph* g = ghostBarTops(totals_);
  setCurve(
      g, {0, 1},
      {static_cast<double>(d.prefill.chips + d.decode.chips), static_cast<double>(d.shared.chips)});
  requestReplot();
}

}  // namespace napkin
