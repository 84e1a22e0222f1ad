#include "roofline/RooflineReadouts.h"

#include "ReadoutFormats.h"

#include <QCoreApplication>

#include "PlotWidget.h"
#include "Text.h"
#include "format.h"
#include "roofline/RooflineFormat.h"
#include "roofline_view.h"

namespace napkin {

namespace {
QString tr(const char* text) {
  return QCoreApplication::translate("napkin::RooflineReadouts", text);
}
QString grouped(double v) { return qs(format_grouped(v, v < 100 ? 1 : 0)); }
QString count(double v) { return qs(format_count(v, 2)); }
QString percent(double f) { return qs(format_percent(f)); }

const PlacedOperation* operation(const RooflinePanelData& d, const char* name) {
  for (const PlacedOperation& op : d.operations)
    if (op.name == name) return &op;
  return nullptr;
}
}  // namespace

ReadoutGrid::Row RooflineReadouts::add(const ReadoutSpec& spec) {
  const ReadoutGrid::Row r = grid_->add(spec);
  rows_.insert(spec.key, r);
  return r;
}

RooflineReadouts::RooflineReadouts(ReadoutGrid* grid) : grid_(grid) {
  roofline = grid->addSection(tr("Roofline"));
  ridge = add({.key = QStringLiteral("ridge"),
               .name = tr("Ridge"),
               .tooltip = tr("peak FLOP/s ÷ HBM bytes/s of the chip: below it an operation is "
                             "memory-bound (cut bytes), at or above compute-bound (cut FLOPs)"),
               .format = grouped,
               .widest = QStringLiteral("1,234 FLOP/B")});
  prefill = add({.key = QStringLiteral("prefill"),
                 .name = tr("Prefill"),
                 .tooltip = tr("Prefill intensity at the prompt length: 2N·T FLOPs ÷ (weights + "
                               "KV written)"),
                 .better = Better::higher,
                 .format = grouped,
                 .widest = QStringLiteral("8,888 FLOP/B, compute-bound")});
  decode = add({.key = QStringLiteral("decode"),
                .name = tr("Decode"),
                .tooltip = tr("Decode intensity at the batch: 2N·B FLOPs ÷ (weights once + B × "
                              "KV cache)"),
                .better = Better::higher,
                .format = grouped,
                .widest = QStringLiteral("8,888 FLOP/B, compute-bound")});
  kv_share = add({.key = QStringLiteral("kv_share"),
                  .name = tr("KV share"),
                  .tooltip = tr("Share of a decode step's bytes that is KV cache (the rest is "
                                "weights), at the batch and both precisions"),
                  .better = Better::lower,
                  .format = shows::points(),
                  .widest = QStringLiteral("100.0 % of bytes at B=1,024")});
  mfu = grid->addSection(tr("MFU budget"));
  plan_mfu = add({.key = QStringLiteral("planMfu"),
                  .name = tr("Plan runs at"),
                  .tooltip = tr("The MFU the training plan runs with (assumed: the Budget "
                                "planner's slider; predicted: the Parallelism panel's layout) "
                                "and its compute C. The MFU budget below is the seed's step "
                                "agenda, a different question."),
                  .better = Better::higher,
                  .format = shows::points(),
                  .widest = QStringLiteral("100.0 % (predicted), C = 1.026e+24")});
  mfu_row = add({.key = QStringLiteral("mfu"),
                 .name = tr("Agenda MFU"),
                 .tooltip = tr("Matmul-busy fraction of the step: matmul s ÷ total s"),
                 .better = Better::higher,
                 .format = shows::points(),
                 .widest = QStringLiteral("100.0 %")});
  hfu = add({.key = QStringLiteral("hfu"),
             .name = tr("HFU"),
             .tooltip = tr("MFU × recompute factor: recomputation counted as useful work; HFU ≥ "
                           "MFU always"),
             .format = shows::points(),
             .widest = QStringLiteral("over 100 % (MFU \u00d7 2.00)")});
  lever = add({.key = QStringLiteral("lever"),
               .name = tr("Biggest lever"),
               .tooltip = tr("The non-matmul unit that costs the matmul unit the most idle time"),
               .better = Better::lower,
               .format = shows::points(),
               .widest = QStringLiteral("optimizer (88.8 % of step)")});
  latency = grid->addSection(tr("Latency napkin"));
  model = add({.key = QStringLiteral("model"),
               .name = tr("Model"),
               .tooltip = tr("Parameters of the scenario's model: total (held in HBM) and active "
                             "(FLOPs, decode bytes) for an MoE"),
               .format = count,
               .widest = QStringLiteral("888.88B (88.88B act.)")});
  weights = add({.key = QStringLiteral("weights"),
                 .name = tr("Weights"),
                 .tooltip = tr("Total parameters × bytes per weight at the serving precision "
                               "(group-wise scales counted)"),
                 .better = Better::lower,
                 .format = fmtBytes,
                 .widest = QStringLiteral("888.8 TB at int4")});
  turn = add({.key = QStringLiteral("turn"),
              .name = tr("Turn"),
              .tooltip = tr("Prefill + decode + overhead on the scenario's chip count, and "
                            "whether it meets the budget"),
              .better = Better::lower,
              .format = [](double s) { return secondsText(s); },
              .widest = QStringLiteral("88.8 ms on 100,000 chips \u2717")});
  chips_budget = add({.key = QStringLiteral("chips_budget"),
                      .name = tr("For budget"),
                      .tooltip = tr("Smallest power-of-two slice whose turn meets the latency "
                                    "budget; none when no slice up to the largest does"),
                      .better = Better::lower,
                      .format = shows::grouped(0),
                      .widest = QStringLiteral("none (budget \u2264 overhead)")});
  chips_hold = add({.key = QStringLiteral("chips_hold"),
                    .name = tr("To hold"),
                    .tooltip = tr("ceil(N_total × bytes per weight ÷ HBM per chip): chips needed "
                                  "just to hold the weights"),
                    .better = Better::lower,
                    .format = shows::grouped(0),
                    .widest = QStringLiteral("88,888 chips (888.8 TB)")});
  deploy = add({.key = QStringLiteral("deploy"),
                .name = tr("Deploy"),
                .tooltip = tr("max(chips for the budget, chips to hold the weights), and which "
                              "one binds"),
                .better = Better::lower,
                .format = shows::grouped(0),
                .widest = QStringLiteral("88,888 chips (latency-bound)")});
}

void RooflineReadouts::show(const RooflineView& v) {
  const Scenario& s = v.scenario;
  const QString wp = dtypeText(s.serving.weight_dtype), kp = dtypeText(s.serving.kv_dtype);
  grid_->setSectionTitle(roofline,
                         tr("Roofline on %1 (%2 weights, %3 KV cache)").arg(qs(s.chip), wp, kp));
  grid_->setSectionTitle(mfu, tr("MFU budget of a training step"));
  grid_->setSectionTitle(
      latency, tr("Latency napkin: %1 at %2 weights on %3").arg(qs(s.model_name), wp, qs(s.chip)));
  showRoofline(v);
  showMfu(v);
  showLatency(v);
}

// The chip's ridge and where prefill and decode sit against it.
void RooflineReadouts::showRoofline(const RooflineView& v) {
  const RooflinePanelData& d = v.data;
  const RooflineScenario& sc = v.inputs;
  const Scenario& s = v.scenario;
  const QString wp = dtypeText(s.serving.weight_dtype), kp = dtypeText(s.serving.kv_dtype);
  grid_->set(ridge, {.value = intensityText(d.ridge_flops_per_byte),
                     .note = tr("peak ÷ HBM bandwidth of %1").arg(qs(s.chip)),
                     .number = d.ridge_flops_per_byte});
  if (const PlacedOperation* op = operation(d, "prefill"))
    grid_->set(prefill,
               {.value = intensityText(op->intensity) + QStringLiteral(", ") + boundText(op->bound),
                .note = tr("%1 prompt tokens").arg(qs(format_grouped(s.serving.prompt_tokens))),
                .number = op->intensity});
  if (const PlacedOperation* op = operation(d, "decode"))
    grid_->set(decode,
               {.value = intensityText(op->intensity) + QStringLiteral(", ") + boundText(op->bound),
                .note = tr("batch %1, %2 weights").arg(s.serving.batch).arg(wp),
                .tone = op->bound == Bound::memory ? Tone::warn : Tone::normal,
                .number = op->intensity});
  grid_->set(kv_share, {.value = tr("%1 of bytes at B=%2")
                                     .arg(percent(d.decode_at_batch.kv_share_of_bytes),
                                          qs(format_grouped(sc.operations.decode_batch))),
                        .note = tr("%1 KV cache vs %2 weights").arg(kp, wp),
                        .number = d.decode_at_batch.kv_share_of_bytes});
}

// The plan's MFU, the budget's MFU and HFU, and the biggest lever.
void RooflineReadouts::showMfu(const RooflineView& v) {
  const RooflinePanelData& d = v.data;
  if (v.plan)
    grid_->set(plan_mfu, {.value = tr("%1 (%2), C = %3")
                                       .arg(percent(v.plan->mfu.mfu), qs(v.plan->mfu_source_name()),
                                            qs(format_sci(v.plan->compute_flops, 3))),
                          .note = qs(v.plan->mfu.note),
                          .number = v.plan->mfu.mfu});
  else
    grid_->set(plan_mfu, {.value = QStringLiteral("—")});
  const MfuBudget& m = d.mfu_budget;
  grid_->set(mfu_row, {.value = percent(m.mfu), .number = m.mfu});
  const bool hfu_ok = d.hfu <= 1.0 + 1e-12;
  const QString factor = QString::number(d.hfu_over_mfu, 'f', 2);
  grid_->set(hfu,
             {.value = hfu_ok ? percent(d.hfu) + tr(" (MFU \u00d7 %1)").arg(factor)
                              : tr("over 100 % (MFU \u00d7 %1)").arg(factor),
              .note = hfu_ok ? QString() : tr("MFU × recompute exceeds 1: inconsistent inputs"),
              .tone = hfu_ok ? Tone::normal : Tone::fail,
              .number = d.hfu});
  grid_->set(
      lever,
      {.value = m.biggest_lever == MfuLever::none
                    ? tr("none (pure matmul)")
                    : tr("%1 (%2 of step)")
                          .arg(qs(to_string(m.biggest_lever)), percent(m.biggest_lever_fraction)),
       .note = tr("removing it lifts MFU to %1").arg(percent(d.mfu_without_lever.mfu)),
       .number = m.biggest_lever_fraction});
}

// The latency napkin: the model, its weights, the turn and the chips it needs.
void RooflineReadouts::showLatency(const RooflineView& v) {
  const RooflinePanelData& d = v.data;
  const RooflineScenario& sc = v.inputs;
  const Scenario& s = v.scenario;
  const QString wp = dtypeText(s.serving.weight_dtype);
  const ParamCount p = count_params(sc.shape);
  grid_->set(model,
             {.value = sc.shape.is_moe() ? tr("%1 (%2 act.)")
                                               .arg(count(static_cast<double>(p.total)),
                                                    count(static_cast<double>(p.active)))
                                         : tr("%1 params").arg(count(static_cast<double>(p.total))),
              .number = static_cast<double>(p.total)});
  grid_->set(weights, {.value = tr("%1 at %2").arg(qs(format_bytes(d.resident_weight_bytes)), wp),
                       .note = tr("total parameters at %1 weights").arg(wp),
                       .number = d.resident_weight_bytes});
  const TurnLatency& t = d.turn;
  grid_->set(turn, {.value = tr("%1 on %2 %3")
                                 .arg(secondsText(t.total_seconds), chipsText(t.n_chips),
                                      t.meets_budget ? QStringLiteral("\u2713")
                                                     : QStringLiteral("\u2717")),
                    .note = tr("budget %1").arg(secondsText(sc.turn.budget_seconds)),
                    .tone = t.meets_budget ? Tone::ok : Tone::fail,
                    .number = t.total_seconds});
  QString need;
  if (v.budgetBelowOverhead())
    need = tr("none (budget \u2264 overhead)");
  else if (d.chips_for_budget)
    need = chipsText(*d.chips_for_budget);
  else
    need = tr("none (\u2264 %1)").arg(chipsText(sc.turn.max_chips));
  grid_->set(chips_budget,
             {.value = need,
              .note = tr("%1 budget, %2 weights on %3")
                          .arg(secondsText(sc.turn.budget_seconds), wp, qs(s.chip)),
              .tone = d.chips_for_budget ? Tone::normal : Tone::fail,
              .number = d.chips_for_budget
                            ? std::optional<double>(static_cast<double>(*d.chips_for_budget))
                            : std::nullopt});
  grid_->set(chips_hold, {.value = tr("%1 (%2)").arg(chipsText(d.chips_to_hold_weights),
                                                     qs(format_bytes(d.resident_weight_bytes))),
                          .note = tr("%1 weights on %2 HBM").arg(wp, qs(s.chip)),
                          .number = static_cast<double>(d.chips_to_hold_weights)});
  if (d.serving.deploy_chips)
    grid_->set(deploy,
               {.value = tr("%1 (%2-bound)")
                             .arg(chipsText(*d.serving.deploy_chips),
                                  d.serving.deploy_latency_bound ? tr("latency") : tr("memory")),
                .number = static_cast<double>(*d.serving.deploy_chips)});
  else
    grid_->set(deploy, {.value = v.budgetBelowOverhead() ? tr("none: cut the overhead")
                                                         : tr("none: smaller model"),
                        .tone = Tone::fail});
}

void RooflineReadouts::setBaseline(const RooflineView* b) {
  if (!b) {
    grid_->clearBaselines();
    return;
  }
  const RooflinePanelData& d = b->data;
  grid_->setBaseline(ridge, d.ridge_flops_per_byte);
  if (const PlacedOperation* op = operation(d, "prefill"))
    grid_->setBaseline(prefill, op->intensity);
  if (const PlacedOperation* op = operation(d, "decode")) grid_->setBaseline(decode, op->intensity);
  grid_->setBaseline(kv_share, d.decode_at_batch.kv_share_of_bytes);
  if (b->plan) grid_->setBaseline(plan_mfu, b->plan->mfu.mfu);
  grid_->setBaseline(mfu_row, d.mfu_budget.mfu);
  grid_->setBaseline(hfu, d.hfu);
  grid_->setBaseline(lever, d.mfu_budget.biggest_lever_fraction);
  grid_->setBaseline(model, static_cast<double>(count_params(b->inputs.shape).total));
  grid_->setBaseline(weights, d.resident_weight_bytes);
  grid_->setBaseline(turn, d.turn.total_seconds);
  grid_->setBaseline(chips_budget,
                     d.chips_for_budget
                         ? std::optional<double>(static_cast<double>(*d.chips_for_budget))
                         : std::nullopt);
  grid_->setBaseline(chips_hold, static_cast<double>(d.chips_to_hold_weights));
  grid_->setBaseline(deploy,
                     d.serving.deploy_chips
                         ? std::optional<double>(static_cast<double>(*d.serving.deploy_chips))
                         : std::nullopt);
}

QString RooflineReadouts::text(const QString& key) const {
  const auto it = rows_.find(key);
  return it == rows_.end() ? QString() : grid_->text(*it);
}

}  // namespace napkin
