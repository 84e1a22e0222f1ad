// Lifetime dollars (issue 26, item 4): what a model costs over its life as
// money, not FLOPs. Training is chip-hours at the training price: 6·N·D ÷
// (peak × MFU × goodput) on the training chips. Serving is chip-hours on the
// serving chips at the serving price: served tokens ÷ the serving layout's
// tokens per second per chip (the roofline serving model of serving.h at the
// scenario's batch, prompt, decode and precisions: a memory-bound decode
// step reads every weight once per step, so a serving FLOP costs far more
// than a training FLOP). Both pay energy at the wall on top of the rental:
// chips × TDP × PUE × $/kWh, as cost_report() does (seed Phase 00 ch. 11).
// The seed's lifetime objective (Claim 15, 6N·D + 2N·S) prices every FLOP
// alike; this one lets the serving layout's throughput set the serving side.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cluster_cost.h"
#include "data_constrained.h"
#include "quantize.h"
#include "served_loss.h"
#include "serving_limit.h"

namespace napkin {

// What the inference-aware plan minimises at equal loss.
enum class Objective {
  flops,    // 6N·D + 2N·S (seed Claim 15, Sardana et al. 2024)
  dollars,  // training chip-hours + serving chip-hours at their prices, with energy
};
std::string_view to_string(Objective objective);
// "flops" or "dollars"; throws std::invalid_argument naming `param` otherwise.
Objective parse_objective(std::string_view text, std::string_view param = "objective");

// The serving side of the bill. A field added here is compared in
// same_serving_economy() (lifetime_dollars.cpp) too, or the rate memo would
// answer for the wrong inputs.
struct ServingEconomy {
  std::string chip = "H100";
  CostInputs cost;                    // the serving chip-hour price, $/kWh, PUE
  std::int64_t node_chips = 8;        // slices of 1, 2, 4, … up to this many chips
  std::int64_t batch = 8;             // requests decoding together
  std::int64_t prompt_tokens = 8192;  // prefilled per turn
  std::int64_t decode_tokens = 128;   // generated per turn
  Dtype weights = Dtype::bf16;
  Dtype kv = Dtype::bf16;
  // The inference engine preset the tokens are served with (serving_engine.h):
  // the scenario's, so that the bill prices the engine's kernels, launches
  // and host work rather than the roofline bound.
  std::string engine = "ideal";
  void validate() const;
};

// One model served: the layout with the most tokens per second per chip
// among the fitting TP × PP splits of 1, 2, 4, … node_chips chips (more,
// doubling up to 4,096, when the weights fit none of them), at the batch.
struct ServingRate {
  bool fits = false;  // some slice of up to 4,096 chips holds the model
  std::int64_t chips = 0;
  std::string layout;  // "TP 8 × PP 1"
  double tokens_per_second_per_chip = 0;
  double dollars_per_token = 0;  // (price + TDP × PUE × $/kWh ÷ 1000) ÷ tokens per chip-hour
  double joules_per_token = 0;   // TDP × PUE ÷ tokens per second per chip
};
// The latency napkin's bare parameter count (serving_model(N)).
ServingRate serving_rate(double n_params, const ServingEconomy& economy);
// serving_rate() remembered per serving economy and N (the exact bits of
// both), so that a plan made again with the same serving inputs (a drag of
// the training chip count back over a position, a training price or a
// served-token change) searches no serving layout it searched before. Its
// answer is serving_rate()'s, bit for bit; thread-safe.
ServingRate memoized_serving_rate(double n_params, const ServingEconomy& economy);

// The training side: chip-hours at the training chips' price plus energy.
struct TrainingEconomy {
  std::string chip = "H100";
  double mfu = 0.4;
  double goodput = 1.0;  // wall-clock share left by crashes and checkpoints
  CostInputs cost;
  void validate() const;
};
// Dollars of 6·N·D on the training chips (rental and energy at the wall).
double training_dollars(double active_params, double tokens, const TrainingEconomy& economy);

// One model's lifetime bill.
struct LifetimeBill {
  double params = 0;
  double train_tokens = 0;
  double train_dollars = 0;
  ServingRate serving;
  double serve_dollars = 0;  // served tokens × dollars per token
  double total_dollars = 0;
};
LifetimeBill lifetime_bill(double params, double train_tokens, double served_tokens,
                           const TrainingEconomy& training, const ServingEconomy& serving);

// The dollar-optimal model at the reference's loss (Sardana et al. 2024's
// question with dollars for FLOPs): minimises training + serving dollars
// over N, with D(N) reaching the reference's loss under `law` (repeated
// tokens priced by the data-constrained law when `unique_tokens` is given).
struct DollarPlan {
  double served_tokens = 0;
  double loss = 0;  // the reference's as served, nats/token
  LifetimeBill reference;
  LifetimeBill same_loss;
  // Served tokens at which the two bills are equal (the smaller model's
  // extra training is repaid by its cheaper tokens); nullopt when one is
  // cheaper at every S > 0.
  std::optional<double> crossover_served_tokens;
  bool recommend_smaller = false;  // the smaller model saves ≥ 5 % of lifetime dollars
};
// At the reference's loss as served (served_loss.h: the plan's law, the data
// limit and, below 16-bit weights, each model's quantization penalty).
DollarPlan plan_lifetime_dollars(double ref_params, double ref_tokens, double served_tokens,
                                 const ServedLoss& served, const TrainingEconomy& training,
                                 const ServingEconomy& serving);

// The memo's sentences for the dollar objective.
std::string dollar_plan_text(const DollarPlan& plan, const std::string& law_name);

}  // namespace napkin
