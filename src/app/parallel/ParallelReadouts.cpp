#include "parallel/ParallelReadouts.h"

#include "ReadoutFormats.h"
#include "Text.h"

#include <QCoreApplication>

#include "PlotWidget.h"
#include "format.h"
#include "parallel_view.h"

namespace napkin {

namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("napkin::ParallelReadouts", text);
}

const LayoutResult* runnable(const ParallelView& v) {
  return v.layout && v.layout->valid ? &*v.layout : nullptr;
}

}  // namespace

ParallelReadouts::ParallelReadouts(ReadoutGrid* grid) : grid_(grid) {
  layout_section = grid->addSection(tr("Layout"));
  layout = grid->add({.key = QStringLiteral("parallelLayout"),
                      .name = tr("Layout"),
                      .tooltip = tr("The chosen row of the table, or the fastest layout that fits"),
                      .widest = QStringLiteral("TP 8 · PP 10×4 · DP 12 · CP 2")});
  fits = grid->add({.key = QStringLiteral("parallelFits"),
                    .name = tr("Fits"),
                    .tooltip = tr("The peak pipeline stage's rank fits in HBM, or why not"),
                    .widest = QStringLiteral("no: over HBM by 99.9 GB")});
  batch = grid->add({.key = QStringLiteral("parallelBatch"),
                     .name = tr("Global batch"),
                     .tooltip = tr("The batch the search runs: whole sequences, a multiple of the "
                                   "chips' odd part so that it splits over the data-parallel "
                                   "replicas; marked when it differs from the batch asked for"),
                     .widest = QStringLiteral("25,600,000 tokens (3,125 × 8,192)")});
  setup = grid->addSection(tr("Cluster and software"));
  cluster = grid->add({.key = QStringLiteral("parallelClusterText"),
                       .name = tr("Cluster"),
                       .tooltip = tr("GPUs per node and the scale-up / scale-out bandwidth per "
                                     "GPU and direction the step is priced on"),
                       .widest = QStringLiteral("dgx-a100: 8 GPUs per node, 300 / 25 GB/s")});
  software = grid->add({.key = QStringLiteral("parallelSoftwareText"),
                        .name = tr("Software"),
                        .tooltip = tr("The training framework preset and what it does"),
                        .widest = QStringLiteral("megatron-deepspeed")});
  speed = grid->addSection(tr("Speed"));
  step = grid->add({.key = QStringLiteral("parallelStep"),
                    .name = tr("Step"),
                    .tooltip = tr("Seconds per optimizer step: compute, recompute, exposed "
                                  "communication, the pipeline bubble and the optimizer"),
                    .better = Better::lower,
                    .format = shows::seconds()});
  tokens = grid->add({.key = QStringLiteral("parallelTokens"),
                      .name = tr("Tokens/s per chip"),
                      .tooltip = tr("global batch tokens ÷ step seconds ÷ chips"),
                      .better = Better::higher,
                      .format = shows::grouped(0)});
  mfu = grid->add({.key = QStringLiteral("parallelMfu"),
                   .name = tr("MFU"),
                   .tooltip = tr("Model FLOPs per step (no recompute) ÷ (step × chips × bf16 "
                                 "peak). Beside it, on the published constants: the MFU measured "
                                 "on published runs of the same family of frameworks on the same "
                                 "generation of chips, 10th to 90th percentile around Napkin's "
                                 "prediction for them (napkin-cli validate)"),
                   .better = Better::higher,
                   .format = shows::points(),
                   .widest = QStringLiteral("47.7 % (runs like it: 43.6 % – 52.1 %)")});
  hfu = grid->add({.key = QStringLiteral("parallelHfu"),
                   .name = tr("HFU"),
                   .tooltip = tr("Model + recompute FLOPs ÷ (step × chips × bf16 peak)"),
                   .better = Better::higher,  // coloured like MFU for the same change
                   .format = shows::points()});
  days = grid->add({.key = QStringLiteral("parallelDays"),
                    .name = tr("Days"),
                    .tooltip = tr("The scenario's training tokens at this step time"),
                    .better = Better::lower,
                    .format = shows::grouped(1)});
  kernels_section = grid->addSection(tr("Compute by kernel"));
  auto kernel = [grid](const char* key, const QString& name, const QString& tip) {
    return grid->add({.key = QString::fromLatin1(key),
                      .name = name,
                      .tooltip = tip,
                      .better = Better::lower,
                      .format = shows::seconds(),
                      .widest = QStringLiteral("99.9 ms (99.9 %)")});
  };
  gemm = kernel("parallelGemm", tr("GEMMs"),
                tr("Matrix multiplications per step (forward, backward, recomputed), at the "
                   "chip's GEMM efficiency with tile and wave quantization"));
  attention = kernel("parallelAttention", tr("Attention"),
                     tr("The attention core: one fused kernel, or QKᵀ, softmax, dropout and A·V "
                        "unfused"));
  elementwise = kernel("parallelElementwise", tr("Element-wise"),
                       tr("Norms, residual junctions, activations, bias and loss kernels, at the "
                          "HBM bandwidth they sustain"));
  host_wait = kernel("parallelHostWait", tr("Host wait"),
                     tr("Time the GPU waits for an eager framework to dispatch the next kernel: "
                        "short kernels (small layers, thin TP slices) are host-bound"));
  memory_section = grid->addSection(tr("Memory and budget"));
  memory = grid->add({.key = QStringLiteral("parallelMemory"),
                      .name = tr("Peak stage"),
                      .tooltip = tr("Bytes on one rank of the pipeline stage that holds the "
                                    "most, against the chip's HBM"),
                      .better = Better::lower,
                      .format = [](double v) { return fmtBytes(v); },
                      .widest = QStringLiteral("179.9 GB of 183.4 GB (stage 15)")});
  budget_mfu = grid->add({.key = QStringLiteral("parallelBudgetMfu"),
                          .name = tr("Budget MFU"),
                          .tooltip = tr("The MFU the Budget planner computes with, and where it "
                                        "comes from"),
                          .format = shows::points(),
                          .widest = QStringLiteral("40.0 % (assumed)")});
}

