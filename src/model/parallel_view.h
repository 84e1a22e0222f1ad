// The Parallelism panel's arithmetic on the shared scenario: the training job
// it describes, the layouts the search finds under the panel's locks, the
// layout the scenario runs, and the MFU the Budget planner uses. The panel,
// the Budget planner, the CLI and the report call these, so they agree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "parallel.h"
#include "scenario.h"

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
// when no layout is chosen and none fits.
std::optional<LayoutResult> scenario_layout(const Scenario& s, const SearchResult& search);
std::optional<LayoutResult> scenario_layout(const Scenario& s);

// The MFU the Budget planner computes with, and where it came from.
struct MfuChoice {
  double mfu = 0;
  MfuSource source = MfuSource::assumed;  // predicted only when a layout gave it
  std::string layout;                     // to_string(layout) of the layout evaluated, if any
  std::string note;  // why the assumed value is used although predicted was asked ("" otherwise)
  // The layout's memory, when predicted was asked and a layout was evaluated:
  // the Budget planner's memory check uses it.
  bool has_layout = false;
  bool layout_fits = false;
  std::int64_t peak_stage_bytes = 0;
  std::int64_t hbm_bytes = 0;
  std::string layout_reason;  // why it does not fit or cannot run ("" when it fits)
};
// s.mfu when mfu_source is assumed; the predicted MFU of scenario_layout(s)
// when it is predicted and the layout is valid and fits; otherwise s.mfu with
// a note naming why.
MfuChoice budget_mfu(const Scenario& s, const SearchResult& search);
MfuChoice budget_mfu(const Scenario& s);

// Everything the Parallelism panel and the report show for one scenario,
// given a search (which may be of slightly older inputs while a new search
// runs: the layout it names is re-evaluated here for the current job).
struct ParallelView {
  bool ok = false;    // the job is valid (else `error` says why)
  std::string error;  // training_job()'s complaint
  TrainingJob job;
  // The layout the scenario runs, evaluated on `job`; nullopt when none is
  // chosen and none of `search` fits.
  std::optional<LayoutResult> layout;
  bool chosen = false;              // picked by the user (else the fastest that fits)
  std::vector<StageMemory> stages;  // memory_by_stage(job, layout) when valid
  PipelineSchedule schedule;        // the first few micro-batches when valid
  std::int64_t hbm_bytes = 0;       // the chip's HBM
  MfuChoice budget;                 // the MFU the Budget planner uses
  std::vector<MfuCell> mfu_grid;    // mfu_by_tp_pp(search)
};

// Micro-batches the schedule chart shows: at least this many and at least
// one per stage (up to 32), enough to see fill, steady state and drain.
inline constexpr std::int64_t kScheduleMicroBatches = 8;

ParallelView make_parallel_view(const Scenario& s, const SearchResult& search,
                                std::int64_t schedule_micro_batches = kScheduleMicroBatches);

// Which parts of a step a waterfall shows, in order, with their seconds.
struct StepPart {
  std::string name;  // "compute", "recompute", "TP comm", ...
  double seconds = 0;
};
std::vector<StepPart> step_parts(const StepTime& t);

}  // namespace napkin
