#include "moe/MoeReadouts.h"

#include "ReadoutFormats.h"
#include "Text.h"

#include <QCoreApplication>
#include <QStringList>

#include "format.h"
#include "moe_view.h"
#include "scenario.h"

namespace napkin {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("napkin::MoeReadouts", text); }

QString grouped(double v, int decimals = 0) { return qs(format_grouped(v, decimals)); }
QString percent(double f) { return qs(format_percent(f)); }
QString count(double v) { return qs(format_count(v, 2)); }
QString bytes(double v) { return qs(format_bytes(v)); }
QString ms(double v) { return qs(format_grouped(v, 1)) + QStringLiteral(" ms"); }
QString times(double v) { return qs(format_grouped(v, 2)) + QStringLiteral(" ×"); }
QString notStarted() { return tr("— (step 0)"); }

}  // namespace

MoeReadouts::MoeReadouts(ReadoutGrid* grid) : grid_(grid) {
  const QString wide = QStringLiteral("32,768 of 32,768 slots");
  step_section = grid->addSection(tr("Router this step"));
  verdict = grid->add({.key = QStringLiteral("verdict"),
                       .name = tr("Verdict"),
                       .tooltip = qs(describe(MoeHealthThresholds{})),
                       .widest = QStringLiteral("COLLAPSED")});
  max_mean = grid->add({.key = QStringLiteral("max_mean"),
                        .name = tr("max/mean"),
                        .tooltip = tr("Largest expert's routed slots ÷ the mean (T·k/E), on the "
                                      "router's assignments before capacity. 1.0 = balanced; E/k "
                                      "= every token's first choice is one expert."),
                        .better = Better::lower,
                        .format = [](double v) { return grouped(v, 2); },
                        .widest = QStringLiteral("3.81 × (ceiling 128.0)")});
  recent = grid->add({.key = QStringLiteral("recent"),
                      .name = tr("max/mean, smoothed"),
                      .tooltip = tr("The same on an exponential average of the shares over ~20 "
                                    "steps: past one batch's sampling noise. The verdict judges "
                                    "this one."),
                      .better = Better::lower,
                      .format = [](double v) { return grouped(v, 2); }});
  dead = grid->add({.key = QStringLiteral("dead"),
                    .name = tr("Dead experts"),
                    .tooltip = tr("Experts whose recent gate-weighted share is below a tenth of "
                                  "the fair 1/E: they get no tokens, or only as a near-zero-gate "
                                  "second choice."),
                    .better = Better::lower,
                    .format = [](double v) { return grouped(v); },
                    .widest = QStringLiteral("255 of 256")});
  l_balance = grid->add({.key = QStringLiteral("l_balance"),
                         .name = tr("L_balance"),
                         .tooltip = tr("E·Σ fᵢ·Pᵢ, f over slots (tokens × k): 1.0 balanced, up to "
                                       "E collapsed."),
                         .better = Better::lower});
  l_z = grid->add({.key = QStringLiteral("l_z"),
                   .name = tr("L_z"),
                   .tooltip = tr("Router z-loss: mean over tokens of (log Σ exp logits)²."),
                   .better = Better::lower});
  drop = grid->add({.key = QStringLiteral("drop"),
                    .name = tr("Drop rate"),
                    .tooltip = tr("Slots over an expert's buffer ÷ all slots (T·k): silently "
                                  "dropped."),
                    .better = Better::lower,
                    .format = shows::points()});
  skipping = grid->add({.key = QStringLiteral("skipping"),
                        .name = tr("Tokens with no FFN"),
                        .tooltip = tr("Tokens whose every slot was dropped and no shared expert: "
                                      "they ride the residual unchanged."),
                        .better = Better::lower,
                        .format = [](double v) { return grouped(v); },
                        .widest = wide});

  capacity_section = grid->addSection(tr("Capacity this step"));
  capacity = grid->add({.key = QStringLiteral("capacity"),
                        .name = tr("Capacity / expert"),
                        .tooltip = tr("⌊capacity factor × T × k / E⌋ slots"),
                        .format = [](double v) { return grouped(v); }});
  buffer_util = grid->add({.key = QStringLiteral("buffer_util"),
                           .name = tr("Buffer utilization"),
                           .tooltip = tr("kept slots ÷ (capacity × E): the rest is padding, "
                                         "compute spent on zeros"),
                           .better = Better::higher,
                           .format = shows::points()});
  dropped = grid->add({.key = QStringLiteral("dropped"),
                       .name = tr("Dropped slots"),
                       .tooltip = tr("Slots routed past a full buffer (first come, first served "
                                     "in token order)"),
                       .better = Better::lower,
                       .format = [](double v) { return grouped(v); },
                       .widest = wide});
  padded = grid->add({.key = QStringLiteral("padded"),
                      .name = tr("Padded slots"),
                      .tooltip = tr("Empty buffer slots, computed on zeros"),
                      .better = Better::lower,
                      .format = [](double v) { return grouped(v); }});
  fully_dropped = grid->add({.key = QStringLiteral("fully_dropped"),
                             .name = tr("Fully dropped tokens"),
                             .tooltip = tr("Tokens whose every slot was dropped (the residual "
                                           "carries them unchanged unless a shared expert runs)"),
                             .better = Better::lower,
                             .format = [](double v) { return grouped(v); },
                             .widest = QStringLiteral("4,096 of 4,096 (shared)")});

  params_section = grid->addSection(tr("Parameters (the scenario's model)"));
  model = grid->add({.key = QStringLiteral("model"),
                     .name = tr("Model"),
                     .tooltip = tr("The shared scenario's model (choose it in the Budget panel)"),
                     .widest = QStringLiteral("Mixtral-8x7B (E 8, k 2)")});
  total = grid->add({.key = QStringLiteral("total"),
                     .name = tr("Total params"),
                     .tooltip = tr("Every expert counted: what HBM must hold (memory)"),
                     .format = count});
  active = grid->add({.key = QStringLiteral("active"),
                      .name = tr("Active params"),
                      .tooltip = tr("k routed (+ shared) experts per token: what each token "
                                    "multiplies (FLOPs)"),
                      .format = count});
  sparsity = grid->add({.key = QStringLiteral("sparsity"),
                        .name = tr("Total ÷ active"),
                        .tooltip = tr("total ÷ active; exactly 1.0 for a dense model or k = E"),
                        .format = [](double v) { return grouped(v, 2); }});
  total_bytes = grid->add({.key = QStringLiteral("total_bytes"),
                           .name = tr("Total at bf16"),
                           .tooltip = tr("total × 2 bytes"),
                           .better = Better::lower,
                           .format = bytes});
  active_bytes = grid->add({.key = QStringLiteral("active_bytes"),
                            .name = tr("Active at bf16"),
                            .tooltip = tr("active × 2 bytes: read per token"),
                            .better = Better::lower,
                            .format = bytes});

  comm_section = grid->addSection(tr("Communication wall"));
  a2a_bytes = grid->add({.key = QStringLiteral("a2a_bytes"),
                         .name = tr("Naive EP bytes"),
                         .tooltip = tr("All-to-all per prefill: 2 (dispatch + combine) × MoE "
                                       "layers × tokens × d_model × 2 bytes × k"),
                         .better = Better::lower,
                         .format = bytes});
  a2a_seconds = grid->add({.key = QStringLiteral("a2a_seconds"),
                           .name = tr("Naive EP time"),
                           .tooltip = tr("bytes × 8 ÷ link + 2 × layers × latency"),
                           .better = Better::lower,
                           .format = shows::seconds(),
                           .widest = QStringLiteral("1.23 min per prefill")});
  serial = grid->add({.key = QStringLiteral("serial"),
                      .name = tr("Serial"),
                      .tooltip = tr("S × M × (compute + transfer): no overlap"),
                      .better = Better::lower,
                      .format = ms});
  pipelined = grid->add({.key = QStringLiteral("pipelined"),
                         .name = tr("Pipelined"),
                         .tooltip = tr("(M + S − 1) × max(compute, transfer)"),
                         .better = Better::lower,
                         .format = ms});
  bubble = grid->add({.key = QStringLiteral("bubble"),
                      .name = tr("Bubble"),
                      .tooltip = tr("(S − 1) × step: the fill before the last stage starts"),
                      .better = Better::lower,
                      .format = ms});
  utilization = grid->add({.key = QStringLiteral("utilization"),
                           .name = tr("Utilization"),
                           .tooltip = tr("M / (M + S − 1)"),
                           .better = Better::higher,
                           .format = shows::points(),
                           .widest = QStringLiteral("99.9 %  (32/47)")});
  speedup = grid->add({.key = QStringLiteral("speedup"),
                       .name = tr("Speed-up"),
                       .tooltip = tr("serial ÷ pipelined"),
                       .better = Better::higher,
                       .format = times});
}

