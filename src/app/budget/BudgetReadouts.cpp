#include "BudgetReadouts.h"

#include <QCoreApplication>
#include <cmath>

#include "PlotWidget.h"
#include "budget_view.h"
#include "format.h"

namespace napkin {

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
QString tr(const char* text) { return QCoreApplication::translate("napkin::BudgetReadouts", text); }

QString count(double v) { return qs(format_count(v, 2)); }
QString dollars(double v) { return qs(format_dollars(v)); }

// The scenario model's subject line: which model, which sharding.
QString subject(const Scenario& s) {
  return tr("%1 at ZeRO-%2 over DP %3")
      .arg(qs(s.model_name))
      .arg(s.training.zero_stage)
      .arg(qs(format_grouped(static_cast<double>(s.training.dp_degree), 0)));
}

}  // namespace

BudgetReadouts::BudgetReadouts(ReadoutGrid* grid) : grid_(grid) {
  const QString wide = QStringLiteral("604.8 MWh, $72,576");
  budget = grid->addSection(tr("Budget"));
  flops = grid->add({.key = QStringLiteral("flops"),
                     .name = tr("Compute C"),
                     .tooltip = tr("C = chips × peak FLOP/s × MFU × days × 86,400 s"),
                     .better = Better::higher,
                     .format = fmtSci,
                     .widest = wide});
  days = grid->add({.key = QStringLiteral("days"),
                    .name = tr("Days at MFU"),
                    .tooltip = tr("C ÷ (chips × peak × MFU × 86,400 s)"),
                    .better = Better::lower,
                    .format = [](double v) { return qs(format_grouped(v, 1)); }});
  rental = grid->add({.key = QStringLiteral("rental"),
                      .name = tr("Rental"),
                      .tooltip = tr("chips × days × 24 h × $ per chip-hour"),
                      .better = Better::lower,
                      .format = dollars});
  energy =
      grid->add({.key = QStringLiteral("energy"),
                 .name = tr("Energy"),
                 .tooltip = tr("chips × TDP × hours × PUE (at the wall); $ at the energy price"),
                 .better = Better::lower,
                 .format = [](double kwh) {
                   return qs(format_grouped(kwh / 1000, 1)) + QStringLiteral(" MWh");
                 }});
  per1e21 = grid->add({.key = QStringLiteral("per1e21"),
                       .name = tr("$ per 1e21 FLOPs"),
                       .tooltip = tr("rental $ ÷ C × 1e21"),
                       .better = Better::lower,
                       .format = [](double v) { return qs(format_dollars(v, 2)); }});
  chinchilla = grid->addSection(tr("Chinchilla answer"));
  params = grid->add({.key = QStringLiteral("params"),
                      .name = tr("Chinchilla N"),
                      .tooltip = tr("N = √(C / 6r) parameters, r tokens per parameter"),
                      .format = count});
  tokens = grid->add({.key = QStringLiteral("tokens"),
                      .name = tr("Chinchilla D"),
                      .tooltip = tr("D = r·N tokens; 6ND = C"),
                      .format = count});
  goodput =
      grid->add({.key = QStringLiteral("goodput"),
                 .name = tr("Goodput"),
                 .tooltip = tr("Share of the wall-clock days that is progress, after crashes, "
                               "restarts and checkpoints"),
                 .better = Better::higher,
                 .format = [](double f) { return qs(format_percent(f)); }});
  effective = grid->add({.key = QStringLiteral("effective"),
                         .name = tr("After goodput"),
                         .tooltip = tr("The Chinchilla split of the compute the run delivers (C × "
                                       "goodput): what the checks are about"),
                         .format = count});
  states = grid->add({.key = QStringLiteral("states"),
                      .name = tr("Model states"),
                      .tooltip = tr("16 bytes/param (Adam, mixed bf16) for Chinchilla N after "
                                    "goodput, unsharded; the check shards them over every chip"),
                      .better = Better::lower,
                      .format = [](double b) { return qs(format_bytes(b, 2)); }});
  scenario = grid->addSection(tr("Scenario model"));
  model = grid->add({.key = QStringLiteral("model"),
                     .name = tr("Parameters"),
                     .tooltip = tr("Total (memory) and active (FLOPs) parameters of the model "
                                   "shape"),
                     .format = count,
                     .widest = QStringLiteral("700.55B")});
  memory = grid->add({.key = QStringLiteral("memory"),
                      .name = tr("Memory / device"),
                      .tooltip = tr("Weights + grads + optimizer + activations per device of the "
                                    "scenario model, at its ZeRO stage and DP degree, against "
                                    "the chip's HBM"),
                      .better = Better::lower,
                      .format = [](double b) { return qs(format_bytes(b, 1)); },
                      .widest = QStringLiteral("347.0 GB of 80 GB: too big")});
  kv = grid->add({.key = QStringLiteral("kv"),
                  .name = tr("KV / request"),
                  .tooltip = tr("2·L·n_kv·d_head·T·2 bytes per request at the serving context, "
                                "and how many requests fit one 8-chip node after the weights"),
                  .better = Better::lower,
                  .format = [](double b) { return qs(format_bytes(b, 2)); }});
  attention = grid->add({.key = QStringLiteral("attention"),
                         .name = tr("Attention"),
                         .tooltip = tr("Share of training FLOPs in QKᵀ and A·V at the training "
                                       "sequence: 12·L·T·d ÷ (6N + 12·L·T·d); 6ND undercounts "
                                       "by f/(1−f)"),
                         .format = [](double f) { return qs(format_percent(f)); }});
}

