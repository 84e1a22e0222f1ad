#include "plan.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include "cluster_cost.h"
#include "format.h"
#include "hardware.h"
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
  if (s.parallel.pipe_schedule) job.software.pipe_schedule = *s.parallel.pipe_schedule;
  if (s.parallel.ep_dispatch) job.software.ep_dispatch = *s.parallel.ep_dispatch;
  // Training precision fp8: the software's GEMMs at the chip's FP8 rate with
  // its recipe (the step time, the MFU and the activation memory of the
  // Parallelism model); a software preset that is FP8 already stays so.
  if (s.training.precision == Precision::mixed_fp8) job.software.fp8_matmuls = true;
  job.network = s.parallel.network(chip_by_name(s.chip));
  job.calibrated = s.parallel.calibrated;
  if (s.parallel.non_tensor_gb > 0)
    job.measured_non_tensor_bytes = std::llround(s.parallel.non_tensor_gb * 1e9);
  job.validate();
  return job;
}

SearchResult scenario_layouts(const Scenario& s) {
  return search_layouts(training_job(s), s.parallel.search_options());
}

std::optional<LayoutResult> runnable_choice(const Scenario& s) {
  if (!s.parallel.chosen) return std::nullopt;
  LayoutResult r = evaluate_layout(training_job(s), *s.parallel.chosen);
  if (!r.valid) return std::nullopt;
  return r;
}

std::string dropped_choice(const Scenario& s) {
  if (!s.parallel.chosen) return {};
  const LayoutResult r = evaluate_layout(training_job(s), *s.parallel.chosen);
  if (r.valid) return {};
  return "the layout chosen earlier (" + to_string(*s.parallel.chosen) + ") cannot run on " +
         format_grouped(s.n_chips) + " × " + s.chip + " with this model (" + r.reason +
         "), so it is set aside and the fastest layout that fits is used";
}

std::optional<LayoutResult> scenario_layout(const Scenario& s, const SearchResult& search) {
  if (auto chosen = runnable_choice(s)) return chosen;
  for (const LayoutResult& r : search.layouts)
    if (r.fits) return r;  // layouts come fitting first, fastest first
  return std::nullopt;
}

std::optional<LayoutResult> scenario_layout(const Scenario& s) {
  if (auto chosen = runnable_choice(s)) return chosen;
  return scenario_layout(s, scenario_layouts(s));
}

namespace {

// The MFU's range: on the published constants, the band published runs like
// the plan's imply; with a profile, its runs and the layout's MFU at the slow
// and fast corners of the fit.
void add_range(MfuChoice& c, const Scenario& s, const Layout& layout) {
  c.mfu_low = c.mfu_high = c.mfu;
  if (!s.parallel.calibrated) {
    c.track_record = training_track_record(s.parallel.software, chip_by_name(s.chip));
    if (!c.track_record.empty()) {
      c.mfu_low = std::min(c.mfu, c.track_record.measured_low(c.mfu));
      c.mfu_high = std::max(c.mfu, c.track_record.measured_high(c.mfu));
    }
    return;
  }
  c.calibrated_runs = s.parallel.calibrated->runs;
  c.calibration_warning = s.parallel.calibration_warning();
  const auto& interval = s.parallel.calibrated_interval;
  if (!interval) return;
  TrainingJob job = training_job(s);
  auto mfu_at = [&](const CalibratedConstants& k) {
    job.calibrated = k;
    const LayoutResult r = evaluate_layout(job, layout);
    return r.valid ? r.mfu : c.mfu;
  };
  c.mfu_low = std::min(c.mfu, mfu_at(interval->slow));
  c.mfu_high = std::max(c.mfu, mfu_at(interval->fast));
}

}  // namespace

void prepare_mfu_ranges() { (void)track_record_scopes(); }

std::string MfuChoice::band_text() const {
  if (source != MfuSource::predicted || !(mfu_low < mfu_high)) return {};
  return format_percent(mfu_low, 1) + " – " + format_percent(mfu_high, 1);
}

std::string MfuChoice::range_text() const {
  if (source != MfuSource::predicted) return {};
  if (calibrated_runs == 0) return track_record.text(mfu);
  std::string text = "calibrated on " + std::to_string(calibrated_runs) + " runs";
  if (const std::string band = band_text(); !band.empty())
    text += " (the fit's 90 % corners: " + band + ")";
  return text;
}

MfuChoice mfu_of_layout(const Scenario& s, const std::optional<LayoutResult>& r) {
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
    c.evaluated = r->layout;
  }
  if (!r) {
    c.note = "no layout fits in HBM; the assumed MFU is used";
  } else if (!r->valid) {
    c.note = "the chosen layout cannot run (" + r->reason + "); the assumed MFU is used";
  } else if (!r->fits) {
    c.note = "the chosen layout does not fit in HBM; the assumed MFU is used";
  } else {
    c.mfu = r->mfu;
    c.layout_days = r->days;
    c.source = MfuSource::predicted;
    c.layout = to_string(r->layout);
    add_range(c, s, r->layout);
  }
  return c;
}

void explain_empty_search(MfuChoice& c, const Scenario& s, const SearchResult& search) {
  if (s.parallel.mfu_source != MfuSource::predicted) return;
  c.dropped = dropped_choice(s);
  if (!c.dropped.empty() && !c.note.empty()) c.note = c.dropped + "; " + c.note;
  if (c.has_layout || !search.layouts.empty() || search.none_reason.empty()) return;
  c.note = "the prediction is unavailable: " + search.none_reason + "; the assumed MFU is used";
  if (!c.dropped.empty()) c.note = c.dropped + "; " + c.note;
}