void MoeReadouts::showStep(const MoeStepView& v, const StepStats* s, const CollapseParams& p) {
  const QString of_tokens = grouped(static_cast<double>(p.tokens_per_batch));
  grid_->setSectionTitle(step_section, tr("Router at step %1 (E = %2, k = %3)")
                                           .arg(grouped(static_cast<double>(v.step)))
                                           .arg(v.n_experts)
                                           .arg(v.top_k));
  grid_->set(capacity, {.value = grouped(static_cast<double>(v.capacity_per_expert)),
                        .unit = v.capacity_per_expert == 1 ? tr("slot") : tr("slots"),
                        .note = tr("cf %1").arg(p.capacity_factor, 0, 'g', 3),
                        .number = static_cast<double>(v.capacity_per_expert)});
  if (!s || !v.health) {
    for (ReadoutGrid::Row r : {max_mean, recent, dead, l_balance, l_z, drop, skipping, buffer_util,
                               dropped, padded, fully_dropped})
      grid_->set(r, {.value = notStarted()});
    grid_->set(verdict, {.value = tr("not started")});
    return;
  }
  const MoeHealth& h = *v.health;
  QStringList why;
  for (const std::string& r : h.reasons) why << qs(r);
  grid_->set(verdict, {.value = h.verdict == MoeVerdict::collapsed  ? tr("COLLAPSED")
                                : h.verdict == MoeVerdict::strained ? tr("STRAINED")
                                                                    : tr("healthy"),
                       .note = why.join(QStringLiteral("; ")),
                       .tone = h.verdict == MoeVerdict::collapsed  ? Tone::fail
                               : h.verdict == MoeVerdict::strained ? Tone::warn
                                                                   : Tone::ok});
  grid_->set(max_mean, {.value = tr("%1 × (ceiling %2)")
                                     .arg(grouped(s->max_over_mean, 2))
                                     .arg(grouped(v.max_over_mean_ceiling, 1)),
                        .note = tr("this step, before capacity"),
                        .number = s->max_over_mean});
  grid_->set(recent, {.value = grouped(s->recent_max_over_mean, 2),
                      .unit = QStringLiteral("×"),
                      .number = s->recent_max_over_mean});
  grid_->set(dead, {.value = tr("%1 of %2").arg(s->dead_experts).arg(v.n_experts),
                    .tone = s->dead_experts > 0 ? Tone::fail : Tone::normal,
                    .number = static_cast<double>(s->dead_experts)});
  grid_->set(l_balance, {.value = grouped(s->l_balance, 3), .number = s->l_balance});
  grid_->set(l_z, {.value = grouped(s->l_z, 3), .number = s->l_z});
  grid_->set(drop,
             {.value = percent(s->drop_rate), .note = tr("of T·k slots"), .number = s->drop_rate});
  grid_->set(
      skipping,
      {.value =
           tr("%1 of %2").arg(grouped(static_cast<double>(s->tokens_skipping_ffn))).arg(of_tokens),
       .unit = tr("tokens"),
       .number = static_cast<double>(s->tokens_skipping_ffn)});
  grid_->set(buffer_util,
             {.value = percent(s->buffer_utilization()), .number = s->buffer_utilization()});
  grid_->set(dropped, {.value = tr("%1 of %2")
                                    .arg(grouped(static_cast<double>(s->dropped_slots)))
                                    .arg(grouped(static_cast<double>(s->routed_slots()))),
                       .unit = tr("slots"),
                       .number = static_cast<double>(s->dropped_slots)});
  grid_->set(padded, {.value = grouped(static_cast<double>(s->padded_slots)),
                      .unit = s->padded_slots == 1 ? tr("slot") : tr("slots"),
                      .number = static_cast<double>(s->padded_slots)});
  grid_->set(fully_dropped,
             {.value = tr("%1 of %2%3")
                           .arg(grouped(static_cast<double>(s->fully_dropped_tokens)))
                           .arg(of_tokens)
                           .arg(p.shared_expert ? tr(" (shared)") : QString()),
              .number = static_cast<double>(s->fully_dropped_tokens)});
}

