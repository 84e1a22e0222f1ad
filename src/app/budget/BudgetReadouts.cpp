#include "BudgetReadouts.h"

#include "ReadoutFormats.h"
#include "Text.h"

#include <QCoreApplication>
#include <QStringList>
#include <cmath>

#include "PlotWidget.h"
#include "budget_view.h"
#include "format.h"

namespace napkin {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("napkin::BudgetReadouts", text); }

QString count(double v) { return qs(format_count(v, 2)); }
QString dollars(double v) { return qs(format_dollars(v)); }

// The scenario model's subject line: which model, which sharding (the plan's
// layout where it has one).
QString subject(const Scenario& s, const BudgetView& v) {
  if (v.layout_memory) return tr("%1 in its layout").arg(qs(s.model_name));
  return tr("%1 at ZeRO-%2 over DP %3")
      .arg(qs(s.model_name))
      .arg(s.training.zero_stage)
      .arg(qs(format_grouped(static_cast<double>(s.training.dp_degree), 0)));
}

}  // namespace

BudgetReadouts::BudgetReadouts(ReadoutGrid* grid, ReadoutGrid* ranges)
    : grid_(grid), ranges_(ranges) {
  const QString wide = QStringLiteral("604.8 MWh, $72,576");
  budget = grid->addSection(tr("Budget"));
  flops = grid->add({.key = QStringLiteral("flops"),
                     .name = tr("Compute C"),
                     .tooltip = tr("C = chips × bf16 peak FLOP/s × MFU × days × 86,400 s; MFU is "
                                   "model FLOPs over the bf16 peak, with FP8 training too"),
                     .better = Better::higher,
                     .format = fmtSci,
                     .widest = wide});
  days = grid->add({.key = QStringLiteral("days"),
                    .name = tr("Days at MFU"),
                    .tooltip = tr("C ÷ (chips × peak × MFU × 86,400 s)"),
                    .better = Better::lower,
                    .format = shows::grouped(1)});
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
                       .format = shows::dollars(2)});
  mfu = grid->add({.key = QStringLiteral("mfu"),
                   .name = tr("MFU used"),
                   .tooltip = tr("Assumed: the MFU slider. Predicted: the MFU of the layout the "
                                 "Parallelism panel runs (its search, or the row you chose); "
                                 "choose which on the Parallelism panel. A predicted MFU shows "
                                 "its range: the band published runs like the plan's measured "
                                 "around Napkin's prediction, or a cluster profile's corners."),
                   .better = Better::higher,
                   .format = shows::points(1),
                   .widest = QStringLiteral("40.0 % (range 36.5 % – 43.6 %)")});
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
                 .format = shows::points()});
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
                      .format = shows::bytes(2)});
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
                                    "scenario model against the chip's memory: the peak pipeline "
                                    "stage of the plan's layout where it has one (chosen in the "
                                    "Parallelism panel, or the predicted MFU's), else at its ZeRO "
                                    "stage and DP degree with no model parallelism"),
                      .better = Better::lower,
                      .format = shows::bytes(1),
                      .widest = QStringLiteral("347.0 GB of 80 GB: too big")});
  kv = grid->add({.key = QStringLiteral("kv"),
                  .name = tr("KV / request"),
                  .tooltip = tr("2·L·n_kv·d_head·T·2 bytes per request at the serving context, "
                                "and how many requests fit one 8-chip node after the weights"),
                  .better = Better::lower,
                  .format = shows::bytes(2)});
  attention = grid->add({.key = QStringLiteral("attention"),
                         .name = tr("Attention"),
                         .tooltip = tr("Share of training FLOPs in QKᵀ and A·V at the training "
                                       "sequence: 12·L·T·d ÷ (6N + 12·L·T·d); 6ND undercounts "
                                       "by f/(1−f)"),
                         .format = shows::points()});
  run = grid->addSection(tr("Planned run"));
  run_goodput = grid->add({.key = QStringLiteral("run_goodput"),
                           .name = tr("Goodput"),
                           .tooltip = tr("Productive ÷ wall-clock time of the planned run: each "
                                         "crash costs the restart plus the work since the last "
                                         "checkpoint; synchronous writes stall training"),
                           .better = Better::higher,
                           .format = shows::points()});
  run_days = grid->add({.key = QStringLiteral("run_days"),
                        .name = tr("Wall-clock"),
                        .tooltip = tr("Effective days (productive days ÷ goodput) and the "
                                      "rental dollars over them"),
                        .better = Better::lower,
                        .format = shows::grouped(1),
                        .widest = QStringLiteral("1,234.5 days, $123,456,789"),
                        .second_format = [](double v) { return dollars(v); }});
  crashes = grid->add({.key = QStringLiteral("crashes"),
                       .name = tr("Expected crashes"),
                       .tooltip = tr("Interruptions per 1,000 chip-days × chips × wall-clock "
                                     "days ÷ 1,000"),
                       .better = Better::lower,
                       .format = shows::grouped(1)});
  optimal_checkpoint =
      grid->add({.key = QStringLiteral("optimal_checkpoint"),
                 .name = tr("Best checkpoint"),
                 .tooltip = tr("Young (1974) / Daly (2006): every √(2 × write time × MTBF) for "
                               "synchronous writes, as often as the store allows for "
                               "asynchronous ones; the goodput it would give"),
                 .format = shows::grouped(1, QStringLiteral("min")),
                 .widest = QStringLiteral("every 1,234 min: 99.9 %")});
  epochs = grid->add({.key = QStringLiteral("epochs"),
                      .name = tr("Epochs"),
                      .tooltip = tr("Training tokens ÷ unique tokens, and what they are worth "
                                    "as fresh tokens (Muennighoff et al. 2023: D′ = U + "
                                    "U·R_D*·(1 − e^(−R/R_D*)), R_D* = 15.4)"),
                      .format = shows::grouped(2, QStringLiteral("epochs")),
                      .widest = QStringLiteral("12.34 epochs, worth 123.4T")});
  run_loss = grid->add({.key = QStringLiteral("run_loss"),
                        .name = tr("Forecast loss"),
                        .tooltip = tr("L = E + A/N′^α + B/D′^β under the Loss law chosen above "
                                      "(default: Besiroglu et al. 2024 constants), with "
                                      "Muennighoff et al. 2023 decay, nats/token"),
                        .better = Better::lower,
                        .format = shows::grouped(3)});
  serving = grid->add({.key = QStringLiteral("serving_limit"),
                       .name = tr("Servable up to"),
                       .tooltip = tr("The largest dense model whose turn meets the latency "
                                     "budget on the serving chips (serving layout search, KV "
                                     "cache and all-reduces counted), at the scenario's weight "
                                     "and KV precisions"),
                       .better = Better::higher,
                       .format = count,
                       .widest = QStringLiteral("123.4B at fp8/fp8: binds")});
  lifetime = grid->add(
      {.key = QStringLiteral("lifetime_dollars"),
       .name = tr("Lifetime $"),
       .tooltip = tr("Training chip-hours at the training price + served tokens ÷ the serving "
                     "layout's tokens per chip-hour at the serving price, energy at the wall on "
                     "both: the cheapest model at the reference's loss (the Objective control "
                     "decides whether What I would train follows it)"),
       .better = Better::lower,
       .format = shows::dollars(0),
       .widest = QStringLiteral("$123,456,789")});
  precision_cost = grid->add(
      {.key = QStringLiteral("precision_cost"),
       .name = tr("Precision cost"),
       .tooltip = tr("Loss the recommended model loses to its serving weight precision (Kumar et "
                     "al. 2024's post-training quantization law) and to FP8 training (their "
                     "effective parameter count at 8 bits), with the constants of their "
                     "Appendix K, Table 2: fitted on 30M-220M-parameter models, so "
                     "extrapolated"),
       .better = Better::lower,
       .format = shows::grouped(4),
       .widest = QStringLiteral("0.1234 nats")});

  range_section = ranges->addSection(tr("Ranges"));
  auto pct = [](const QString& key, const QString& name, const QString& tooltip) {
    return ReadoutSpec{.key = key,
                       .name = name,
                       .tooltip = tooltip,
                       .better = Better::lower,
                       .format = shows::grouped(3),
                       .widest = QStringLiteral("P10 1,234.5 · P50 1,234.5 · P90 1,234.5")};
  };
  range_days = ranges->add(pct(QStringLiteral("range_days"), tr("Days"),
                               tr("Wall-clock days of the planned run, goodput included")));
  range_dollars = ranges->add(pct(QStringLiteral("range_dollars"), tr("Dollars"),
                                  tr("Chip rental over the wall-clock days")));
  range_energy = ranges->add(pct(QStringLiteral("range_energy"), tr("Energy"),
                                 tr("Energy at the wall over the wall-clock days, MWh")));
  range_loss = ranges->add(pct(QStringLiteral("range_loss"), tr("Loss"),
                               tr("Forecast loss under the data-constrained law, nats/token")));
}

