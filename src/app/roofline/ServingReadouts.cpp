#include "roofline/ServingReadouts.h"

#include "ReadoutFormats.h"

#include <QCoreApplication>
#include <QLabel>
#include <cmath>

#include "PlotWidget.h"
#include "Text.h"
#include "format.h"
#include "roofline/RooflineFormat.h"
#include "roofline_view.h"

namespace napkin {

namespace {
QString tr(const char* text) {
  return QCoreApplication::translate("napkin::ServingReadouts", text);
}
QString bytes(double b) { return qs(format_bytes(b, 1)); }
QString seconds(double s) { return secondsText(s); }
QString rate(double v) { return qs(format_grouped(v, v < 100 ? 1 : 0)); }
std::optional<double> num(double v) { return v; }

QString candidateText(const LayoutCandidate& c) {
  return tr("%1 (%2), batch %3").arg(chipsText(c.chips), qs(describe(c.layout))).arg(c.max_batch);
}
// Why an answer is none, as a sentence (the reason itself, or what was tried).
QString because(const std::string& reason, const QString& otherwise) {
  QString r = reason.empty() ? otherwise : qs(reason);
  if (!r.isEmpty()) r[0] = r[0].toUpper();
  if (!r.endsWith(QLatin1Char('.'))) r += QLatin1Char('.');
  return r;
}
QString poolText(const PoolPlan& p) {
  if (!p.slice) return tr("none");  // the reason wraps below the grid
  return tr("%1: %2 \u00d7 %3").arg(chipsText(p.chips)).arg(p.slices).arg(candidateText(*p.slice));
}
}  // namespace

ReadoutGrid::Row ServingReadouts::add(const ReadoutSpec& spec) {
  const ReadoutGrid::Row r = grid_->add(spec);
  rows_.insert(spec.key, r);
  return r;
}

ServingReadouts::ServingReadouts(ReadoutGrid* grid) : grid_(grid), notes_(new QLabel) {
  notes_->setObjectName(QStringLiteral("servingNotes"));
  notes_->setWordWrap(true);  // a long reason wraps to the page, never runs off it
  notes_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  notes_->setTextFormat(Qt::PlainText);
  notes_->hide();
  const QString wide = QStringLiteral("888.8 GB of 88.8 GB usable: too big");
  layout = grid->addSection(tr("Chosen layout"));
  weights = add({.key = QStringLiteral("serving_weights"),
                 .name = tr("Weights / chip"),
                 .tooltip = tr("Weights held per chip on the fullest pipeline stage: ÷ TP, ÷ PP, "
                               "routed experts ÷ EP, at the weight precision (a quantized "
                               "checkpoint's embedding tables at bf16 under a per-kernel engine)"),
                 .better = Better::lower,
                 .format = fmtBytes,
                 .widest = wide});
  kv = add({.key = QStringLiteral("serving_kv"),
            .name = tr("KV cache / chip"),
            .tooltip = tr("Every resident request's KV cache at its full context, heads sharded "
                          "up to the KV-head count and replicated beyond, at the KV precision"),
            .better = Better::lower,
            .format = fmtBytes});
  total = add({.key = QStringLiteral("serving_total"),
               .name = tr("Total / chip"),
               .tooltip = tr("Weights + KV cache against the usable HBM (90 % of it)"),
               .better = Better::lower,
               .format = fmtBytes,
               .widest = wide});
  prefill = add({.key = QStringLiteral("serving_prefill"),
                 .name = tr("Prefill"),
                 .tooltip = tr("One prompt: max(FLOPs incl. attention's T² term ÷ peak, bytes ÷ "
                               "HBM) per stage, plus communication and the pipeline"),
                 .better = Better::lower,
                 .format = seconds});
  step = add({.key = QStringLiteral("serving_step"),
              .name = tr("Decode step"),
              .tooltip = tr("max(compute, bytes read ÷ HBM bandwidth) + the TP all-reduces, "
                            "expert all-to-alls and pipeline hops; under a per-kernel engine "
                            "its GEMMs, attention, element-wise kernels and launch gaps "
                            "summed instead of the one roofline"),
              .better = Better::lower,
              .format = seconds,
              .widest = QStringLiteral("88.8 ms (GEMMs 88.8 ms, attention 88.8 ms)")});
  comm = add({.key = QStringLiteral("serving_comm"),
              .name = tr("Communication"),
              .tooltip = tr("TP all-reduces + expert all-to-alls + pipeline hops per decode step "
                            "(α–β over the chip's links)"),
              .better = Better::lower,
              .format = seconds});
  ttft = add({.key = QStringLiteral("serving_ttft"),
              .name = tr("TTFT"),
              .tooltip = tr("Time to first token: overhead + prefill (+ KV transfer)"),
              .better = Better::lower,
              .format = seconds});
  tpot = add({.key = QStringLiteral("serving_tpot"),
              .name = tr("TPOT"),
              .tooltip = tr("Time per output token: the decode step + other requests' prefills "
                            "spread over the decode tokens"),
              .better = Better::lower,
              .format = seconds});
  turn = add({.key = QStringLiteral("serving_turn"),
              .name = tr("Turn"),
              .tooltip = tr("TTFT + decode tokens × TPOT"),
              .better = Better::lower,
              .format = seconds});
  throughput = add({.key = QStringLiteral("serving_throughput"),
                    .name = tr("Tokens/s per chip"),
                    .tooltip = tr("Generated tokens per second per chip in steady state"),
                    .better = Better::higher,
                    .format = rate});
  run = grid->addSection(tr("Benchmark run"));
  run_throughput =
      add({.key = QStringLiteral("run_throughput"),
           .name = tr("Throughput"),
           .tooltip = tr("Output tokens per second per chip over the whole run "
                         "(napkin-cli serve --mode: the engine's scheduler "
                         "simulated iteration by iteration). Beside it: what "
                         "published serving runs of the same kind of model on the "
                         "same generation of chips measured where Napkin "
                         "predicted this, 10th to 90th percentile (napkin-cli "
                         "validate); none for the ideal engine"),
           .better = Better::higher,
           .format = rate,
           .widest = QStringLiteral("88,888 tok/s per chip (runs like it: 88,888 – 88,888)")});
  run_ttft = add({.key = QStringLiteral("run_ttft"),
                  .name = tr("TTFT P50 / P99"),
                  .tooltip = tr("Arrival to first token over the run's requests, queueing "
                                "included: the median and the 99th percentile. Beside a "
                                "static run's: what published first tokens (a static batch's "
                                "prefill) measured where Napkin predicted the median, 10th to "
                                "90th percentile, the scenario's overhead outside the band; "
                                "none for the ideal engine"),
                  .better = Better::lower,
                  .format = seconds,
                  .widest = QStringLiteral("888 ms / 888 ms (runs like it: 888 ms – 888 ms)")});
  run_tpot = add({.key = QStringLiteral("run_tpot"),
                  .name = tr("TPOT P50 / P99"),
                  .tooltip = tr("Per request, (last token − first token) ÷ (output − 1): the "
                                "median and the 99th percentile"),
                  .better = Better::lower,
                  .format = seconds,
                  .widest = QStringLiteral("888 ms / 888 ms")});
  run_in_flight = add({.key = QStringLiteral("run_in_flight"),
                       .name = tr("In flight"),
                       .tooltip = tr("Requests in flight at most: the concurrency set, else what "
                                     "memory and the engine's scheduler allow; static: the batch"),
                       .better = Better::higher,
                       .format = shows::grouped(0),
                       .widest = QStringLiteral("8,888 (memory holds 88,888)")});
  search = grid->addSection(tr("Search"));
  best = add({.key = QStringLiteral("search_best"),
              .name = tr("Smallest slice"),
              .tooltip = tr("The smallest power-of-two slice meeting the budget, in its "
                            "highest-throughput layout at its largest batch; none with the reason"),
              .better = Better::lower,
              .format = shows::grouped(0),
              .widest = QStringLiteral("4,096 chips (TP 8 × PP 2 × EP 8), batch 1,024")});
  efficient = add({.key = QStringLiteral("search_efficient"),
                   .name = tr("Most efficient"),
                   .tooltip = tr("The slice meeting the budget with the most tokens/s per chip"),
                   .better = Better::higher,
                   .format = rate,
                   .widest = QStringLiteral("4,096 chips (TP 8 × PP 2 × EP 8), batch 1,024")});
  pools = grid->addSection(tr("Disaggregation"));
  prefill_pool = add({.key = QStringLiteral("pool_prefill"),
                      .name = tr("Prefill pool"),
                      .tooltip = tr("Replicas meeting TTFT (with the KV transfer), prompts one "
                                    "after another, for the traffic"),
                      .better = Better::lower,
                      .format = shows::grouped(0)});
  decode_pool = add({.key = QStringLiteral("pool_decode"),
                     .name = tr("Decode pool"),
                     .tooltip = tr("Replicas meeting TPOT with no prefill stalling their steps"),
                     .better = Better::lower,
                     .format = shows::grouped(0)});
  shared_pool = add({.key = QStringLiteral("pool_shared"),
                     .name = tr("Shared pool"),
                     .tooltip = tr("One pool doing both, meeting TTFT and TPOT"),
                     .better = Better::lower,
                     .format = shows::grouped(0)});
  winner = add({.key = QStringLiteral("pool_winner"),
                .name = tr("Verdict"),
                .tooltip = tr("Which deployment carries the traffic on fewer chips")});
  cost = grid->addSection(tr("Cost of a token"));
  dollars = add({.key = QStringLiteral("serving_dollars"),
                 .name = tr("$ / M tokens"),
                 .tooltip = tr("price per chip-hour ÷ tokens per chip-hour × 1e6, at the "
                               "chosen layout and batch; the price is the Budget planner's "
                               "Serving price when this chip is its Serving chip, else the "
                               "chip's training price"),
                 .better = Better::lower,
                 .format = shows::dollars(3)});
  joules = add({.key = QStringLiteral("serving_joules"),
                .name = tr("J / token"),
                .tooltip = tr("chip TDP × PUE ÷ tokens/s per chip"),
                .better = Better::lower,
                .format = shows::grouped(3)});
  energy_share = add({.key = QStringLiteral("energy_share"),
                      .name = tr("Energy share"),
                      .tooltip = tr("Energy's share of the chip-hour price: TDP × PUE × $/kWh ÷ "
                                    "price (chips at full power and cooling; not hosts, network "
                                    "or storage)"),
                      .format = shows::points()});
}

void ServingReadouts::show(const ServingPanelView& v, std::optional<std::int64_t> napkin_chips) {
  if (!v.valid()) {
    grid_->setSectionTitle(layout, tr("Chosen layout: none (%1)").arg(qs(v.error)));
    notes_->hide();
    return;
  }
  showNotes(v, napkin_chips);
  showChosen(v);
  showRun(v);
  showSearch(v);
  showPools(v);
  showCost(v);
}

// The chosen layout: memory, prefill, the decode step, communication and
// the latencies (a dash where the layout does not fit).
void ServingReadouts::showChosen(const ServingPanelView& v) {
  const ServingView& sv = v.view;
  const ServingResult& c = sv.chosen;
  const Scenario& s = v.scenario;
  const QString prec = qs(sv.precision);
  grid_->setSectionTitle(layout, tr("%1 layout: %2 on %3 \u00d7 %4, batch %5 (%6)")
                                     .arg(v.inputs.fastest_split ? tr("Fastest") : tr("Chosen"),
                                          qs(describe(c.layout)))
                                     .arg(c.chips)
                                     .arg(qs(s.chip))
                                     .arg(c.batch)
                                     .arg(prec));
  const QString wp = dtypeText(s.serving.weight_dtype), kp = dtypeText(s.serving.kv_dtype);
  const ServingMemory& m = c.memory;
  const bool tables_16_bit = tables_in_16_bit(s.serving.engine, s.serving.weight_dtype);
  grid_->set(weights,
             {.value = tables_16_bit ? tr("%1 at %2, tables bf16").arg(bytes(m.weights_bytes), wp)
                                     : tr("%1 at %2").arg(bytes(m.weights_bytes), wp),
              .note = tr("%1 weights, fullest stage").arg(wp),
              .number = m.weights_bytes});
  grid_->set(kv, {.value = tr("%1 at %2").arg(bytes(m.kv_bytes), kp),
                  .note = tr("%1 KV heads per chip, %2 KV cache").arg(m.kv_groups_per_chip).arg(kp),
                  .number = m.kv_bytes});
  grid_->set(total, {.value = tr("%1 of %2 usable%3")
                                  .arg(bytes(m.total_bytes), bytes(m.usable_bytes),
                                       m.fits ? tr(", fits") : tr(": too big")),
                     .note = tr("%1 HBM %2").arg(qs(s.chip), bytes(m.hbm_bytes)),
                     .tone = m.fits ? Tone::ok : Tone::fail,
                     .number = m.total_bytes});
  grid_->set(
      prefill,
      {.value = tr("%1, %2-bound").arg(seconds(c.prefill_seconds), qs(to_string(c.prefill.bound))),
       .number = c.prefill_seconds});
  // A per-kernel engine's step is its kernels summed: name the two largest.
  const PhaseTime& d = c.decode_step;
  grid_->set(step, {.value = d.per_kernel
                                 ? tr("%1 (GEMMs %2, attention %3)")
                                       .arg(seconds(c.decode_step_seconds), seconds(d.gemm_seconds),
                                            seconds(d.attention_seconds))
                                 : tr("%1 (compute %2, memory %3)")
                                       .arg(seconds(c.decode_step_seconds),
                                            seconds(d.compute_seconds), seconds(d.memory_seconds)),
                    .note = tr("at %1 weights, %2 KV cache").arg(wp, kp),
                    .number = c.decode_step_seconds});
  grid_->set(comm, {.value = s.roofline.serving_layout.communication
                                 ? tr("%1 per step (TP %2)")
                                       .arg(seconds(c.comm_seconds_per_step),
                                            seconds(c.decode_step.tp_comm_seconds))
                                 : tr("off"),
                    .note = tr("α–β over the %1 links").arg(qs(s.chip)),
                    .number = c.comm_seconds_per_step});
  served(m, ttft, {.value = seconds(c.ttft_seconds), .number = c.ttft_seconds});
  served(m, tpot, {.value = seconds(c.tpot_seconds), .number = c.tpot_seconds});
  served(m, turn, {.value = seconds(c.turn_seconds), .number = c.turn_seconds});
  served(m, throughput,
         {.value = rate(c.tokens_per_second_per_chip),
          .unit = tr("tok/s"),
          .number = c.tokens_per_second_per_chip});
}

// The benchmark run of the chosen layout: what napkin-cli serve --mode prints.
void ServingReadouts::showRun(const ServingPanelView& v) {
  const ServingLayoutSettings& r = v.scenario.roofline.serving_layout;
  const ModeInputs& in = v.inputs.run;
  auto length = [](std::int64_t mean, std::int64_t spread) {
    const QString m = qs(format_grouped(static_cast<double>(mean)));
    return spread > 0 ? tr("%1 \u00b1 %2").arg(m, qs(format_grouped(static_cast<double>(spread))))
                      : m;
  };
  const QString lengths = tr("%1 + %2 tokens")
                              .arg(length(in.serving.prompt_tokens, in.prompt_spread),
                                   length(in.serving.decode_tokens, in.output_spread));
  QString what;
  switch (r.run_mode) {
    case BatchingMode::static_batch:
      what = tr("static, one batch of %1 × %2").arg(in.serving.batch).arg(lengths);
      break;
    case BatchingMode::offline:
      what = tr("offline, %1 requests of %2")
                 .arg(qs(format_grouped(static_cast<double>(in.requests))), lengths);
      break;
    case BatchingMode::server:
      what =
          tr("server at %1 req/s, %2 requests of %3")
              .arg(qs(format_grouped(
                       in.request_rate_per_second,
                       in.request_rate_per_second == std::round(in.request_rate_per_second) ? 0
                                                                                            : 2)),
                   qs(format_grouped(static_cast<double>(in.requests))), lengths);
      break;
  }
  const QString engine = qs(v.scenario.serving.engine);
  const ServingRunView& run_view = v.run;
  if (!run_view.valid()) {
    grid_->setSectionTitle(run, tr("Benchmark run: %1 (%2): none").arg(what, engine));
    for (ReadoutGrid::Row row : {run_throughput, run_ttft, run_tpot, run_in_flight})
      grid_->set(row,
                 {.value = QStringLiteral("—"), .note = qs(run_view.error), .tone = Tone::fail});
    return;
  }
  const ModeResult& m = run_view.result;
  grid_->setSectionTitle(run, tr("Benchmark run: %1 (%2)").arg(what, engine));
  // The band published serving runs like it measured where Napkin predicted.
  const TrackRecord& t = run_view.track_record;
  const double per_chip = m.output_tokens_per_second_per_chip;
  grid_->set(
      run_throughput,
      {.value = t.empty() ? tr("%1 tok/s per chip").arg(rate(per_chip))
                          : tr("%1 tok/s per chip (runs like it: %2 – %3)")
                                .arg(rate(per_chip), rate(t.measured_low(per_chip)),
                                     rate(t.measured_high(per_chip))),
       .note = m.saturated
                   ? tr("saturated: the queue grows, and the latencies with the "
                        "run's length; %1 tok/s on %2")
                         .arg(rate(m.output_tokens_per_second), chipsText(m.chips))
                   : tr("%1 tok/s on %2").arg(rate(m.output_tokens_per_second), chipsText(m.chips)),
       .tone = m.saturated ? Tone::warn : Tone::normal,
       .number = m.output_tokens_per_second_per_chip});
  // A static run's first token beside the published first tokens (the
  // scenario's overhead is the user's, outside their band).
  const TrackRecord& f = run_view.first_token;
  const QString quantiles =
      tr("%1 / %2").arg(seconds(m.ttft_seconds.p50), seconds(m.ttft_seconds.p99));
  const double overhead = in.serving.overhead_seconds;
  grid_->set(
      run_ttft,
      {.value = f.empty() ? quantiles
                          : tr("%1 (runs like it: %2 – %3)")
                                .arg(quantiles,
                                     seconds(f.measured_time_low(m.ttft_seconds.p50, overhead)),
                                     seconds(f.measured_time_high(m.ttft_seconds.p50, overhead))),
       .note = tr("mean %1, P90 %2").arg(seconds(m.ttft_seconds.mean), seconds(m.ttft_seconds.p90)),
       .number = m.ttft_seconds.p50});
  grid_->set(run_tpot,
             {.value = tr("%1 / %2").arg(seconds(m.tpot_seconds.p50), seconds(m.tpot_seconds.p99)),
              .note = tr("decode step %1 mean over %2 steps")
                          .arg(seconds(m.decode_step_seconds),
                               qs(format_grouped(static_cast<double>(m.steps)))),
              .number = m.tpot_seconds.p50});
  grid_->set(run_in_flight,
             {.value = r.run_mode == BatchingMode::static_batch
                           ? tr("%1 (the batch)").arg(m.concurrency)
                           : tr("%1 (memory holds %2)")
                                 .arg(qs(format_grouped(static_cast<double>(m.concurrency))),
                                      qs(format_grouped(static_cast<double>(m.max_concurrency)))),
              .number = static_cast<double>(m.concurrency)});
}

// A row only a layout that fits can have: a layout that does not fit in HBM
// cannot serve, its latencies and the price of its tokens are not figures
// anyone could get.
void ServingReadouts::served(const ServingMemory& m, ReadoutGrid::Row row, Readout r) {
  if (m.fits) {
    grid_->set(row, std::move(r));
    return;
  }
  grid_->set(row, {.value = QStringLiteral("\u2014"),
                   .note = tr("not served: the layout needs %1 of %2 usable HBM")
                               .arg(bytes(m.total_bytes), bytes(m.usable_bytes)),
                   .tone = Tone::fail});
}

// The layout search's answers: the fastest and the most efficient slice.
void ServingReadouts::showSearch(const ServingPanelView& v) {
  const ServingView& sv = v.view;
  const Scenario& s = v.scenario;
  const QString prec = qs(sv.precision);
  const SearchAnswer& a = sv.search;
  grid_->setSectionTitle(search,
                         tr("Search for %1 on %2, up to %3 (%4)")
                             .arg(qs(a.budget.describe()), qs(s.chip),
                                  chipsText(s.roofline.serving_layout.search_max_chips), prec));
  if (a.best)
    grid_->set(best, {.value = candidateText(*a.best),
                      .note = tr("turn %1").arg(seconds(a.best->result.turn_seconds)),
                      .tone = Tone::ok,
                      .number = static_cast<double>(a.best->chips)});
  else
    grid_->set(best, {.value = tr("none"), .note = qs(a.reason), .tone = Tone::fail});
  if (a.most_efficient)
    grid_->set(
        efficient,
        {.value = candidateText(*a.most_efficient),
         .unit =
             tr("(%1 tok/s/chip)").arg(rate(a.most_efficient->result.tokens_per_second_per_chip)),
         .number = a.most_efficient->result.tokens_per_second_per_chip});
  else
    grid_->set(efficient, {.value = tr("none"), .note = qs(a.reason), .tone = Tone::fail});
}

// Disaggregated prefill and decode pools, when TTFT and TPOT are bounded.
void ServingReadouts::showPools(const ServingPanelView& v) {
  const ServingView& sv = v.view;
  const Scenario& s = v.scenario;
  const QString prec = qs(sv.precision);
  if (sv.disaggregation) {
    const Disaggregation& dis = *sv.disaggregation;
    grid_->setSectionTitle(
        pools,
        tr("Disaggregation for %1 generated tokens/day (%2)")
            .arg(qs(format_count(s.roofline.serving_layout.generated_tokens_per_day, 1)), prec));
    for (auto [row, plan] :
         {std::pair{prefill_pool, &dis.prefill}, std::pair{decode_pool, &dis.decode},
          std::pair{shared_pool, &dis.shared}})
      grid_->set(row, {.value = poolText(*plan),
                       .note = qs(plan->reason),
                       .tone = plan->slice ? Tone::normal : Tone::fail,
                       .number = static_cast<double>(plan->chips)});
    grid_->set(winner, {.value = qs(to_string(dis.winner)), .note = qs(dis.verdict)});
  } else {
    grid_->setSectionTitle(pools, tr("Disaggregation (needs a TTFT and a TPOT bound)"));
    for (ReadoutGrid::Row r : {prefill_pool, decode_pool, shared_pool})
      grid_->set(r, {.value = tr("not sized")});
    grid_->set(winner, {.value = tr("set TTFT and TPOT bounds")});
  }
}

// The cost of a token at the chosen layout.
void ServingReadouts::showCost(const ServingPanelView& v) {
  const ServingView& sv = v.view;
  const ServingResult& c = sv.chosen;
  const Scenario& s = v.scenario;
  const QString prec = qs(sv.precision);
  const QString wp = dtypeText(s.serving.weight_dtype), kp = dtypeText(s.serving.kv_dtype);
  const ServingMemory& m = c.memory;
  grid_->setSectionTitle(cost, m.fits ? tr("Cost of a token at the chosen layout (%1)").arg(prec)
                                      : tr("Cost of a token: not priced, the chosen layout does "
                                           "not fit (%1)")
                                            .arg(prec));
  served(m, dollars,
         {.value = qs(format_dollars(c.cost.dollars_per_million_tokens, 3)),
          .note = tr("%1 weights, %2 KV cache").arg(wp, kp),
          .number = c.cost.dollars_per_million_tokens});
  served(m, joules,
         {.value = qs(format_grouped(c.cost.joules_per_token, 3)),
          .unit = tr("J"),
          .note = tr("%1 weights, %2 KV cache").arg(wp, kp),
          .number = c.cost.joules_per_token});
  served(m, energy_share,
         {.value = qs(format_percent(c.cost.energy_share_of_bill)),
          .note = qs(sv.energy_share),
          .number = c.cost.energy_share_of_bill});
}

void ServingReadouts::showNotes(const ServingPanelView& v, std::optional<std::int64_t> napkin) {
  const SearchAnswer& a = v.view.search;
  const Scenario& s = v.scenario;
  QStringList lines;
  const QString tried =
      tr("no split of up to %1 meets %2")
          .arg(chipsText(s.roofline.serving_layout.search_max_chips), qs(a.budget.describe()));
  if (!a.best)
    lines << tr("Smallest slice and most efficient: none. %1").arg(because(a.reason, tried));
  if (v.view.disaggregation) {
    const Disaggregation& d = *v.view.disaggregation;
    for (auto [name, plan] :
         {std::pair{tr("Prefill pool"), &d.prefill}, std::pair{tr("Decode pool"), &d.decode},
          std::pair{tr("Shared pool"), &d.shared}})
      if (!plan->slice)
        lines << tr("%1: none. %2").arg(name, because(plan->reason, tr("no slice meets it")));
  }
  // Two answers to "how many chips": the napkin's and the search's differ by design.
  const std::optional<std::int64_t> searched =
      a.best ? std::optional<std::int64_t>(a.best->chips) : std::nullopt;
  if (napkin != searched && (napkin || searched))
    lines
        << tr("Why the Roofline tab says %1 and the search %2 for %3: \"For budget\" there is the "
              "latency napkin, one request's turn with the work spread evenly over the slice "
              "(prefill at the prefill MFU, decode at the HBM bandwidth), no communication and "
              "nothing required to fit on a chip. The search tries real TP \u00d7 PP \u00d7 EP "
              "splits: TP dividing the attention heads, the weights and KV cache of "
              "the fullest stage within each chip's usable HBM, the all-reduces, all-to-alls and "
              "pipeline hops timed.")
               .arg(napkin ? chipsText(*napkin) : tr("none"),
                    searched ? chipsText(*searched) : tr("none"), qs(a.budget.describe()));
  notes_->setText(lines.join(QLatin1Char('\n')));
  notes_->setVisible(!lines.isEmpty());
}

void ServingReadouts::setBaseline(const ServingPanelView* b) {
  if (!b || !b->valid()) {
    grid_->clearBaselines();
    return;
  }
  const ServingResult& c = b->view.chosen;
  grid_->setBaseline(weights, c.memory.weights_bytes);
  grid_->setBaseline(kv, c.memory.kv_bytes);
  grid_->setBaseline(total, c.memory.total_bytes);
  grid_->setBaseline(prefill, c.prefill_seconds);
  grid_->setBaseline(step, c.decode_step_seconds);
  grid_->setBaseline(comm, c.comm_seconds_per_step);
  // A baseline layout that does not fit has no latencies or prices to compare.
  auto served = [&c](double v) { return c.memory.fits ? num(v) : std::nullopt; };
  grid_->setBaseline(ttft, served(c.ttft_seconds));
  grid_->setBaseline(tpot, served(c.tpot_seconds));
  grid_->setBaseline(turn, served(c.turn_seconds));
  grid_->setBaseline(throughput, served(c.tokens_per_second_per_chip));
  if (b->run.valid()) {
    const ModeResult& m = b->run.result;
    grid_->setBaseline(run_throughput, m.output_tokens_per_second_per_chip);
    grid_->setBaseline(run_ttft, m.ttft_seconds.p50);
    grid_->setBaseline(run_tpot, m.tpot_seconds.p50);
    grid_->setBaseline(run_in_flight, static_cast<double>(m.concurrency));
  }
  const SearchAnswer& a = b->view.search;
  grid_->setBaseline(best, a.best ? num(static_cast<double>(a.best->chips)) : std::nullopt);
  grid_->setBaseline(efficient, a.most_efficient
                                    ? num(a.most_efficient->result.tokens_per_second_per_chip)
                                    : std::nullopt);
  if (b->view.disaggregation) {
    const Disaggregation& d = *b->view.disaggregation;
    grid_->setBaseline(prefill_pool, static_cast<double>(d.prefill.chips));
    grid_->setBaseline(decode_pool, static_cast<double>(d.decode.chips));
    grid_->setBaseline(shared_pool, static_cast<double>(d.shared.chips));
  }
  grid_->setBaseline(dollars, served(c.cost.dollars_per_million_tokens));
  grid_->setBaseline(joules, served(c.cost.joules_per_token));
  grid_->setBaseline(energy_share, served(c.cost.energy_share_of_bill));
}

QString ServingReadouts::text(const QString& key) const {
  const auto it = rows_.find(key);
  return it == rows_.end() ? QString() : grid_->text(*it);
}

}  // namespace napkin
