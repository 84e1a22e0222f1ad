// The Parallelism panel's arithmetic on the shared scenario: the training job
// it describes, the layouts the search finds under the panel's locks, the
// layout the scenario runs, and the MFU the Budget planner uses. The panel,
// the Budget planner, the CLI and the report call these, so they agree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "parallel.h"
#include "plan.h"
#include "scenario.h"

namespace napkin {

// Everything the Parallelism panel and the report show for one scenario,
// given a search (which may be of slightly older inputs while a new search
// runs: the layout it names is re-evaluated here for the current job).
struct ParallelView {
  std::string error;  // training_job()'s complaint: the job is not valid
  bool valid() const { return error.empty(); }
  TrainingJob job;
  // The layout the scenario runs, evaluated on `job`; nullopt when none is
  // chosen and none of `search` fits.
  std::optional<LayoutResult> layout;
  bool chosen = false;              // picked by the user (else the fastest that fits)
  std::string dropped;              // dropped_choice(): the pick set aside, and why
  std::vector<StageMemory> stages;  // memory_by_stage(job, layout) when valid
  PipelineSchedule schedule;        // the first few micro-batches when valid
  std::int64_t hbm_bytes = 0;       // the device memory a rank fits in (device_memory)
  MfuChoice budget;                 // the MFU the Budget planner uses
  ResolvedPlan plan;                // the plan as it runs (its batch as run and as asked)
  std::string subject;              // "Llama-3-70B on 1,000 × H100"
  std::string cluster;  // cluster_text(): "dgx-a100: 8 GPUs per node, 300 / 25 GB/s ..."
  // The network the plan runs on (the chip's node, the named cluster or the
  // custom numbers): what the cluster rows show, greyed, when not custom.
  std::optional<Network> network;
  // The cluster's first row's label, the chip's fast domain as domain_names
  // calls it: "GPUs per node", or on a TPU "Chips per ICI slice".
  std::string domain_label = "GPUs per node";
  // The cluster choice's unset item, the chip's own system as domain_names
  // calls it: "the chip's node", or on a TPU "the chip's pod".
  std::string default_cluster_label = "the chip's node";
  bool calibrated = false;  // a cluster profile's constants are in use
  // On the published constants: how far published runs like this one landed
  // from Napkin's MFU (track_record.h); empty with a cluster profile.
  TrackRecord track_record;
  // A cluster profile fitted under other software than the plan's: the
  // sentence that says so (ParallelSettings::calibration_warning); "" if none.
  std::string calibration_warning;
  std::string software;           // "megatron-2022 — Megatron-LM 2022 (...)"
  std::vector<MfuCell> mfu_grid;  // mfu_by_tp_pp(search)
  std::string none_reason;        // why the search found no valid layout ("" if it found one)
  // What the software preset's framework runs at all (its ZeRO stages, the
  // interleaved schedule, context and expert parallelism), for the locks,
  // and the sentence that says which ZeRO stages.
  TrainingSoftware preset;
  std::string zero_stages_text;  // "PyTorch FSDP2 (torchtitan) runs ZeRO 0, 2 and 3"
  std::string fp8_refusal;       // fp8_refusal(preset): "" where it trains in FP8
};

// Micro-batches the schedule chart shows: at least this many and at least
// one per stage (up to 32), enough to see fill, steady state and drain.
inline constexpr std::int64_t kScheduleMicroBatches = 8;

// What arrives from off the UI thread: the layout search (search_layouts or
// scenario_layouts), possibly for slightly older inputs.
using ParallelSlow = SearchResult;

// `search` nullptr: none yet (the scenario's chosen layout is still evaluated).
ParallelView make_parallel_view(const Scenario& s, const ParallelSlow* search = nullptr,
                                std::int64_t schedule_micro_batches = kScheduleMicroBatches);

// Which parts of a step a waterfall shows, in order, with their seconds.
struct StepPart {
  std::string name;  // "compute", "recompute", "TP comm", ...
  double seconds = 0;
};
std::vector<StepPart> step_parts(const StepTime& t);

}  // namespace napkin