void BudgetReadouts::show(const BudgetView& v) {
  const BudgetReport& r = v.report;
  const Scenario& s = v.scenario;
  grid_->setSectionTitle(budget,
                         tr("Budget: %1 × %2 for %3 days at %4 MFU")
                             .arg(qs(format_grouped(static_cast<double>(s.n_chips), 0)), qs(s.chip),
                                  qs(format_grouped(s.days, s.days == std::floor(s.days) ? 0 : 1)),
                                  qs(format_percent(s.mfu, 0))));
  grid_->setSectionTitle(chinchilla, tr("Chinchilla answer for this budget (%1 tokens/param)")
                                         .arg(qs(format_grouped(s.tokens_per_param, 1))));
  grid_->setSectionTitle(scenario, tr("Scenario model: %1").arg(subject(s)));
  grid_->set(flops, {.value = qs(format_sci(r.flops)), .unit = tr("FLOPs"), .number = r.flops});
  grid_->set(days, {.value = qs(format_grouped(r.days, 1)), .unit = tr("days"), .number = r.days});
  grid_->set(rental, {.value = dollars(r.cost.rental_dollars), .number = r.cost.rental_dollars});
  const double mwh = r.cost.energy_kwh / 1000.0;
  grid_->set(energy, {.value = (mwh >= 10000
                                    ? qs(format_grouped(mwh / 1000.0, 1)) + QStringLiteral(" GWh, ")
                                    : qs(format_grouped(mwh, 1)) + QStringLiteral(" MWh, ")) +
                               dollars(r.cost.energy_dollars),
                      .note = tr("at the wall, PUE %1").arg(qs(format_grouped(s.pue, 2))),
                      .number = r.cost.energy_kwh});
  grid_->set(per1e21, {.value = qs(format_dollars(r.cost.dollars_per_1e21_flops, 2)),
                       .number = r.cost.dollars_per_1e21_flops});
  grid_->set(
      params,
      {.value = qs(format_count(r.split.params)), .unit = tr("params"), .number = r.split.params});
  grid_->set(tokens, {.value = qs(format_count(r.split.tokens, 2)),
                      .unit = tr("tokens"),
                      .number = r.split.tokens});
  grid_->set(goodput, {.value = qs(format_percent(r.goodput.goodput)),
                       .note = tr("%1 effective days").arg(qs(format_grouped(r.effective_days, 1))),
                       .tone = r.goodput.goodput > 0 ? Tone::normal : Tone::fail,
                       .number = r.goodput.goodput});
  grid_->set(effective,
             {.value = qs(format_count(r.effective_split.params)) + tr(" on ") +
                       qs(format_count(r.effective_split.tokens, 2)),
              .unit = tr("tokens"),
              .note = tr("C × goodput = %1 FLOPs").arg(qs(format_sci(r.effective_flops))),
              .number = r.effective_split.params});
  grid_->set(states, {.value = qs(format_bytes(static_cast<double>(r.train_memory.total), 2)),
                      .note = tr("N after goodput, 16 bytes/param, unsharded"),
                      .number = static_cast<double>(r.train_memory.total)});
  const ParamCount& p = v.params;
  grid_->set(model,
             {.value = qs(format_count(static_cast<double>(p.total), 2)),
              .unit = s.shape.is_moe()
                          ? tr("(%1 act.)").arg(qs(format_count(static_cast<double>(p.active), 2)))
                          : tr("params"),
              .number = static_cast<double>(p.total)});
  const TrainingMemory& m = v.memory_by_zero[static_cast<std::size_t>(s.training.zero_stage)];
  const bool fits = v.fits_device_by_zero[static_cast<std::size_t>(s.training.zero_stage)];
  grid_->set(memory,
             {.value = qs(format_bytes(static_cast<double>(m.total), 1)) + tr(" of ") +
                       qs(format_bytes(static_cast<double>(v.chip_hbm_bytes), 0)) +
                       (fits ? tr(", fits") : tr(": too big")),
              .note = tr("micro-batch %1 × %2")
                          .arg(s.training.micro_batch)
                          .arg(qs(format_grouped(static_cast<double>(s.training.seq_len), 0))),
              .tone = fits ? Tone::ok : Tone::fail,
              .number = static_cast<double>(m.total)});
  grid_->set(kv,
             {.value = qs(format_bytes(static_cast<double>(v.kv_bytes_at_context), 2)) +
                       QStringLiteral(" @ ") +
                       qs(format_count(static_cast<double>(s.serving.context_len), 0)) +
                       QStringLiteral(": ") + QString::number(v.max_concurrent) + tr(" fit"),
              .note = tr("requests that fit one 8-chip %1 node after the weights").arg(qs(s.chip)),
              .tone = v.max_concurrent > 0 ? Tone::normal : Tone::fail,
              .number = static_cast<double>(v.kv_bytes_at_context)});
  grid_->set(attention,
             {.value = qs(format_percent(v.attention_fraction_at_seq)) + QStringLiteral(" @ ") +
                       qs(format_count(static_cast<double>(s.training.seq_len), 0)) +
                       QStringLiteral(", 6ND \u2212") + qs(format_percent(v.six_nd_error_at_seq)),
              .note = tr("at the training sequence"),
              .number = v.attention_fraction_at_seq});
}