void BudgetReadouts::show(const BudgetView& v) {
  showBudget(v);
  showModel(v);
  showRun(v);
  showServing(v);
}

// The budget, its compute and cost, and the Chinchilla answer.
void BudgetReadouts::showBudget(const BudgetView& v) {
  const BudgetReport& r = v.report;
  const Scenario& s = v.scenario;
  grid_->setSectionTitle(
      budget, tr("Budget: %1 × %2 for %3 days at %4 MFU (%5)")
                  .arg(qs(format_grouped(static_cast<double>(s.n_chips), 0)), qs(s.chip),
                       qs(format_grouped(s.days, s.days == std::floor(s.days) ? 0 : 1)),
                       qs(format_percent(v.plan.mfu.mfu,
                                         v.plan.mfu.source == MfuSource::predicted ? 1 : 0)),
                       v.mfu.source == MfuSource::predicted && v.plan.batch_adjusted
                           ? tr("predicted at an adjusted batch")
                           : qs(v.plan.mfu_source_name())));
  grid_->setSectionTitle(chinchilla, tr("Chinchilla answer for this budget (%1 tokens/param)")
                                         .arg(qs(format_grouped(s.tokens_per_param, 1))));
  grid_->setSectionTitle(scenario, tr("Scenario model: %1").arg(subject(s, v)));
  const bool predicted = v.mfu.source == MfuSource::predicted;
  // A prediction made at another batch than the one asked says so.
  const bool other_batch = predicted && v.plan.batch_adjusted;
  QString mfu_note = predicted ? tr("predicted, layout %1").arg(qs(v.mfu.layout))
                               : (v.mfu.note.empty() ? tr("assumed (slider)")
                                                     : tr("assumed: %1").arg(qs(v.mfu.note)));
  if (other_batch) mfu_note += tr(", at %1").arg(qs(v.plan.batch_text()));
  if (predicted && !v.mfu.dropped.empty()) mfu_note += tr("; %1").arg(qs(v.mfu.dropped));
  const bool other_software = predicted && !v.mfu.calibration_warning.empty();
  if (other_software)
    mfu_note += tr("; the cluster profile was %1").arg(qs(v.mfu.calibration_warning));
  const bool warn = other_batch || other_software || !v.mfu.note.empty() || !v.mfu.dropped.empty();
  // A predicted MFU's range (the band of published runs like the plan's, or
  // a cluster profile's corners) beside it; the note says where it comes from.
  const std::string band = v.mfu.band_text();
  if (!band.empty()) mfu_note += tr("; %1").arg(qs(v.mfu.range_text()));
  grid_->set(
      mfu, {.value = band.empty()
                         ? qs(format_percent(v.plan.mfu.mfu, 1))
                         : tr("%1 (range %2)").arg(qs(format_percent(v.plan.mfu.mfu, 1)), qs(band)),
            .note = mfu_note,
            .tone = warn ? Tone::warn : Tone::normal,
            .number = v.plan.mfu.mfu});
  grid_->set(flops, {.value = qs(format_sci(r.flops)),
                     .unit = tr("FLOPs"),
                     .note = qs(v.compute_peak_note),
                     .number = r.flops});
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
}

