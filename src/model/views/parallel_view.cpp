#include "parallel_view.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "format.h"
#include "validate.h"

namespace napkin {

ParallelView make_parallel_view(const Scenario& s, const ParallelSlow* slow,
                                std::int64_t schedule_micro_batches) {
  static const SearchResult none;
  const SearchResult& search = slow ? *slow : none;
  ParallelView v;
  v.subject = s.model_name + " on " + format_grouped(s.n_chips) + " × " + s.chip;
  try {
    const Chip& chip = chip_by_name(s.chip);
    v.cluster = s.parallel.cluster_text(chip);
    v.network = s.parallel.network_in_use(chip);
    const DomainNames names = domain_names(chip);
    v.domain_label = std::string(names.per_domain);
    v.default_cluster_label = "the chip's " + std::string(names.system);
    v.domain_label[0] =
        static_cast<char>(std::toupper(static_cast<unsigned char>(v.domain_label[0])));
    v.calibrated = s.parallel.calibrated.has_value();
    v.calibration_warning = s.parallel.calibration_warning();
  } catch (const std::invalid_argument& e) {
    v.cluster = e.what();
  }
  // The preset, what the scenario changes of it (schedule, expert dispatch,
  // FP8 from the training precision), and the preset's description.
  v.software = s.parallel.software;
  std::string description;
  for (const SoftwarePreset& p : software_presets())
    if (p.name == s.parallel.software) {
      description = " — " + std::string(p.description);
      v.preset = p.software;
      v.fp8_refusal = fp8_refusal(p.software);
      v.zero_stages_text = std::string(p.software.framework) + " runs ZeRO " +
                           offered_zero_stages(p.software, false);
      if (p.software.zero_stages != p.software.zero_stages_with_pp)
        v.zero_stages_text +=
            " (" + offered_zero_stages(p.software, true) + " with pipeline parallelism)";
    }
  try {
    v.job = training_job(s);
    for (const std::string& c :
         software_changes(software_by_name(s.parallel.software), v.job.software))
      v.software += ", " + c;
    v.software += description;
  } catch (const std::invalid_argument& e) {
    v.software += description;
    v.error = e.what();
    v.budget = mfu_of_layout(s, std::nullopt);
    if (s.parallel.mfu_source == MfuSource::predicted)
      v.budget.note = "the training job is not valid (" + v.error + "); the assumed MFU is used";
    return v;
  }
  v.hbm_bytes = device_memory(chip_by_name(s.chip)).bytes;
  v.dropped = dropped_choice(s);
  v.chosen = s.parallel.chosen.has_value() && v.dropped.empty();
  std::optional<Layout> layout;
  if (v.chosen) layout = s.parallel.chosen;
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
  v.budget = mfu_of_layout(s, v.layout);
  // The layout's MFU beside the runs like it (the plan's own record when it
  // computes with that MFU).
  if (!v.job.calibrated)
    v.track_record = v.budget.source == MfuSource::predicted
                         ? v.budget.track_record
                         : training_track_record(s.parallel.software, chip_by_name(s.chip));
  explain_empty_search(v.budget, s, search);
  v.none_reason = search.layouts.empty() ? search.none_reason : std::string();
  v.plan = resolve_plan(s, v.budget);  // the layout evaluated once, above
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