void MoeReadouts::showScenario(const MoeScenarioView& v, const Scenario& s) {
  const QString name = qs(s.model_name);
  grid_->set(model,
             {.value = v.is_moe ? tr("%1 (E %2, k %3)").arg(name).arg(v.n_experts).arg(v.top_k)
                                : tr("%1 (dense)").arg(name)});
  const ParamCount& c = v.params.count;
  grid_->set(total, {.value = count(static_cast<double>(c.total)),
                     .number = static_cast<double>(c.total)});
  grid_->set(active, {.value = count(static_cast<double>(c.active)),
                      .number = static_cast<double>(c.active)});
  grid_->set(sparsity, {.value = grouped(v.params.sparsity_ratio, 2),
                        .unit = QStringLiteral("×"),
                        .number = v.params.sparsity_ratio});
  grid_->set(total_bytes, {.value = bytes(static_cast<double>(v.params.total_bytes)),
                           .number = static_cast<double>(v.params.total_bytes)});
  grid_->set(active_bytes, {.value = bytes(static_cast<double>(v.params.active_bytes)),
                            .number = static_cast<double>(v.params.active_bytes)});
  const QString about =
      v.is_moe ? tr("%1 MoE layers, k = %2").arg(v.comm_inputs.n_layers).arg(v.comm_top_k)
               : tr("dense model costed as MoE with k = %1").arg(v.comm_top_k);
  grid_->set(a2a_bytes, {.value = bytes(static_cast<double>(v.comm.bytes)),
                         .note = about,
                         .number = static_cast<double>(v.comm.bytes)});
  grid_->set(a2a_seconds, {.value = tr("%1 per prefill").arg(qs(format_seconds(v.comm.seconds))),
                           .note = tr("%1 Gb/s link, %2 µs per collective")
                                       .arg(grouped(v.comm_inputs.link_gbps, 0))
                                       .arg(v.comm_inputs.latency_us, 0, 'g', 3),
                           .number = v.comm.seconds});
  grid_->set(serial, {.value = ms(v.pipe.serial_ms), .number = v.pipe.serial_ms});
  grid_->set(pipelined, {.value = ms(v.pipe.pipelined_ms), .number = v.pipe.pipelined_ms});
  grid_->set(bubble, {.value = ms(v.pipe.bubble_ms), .number = v.pipe.bubble_ms});
  grid_->set(utilization, {.value = tr("%1  (%2/%3)")
                                        .arg(percent(v.pipe.utilization))
                                        .arg(v.pipe_inputs.chunks)
                                        .arg(v.pipe.steps),
                           .number = v.pipe.utilization});
  grid_->set(
      speedup,
      {.value = grouped(v.pipe.speedup, 2), .unit = QStringLiteral("×"), .number = v.pipe.speedup});
}

