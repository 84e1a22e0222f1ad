// What the MoE router panel, its report section and a pinned baseline show
// (seed Phase 02): one step of the collapse simulation as per-expert loads,
// buffers and the capacity trade-off, judged by the one health rule
// (moe_health.h); and the scenario's parameters, all-to-all bill and
// pipelined prefill. The panel only draws these numbers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "moe.h"
#include "moe_health.h"

namespace napkin {

struct Scenario;

// The capacity-factor range of the trade-off curve (the panel's slider range).
inline constexpr double kMoeTradeoffMinCf = 1.0;
inline constexpr double kMoeTradeoffMaxCf = 4.0;
inline constexpr std::int64_t kMoeTradeoffPoints = 61;

// One step of a run, as the panel shows it.
struct MoeStepView {
  std::int64_t step = 0;  // 1-based; 0 before the first step
  std::int64_t n_experts = 0;
  std::int64_t top_k = 0;
  std::int64_t tokens_per_batch = 0;
  double fair_share_slots = 0;           // T·k/E
  double max_over_mean_ceiling = 0;      // E/k
  std::int64_t capacity_per_expert = 0;  // ⌊cf·T·k/E⌋ slots
  double capacity_share = 0;             // capacity ÷ the fair share: the buffer line on the bars
  // Per expert (E entries; all zero before the first step).
  std::vector<ExpertLoad> loads;
  std::vector<double> kept_slots, padded_slots, dropped_slots;
  double largest_load = 0;   // max relative_load (0 before the first step)
  double largest_slots = 0;  // max(capacity, max routed): the buffer plot's top
  // Judged by moe_health (only when step > 0).
  std::optional<MoeHealth> health;
  // The capacity trade-off of this step's routing: drop rate and wasted
  // (padding) fraction at kMoeTradeoffPoints capacity factors in
  // [kMoeTradeoffMinCf, kMoeTradeoffMaxCf]; empty before the first step.
  std::vector<CapacityPoint> tradeoff;
  double drop_rate_at_cf = 0;         // dropped ÷ routed slots at the run's capacity factor
  double padding_fraction_at_cf = 0;  // 1 − buffer utilization at the run's capacity factor
};

// `step` may be null (before the first step: empty buffers of the full capacity).
// The step is read with the top-k it was routed with (its slots ÷ T), which
// differs from params.top_k when k changed after it.
MoeStepView make_moe_step_view(const StepStats* step, const CollapseParams& params);

// One bar of the pipelined-prefill Gantt chart.
struct MoeGanttBar {
  std::int64_t stage = 0;
  std::int64_t chunk = 0;
  double compute_start_ms = 0, compute_end_ms = 0;
  bool has_hop = false;  // the stage → stage transfer (none after the last stage)
  double hop_start_ms = 0, hop_end_ms = 0;
};

// The scenario-dependent read-outs: parameters, communication, pipeline.
struct MoeScenarioView {
  bool is_moe = false;
  std::int64_t n_experts = 0, top_k = 0;  // of the scenario's model (0 when dense)
  MoeModelParams params;
  std::int64_t comm_top_k = 0;  // the model's k, or the run's k for a dense model
  AllToAllInputs comm_inputs;
  AllToAllCost comm;
  PipelineInputs pipe_inputs;
  PipelineResult pipe;
  std::vector<MoeGanttBar> gantt;
  double gantt_end_ms = 0;  // the last hop's end: the Gantt chart's time span
  // The outline of the pipeline (first chunk's start and last chunk's end per
  // stage, down the stages and back up): what a baseline's ghost draws.
  std::vector<double> outline_ms, outline_stage;
};

MoeScenarioView make_moe_scenario_view(const Scenario& s);

// What arrives from outside the scenario: the collapse run the panel plays,
// its knobs (they may differ from the scenario's while a run continues) and
// the step it shows (nullptr: before the first step).
struct MoeSlow {
  CollapseParams params;
  const StepStats* step = nullptr;
};

// What the MoE panel shows at one moment, in one value: the scenario's
// parameters, all-to-all bill and pipeline, and the run's shown step.
struct MoeView {
  std::string error;  // the scenario's MoE settings or the run's knobs were refused
  bool valid() const { return error.empty(); }
  MoeScenarioView scenario;
  MoeStepView step;
};
// `run` nullptr: the scenario's own run before its first step.
MoeView make_moe_view(const Scenario& s, const MoeSlow* run = nullptr);

// The run of record of a scenario: s.moe.steps steps from step 0 with its
// settings (what the panel opens on, and what a baseline compares against).
struct MoeRunOfRecord {
  CollapseParams params;
  std::vector<StepStats> history;
  MoeStepView last;  // the last step
  MoeScenarioView scenario;
};
// Throws std::invalid_argument for MoE settings the model refuses.
MoeRunOfRecord make_moe_run_of_record(const Scenario& s);

}  // namespace napkin
