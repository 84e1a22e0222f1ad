// Everything the Budget Planner panel (and the report) shows for a scenario,
// computed in one place: the budget report, the scenario model's memory,
// KV cache and attention share, and the curves of the five plots.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algebra.h"
#include "budget.h"
#include "data_constrained.h"
#include "goodput.h"
#include "parallel_view.h"
#include "plan.h"
#include "scenario.h"
#include "serving_search.h"
#include "train_plan.h"
#include "uncertainty.h"

namespace napkin {

struct Curve {
  std::vector<double> x;
  std::vector<double> y;
};

// The serving constraint of "What I would train": the largest dense model
// whose whole turn meets the scenario's latency budget on at most its serving
// chips (the serving layout search: TP × PP, KV cache and all-reduces
// counted), at the scenario's weight and KV-cache precisions.
struct BudgetServing {
  bool enabled = false;                  // the scenario's serving limit is on
  std::string precision;                 // "bf16 weights, bf16 KV cache"
  std::optional<double> largest_params;  // nullopt: not even 100M parameters
  // The same search with bf16 weights, when the served weights are narrower.
  std::optional<double> bf16_largest_params;
  bool binds = false;  // it caps what I would train
  std::string text;    // one sentence naming precision, budget, chips
  // What the search depends on (reused while only the budget moves).
  std::string key;
};

// The five inputs that can be given as a range.
enum class RangeInput { mfu, interruptions, restart, price, tokens_available };
inline constexpr std::array<RangeInput, 5> kRangeInputs{RangeInput::mfu, RangeInput::interruptions,
                                                        RangeInput::restart, RangeInput::price,
                                                        RangeInput::tokens_available};
// Its key in plan_input_info() (label, unit, source).
std::string_view range_input_key(RangeInput input);
// The scenario's own value of the input: the range's likely value.
double range_likely(const Scenario& s, RangeInput input);
std::optional<Spread>& range_spread(RangeSetup& r, RangeInput input);
const std::optional<Spread>& range_spread(const RangeSetup& r, RangeInput input);
// The spread a range starts with when it is switched on, around `likely`:
// MFU −25 %/+10 % (at most 95 %), interruptions ½×–3× (Llama 3's rate is one
// cluster's), restart ½×–3×, price −20 %/+30 %, unique tokens ½×–1.5×.
Spread default_spread(RangeInput input, double likely);
// Why a range is refused, as one sentence naming the input and its unit
// ("MFU range refused (%): low 60 % is above high 50 %."): low above high, or
// the likely value (the scenario's own) outside it; "" when it is fine.
std::string spread_problem(RangeInput input, const Spread& spread, double likely);
// The spread stretched to contain `likely` (a value moved past a bound of its
// range carries the bound with it).
Spread widened(const Spread& spread, double likely);

struct BudgetView {
  // Why no plan could be made of valid inputs (the predicted MFU or a fitted
  // law puts the run out of reach); the rest of the view is then incomplete.
  std::string error;
  bool valid() const { return error.empty(); }
  // The scenario as computed: its MFU is the one `mfu` chose (the slider's,
  // or the chosen layout's predicted MFU).
  Scenario scenario;
  // Where the MFU comes from: assumed (the slider) or predicted (the
  // Parallelism panel's layout); every read-out that depends on it says which.
  MfuChoice mfu;
  MfuSearchKey mfu_key;
  ResolvedPlan plan;  // the plan as it will run (resolve_plan): mfu is plan.mfu
  // The peak C is counted against, named for the Compute C read-out: the
  // chip's bf16 dense peak, and with FP8 training that the MFU stays over
  // that peak (the FP8 peak reaches C only through a predicted MFU).
  std::string compute_peak_note;
  // chips × days → C → (N, D) → checks, cost, what to train. Its memo
  // (recommendation) starts with the train-this-model summary in that mode
  // and ends with the ranges' P10/P50/P90 when any input is a range.
  BudgetReport report;
  ParamCount params;  // the scenario's model
  // (a) training memory per device of the scenario's model, ZeRO 0–3 at its dp degree.
  std::array<TrainingMemory, 4> memory_by_zero;
  // Whether each ZeRO stage's per-device memory fits the device (total ≤
  // device memory): the "fits" / "too big" verdict of the memory read-out and
  // bar labels.
  std::array<bool, 4> fits_device_by_zero{};
  std::int64_t activation_bytes = 0;
  // The device's memory as CUDA reports it (device_memory: 81,089 MiB
  // on an H100, not the datasheet's 80 GB), as the Parallelism panel counts
  // it; the sharded check keeps the datasheet figure (Phase 00's rule).
  std::int64_t device_memory_bytes = 0;
  // The memory per device of the plan's layout where it has one (the
  // predicted MFU's, or the Parallelism panel's chosen layout): the memory
  // read-out and check show it in place of the data-parallel estimate above,
  // which counts no tensor, pipeline or expert parallelism.
  struct LayoutMemory {
    std::string layout;  // to_string(Layout)
    bool fits = false;
    std::int64_t peak_stage_bytes = 0;
    std::int64_t hbm_bytes = 0;
    std::string reason;  // why it does not fit or cannot run ("" when it fits)
    std::string axes{};  // layout_axes_text(Layout): "TP 8 · PP 4 · DP 64"
    // Every pipeline stage's memory per rank (memory_by_stage), for the
    // memory plot; empty when the layout cannot run.
    std::vector<StageMemory> stages{};
  };
  std::optional<LayoutMemory> layout_memory;
  // The scenario model's memory per device as the read-out, the Compare dock
  // and diff give it: the layout's peak stage, else the data-parallel
  // estimate at the scenario's ZeRO stage.
  double memory_per_device_bytes() const {
    if (layout_memory) return static_cast<double>(layout_memory->peak_stage_bytes);
    return static_cast<double>(
        memory_by_zero[static_cast<std::size_t>(scenario.training.zero_stage)].total);
  }
  // (b) KV cache per request vs context, MHA / the scenario's kv heads / MQA,
  // against the HBM of one serving node left after the weights.
  Curve kv_mha, kv_scenario, kv_mqa;
  std::int64_t kv_bytes_at_context = 0;
  double serve_node_hbm_bytes = 0;
  double serve_weight_bytes = 0;
  double hbm_left_bytes = 0;  // ≥ 0
  std::int64_t max_concurrent = 0;
  // (c) attention share of training FLOPs and 6ND's error vs context.
  Curve attention_fraction, six_nd_error;
  double attention_fraction_at_seq = 0;
  double six_nd_error_at_seq = 0;  // how far 6ND undercounts at the training sequence
  // (d) lifetime FLOPs vs served tokens, Chinchilla answer vs the smaller model.
  Curve lifetime_chinchilla, lifetime_small;
  // Lifetime FLOPs of the Chinchilla answer ÷ the smaller same-loss model's at
  // the scenario's served tokens ("N× fewer FLOPs").
  double lifetime_flops_ratio = 0;
  // (e) the compute-optimal frontier N(C) and D(C) at the tokens-per-param ratio.
  Curve frontier_params, frontier_tokens;
  // Every check the panel and the report show: the budget's four (about the
  // Chinchilla answer), then the scenario model's memory per device at its
  // ZeRO stage and DP degree (the same number and verdict as the read-out).
  std::vector<Check> checks;
  // The smaller same-loss model is recommended but takes more than twice the
  // scenario's days on its cluster.
  bool plan_too_long = false;
  // For the memo: chip-hours rented, and how many decades C lies above the
  // largest run of the Chinchilla ladder (1.3e22 FLOPs, Hoffmann et al. 2022),
  // i.e. how far the loss forecast extrapolates.
  double chip_hours = 0;
  double decades_beyond_ladder = 0;
  // (f) the planned run: report.recommended.run, or in "train this model"
  // mode the scenario's model on its tokens (then `train` is set).
  std::optional<RunReport> train;
  GoodputCurve goodput_curve;         // goodput vs checkpoint interval, optimum marked
  EpochCurve loss_vs_epochs;          // loss vs epochs at the run's N, the run marked
  std::optional<RangeReport> ranges;  // P10/P50/P90, histograms, tornado; when any input is a range
  std::size_t memo_ranges_at = 0;     // where the memo's ranges sentence starts (its end if none)
  // The planned run as the ranges vary it, and a sentence saying which run it
  // is and how it is sharded ("the recommended 29.6B on 14.6T tokens, …").
  TrainInputs plan_inputs;
  std::string plan_subject;
  // The planned run takes more than twice the scenario's days (12.12).
  bool run_too_long = false;
  BudgetServing serving;
  const RunReport& run() const { return train ? *train : report.recommended.run; }
};

// What arrives from off the UI thread: the Monte Carlo of the planned run
// (budget_ranges, ~10,000 draws), possibly of slightly older inputs while a
// newer one runs.
using BudgetSlow = RangeReport;

struct BudgetViewOptions {
  // Without a BudgetSlow: true computes the ranges here; false leaves them
  // empty (a caller that runs the Monte Carlo off the UI thread).
  bool ranges = true;
  // A previous view whose serving search is reused when its key matches.
  const BudgetView* previous = nullptr;
};

// The key of the serving search for a scenario (chip, chips, precisions, turn).
std::string serving_search_key(const Scenario& s);
// The serving layout search's inputs for a scenario.
SearchInputs budget_serving_inputs(const Scenario& s);
// The serving limits the Budget planner gives budget_report(): the largest
// dense model meeting the scenario's latency budget on its serving chips at
// its weight and KV precisions (the serving layout search, KV cache and TP
// all-reduces counted), and the same at bf16 weights when they are narrower.
// `napkin-cli budget` applies the same ones.
void set_scenario_serving_limits(BudgetInputs& inputs, const Scenario& s);

// The key/value head counts a shape with `n_heads` query heads allows: the
// divisors of n_heads (n_heads: MHA, 1: MQA, in between: GQA).
std::vector<std::int64_t> kv_head_options(std::int64_t n_heads);

// A shape after one of its fields was edited, made consistent again: the KV
// heads divide the query heads (the largest common divisor of the two), and a
// dense shape has no top-k, shared experts or dense layers while an MoE
// shape routes to 1 … experts and keeps at most all layers dense.
ModelShape consistent_shape(ModelShape shape);

// Training memory per device of the scenario's model at its ZeRO stage and
// DP degree against the chip's HBM: fits when the total is at most the HBM.
Check scenario_memory_check(const Scenario& scenario, const TrainingMemory& per_device,
                            std::int64_t device_memory_bytes);

// Throws std::invalid_argument for an invalid scenario. Valid inputs the plan
// cannot be made of (validate() checks the run at the slider's MFU; a predicted
// MFU or a fitted law can put it out of reach) give a view with `error` set.
// `ranges` nullptr: none arrived (options.ranges says whether to compute them).
BudgetView make_budget_view(const Scenario& scenario, const BudgetSlow* ranges = nullptr,
                            const BudgetViewOptions& options = {});
// The view with ranges that arrived from off the UI thread in place of its own
// (the memo's ranges sentence too): what make_budget_view(its scenario,
// ranges) gives, without planning again. None are shown when the view's
// scenario has no range.
void set_arrived_ranges(BudgetView& view, const BudgetSlow* ranges);
// The ranges of a view's planned run (the Monte Carlo: ~10,000 draws);
// nullopt when no input is a range. Safe to call from any thread.
std::optional<RangeReport> budget_ranges(const Scenario& scenario, const TrainInputs& plan);

}  // namespace napkin
