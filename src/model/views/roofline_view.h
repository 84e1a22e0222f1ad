// What the Roofline panel, its report section and the CLI show for one
// scenario (seed Phase 03): every plot's data from one call, so a slider
// change recomputes once and nothing is computed in the panel.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "plan.h"
#include "roofline.h"
#include "scenario.h"
#include "serving_modes.h"
#include "serving_search.h"
#include "track_record.h"

namespace napkin {

// Everything the Roofline panel plots, from one scenario: what one slider
// change recomputes.
struct RooflineScenario {
  std::string chip = "TPU v5e";
  std::vector<std::string> overlay_chips;  // other rooflines to draw
  ModelShape shape;
  OperationSetting operations;
  MfuBudgetInputs mfu;
  double recompute = recompute_factor(Checkpointing::full);
  // Chip, N (active; total resident), prompt tokens, batch, bytes per
  // parameter and the KV cache per request (at operations.context_tokens) are
  // taken from the fields above; the rest (decode tokens, budget, overhead, …)
  // from here.
  TurnInputs turn;
  std::vector<double> model_sizes;  // empty: 1B … 1T, log-spaced
  std::int64_t max_chips_plotted = 1024;
  std::int64_t max_batch = 1024;
  std::int64_t tile = 128;
  std::int64_t tile_dim_lo = 64;
  std::int64_t tile_dim_hi = 1024;
  KvServing kv;  // its chip is `chip`; layers, heads, head dim and N are taken from shape
  DepthWidthInputs depth_width;
  std::vector<std::int64_t> depth_options = {16, 24, 32, 48, 64, 80, 96, 128};
};

struct RooflinePanelData {
  double active_params = 0;  // the scenario model's active parameters (count_params)
  double ridge_flops_per_byte = 0;
  std::vector<RooflineCurvePoint> roofline;
  std::vector<std::vector<RooflineCurvePoint>> overlays;
  std::vector<PlacedOperation> operations;
  std::vector<DecodeIntensityPoint> decode_wall;
  // The decode step at the scenario's own batch (the wall is sampled at
  // powers of two): its intensity against the ridge and the KV cache's share
  // of the bytes it reads.
  DecodeIntensityPoint decode_at_batch;
  MfuBudget mfu_budget;
  MfuBudget mfu_without_lever;  // the step with its biggest lever removed
  std::vector<MfuAgendaItem> mfu_agenda;
  double hfu_over_mfu = 0;  // the recompute factor, as read out
  double hfu = 0;           // MFU × recompute; above 1 the inputs are inconsistent
  TurnLatency turn;
  std::vector<TurnLatency> latency;
  // The latency verdict: chips for the budget (or why none), to hold the
  // weights, and to deploy. A budget at or below the overhead is a verdict
  // (LatencyVerdict::below_overhead), not an error.
  ServingNeed serving;
  std::optional<std::int64_t> chips_for_budget;  // = serving.chips_for_budget
  std::int64_t chips_to_hold_weights = 0;        // = serving.chips_to_hold_weights
  double resident_weight_bytes = 0;              // total parameters × bytes per parameter
  std::vector<ModelSizePoint> model_sizes;
  ServableSizes largest_servable;
  std::vector<TilePoint> tiles;
  std::vector<GqaPoint> kv_heads;
  std::vector<DepthWidthPoint> depth_width;
};

// Throws std::invalid_argument like the functions it calls; a latency budget
// at or below the overhead is not an error but serving.verdict.
RooflinePanelData roofline_panel(const RooflineScenario& scenario);

// What the Roofline panel computes from: the scenario's chip, chips, model and
// serving turn plus its RooflineSettings (overlays equal to the chip dropped;
// the KV-heads lever on one 8-chip serving node).
RooflineScenario roofline_scenario(const Scenario& s);

// What the "Serving layout" view computes from (issue 15, item 7): the
// scenario's model as served (serving_model of its shape), its chip, the
// serving chips split as the RooflineSettings' chosen TP × PP × EP (or, when
// that split is unset or no longer valid for the chips and the model, the
// fastest split, fastest_layout), the turn's prompt and decode tokens, the
// batch, both precisions, the overhead, the cost inputs and the budget:
// the turn budget plus the TTFT and TPOT bounds that are > 0. The tokens a
// request already holds before the turn are context_len − prompt_tokens (0
// when the prompt is the whole context).
struct ScenarioServing {
  ServingModel model;
  ServingViewInputs inputs;
  bool fastest_split = true;  // the layout is the fastest split, not one chosen
  // The serving run's scheduler (RooflineSettings): unset, the engine's.
  std::optional<std::int64_t> max_tokens_per_step;
  std::optional<bool> chunked_prefill;
  // The requests' lengths, uniform within these either side of the turn's
  // (the benchmark run's spreads; the frontier's runs use them too).
  std::int64_t prompt_spread = 0;
  std::int64_t output_spread = 0;
  // The benchmark run (ServingLayoutSettings::run_*) on the layout above,
  // with that scheduler and those lengths (a static batch's all the turn's).
  ModeInputs run;
};
// Throws std::invalid_argument when the serving chips cannot be split at all.
ScenarioServing scenario_serving(const Scenario& s);
// The chip-hour price the Serving layout tab prices its tokens at: the
// serving price (the Budget planner's, which its lifetime dollars use) when
// the scenario's chip is the serving chip (serving.chip empty or the same),
// else that chip's own price in the scenario, the training price.
double serving_price_per_chip_hour_dollars(const Scenario& s);
// The P99 TTFT the frontier's request rate is sized for: the Serving layout's
// TTFT bound, else the turn budget.
double frontier_ttft_target_seconds(const Scenario& s);
// Whether two scenarios give the same serving view: the same served model,
// chip, serving set-up, cost inputs and roofline.serving_layout (the panel
// reruns its search only when this is false).
bool same_serving_inputs(const Scenario& a, const Scenario& b);

// make_serving_view(), except that a budget the search refuses (a turn or
// TTFT bound at or below the overhead) still gives the chosen layout's
// memory and times, with the refusal as search.reason and no search answer.
ServingView scenario_serving_view(const ScenarioServing& in);

// The interactive turn of a model of `n_params` under the scenario's chip and
// serving targets (prompt, generated tokens, batch, precision, overhead,
// budget): the report's servability of the Chinchilla answer and of the
// smaller model. The KV cache is left out, as in the seed's napkin.
TurnInputs scenario_turn(const Scenario& scenario, double n_params);
// serving_need(scenario_turn(scenario, n_params)).
ServingNeed servability(const Scenario& scenario, double n_params);

// The latency-throughput frontier of the chosen layout (serving_modes.h):
// offline runs as the concurrency doubles, and the highest Poisson request
// rate whose P99 TTFT stays within the target.
struct ServingFrontierView {
  std::vector<FrontierPoint> points;
  double ttft_p99_target_seconds = 0;  // the TTFT budget, else the turn budget
  double max_request_rate_per_second = 0;
  double output_tokens_per_request = 0;  // the mean output length
  std::string error;                     // why there is no frontier (the layout does not fit)
};
// Never throws. Bounded for the panel: 8-64 requests per run (fewer for long
// outputs), no frontier beyond 4,096 output tokens (`error` says so).
ServingFrontierView serving_frontier_view(const ScenarioServing& in, double ttft_p99_seconds);

// What published serving runs like a benchmark run measured where Napkin
// predicted (track_record.h), as far as they measured what the run's mode
// measures: the throughput of a static or offline run (a server run's is its
// request rate's), the first token of a static run (an offline or server
// run's waits in a queue the published first tokens did not have).
struct ServingRunRecords {
  TrackRecord throughput;
  TrackRecord first_token;
};
ServingRunRecords serving_run_records(const ServingModel& model, const ModeInputs& run);

// The benchmark run of the chosen layout (serving_modes.h): what
// napkin-cli serve --mode prints for the same inputs.
struct ServingRunView {
  ModeResult result;
  // How far published serving runs like it landed from Napkin's throughput
  // and first token (serving_run_records); empty for the ideal engine.
  TrackRecord track_record;
  TrackRecord first_token;
  std::string error;  // why there is no run (the batch does not fit, too long to simulate)
  bool valid() const { return error.empty(); }
};
// Never throws.
ServingRunView serving_run_view(const ScenarioServing& in);

// The "Serving layout" view (serving_search.h), computed off the UI thread.
struct ServingPanelView {
  Scenario scenario;
  ScenarioServing inputs;
  ServingView view;
  ServingFrontierView frontier;
  ServingRunView run;
  std::string error;  // the serving chips cannot be split, or the inputs were refused
  bool valid() const { return error.empty(); }
};
// scenario_serving_view(scenario_serving(s)); never throws.
ServingPanelView make_serving_panel_view(const Scenario& s);

// What arrives from off the UI thread: the serving-layout search
// (make_serving_panel_view), possibly of slightly older inputs while a newer
// one runs. Shared, not copied: a slider tick rebuilds the view around it.
using RooflineSlow = std::shared_ptr<const ServingPanelView>;

// Everything the Roofline panel shows for a scenario: the roofline, MFU,
// latency and co-design plots (roofline_panel) and the serving layout. On a
// refusal, `error` says why.
struct RooflineView {
  Scenario scenario;
  RooflineScenario inputs;
  RooflinePanelData data;
  std::string error;  // the inputs were refused (data is the last valid one)
  bool valid() const { return error.empty(); }
  // The training plan as it runs (resolve_plan): its MFU and C, shown beside
  // the MFU budget, which is the seed's step agenda, not the plan's MFU.
  std::optional<ResolvedPlan> plan;
  // The serving layout: nullptr until the first search arrives.
  RooflineSlow serving;
  bool budgetBelowOverhead() const {
    return data.serving.verdict == LatencyVerdict::below_overhead;
  }
};
// `serving` nullptr: no serving search has arrived yet.
RooflineView make_roofline_view(const Scenario& s, RooflineSlow serving = nullptr);

}  // namespace napkin