void ParallelReadouts::show(const ParallelView& v) {
  showLayout(v);
  showSetup(v);
  showSpeed(v, runnable(v));
  const MfuChoice& b = v.budget;
  grid_->set(budget_mfu, {.value = tr("%1 (%2)").arg(
                              qs(format_percent(b.mfu)),
                              b.source == MfuSource::predicted ? tr("predicted") : tr("assumed")),
                          .note = qs(b.note.empty() ? b.layout : b.note),
                          .tone = b.note.empty() ? Tone::normal : Tone::warn,
                          .number = b.mfu});
}

// The layout in use, the batch it runs and whether it fits.
void ParallelReadouts::showLayout(const ParallelView& v) {
  grid_->setSectionTitle(layout_section,
                         (v.chosen            ? tr("Chosen layout: %1")
                          : v.dropped.empty() ? tr("Fastest layout that fits: %1")
                                              : tr("Fastest layout that fits: %1 (the chosen "
                                                   "row cannot run here)"))
                             .arg(qs(v.subject)));
  if (v.valid()) {
    const ResolvedPlan& p = v.plan;
    const QString as_run =
        tr("%1 tokens (%2 × %3)")
            .arg(qs(format_grouped(p.batch_tokens)), qs(format_grouped(p.batch_sequences)),
                 qs(format_grouped(v.job.seq_len)));
    grid_->set(batch, {.value = as_run,
                       .note = p.batch_adjusted
                                   ? tr("asked %1 tokens: the nearest batch of whole sequences "
                                        "that %2 chips split evenly")
                                         .arg(qs(format_grouped(p.requested_batch_tokens)),
                                              qs(format_grouped(v.job.n_chips)))
                                   : QString(),
                       .tone = p.batch_adjusted ? Tone::warn : Tone::normal,
                       .number = static_cast<double>(p.batch_tokens)});
  } else {
    grid_->set(batch, {.value = QStringLiteral("—")});
  }
  if (!v.valid()) {
    grid_->set(layout, {.value = tr("none"), .note = qs(v.error), .tone = Tone::fail});
  } else if (!v.layout && !v.none_reason.empty()) {
    grid_->set(layout, {.value = tr("none valid"), .note = qs(v.none_reason), .tone = Tone::fail});
  } else if (!v.layout) {
    grid_->set(layout, {.value = tr("none fits"), .tone = Tone::fail});
  } else {
    grid_->set(layout, {.value = qs(layout_axes_text(v.layout->layout)),
                        .note = v.dropped.empty() ? breakableLayout(to_string(v.layout->layout))
                                                  : breakableLayout(to_string(v.layout->layout)) +
                                                        qs("; " + v.dropped),
                        .tone = v.dropped.empty() ? Tone::normal : Tone::warn});
  }
  if (!v.layout) {
    grid_->set(fits, {.value = tr("no"), .note = qs(v.none_reason), .tone = Tone::fail});
  } else if (!v.layout->valid) {
    grid_->set(fits, {.value = tr("cannot run"), .note = qs(v.layout->reason), .tone = Tone::fail});
  } else if (!v.layout->fits) {
    grid_->set(
        fits,
        {.value =
             tr("no: over HBM by %1").arg(fmtBytes(static_cast<double>(v.layout->over_hbm_bytes))),
         .note = qs(v.layout->reason),
         .tone = Tone::fail});
  } else {
    grid_->set(fits, {.value = tr("yes"), .tone = Tone::ok});
  }
}