// The scenario model: its size, its memory, its KV cache and attention share.
void BudgetReadouts::showModel(const BudgetView& v) {
  const Scenario& s = v.scenario;
  const ParamCount& p = v.params;
  grid_->set(model,
             {.value = qs(format_count(static_cast<double>(p.total), 2)),
              .unit = s.shape.is_moe()
                          ? tr("(%1 act.)").arg(qs(format_count(static_cast<double>(p.active), 2)))
                          : tr("params"),
              .number = static_cast<double>(p.total)});
  if (const auto& lm = v.layout_memory) {
    // The plan's layout: its peak pipeline stage against the device memory.
    grid_->set(memory,
               {.value = qs(format_bytes(static_cast<double>(lm->peak_stage_bytes), 1)) +
                         tr(" of ") + qs(format_bytes(static_cast<double>(lm->hbm_bytes), 1)) +
                         (lm->fits ? tr(", fits") : tr(": too big")),
                .note = tr("peak stage of the layout %1").arg(breakableLayout(lm->layout)),
                .tone = lm->fits ? Tone::ok : Tone::fail,
                .number = static_cast<double>(lm->peak_stage_bytes)});
  } else {
    const TrainingMemory& m = v.memory_by_zero[static_cast<std::size_t>(s.training.zero_stage)];
    const bool fits = v.fits_device_by_zero[static_cast<std::size_t>(s.training.zero_stage)];
    grid_->set(memory,
               {.value = qs(format_bytes(static_cast<double>(m.total), 1)) + tr(" of ") +
                         qs(format_bytes(static_cast<double>(v.device_memory_bytes), 1)) +
                         (fits ? tr(", fits") : tr(": too big")),
                .note = tr("micro-batch %1 × %2, data parallel only")
                            .arg(s.training.micro_batch)
                            .arg(qs(format_grouped(static_cast<double>(s.training.seq_len), 0))),
                .tone = fits ? Tone::ok : Tone::fail,
                .number = static_cast<double>(m.total)});
  }
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

// The planned run: goodput, days and dollars, crashes, checkpoints, epochs and loss.
void BudgetReadouts::showRun(const BudgetView& v) {
  const Scenario& s = v.scenario;
  const RunReport& u = v.run();
  const QString about = qs(v.plan_subject);
  grid_->setSectionTitle(run,
                         tr("Planned run: %1 on %2 tokens, sharded over all %3 %4")
                             .arg(v.train ? qs(s.model_name) : qs(format_count(u.params)),
                                  qs(format_count(u.tokens, 2)),
                                  qs(format_grouped(static_cast<double>(v.plan_inputs.n_chips), 0)),
                                  qs(v.plan_inputs.chip)));
  grid_->set(run_goodput, {.value = qs(format_percent(u.goodput.goodput, 1)),
                           .note = about,
                           .tone = u.goodput.goodput >= 0.9   ? Tone::ok
                                   : u.goodput.goodput >= 0.7 ? Tone::normal
                                                              : Tone::warn,
                           .number = u.goodput.goodput});
  grid_->set(
      run_days,
      {.value = qs(format_grouped(u.wall_clock_days, 1)) + tr(" days, ") +
                dollars(u.cost.rental_dollars),
       .note = tr("%1 productive days ÷ goodput").arg(qs(format_grouped(u.productive_days, 1))),
       .tone = v.run_too_long ? Tone::warn : Tone::normal,
       .number = u.wall_clock_days,
       .second = u.cost.rental_dollars});
  grid_->set(
      crashes,
      {.value = qs(format_grouped(u.goodput.expected_crashes, 1)),
       .unit = tr("crashes"),
       .note = u.goodput.mtbf_hours
                   ? tr("one every %1 h on %2 chips")
                         .arg(qs(format_grouped(*u.goodput.mtbf_hours, 1)),
                              qs(format_grouped(static_cast<double>(v.plan_inputs.n_chips), 0)))
                   : tr("no interruptions"),
       .number = u.goodput.expected_crashes});
  const GoodputCurve& g = v.goodput_curve;
  if (g.optimum_minutes)
    grid_->set(optimal_checkpoint,
               {.value = tr("%1: %2").arg(qs(checkpoint_interval_text(*g.optimum_minutes)),
                                          qs(format_percent(g.optimum_goodput, 1))),
                .note = tr("now every %1 min, write %2 min")
                            .arg(qs(format_grouped(g.current_minutes, 0)),
                                 qs(format_grouped(u.goodput_inputs.checkpoint_write_minutes, 2))),
                .number = *g.optimum_minutes});
  else
    grid_->set(optimal_checkpoint, {.value = tr("none: no interruptions"), .number = 0.0});
  grid_->set(epochs,
             {.value = qs(format_grouped(u.epochs, 2)) + tr(" epochs, worth ") +
                       qs(format_count(u.effective_tokens, 2)),
              .note = tr("%1 tokens of %2 unique")
                          .arg(qs(format_count(u.tokens, 2)), qs(format_count(u.unique_tokens, 1))),
              .tone = u.data_suffice ? Tone::normal : Tone::warn,
              .number = u.epochs});
  grid_->set(
      run_loss,
      {.value = qs(format_grouped(u.loss, 3)),
       .unit = tr("nats"),
       .note = u.loss > u.loss_fresh + 5e-4
                   ? tr("%1 if every token were new").arg(qs(format_grouped(u.loss_fresh, 3)))
                   : tr("no repetition penalty"),
       .number = u.loss});
}

// The serving limit, the serving precision's cost and the lifetime dollars.
void BudgetReadouts::showServing(const BudgetView& v) {
  const BudgetServing& sv = v.serving;
  if (!sv.enabled)
    grid_->set(serving, {.value = tr("limit off"), .note = qs(sv.text)});
  else if (sv.largest_params)
    grid_->set(serving, {.value = servingValue(v),
                         .note = qs(sv.text),
                         .tone = sv.binds ? Tone::warn : Tone::ok,
                         .number = *sv.largest_params});
  else
    grid_->set(serving, {.value = servingValue(v), .note = qs(sv.text), .tone = Tone::fail});
  showPrecisionCost(v);
  const DollarPlan& d = v.report.dollars;
  if (v.train || !d.same_loss.serving.fits)
    grid_->set(lifetime, {.value = tr("budget mode only")});
  else
    grid_->set(lifetime,
               {.value = qs(format_dollars(d.same_loss.total_dollars)),
                .note = tr("%1 at the reference's loss (objective: %2); the reference %3 costs %4; "
                           "crossover %5 served tokens")
                            .arg(qs(format_count(d.same_loss.params)),
                                 qs(to_string(v.scenario.plan.objective)),
                                 qs(format_count(d.reference.params)),
                                 qs(format_dollars(d.reference.total_dollars)),
                                 d.crossover_served_tokens
                                     ? qs(format_count(*d.crossover_served_tokens, 1))
                                     : tr("none")),
                .number = d.same_loss.total_dollars});
}

void BudgetReadouts::showPrecisionCost(const BudgetView& v) {
  if (v.train) {
    grid_->set(precision_cost, {.value = tr("budget mode only")});
    return;
  }
  const BudgetReport& r = v.report;
  const double serving_nats = r.quality_penalty_nats.value_or(0.0);
  const double training_nats = r.train_precision_penalty_nats.value_or(0.0);
  QStringList parts;
  parts << tr("%1 weights %2")
               .arg(qs(to_string(v.scenario.serving.weight_dtype)),
                    qs(format_grouped(serving_nats, 4)));
  parts << (r.inputs.precision == Precision::mixed_fp8
                ? tr("FP8 training %1, in the forecast loss")
                      .arg(qs(format_grouped(training_nats, 4)))
                : tr("bf16 training 0"));
  if (const auto& t = r.serving_precision_trade)  // what the narrower weights buy, in loss
    parts << tr("under the latency limit %1 vs bf16 %2 nats (%3 without the penalty)")
                 .arg(qs(to_string(v.scenario.serving.weight_dtype)),
                      qs(format_signed(t->advantage_nats, 4)),
                      qs(format_signed(t->advantage_without_penalty_nats, 4)));
  grid_->set(precision_cost,
             {.value = qs(format_grouped(serving_nats + training_nats, 4)),
              .unit = tr("nats"),
              .note = parts.join(QStringLiteral("; ")),
              .tone = serving_nats + training_nats > 0.01 ? Tone::warn : Tone::normal,
              .number = serving_nats + training_nats});
}

QString BudgetReadouts::servingValue(const BudgetView& v) {
  const BudgetServing& sv = v.serving;
  const Scenario& s = v.scenario;
  const QString prec = QStringLiteral("%1/%2").arg(qs(to_string(s.serving.weight_dtype)),
                                                   qs(to_string(s.serving.kv_dtype)));
  if (!sv.enabled) return tr("limit off");
  if (!sv.largest_params) return tr("none at ") + prec;
  return qs(format_count(*sv.largest_params)) + tr(" at ") + prec +
         (sv.binds ? tr(": binds") : tr(": OK"));
}

void BudgetReadouts::showRanges(const BudgetView& v) {
  has_ranges_ = v.ranges.has_value();
  if (!v.ranges) return;
  const RangeReport& r = *v.ranges;
  ranges_->setSectionTitle(range_section,
                           tr("Ranges of the planned run: P10 / P50 / P90 of %1 %2 draws")
                               .arg(qs(format_grouped(static_cast<double>(r.draws), 0)),
                                    qs(std::string(to_string(r.shape)))));
  auto three = [](const OutputDistribution& d, int digits, double scale) {
    return tr("P10 %1 · P50 %2 · P90 %3")
        .arg(qs(format_grouped(d.p.p10 * scale, digits)),
             qs(format_grouped(d.p.p50 * scale, digits)),
             qs(format_grouped(d.p.p90 * scale, digits)));
  };
  ranges_->set(range_days, {.value = three(r.days, 1, 1),
                            .unit = tr("days"),
                            .note = tr("likely %1").arg(qs(format_grouped(r.days.point, 1))),
                            .number = r.days.p.p50});
  ranges_->set(range_dollars, {.value = tr("P10 %1 · P50 %2 · P90 %3")
                                            .arg(dollars(r.dollars.p.p10), dollars(r.dollars.p.p50),
                                                 dollars(r.dollars.p.p90)),
                               .note = tr("likely %1").arg(dollars(r.dollars.point)),
                               .number = r.dollars.p.p50});
  ranges_->set(range_energy, {.value = three(r.energy_kwh, 1, 1e-3),
                              .unit = tr("MWh"),
                              .note = tr("at the wall"),
                              .number = r.energy_kwh.p.p50});
  ranges_->set(range_loss, {.value = three(r.loss, 3, 1),
                            .unit = tr("nats"),
                            .note = tr("data-constrained law"),
                            .number = r.loss.p.p50});
}

void BudgetReadouts::setBaseline(const BudgetView* b) {
  if (!b) {
    grid_->clearBaselines();
    ranges_->clearBaselines();
    return;
  }
  const BudgetReport& r = b->report;
  grid_->setBaseline(mfu, b->plan.mfu.mfu);
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
  grid_->setBaseline(memory, b->memory_per_device_bytes());
  grid_->setBaseline(kv, static_cast<double>(b->kv_bytes_at_context));
  grid_->setBaseline(attention, b->attention_fraction_at_seq);
  const RunReport& u = b->run();
  grid_->setBaseline(run_goodput, u.goodput.goodput);
  grid_->setBaseline(run_days, {.number = u.wall_clock_days, .second = u.cost.rental_dollars});
  grid_->setBaseline(crashes, u.goodput.expected_crashes);
  grid_->setBaseline(optimal_checkpoint, b->goodput_curve.optimum_minutes.value_or(0.0));
  grid_->setBaseline(epochs, u.epochs);
  grid_->setBaseline(run_loss, u.loss);
  grid_->setBaseline(serving, {.number = b->serving.largest_params, .text = servingValue(*b)});
  if (!b->train)
    grid_->setBaseline(precision_cost, b->report.quality_penalty_nats.value_or(0.0) +
                                           b->report.train_precision_penalty_nats.value_or(0.0));
  if (!b->train && b->report.dollars.same_loss.serving.fits)
    grid_->setBaseline(lifetime, b->report.dollars.same_loss.total_dollars);
  ranges_->clearBaselines();
  if (b->ranges) {
    ranges_->setBaseline(range_days, b->ranges->days.p.p50);
    ranges_->setBaseline(range_dollars, b->ranges->dollars.p.p50);
    ranges_->setBaseline(range_energy, b->ranges->energy_kwh.p.p50);
    ranges_->setBaseline(range_loss, b->ranges->loss.p.p50);
  }
}

std::vector<ReportTable> BudgetReadouts::tables() const {
  std::vector<ReportTable> out = grid_->reportTables();
  if (has_ranges_)
    for (ReportTable& t : ranges_->reportTables()) out.push_back(std::move(t));
  return out;
}

}  // namespace napkin