void MoeReadouts::setBaseline(const MoeRunOfRecord* b) {
  grid_->clearBaselines();
  if (!b || b->history.empty()) return;
  const StepStats& s = b->history.back();
  grid_->setBaseline(max_mean, s.max_over_mean);
  grid_->setBaseline(recent, s.recent_max_over_mean);
  grid_->setBaseline(dead, static_cast<double>(s.dead_experts));
  grid_->setBaseline(l_balance, s.l_balance);
  grid_->setBaseline(l_z, s.l_z);
  grid_->setBaseline(drop, s.drop_rate);
  grid_->setBaseline(skipping, static_cast<double>(s.tokens_skipping_ffn));
  grid_->setBaseline(capacity, static_cast<double>(s.capacity_per_expert));
  grid_->setBaseline(buffer_util, s.buffer_utilization());
  grid_->setBaseline(dropped, static_cast<double>(s.dropped_slots));
  grid_->setBaseline(padded, static_cast<double>(s.padded_slots));
  grid_->setBaseline(fully_dropped, static_cast<double>(s.fully_dropped_tokens));
  const MoeScenarioView& v = b->scenario;
  grid_->setBaseline(total, static_cast<double>(v.params.count.total));
  grid_->setBaseline(active, static_cast<double>(v.params.count.active));
  grid_->setBaseline(sparsity, v.params.sparsity_ratio);
  grid_->setBaseline(total_bytes, static_cast<double>(v.params.total_bytes));
  grid_->setBaseline(active_bytes, static_cast<double>(v.params.active_bytes));
  grid_->setBaseline(a2a_bytes, static_cast<double>(v.comm.bytes));
  grid_->setBaseline(a2a_seconds, v.comm.seconds);
  grid_->setBaseline(serial, v.pipe.serial_ms);
  grid_->setBaseline(pipelined, v.pipe.pipelined_ms);
  grid_->setBaseline(bubble, v.pipe.bubble_ms);
  grid_->setBaseline(utilization, v.pipe.utilization);
  grid_->setBaseline(speedup, v.pipe.speedup);
}

}  // namespace napkin
