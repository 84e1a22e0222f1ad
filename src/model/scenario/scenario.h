// The shared scenario: every user input that more than one panel reads.
// Plain data with defaults (1,000 H100 for 30 days, a Llama-3-70B-shaped
// model); the app wraps it for observation and undo, the io library reads and
// writes it as a versioned JSON document.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algebra.h"
#include "budget.h"
#include "goodput.h"
#include "model_presets.h"
#include "panel_settings.h"
#include "plan_law.h"
#include "quantize.h"
#include "train_plan.h"
#include "uncertainty.h"

namespace napkin {

struct TrainingSetup {
  Optimizer optimizer = Optimizer::adam;
  Precision precision = Precision::mixed_bf16;
  int zero_stage = 3;
  std::int64_t dp_degree = 64;  // data-parallel replicas sharding the states
  Checkpointing checkpointing = Checkpointing::selective;
  std::int64_t micro_batch = 1;  // sequences per device per step
  std::int64_t seq_len = 8192;   // training sequence length, tokens
  bool operator==(const TrainingSetup&) const = default;
};

struct ServingSetup {
  std::int64_t context_len = 8192;    // tokens of context per request
  double served_tokens = 1e14;        // tokens served over the model's life
  std::int64_t batch = 8;             // concurrent decode requests
  std::int64_t prompt_tokens = 8192;  // incremental prefill per turn
  std::int64_t decode_tokens = 128;   // generated tokens per turn
  double latency_budget_seconds = 1.0;
  double overhead_seconds = 0.25;
  // Serving precisions: the weights and the KV cache each stored as bf16, fp8,
  // int8 or int4 (group-wise scales counted, quantize.h).
  Dtype weight_dtype = Dtype::bf16;
  Dtype kv_dtype = Dtype::bf16;
  double bytes_per_param() const { return bytes_per_element(weight_dtype); }
  double kv_bytes_per_element() const { return bytes_per_element(kv_dtype); }
  // The inference engine preset (serving_engine.h); "ideal" is the roofline
  // bound the seed track uses.
  std::string engine = "ideal";
  std::int64_t chips = 8;   // chips of one serving deployment
  bool limit_model = true;  // "What I would train" respects the latency budget
  // Lifetime dollars' serving side: the chip served on ("" = the training
  // chip) and its chip-hour price.
  std::string chip;
  double price_per_chip_hour_dollars = 2.5;
  bool operator==(const ServingSetup&) const = default;
};

// Which question the Budget planner answers.
enum class PlanMode {
  budget,       // chips × days → C → the model to train
  train_model,  // the scenario's model on D tokens → days, dollars, energy, loss
};
std::string_view to_string(PlanMode mode);
// "budget" or "train_model"; throws std::invalid_argument otherwise.
PlanMode parse_plan_mode(std::string_view text);

// A range around one of the scenario's own values (which is the likely one).
struct Spread {
  double low = 0;
  double high = 0;
  bool operator==(const Spread&) const = default;
};

// Which inputs are uncertain, and how the Monte Carlo reads them.
struct RangeSetup {
  std::optional<Spread> mfu;
  std::optional<Spread> interruptions_per_1000_chip_days;
  std::optional<Spread> restart_minutes;
  std::optional<Spread> price_per_chip_hour_dollars;
  std::optional<Spread> tokens_available;
  RangeShape shape = RangeShape::triangular;
  std::uint64_t seed = 1;
  bool any() const;
  bool operator==(const RangeSetup&) const = default;
};
// The range over a registered input (inputs.h) that the Budget planner's
// Monte Carlo draws: budget.mfu, budget.price_per_chip_hour_dollars,
// budget.tokens_available, goodput.interruptions_per_1000_chip_days,
// goodput.restart_minutes; nullptr for any other input.
std::optional<Spread> RangeSetup::*input_range(std::string_view input_key);

struct PlanSetup {
  PlanMode mode = PlanMode::budget;
  double train_tokens = 0;  // "train this model": D; 0 = tokens_per_param × N
  // The loss law every forecast uses: built in, or fitted to the IsoFLOPs
  // panel's ladder (plan_law.h).
  LawChoice law = LawChoice::replication;
  // An MoE candidate the Budget planner weighs against the dense answer at
  // the same compute and serving limit (experts 1: none).
  MoeShape moe;
  // What "What I would train" minimises at equal loss: lifetime FLOPs or
  // lifetime dollars (lifetime_dollars.h).
  Objective objective = Objective::flops;
  bool operator==(const PlanSetup&) const = default;
};

// A field of a scenario file that this version does not know (written by a
// newer version, or misspelt): kept as it was read so that opening and saving
// the file loses nothing. `path` is its key under the document's top level
// ({"hardware", "nvlink_domain"}), `json` its value as compact JSON text.
struct ForeignField {
  std::vector<std::string> path;
  std::string json;
  bool operator==(const ForeignField&) const = default;
};

struct Scenario {
  // Hardware and budget.
  std::string chip = "H100";
  std::int64_t n_chips = 1000;
  double days = 30;
  double mfu = 0.4;
  double price_per_chip_hour_dollars = 2.5;
  double kwh_price_dollars = 0.12;
  double pue = 1.2;
  double tokens_per_param = 20;
  double tokens_available = 15e12;
  // The model being sized (Llama-3-70B shape by default).
  std::string model_name = "Llama-3-70B";
  ModelShape shape = ModelShape{80, 8192, 28672, 64, 8, 128, 128256};
  TrainingSetup training;
  ServingSetup serving;
  // The panels' own inputs (document version 2).
  IsoflopsSettings isoflops;
  MoeSettings moe;
  RooflineSettings roofline;
  // The Parallelism panel's inputs (older documents lack them: defaults).
  ParallelSettings parallel;
  GoodputSetup goodput;  // interruptions, restarts, checkpoints
  RangeSetup ranges;
  PlanSetup plan;
  // What the file held that this version does not read, written back as is.
  std::vector<ForeignField> foreign_fields;

  // Throws std::invalid_argument naming the first field out of range.
  void validate() const;
  BudgetInputs budget_inputs() const;
  // The loss law of plan.law: a built-in one, or the IsoFLOPs panel's
  // parametric fit of its ladder (the deterministic fit, no bootstrap draws;
  // the last fit is reused while the ladder and fit settings stay the same).
  // `progress` reports the fit of a fitted law (and may stop it: Cancelled);
  // a memoized law does not call it.
  PlanLaw plan_law(const FitProgressFn& progress = {}) const;
  // The law the plan's forecasts use: plan_law() at the plan's training
  // precision (forecast_law in budget_precision.h).
  PlanLaw trained_law() const;
  // "Train this model": the scenario's model shape (total parameters; active
  // ones for 6·N·D) on plan.train_tokens.
  TrainInputs train_inputs() const;
  // The ranges with the scenario's own values as the likely ones, for `plan`.
  PlanRanges plan_ranges(const TrainInputs& plan) const;
  bool operator==(const Scenario&) const = default;
};

}  // namespace napkin
