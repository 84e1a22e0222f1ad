// What serving layouts answer: the smallest slice that meets a latency
// budget and the batch that makes it cheapest (the seed's "how many chips
// for a 1 s turn", Phase 03 ch. 6, with the topology it asks for), prefill /
// decode disaggregation against one shared pool, the servable check and the
// largest servable model the Budget planner uses, and the cost of a token
// against precision — everything the Roofline panel's "Serving layout" view
// draws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "quantize.h"
#include "serving.h"

namespace napkin {

// ------------------------------------------------------------------ budgets

// A whole turn, or time to first token and time per output token, or any
// combination: every bound given must hold.
struct LatencyBudget {
  std::optional<double> turn_seconds;
  std::optional<double> ttft_seconds;
  std::optional<double> tpot_seconds;
  // Throws when no bound is given, when a turn or TTFT bound is at or below
  // the overhead (the scaffolding alone uses it: impossible, not expensive),
  // or when a TPOT bound is not > 0; the message names the parameter as given.
  void validate(double overhead_seconds, std::string_view turn_name = "budget_seconds",
                std::string_view ttft_name = "ttft_seconds",
                std::string_view tpot_name = "tpot_seconds") const;
  // "a 1 s turn", "TTFT ≤ 500 ms and TPOT ≤ 50 ms".
  std::string describe() const;
};

// "TP 8 × PP 2", "TP 4 × PP 1 × EP 8".
std::string describe(const ServingLayout& layout);

// ------------------------------------------------------------------ search

// Every TP × PP × EP split of `chips` the model allows — TP dividing the
// heads, EP dividing the routed experts (1 for a dense model), PP at most the
// layers — by TP descending, then EP ascending.
std::vector<ServingLayout> serving_layouts(const ServingModel& model, std::int64_t chips);

// The split of `chips` whose turn at in.batch is fastest among those that
// fit (or, when none fits, the one needing the least memory per chip);
// nullopt when the model allows no split of that many chips.
std::optional<ServingLayout> fastest_layout(const ServingModel& model, const ServingInputs& in,
                                            std::int64_t chips);

struct SearchInputs {
  ServingInputs serving;  // everything but the layout and the batch, which the search picks
  LatencyBudget budget;
  std::int64_t max_chips = 4096;  // slices of 1, 2, 4, … chips up to this
  std::int64_t max_batch = 1024;  // batches of 1 … this (any integer)
  void validate() const;
};

struct LayoutCandidate {
  ServingLayout layout;
  std::int64_t chips = 0;
  std::int64_t max_batch = 0;  // the largest batch meeting the budget; 0: none does
  ServingResult result;        // at max_batch, or at batch 1 when none meets it
  std::string reason;          // why not, when max_batch is 0
  bool meets() const { return max_batch > 0; }
};

// One slice size of the search, as a table row: its highest-throughput layout
// that meets the budget, or, when none does, its fastest layout that fits
// (else its first) with why it misses.
struct SliceSummary {
  std::int64_t chips = 0;
  bool meets = false;      // `layout` meets the budget
  LayoutCandidate layout;  // the row's layout
};

struct SearchAnswer {
  LatencyBudget budget;
  // The smallest slice meeting the budget, in its highest-throughput layout at
  // its largest batch (throughput per chip grows with the batch, latency too).
  std::optional<LayoutCandidate> best;
  // The highest tokens/s per chip of any slice meeting the budget.
  std::optional<LayoutCandidate> most_efficient;
  // Every layout tried: by chips, then TP (descending), then EP.
  std::vector<LayoutCandidate> layouts;
  // One row per slice size tried (a size with no split of the model has none).
  std::vector<SliceSummary> slices;
  std::string reason;  // why none, when best is empty
};

// Every power-of-two slice up to max_chips, every TP (a power of two dividing
// the heads) × PP (≤ layers) × EP (MoE: a power of two dividing the experts)
// split of it, and for each the largest batch up to max_batch whose memory
// fits and whose TTFT, TPOT and turn meet the budget (bisection: latency and
// memory grow with the batch).
SearchAnswer search_serving(const ServingModel& model, const SearchInputs& in);

// Whether any layout of up to max_chips meets the budget at batch 1; stops at
// the first that does (for sweeps over models).
bool meets_budget_somewhere(const ServingModel& model, const SearchInputs& in);

// ------------------------------------------------------------ disaggregation

struct DisaggregationInputs {
  SearchInputs search;                    // its budget must bound TTFT and TPOT
  double generated_tokens_per_day = 1e9;  // the traffic (the seed's 1B tokens/day, Claim 5)
  void validate() const;
};

struct PoolPlan {
  std::optional<LayoutCandidate> slice;  // the layout and batch each replica runs
  std::int64_t slices = 0;               // replicas to carry the traffic
  std::int64_t chips = 0;
  double utilization = 0;  // traffic ÷ the replicas' capacity
  std::string reason;      // why no slice, when none
};

struct Disaggregation {
  double requests_per_second = 0;
  PoolPlan prefill;  // meets TTFT (with the KV transfer), prompts one after another
  PoolPlan decode;   // meets TPOT with no prefill stalling its steps
  PoolPlan shared;   // one pool doing both, meeting TTFT and TPOT
  std::int64_t disaggregated_chips = 0;                 // 0 when either pool has no slice
  double disaggregated_tokens_per_second_per_chip = 0;  // generated tokens of the traffic
  double shared_tokens_per_second_per_chip = 0;
  enum class Winner { disaggregated, shared, neither };
  Winner winner = Winner::neither;
  std::string verdict;
};

// Each pool takes, among the layouts meeting its target, the one that carries
// the traffic on the fewest chips (whole replicas).
Disaggregation compare_disaggregation(const ServingModel& model, const DisaggregationInputs& in);
std::string_view to_string(Disaggregation::Winner winner);

// ------------------------------------------------- the Budget planner's view

struct ServableInputs {
  std::string chip = "H100";
  std::int64_t node_chips = 8;  // one serving node
  Dtype weights = Dtype::bf16;
  Dtype kv = Dtype::bf16;
  std::int64_t batch = 8;  // concurrent requests whose KV cache must fit
  std::int64_t prompt_tokens = 8192;
  std::int64_t cached_tokens = 0;
  std::int64_t decode_tokens = 128;
  double overhead_seconds = 0.25;
  double budget_seconds = 1.0;  // a whole turn
  ServingAssumptions assume;
  CostInputs cost;
  void validate() const;
};

struct ServableCheck {
  bool fits = false;          // weights + the batch's KV cache fit one node in some layout
  bool meets_budget = false;  // some layout within one node meets the turn budget
  bool ok = false;            // both
  std::optional<LayoutCandidate> layout;  // the smallest slice within the node meeting the budget
  ServingMemory memory;       // per chip, in the node-wide layout with the least memory per chip
  ServingLayout node_layout;  // that layout
  std::string precision;      // "bf16 weights, bf16 KV cache"
  std::string detail;         // one sentence naming the precision and the threshold
};

// "Servable": the model's weights and the KV cache of `batch` requests at
// their full context fit one node (HBM × usable fraction), and a layout within
// the node meets the turn budget.
ServableCheck servable_check(const ServingModel& model, const ServableInputs& in);

// The largest dense model (serving_shape_for_params) that meets the budget on
// at most in.max_chips chips at the inputs' precisions, to 1 % in N, searched
// in [lo, hi]; nullopt when even `lo` does not. (Feasibility is monotone in N
// up to the rounding of shapes.)
std::optional<double> largest_params_for_budget(const SearchInputs& in, double lo = 1e8,
                                                double hi = 1e13);

// The serving constraint the "What I would train" memo states: the largest
// dense model meeting the budget on at most in.max_chips chips at the inputs'
// precisions, and whether a model of `n_params` is beyond it.
struct ServingConstraint {
  std::optional<double> largest_params;  // nullopt: not even 100M parameters
  bool binds = false;                    // n_params exceeds the largest
  std::string text;  // names the precision, the budget, the turn's shape, the chip and the slice
};
ServingConstraint serving_constraint(double n_params, const SearchInputs& in);

// ------------------------------------------------- the cost of a token vs precision

struct PrecisionPoint {
  Dtype weights = Dtype::bf16;
  Dtype kv = Dtype::bf16;
  double bits_per_weight = 0;           // with group scales
  std::optional<LayoutCandidate> best;  // the search's answer at this precision
  std::string reason;                   // why none
  // The seed's unbatched DRAM model at this width: N_active × bits × 20 pJ.
  double seed_joules_per_token = 0;
};

// The search at bf16, fp8, int8 and int4 weights, and fp4 (NVFP4) on a chip
// with FP4 tensor cores (the KV cache at the inputs' precision).
std::vector<PrecisionPoint> cost_vs_precision(const ServingModel& model, const SearchInputs& in);

// Everything the "Serving layout" view draws, from one set of inputs.
struct ServingViewInputs {
  SearchInputs search;  // serving.layout and serving.batch: the chosen layout
  double generated_tokens_per_day = 1e9;
};

struct ServingView {
  ServingResult chosen;  // the chosen layout: memory bars, step and turn parts
  SearchAnswer search;   // the answer for the budget and every layout tried
  std::optional<Disaggregation> disaggregation;  // when the budget bounds TTFT and TPOT
  std::vector<PrecisionPoint> precisions;        // $ and J per token against precision
  std::vector<DecodeEnergyRow> seed_energy;      // the seed's table at this model's N
  std::string energy_share;                      // energy_share_text()
  std::string precision;                         // "bf16 weights, bf16 KV cache"
};

ServingView make_serving_view(const ServingModel& model, const ServingViewInputs& in);

// "bf16 weights, fp8 KV cache".
std::string describe_precision(Dtype weights, Dtype kv);

}  // namespace napkin