MfuChoice budget_mfu(const Scenario& s, const SearchResult& search) {
  if (s.parallel.mfu_source == MfuSource::assumed) return mfu_of_layout(s, std::nullopt);
  MfuChoice c = mfu_of_layout(s, scenario_layout(s, search));
  explain_empty_search(c, s, search);
  return c;
}

MfuChoice budget_mfu(const Scenario& s) {
  if (s.parallel.mfu_source == MfuSource::assumed) return mfu_of_layout(s, std::nullopt);
  if (runnable_choice(s)) return mfu_of_layout(s, scenario_layout(s));
  return budget_mfu(s, scenario_layouts(s));
}

std::string command_input_unused(const Scenario& s, std::string_view command,
                                 std::string_view input_key) {
  if (command == "isoflops" && !s.isoflops.target_follows_budget)
    return "the IsoFLOPs target is the panel's own (" + format_sci(s.isoflops.manual_target_flops) +
           " FLOPs), not the Budget planner's compute";
  if (input_key == "budget.mfu" && s.parallel.mfu_source == MfuSource::predicted) {
    const MfuChoice c = budget_mfu(s);
    if (c.source == MfuSource::predicted)
      return "the plan's MFU is predicted for its layout (" + format_percent(c.mfu) + ", " +
             c.layout + "), not assumed";
  }
  return {};
}

MfuSearchKey mfu_search_key(const Scenario& s) {
  return MfuSearchKey{
      s.shape, s.chip, s.n_chips, s.training, s.parallel, s.plan.train_tokens, s.tokens_per_param};
}

std::string ResolvedPlan::mfu_text() const {
  std::string text = format_percent(mfu.mfu, 1) + " (" + std::string(mfu_source_name());
  if (mfu.calibrated_runs > 0)
    text += ", calibrated on " + std::to_string(mfu.calibrated_runs) + " runs";
  if (!mfu.calibration_warning.empty()) text += " (" + mfu.calibration_warning + ")";
  if (mfu.source == MfuSource::predicted && !mfu.layout.empty()) text += ": " + mfu.layout;
  return text + ")";
}

std::string_view ResolvedPlan::mfu_source_name() const { return to_string(mfu.source); }

std::string ResolvedPlan::batch_text() const {
  if (!batch_adjusted) return {};
  return "a global batch of " + format_grouped(batch_tokens) + " tokens (" +
         format_grouped(batch_sequences) + " sequences), not the " +
         format_grouped(requested_batch_tokens) + " asked";
}

namespace {

// The last predicted choice and the inputs of its search: a slider tick that
// does not change them (days, prices, serving) costs no search.
struct MfuMemo {
  std::mutex mutex;
  std::optional<MfuSearchKey> key;
  MfuChoice choice;
};

MfuMemo& mfu_memo() {
  static MfuMemo memo;
  return memo;
}

MfuChoice predicted_mfu(const Scenario& s) {
  const MfuSearchKey key = mfu_search_key(s);
  MfuMemo& memo = mfu_memo();
  {
    std::lock_guard lock(memo.mutex);
    if (memo.key == key) return memo.choice;
  }
  MfuChoice c;
  try {
    c = budget_mfu(s);
  } catch (const std::invalid_argument& e) {
    c = MfuChoice{};
    c.note = std::string("no layout could be searched (") + e.what() + "); the assumed MFU is used";
  }
  std::lock_guard lock(memo.mutex);
  memo.key = key;
  memo.choice = c;
  return c;
}

}  // namespace

ResolvedPlan resolve_plan(const Scenario& s) {
  if (s.parallel.mfu_source == MfuSource::assumed) return resolve_plan(s, budget_mfu(s));
  return resolve_plan(s, predicted_mfu(s));
}

ResolvedPlan resolve_plan(const Scenario& s, const SearchResult& search) {
  if (s.parallel.mfu_source == MfuSource::assumed) return resolve_plan(s, budget_mfu(s));
  MfuChoice c;
  try {
    c = budget_mfu(s, search);
  } catch (const std::invalid_argument& e) {
    c.note = std::string("no layout could be searched (") + e.what() + "); the assumed MFU is used";
  }
  return resolve_plan(s, std::move(c));
}

ResolvedPlan resolve_plan(const Scenario& s, MfuChoice choice) {
  if (choice.source == MfuSource::assumed) choice.mfu = s.mfu;  // the fallback follows the slider
  ResolvedPlan p;
  p.mfu = std::move(choice);
  const Chip& chip = chip_by_name(s.chip);
  p.compute_flops = budget_to_flops(chip, s.n_chips, s.days, p.mfu.mfu);
  p.requested_batch_tokens = s.parallel.global_batch_tokens;
  p.batch_sequences = step_sequences(s);
  p.batch_tokens = checked_mul(p.batch_sequences, s.training.seq_len, "tokens per step");
  p.batch_adjusted = p.batch_tokens != p.requested_batch_tokens;
  p.run_tokens = s.train_inputs().tokens();
  for (const SoftwarePreset& sp : software_presets())
    if (sp.name == s.parallel.software) p.fp8_refusal = fp8_refusal(sp.software);
  // At the layout's step time when predicted (the Parallelism panel's
  // "Days"); at 6·N_active·D FLOPs and the assumed MFU otherwise.
  p.run_days =
      p.mfu.source == MfuSource::predicted
          ? p.mfu.layout_days
          : flops_to_days(6.0 * static_cast<double>(count_params(s.shape).active) * p.run_tokens,
                          chip, s.n_chips, p.mfu.mfu);
  return p;
}

}  // namespace napkin
