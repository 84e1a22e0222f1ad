// The plan as it will run, resolved once from the scenario: the training job
// of the scenario's model on its chips, the layout it runs, the MFU used and
// where it comes from (the slider's assumption, or the predicted MFU of the
// Parallelism panel's layout), the compute C, the global batch as the layout
// runs it, and the tokens and days of the run. Every panel, the report, the
// memo, the Compare dock and `diff` read resolve_plan(); none re-derives it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "parallel.h"
#include "scenario.h"
#include "track_record.h"

namespace napkin {

// Sequences per optimizer step: parallel.global_batch_tokens ÷ seq_len,
// rounded to the nearest multiple of the odd part of the chip count (at
// least one multiple). A batch must split evenly over the data-parallel
// replicas, and DP = chips ÷ (TP·PP·CP) keeps the chips' odd factor when TP,
// PP and CP are powers of two: 1,000 chips (odd part 125) and 4 Mi tokens of
// 8K sequences give 500 sequences, not 512 (which no DP of 1,000 chips
// divides); 1,024 chips keep 512.
std::int64_t step_sequences(const Scenario& s);

// The scenario's model on its chips: sequence length, optimizer and
// checkpointing from `training`, the global batch from step_sequences(s), the tokens
// of the run from train_inputs() (plan.train_tokens, or tokens_per_param × N),
// the software preset by name. Throws std::invalid_argument like
// TrainingJob::validate().
TrainingJob training_job(const Scenario& s);

// search_layouts(training_job(s), s.parallel.search_options()).
SearchResult scenario_layouts(const Scenario& s);

// The layout the scenario runs: the chosen one (evaluated, even when it does
// not fit: `fits` says so) or the fastest fitting one of `search`; nullopt
// when no layout is chosen and none fits. A chosen layout that cannot run on
// the scenario's model and chips (it was clicked for another) is set aside:
// the fastest fitting one runs, and dropped_choice() says why.
std::optional<LayoutResult> scenario_layout(const Scenario& s, const SearchResult& search);
std::optional<LayoutResult> scenario_layout(const Scenario& s);
// The chosen layout evaluated on the scenario's job, when one is chosen and it
// can run there (valid; it may not fit).
std::optional<LayoutResult> runnable_choice(const Scenario& s);
// Why the chosen layout is set aside ("" when none is chosen or it can run).
std::string dropped_choice(const Scenario& s);

// The MFU the Budget planner computes with, and where it came from.
struct MfuChoice {
  double mfu = 0;
  MfuSource source = MfuSource::assumed;  // predicted only when a layout gave it
  std::string layout;                     // to_string(layout) of the layout evaluated, if any
  std::string note;     // why the assumed value is used although predicted was asked ("" otherwise)
  std::string dropped;  // dropped_choice(): a chosen layout set aside ("" otherwise)
  // The layout's memory, when predicted was asked and a layout was evaluated:
  // the Budget planner's memory check uses it.
  bool has_layout = false;
  bool layout_fits = false;
  std::int64_t peak_stage_bytes = 0;
  std::int64_t hbm_bytes = 0;
  std::string layout_reason;  // why it does not fit or cannot run ("" when it fits)
  Layout evaluated;           // the layout behind `layout` (meaningful when has_layout)
  double layout_days = 0;     // the run's days at the layout's step time, when predicted
  // A predicted MFU with a cluster profile in use: the runs it was fitted on.
  std::int64_t calibrated_runs = 0;  // 0: the published constants
  // The profile was fitted under other software than the plan's: the
  // sentence that says so (ParallelSettings::calibration_warning), else "".
  std::string calibration_warning;
  // A predicted MFU on the published constants: how far published runs of
  // the same family of frameworks on the same generation of chips landed
  // from Napkin's prediction (track_record.h); empty otherwise.
  TrackRecord track_record;
  // The MFU's range: with a cluster profile, the layout's MFU at the fit's
  // corners; on the published constants, the band the track record implies
  // (its 10th-90th percentile); equal to `mfu` when there is none.
  double mfu_low = 0;
  double mfu_high = 0;
  // The range as "43.5 % – 52.0 %", for a predicted MFU with one; else "".
  std::string band_text() const;
  // Where the range comes from, for a predicted MFU: "calibrated on N runs
  // (the fit's 90 % corners: …)" or the track record's sentence; "" otherwise.
  std::string range_text() const;
};
// s.mfu when mfu_source is assumed; the predicted MFU of scenario_layout(s)
// when it is predicted and the layout is valid and fits; otherwise s.mfu with
// a note naming why.
MfuChoice budget_mfu(const Scenario& s, const SearchResult& search);
// The choice for one evaluated layout (nullopt: none fits).
MfuChoice mfu_of_layout(const Scenario& s, const std::optional<LayoutResult>& layout);
MfuChoice budget_mfu(const Scenario& s);
// Predicts, once per process, the published training runs a predicted MFU's
// range reads (track_record.h; about 10 ms): the app calls it off the UI
// thread at start, before a panel asks.
void prepare_mfu_ranges();

// Why a value given to a panel's napkin-cli command beside --scenario (an
// input key of scenario_command_inputs, or "hardware.chip") would change
// nothing that command shows for `s`; "" when it does. --mfu while the plan's
// MFU is predicted for its layout (the search runs only then); the Budget
// planner's inputs under isoflops while the IsoFLOPs target is the panel's
// own. The CLI refuses such a flag, the app's copied command does not carry it.
std::string command_input_unused(const Scenario& s, std::string_view command,
                                 std::string_view input_key);
// When the MFU is predicted: `dropped` names a chosen layout set aside, and
// when no layout runs and `search` found none, the note says the prediction
// is unavailable and why (search.none_reason).
void explain_empty_search(MfuChoice& c, const Scenario& s, const SearchResult& search);

// What the parallelism search behind a predicted MFU depends on (the view
// reuses the previous view's choice while these stay the same).
struct MfuSearchKey {
  ModelShape shape;
  std::string chip;
  std::int64_t n_chips = 0;
  TrainingSetup training;
  ParallelSettings parallel;
  double train_tokens = 0;
  double tokens_per_param = 0;
  bool operator==(const MfuSearchKey&) const = default;
};
MfuSearchKey mfu_search_key(const Scenario& s);

// The plan as it will run.
struct ResolvedPlan {
  // The MFU used, its source, the layout behind it and, when the slider's
  // value stands in for a prediction that could not be made, why.
  MfuChoice mfu;
  // C = chips × peak FLOP/s × MFU used × days × 86,400 s.
  double compute_flops = 0;
  // The global batch: as asked (parallel.global_batch_tokens) and as the
  // layout runs it (whole sequences, a multiple of the chips' odd part).
  std::int64_t requested_batch_tokens = 0;
  std::int64_t batch_sequences = 0;
  std::int64_t batch_tokens = 0;
  bool batch_adjusted = false;  // batch_tokens differs from the request
  // The scenario's model on its tokens (plan.train_tokens, or tokens per
  // parameter × N) at the MFU used, on the scenario's chips: what the
  // Parallelism panel times. The Budget planner's "What I would train" may
  // recommend another model; its read-outs say which.
  double run_tokens = 0;
  double run_days = 0;
  // Why the scenario's software cannot train in FP8 ("Megatron-LM 2022 has no
  // FP8 GEMMs", TrainingSoftware::fp8_training): the training-precision
  // controls grey FP8 with it; "" when it can.
  std::string fp8_refusal;
  // "40 % (assumed)", "52.3 % (predicted: tp=8,pp=4,…)", "52.3 % (predicted,
  // calibrated on 10 runs: tp=8,…)".
  std::string mfu_text() const;
  // "assumed", "predicted".
  std::string_view mfu_source_name() const;
  // When the batch was adjusted: "a global batch of 3,072,000 tokens (375
  // sequences), not the 65,536 asked"; "" otherwise.
  std::string batch_text() const;
};

// Throws std::invalid_argument when the scenario's budget inputs are invalid
// (a training job that cannot be formed is a note of `mfu`, not an error).
// The layout search behind a predicted MFU is reused while mfu_search_key(s)
// stays the same (one search per change, whoever asks first).
ResolvedPlan resolve_plan(const Scenario& s);
// With a search of these inputs already made (the Parallelism panel's).
ResolvedPlan resolve_plan(const Scenario& s, const SearchResult& search);
// With the MFU already chosen (a view that evaluated the layout itself).
ResolvedPlan resolve_plan(const Scenario& s, MfuChoice choice);

}  // namespace napkin
