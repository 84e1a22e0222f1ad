#include "parallel_view.h"

#include <algorithm>
#include <stdexcept>

#include "validate.h"

namespace napkin {

std::int64_t step_sequences(const Scenario& s) {
  require_count(s.n_chips, "chips", "chips", 1);
  require_count(s.training.seq_len, "seq_len", "tokens", 1);
  std::int64_t odd = s.n_chips;
  while (odd % 2 == 0) odd /= 2;
  const std::int64_t wanted = s.parallel.global_batch_tokens / s.training.seq_len;
  const std::int64_t multiples = std::max<std::int64_t>(1, (wanted + odd / 2) / odd);
  return checked_mul(multiples, odd, "sequences per step");
}

TrainingJob training_job(const Scenario& s) {
  TrainingJob job;
  job.shape = s.shape;
  job.chip = s.chip;
  job.n_chips = s.n_chips;
  job.seq_len = s.training.seq_len;
  job.global_batch = step_sequences(s);
  job.train_tokens = s.train_inputs().tokens();
  job.optimizer = s.training.optimizer;
  job.software = software_by_name(s.parallel.software);
  job.validate();
  return job;
}

SearchResult scenario_layouts(const Scenario& s) {
  return search_layouts(training_job(s), s.parallel.search_options());
}

std::optional<LayoutResult> scenario_layout(const Scenario& s, const SearchResult& search) {
  if (s.parallel.chosen) return evaluate_layout(training_job(s), *s.parallel.chosen);
  for (const LayoutResult& r : search.layouts)
    if (r.fits) return r;  // layouts come fitting first, fastest first
  return std::nullopt;
}

std::optional<LayoutResult> scenario_layout(const Scenario& s) {
  if (s.parallel.chosen) return evaluate_layout(training_job(s), *s.parallel.chosen);
  return scenario_layout(s, scenario_layouts(s));
}

namespace {

MfuChoice choose(const Scenario& s, const std::optional<LayoutResult>& r) {
  MfuChoice c;
  c.mfu = s.mfu;
  if (s.parallel.mfu_source == MfuSource::assumed) return c;
  if (r) {
    c.has_layout = true;
    c.layout_fits = r->valid && r->fits;
    c.peak_stage_bytes = r->memory.total_bytes;
    c.hbm_bytes = r->hbm_bytes;
    c.layout_reason = r->reason;
    c.layout = to_string(r->layout);
  }
  if (!r) {
    c.note = "no layout fits in HBM; the assumed MFU is used";
  } else if (!r->valid) {
    c.note = "the chosen layout cannot run (" + r->reason + "); the assumed MFU is used";
  } else if (!r->fits) {
    c.note = "the chosen layout does not fit in HBM; the assumed MFU is used";
  } else {
    c.mfu = r->mfu;
    c.source = MfuSource::predicted;
    c.layout = to_string(r->layout);
  }
  return c;
}

}  // namespace

MfuChoice budget_mfu(const Scenario& s, const SearchResult& search) {
  if (s.parallel.mfu_source == MfuSource::assumed) return choose(s, std::nullopt);
  return choose(s, scenario_layout(s, search));
}

MfuChoice budget_mfu(const Scenario& s) {
  if (s.parallel.mfu_source == MfuSource::assumed) return choose(s, std::nullopt);
  return choose(s, scenario_layout(s));
}

ParallelView make_parallel_view(const Scenario& s, const SearchResult& search,
                                std::int64_t schedule_micro_batches) {
  ParallelView v;
  try {
    v.job = training_job(s);
  } catch (const std::invalid_argument& e) {
    v.error = e.what();
    v.budget = choose(s, std::nullopt);
    if (s.parallel.mfu_source == MfuSource::predicted)
      v.budget.note = "the training job is not valid (" + v.error + "); the assumed MFU is used";
    return v;
  }
  v.ok = true;
  v.hbm_bytes = chip_by_name(s.chip).hbm_bytes;
  v.chosen = s.parallel.chosen.has_value();
  std::optional<Layout> layout = s.parallel.chosen;
  if (!layout)
    for (const LayoutResult& r : search.layouts)
      if (r.fits) {  // fitting layouts come first, fastest first
        layout = r.layout;
        break;
      }
  if (layout) v.layout = evaluate_layout(v.job, *layout);
  // A search of older inputs may name a layout that no longer fits: while a
  // new search runs, it is shown for what it is.
  if (v.layout && v.layout->valid) {
    v.stages = memory_by_stage(v.job, v.layout->layout);
    const std::int64_t shown =
        std::max(schedule_micro_batches, std::min<std::int64_t>(v.layout->layout.pp, 32));
    v.schedule = pipeline_schedule(v.job, v.layout->layout, shown);
  }
  v.budget = choose(s, v.layout);
  v.mfu_grid = mfu_by_tp_pp(search);
  return v;
}

std::vector<StepPart> step_parts(const StepTime& t) {
  return {{"compute", t.compute_seconds},    {"recompute", t.recompute_seconds},
          {"TP comm", t.tp_comm_seconds},    {"PP bubble", t.pp_bubble_seconds},
          {"PP comm", t.pp_comm_seconds},    {"DP comm", t.dp_comm_seconds},
          {"EP comm", t.ep_comm_seconds},    {"CP comm", t.cp_comm_seconds},
          {"optimizer", t.optimizer_seconds}};
}

}  // namespace napkin