void BudgetReadouts::setBaseline(const BudgetView* b) {
  if (!b) {
    grid_->clearBaselines();
    return;
  }
  const BudgetReport& r = b->report;
  grid_->setBaseline(flops, r.flops);
  grid_->setBaseline(days, r.days);
  grid_->setBaseline(rental, r.cost.rental_dollars);
  grid_->setBaseline(energy, r.cost.energy_kwh);
  grid_->setBaseline(per1e21, r.cost.dollars_per_1e21_flops);
  grid_->setBaseline(params, r.split.params);
  grid_->setBaseline(tokens, r.split.tokens);
  grid_->setBaseline(goodput, r.goodput.goodput);
  grid_->setBaseline(effective, r.effective_split.params);
  grid_->setBaseline(states, static_cast<double>(r.train_memory.total));
  grid_->setBaseline(model, static_cast<double>(b->params.total));
  grid_->setBaseline(
      memory,
      static_cast<double>(
          b->memory_by_zero[static_cast<std::size_t>(b->scenario.training.zero_stage)].total));
  grid_->setBaseline(kv, static_cast<double>(b->kv_bytes_at_context));
  grid_->setBaseline(attention, b->attention_fraction_at_seq);
}

std::vector<ReportTable> BudgetReadouts::tables() const { return grid_->reportTables(); }

}  // namespace napkin