// The cluster and the software the layout is timed on.
void ParallelReadouts::showSetup(const ParallelView& v) {
  // A cluster profile in use: the value says so, the note says on how many
  // runs; fitted under other software than the plan's, it says that in amber.
  const bool other_software = !v.calibration_warning.empty();
  grid_->set(cluster, {.value = qs(v.cluster.substr(0, v.cluster.find(':')) +
                                   (other_software ? " (calibrated under other software)"
                                    : v.calibrated ? " (calibrated)"
                                                   : "")),
                       .note = qs(v.cluster),
                       .tone = other_software ? Tone::warn : Tone::normal});
  grid_->set(software,
             {.value = qs(v.software.substr(0, v.software.find(" — "))), .note = qs(v.software)});
}

// A figure of the layout that runs (`r`), or a dash when none does.
void ParallelReadouts::number(const LayoutResult* r, ReadoutGrid::Row row, double value,
                              QString text, QString unit, QString note) {
  if (r)
    grid_->set(row, {.value = std::move(text),
                     .unit = std::move(unit),
                     .note = std::move(note),
                     .number = value});
  else
    grid_->set(row, {.value = QStringLiteral("—")});
}

// The step by kernel class, its time, throughput, MFU, days and peak memory.
void ParallelReadouts::showSpeed(const ParallelView& v, const LayoutResult* r) {
  if (r) {
    const ComputeMix& k = r->time.kernels;
    for (auto [row, seconds] :
         {std::pair{gemm, k.gemm_seconds}, std::pair{attention, k.attention_seconds},
          std::pair{elementwise, k.elementwise_seconds}, std::pair{host_wait, k.host_wait_seconds}})
      // A kernel class that takes no time (no host wait behind a framework
      // that dispatches ahead of the GPU) reads "none", not "0 ns (0 %)".
      number(r, row, seconds,
             seconds > 0 ? tr("%1 (%2)").arg(qs(format_seconds(seconds)),
                                             qs(format_percent(seconds / r->step_seconds)))
                         : tr("none"),
             QString());
  } else {
    for (ReadoutGrid::Row row : {gemm, attention, elementwise, host_wait})
      number(r, row, 0, {}, {});
  }
  if (r) {
    number(r, step, r->step_seconds, qs(format_seconds(r->step_seconds)), QString(),
           tr("%1 sequences of %2 tokens per step, %3 micro-batches per pipeline")
               .arg(v.job.global_batch)
               .arg(v.job.seq_len)
               .arg(r->micro_batches));
    number(r, tokens, r->tokens_per_second_per_chip,
           qs(format_grouped(r->tokens_per_second_per_chip, 0)), tr("tokens/s"));
    // On the published constants, the band published runs like it measured.
    const TrackRecord& t = v.track_record;
    number(r, mfu, r->mfu,
           t.empty()
               ? qs(format_percent(r->mfu))
               : tr("%1 (runs like it: %2 – %3)")
                     .arg(qs(format_percent(r->mfu)), qs(format_percent(t.measured_low(r->mfu))),
                          qs(format_percent(t.measured_high(r->mfu)))),
           QString(), t.empty() ? QString() : qs(t.text(r->mfu)));
    number(r, hfu, r->hfu, qs(format_percent(r->hfu)), QString());
    number(r, days, r->days, qs(format_grouped(r->days, 1)), tr("days"),
           tr("%1 tokens of the scenario's model; the Budget planner's run may be another "
              "model (its read-outs say which)")
               .arg(qs(format_count(v.plan.run_tokens, 2))));
    const double peak = static_cast<double>(r->memory.total_bytes);
    grid_->set(memory, {.value = tr("%1 of %2 (stage %3)")
                                     .arg(qs(format_bytes(peak, 1)),
                                          qs(format_bytes(static_cast<double>(r->hbm_bytes), 1)))
                                     .arg(r->memory.stage),
                        .tone = r->fits ? Tone::normal : Tone::fail,
                        .number = peak});
  } else {
    for (ReadoutGrid::Row row : {step, tokens, mfu, hfu, days, memory}) number(r, row, 0, {}, {});
  }
}

void ParallelReadouts::setBaseline(const ParallelView* b) {
  if (!b) {
    grid_->clearBaselines();
    return;
  }
  const LayoutResult* r = runnable(*b);
  auto opt = [r](double v) { return r ? std::optional<double>(v) : std::nullopt; };
  grid_->setBaseline(step, opt(r ? r->step_seconds : 0));
  grid_->setBaseline(tokens, opt(r ? r->tokens_per_second_per_chip : 0));
  grid_->setBaseline(mfu, opt(r ? r->mfu : 0));
  grid_->setBaseline(hfu, opt(r ? r->hfu : 0));
  grid_->setBaseline(days, opt(r ? r->days : 0));
  grid_->setBaseline(memory, opt(r ? static_cast<double>(r->memory.total_bytes) : 0));
  grid_->setBaseline(budget_mfu, b->budget.mfu);
}

std::vector<ReportTable> ParallelReadouts::tables() const { return grid_->reportTables(); }

}  // namespace napkin
