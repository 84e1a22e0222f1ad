// Phase 02 — Mixture of Experts from scratch (seed Phase 02, "Lab 01 —
// Router, Load Balancing, Capacity & the MoE Layer", and the transcript
// dissection's Claim 12, pipelined prefill).
//
// The router's numerics (stable softmax, log-sum-exp, top-k with ties broken
// by expert index), the two auxiliary losses (Switch load balance, ST-MoE
// z-loss), capacity and first-come-first-served dispatch with its drop / pad
// accounting, a small seeded MoE forward pass, total vs active parameters,
// the all-to-all wall of naive expert parallelism and the pipelined-prefill
// alternative. Then the collapse simulation: a real feedback loop, not a
// scripted curve, that a panel can step one frame at a time.
//
// Every function validates its input and throws std::invalid_argument naming
// the parameter, its unit and the accepted range. Everything random goes
// through the project's seeded generator (rng.h: splitmix64 → xoshiro256**,
// Box–Muller normals here), so the same seed gives byte-identical results.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "algebra.h"
#include "rng.h"

namespace napkin {

// ------------------------------------------------------------------ numerics

// log Σ exp(xᵢ) with max-subtraction (seed Phase 02 ch. 4): finite for logits
// of ±1000. Throws for an empty or non-finite input.
double log_sum_exp(std::span<const double> logits);
// softmax(x) = exp(x − max) / Σ: shift-invariant, never NaN for finite input.
std::vector<double> softmax(std::span<const double> logits);

// ------------------------------------------------------------------ routing

// logits[i] = router_w[i] · token; router_w is n_experts rows of d_model.
std::vector<double> router_logits(const std::vector<std::vector<double>>& router_w,
                                  std::span<const double> token);

struct TokenRoute {
  std::vector<std::int64_t> experts;  // the k chosen experts, best first
  std::vector<double> gates;          // their gate weights, same order
  std::vector<double> probs;          // the full softmax over all experts
};

// Top-k of softmax(logits), ties broken by the lower expert index (seed ch. 4:
// reproducibility). Renormalized gates sum to 1 over the chosen k; raw gates
// keep the softmax mass and silently shrink the layer's output (seed ch. 3).
TokenRoute route_token(std::span<const double> logits, std::int64_t top_k, bool renormalize = true);
std::vector<TokenRoute> route_batch(const std::vector<std::vector<double>>& logits,
                                    std::int64_t top_k, bool renormalize = true);

// Switch load-balance loss E·Σ fᵢ·Pᵢ (seed ch. 5): f over token-SLOTS
// (tokens × k, the trap), P the mean router probability. Exactly 1.0 under
// perfect balance. assignments[t] lists token t's experts.
double load_balance_loss(const std::vector<std::vector<std::int64_t>>& assignments,
                         const std::vector<std::vector<double>>& probs, std::int64_t n_experts);

// ST-MoE router z-loss: mean over tokens of logsumexp(logits)² (seed ch. 6).
double router_z_loss(const std::vector<std::vector<double>>& logits);

struct Utilization {
  std::vector<double> shares;     // fraction of slots per expert (sums to 1)
  double max_over_mean = 0;       // max share × E: 1.0 balanced, E / k fully collapsed
  std::int64_t dead_experts = 0;  // experts that received no slot
};
Utilization expert_utilization(const std::vector<std::vector<std::int64_t>>& assignments,
                               std::int64_t n_experts);

// ----------------------------------------------------------------- capacity

// Slots per expert: ⌊capacity_factor × tokens × k / E⌋ (seed ch. 7).
// capacity_factor < 1 throws: it drops tokens even under perfect balance.
std::int64_t expert_capacity(std::int64_t tokens, std::int64_t top_k, std::int64_t n_experts,
                             double capacity_factor);

struct CapacityResult {
  std::int64_t capacity_per_expert = 0;
  std::int64_t routed_slots = 0;             // tokens × k
  std::int64_t dropped = 0;                  // slots over an expert's buffer
  std::int64_t padded_slots = 0;             // empty buffer slots (computed on zeros)
  double drop_rate = 0;                      // dropped / slots
  double buffer_utilization = 0;             // kept / (capacity × E)
  std::int64_t fully_dropped_tokens = 0;     // every slot dropped (needs assignments)
  std::vector<std::int64_t> routed;          // per expert, before capacity
  std::vector<std::int64_t> kept;            // per expert, after capacity
  std::vector<std::vector<bool>> slot_kept;  // per token and slot (needs assignments)
};

// First-come-first-served dispatch in token order (seed ch. 7 trap: the
// tests depend on it): token t's slots are placed before token t+1's.
CapacityResult apply_capacity(const std::vector<std::vector<std::int64_t>>& assignments,
                              std::int64_t n_experts, double capacity_factor);
// The same accounting from per-expert routed slot counts (the CLI's form):
// tokens = Σ counts / k, which must be whole.
CapacityResult capacity_from_counts(std::span<const std::int64_t> counts, double capacity_factor,
                                    std::int64_t top_k = 1);

struct CapacityPoint {
  double capacity_factor = 0;
  std::int64_t capacity_per_expert = 0;
  std::int64_t dropped = 0;
  std::int64_t padded_slots = 0;
  double drop_rate = 0;        // dropped / slots
  double wasted_fraction = 0;  // padded / (capacity × E): compute on zeros
};
// The trade-off curve (seed ch. 7, extension 5): drop rate and wasted slots
// at n_points capacity factors evenly spaced in [cf_min, cf_max].
std::vector<CapacityPoint> capacity_tradeoff(std::span<const std::int64_t> counts,
                                             std::int64_t top_k = 1, double cf_min = 1.0,
                                             double cf_max = 2.0, std::int64_t n_points = 21);

// -------------------------------------------------------------- the forward

// A toy ReLU expert: d_model → d_ff → d_model (seed ch. 2).
struct Expert {
  std::vector<std::vector<double>> w_in;   // d_ff rows of d_model
  std::vector<std::vector<double>> w_out;  // d_model rows of d_ff
};
std::vector<double> expert_forward(const Expert& expert, std::span<const double> token);

struct MoeLayer {
  std::int64_t d_model = 0;
  std::int64_t d_ff = 0;
  std::vector<std::vector<double>> router_w;  // n_experts rows of d_model
  std::vector<Expert> experts;
  bool has_shared_expert = false;
  Expert shared;  // runs for every token when has_shared_expert
};
// Weights ~ N(0, 1/fan_in) from the seed: the same seed, the same layer.
MoeLayer make_moe_layer(std::int64_t d_model, std::int64_t d_ff, std::int64_t n_experts,
                        bool shared_expert, std::uint64_t seed);

struct MoeForwardResult {
  std::vector<std::vector<double>> outputs;  // per token: x + Σ kept gᵢ·Eᵢ(x) (+ shared(x))
  std::vector<TokenRoute> routes;
  CapacityResult capacity;
  std::int64_t fully_dropped_tokens = 0;  // every routed slot dropped
  std::int64_t tokens_skipping_ffn = 0;   // fully dropped and no shared expert: y == x
};
// The MoE block with its residual (seed ch. 7): a dropped slot contributes
// nothing; a token whose every slot is dropped rides the residual unchanged
// (the silent failure) unless a shared expert runs for it.
MoeForwardResult moe_forward(const MoeLayer& layer, const std::vector<std::vector<double>>& tokens,
                             std::int64_t top_k, double capacity_factor, bool renormalize = true);

// ---------------------------------------------------------------- parameters

struct MoeParamCounts {
  std::int64_t total = 0;     // router + (E + shared) experts: memory
  std::int64_t active = 0;    // router + (k + shared) experts: FLOPs
  double sparsity_ratio = 0;  // total / active; exactly 1.0 when k == E
};
// One MoE layer with the seed's two-matrix experts (seed ch. 8): expert =
// 2·d_model·d_ff, router = d_model·E.
MoeParamCounts moe_parameter_counts(std::int64_t d_model, std::int64_t d_ff, std::int64_t n_experts,
                                    std::int64_t top_k, std::int64_t shared_experts = 0);

struct MoeModelParams {
  ParamCount count;               // napkin::count_params of the shape
  std::int64_t total_bytes = 0;   // total × bytes_per_param: what HBM must hold
  std::int64_t active_bytes = 0;  // active × bytes_per_param: read per token
  double sparsity_ratio = 0;
};
// Whole-model total vs active ("active for FLOPs, total for memory") via
// count_params; bf16 = 2 bytes per parameter by default.
MoeModelParams moe_model_params(const ModelShape& shape, std::int64_t bytes_per_param = 2);

// ------------------------------------------------------------ communication

struct AllToAllInputs {
  std::int64_t tokens = 8192;       // prefill tokens
  std::int64_t d_model = 8192;      // elements per activation
  std::int64_t n_layers = 60;       // MoE layers, each = dispatch + combine
  std::int64_t top_k = 2;           // each token's activation goes to k experts
  std::int64_t bytes_per_elem = 2;  // bf16
  // The seed's assumed interconnect (ch. 9 and Claim 12), an input rather than
  // a chip property, which is why it is not in hardware.h.
  double link_gbps = 100;  // gigabits per second
  double latency_us = 5;   // fixed cost per collective
  void validate() const;
};
struct AllToAllCost {
  std::int64_t bytes = 0;        // 2 · layers · tokens · d_model · bytes · k
  std::int64_t collectives = 0;  // 2 per layer
  double transfer_seconds = 0;
  double latency_seconds = 0;
  double seconds = 0;  // transfer + latency
};
// Naive expert parallelism's network bill per forward pass (seed ch. 9).
AllToAllCost expert_parallel_comm(const AllToAllInputs& in);
// The all-to-all inputs of a model: its MoE layers (all layers but the
// leading dense ones, at least one) and its top-k. A dense model is costed as
// if its layers were MoE with `dense_top_k`. Link and latency keep the
// defaults above.
AllToAllInputs expert_parallel_inputs(const ModelShape& shape, std::int64_t tokens,
                                      std::int64_t dense_top_k);

struct PipelineInputs {
  std::int64_t chunks = 8;  // M: prompt chunks streamed through the pipeline
  std::int64_t stages = 4;  // S: chips, each holding a contiguous run of layers
  double compute_ms = 50;   // per chunk per stage
  double transfer_ms = 20;  // stage → stage hop per chunk
  void validate() const;
};
struct PipelineResult {
  double serial_ms = 0;     // S · M · (compute + transfer): no overlap
  double step_ms = 0;       // max(compute, transfer): the transfer hides
  double bubble_ms = 0;     // (S − 1) · step: the fill
  double pipelined_ms = 0;  // (M + S − 1) · step
  double utilization = 0;   // M / (M + S − 1)
  double speedup = 0;       // serial / pipelined
  std::int64_t steps = 0;   // M + S − 1: the pipeline's steps, fill included
};
// Pipelined prefill (seed Claim 12): shard layers, not experts, and stream
// chunks so each hop overlaps the next chunk's compute.
PipelineResult pipelined_prefill(const PipelineInputs& in);

struct PipelineSlot {
  std::int64_t stage = 0;
  std::int64_t chunk = 0;
  double start_ms = 0;        // (stage + chunk) · step
  double compute_end_ms = 0;  // start + compute
  double end_ms = 0;          // start + step: the hop has overlapped
};
// The Gantt chart of pipelined_prefill: one slot per (stage, chunk), stage-major.
std::vector<PipelineSlot> pipeline_schedule(const PipelineInputs& in);

// ------------------------------------------------------- collapse simulation

// The feedback loop of seed ch. 5: a router (E × d weights) routes a seeded
// stream of tokens; each expert's skill grows with the gate-weighted demand
// the router sends it (rich get richer); the router descends the task signal
// (gated skill of the kept slots) plus aux_weight·L_balance plus
// z_weight·L_z, with analytic gradients. Renormalized gates for the task
// signal are taken over the slots that survive the capacity mask (GShard /
// DeepSpeed top-2 gating), so a dropped slot sends no task gradient; with
// k = 1 the gate is the raw probability (Switch), since a renormalized single
// gate is identically 1.
//
// Why skill follows DEMAND (Σ gate over routed slots) and not the kept slots.
// With kept slots, every expert that fills its buffer learns at the same
// capped rate, and renormalizing over the kept slots hands a full-buffer
// expert's dropped gate to its partner: the leaders equalize, an oligopoly of
// saturated experts forms (max/mean ≈ 2 at cf 1.25) and none takes over. In a
// real MoE what separates experts is the gate: y = Σ gᵢ·Eᵢ(x), so expert i's
// gradient is scaled by gᵢ, and across a real step's many micro-batches and
// data-parallel replicas (each with its own buffer, the batch order random)
// an expert's data follows the router's preference, not one buffer's cut.
// Demand-weighted growth keeps that tie-breaker: the expert the router
// prefers gets more gate mass, so it improves faster, so the router prefers
// it more. Dead experts are judged on the same gate-weighted share: with
// k = 2 the losers still appear as near-zero-gate second choices, so their
// routed slots never reach zero, but they produce and learn nothing.
//
// Why the router starts with N(0, 1) weights (logit spread ≈ 4 across
// tokens): with near-zero weights every logit is equal, a tiny bias change
// flips half the batch, and the balance loss (a bang-bang signal, f comes
// from a top-k) makes the router oscillate. A token-dependent router, as a
// trained one is, moves smoothly. Experts start with up to n₀ tokens of
// random experience ("randomly slightly better").
//
// Measured (E = 8, k = 2, cf = 1.25, T = 256, 600 steps, seeds 0–4): α = 0
// ends at max/mean 3.9–4.0 (E / k = 4 is the ceiling: one slot per token),
// 4–6 dead experts, 38–53 % of slots dropped; α = 0.01 holds the EMA max/mean
// at 1.04–1.06 with no dead expert and L_balance 1.00; its per-step value
// has a median of 1.17–1.19 over steps 300–600 and spikes to ~1.8: the
// sampling floor of 512 slots over 8 experts (64 ± 8 each) alone puts the
// per-step max near 1.2, so the per-step value is noisy by construction.
struct CollapseParams {
  std::int64_t n_experts = 8;
  std::int64_t top_k = 2;
  double aux_weight = 0.01;  // α
  double z_weight = 0.001;   // γ
  double capacity_factor = 1.25;
  bool shared_expert = false;
  bool renormalize = true;
  std::int64_t tokens_per_batch = 256;
  std::int64_t d_model = 16;  // router input width (a toy token embedding)
  double learning_rate = 30.0;
  // An expert's skill is skill_gain · ln(1 + n / 1000) after n gate-weighted
  // tokens of demand: every doubling of its data buys the same gain (a data
  // scaling law in its small-exponent limit). The rich-get-richer strength;
  // the balance loss holds when aux_weight is well above it.
  double skill_gain = 0.004;
  std::uint64_t seed = 0;
  void validate() const;
};

struct StepStats {
  std::int64_t step = 0;            // 1-based
  double max_over_mean = 0;         // max routed share × E (before capacity), this step
  double recent_max_over_mean = 0;  // the same over recent_share: past one batch's noise
  std::int64_t dead_experts = 0;    // recent gate-weighted share below a tenth of 1 / E
  double l_balance = 0;
  double l_z = 0;
  double task_loss = 0;  // −mean gated skill of the kept slots
  double drop_rate = 0;  // dropped / (tokens × k)
  std::int64_t capacity_per_expert = 0;
  std::int64_t dropped_slots = 0;
  std::int64_t padded_slots = 0;
  std::int64_t fully_dropped_tokens = 0;
  std::int64_t tokens_skipping_ffn = 0;  // fully dropped and no shared expert
  std::vector<std::int64_t> routed;      // per expert, before capacity
  std::vector<double> mean_prob;         // per expert, Pᵢ
  std::vector<double> recent_share;      // per expert, EMA of its share over ~20 steps
  std::vector<double> gate_share;        // per expert, Σ gate over its routed slots / Σ all gates
  std::vector<double> recent_gate_share;  // EMA of gate_share over ~20 steps (dead() reads it)
  std::int64_t kept(std::int64_t expert) const;
  std::int64_t dropped(std::int64_t expert) const;
  std::int64_t padded(std::int64_t expert) const;
  double share(std::int64_t expert) const;  // routed / Σ routed
  bool dead(std::int64_t expert) const;
  std::int64_t routed_slots() const;  // Σ routed = tokens × k
  double buffer_utilization() const;  // kept ÷ (capacity × E); 0 when the buffers hold nothing
};

class CollapseSimulation {
 public:
  explicit CollapseSimulation(const CollapseParams& params);

  // One router step; the result is appended to history().
  const StepStats& step();
  void run(std::int64_t steps);

  const CollapseParams& params() const { return params_; }
  std::int64_t steps_done() const { return static_cast<std::int64_t>(history_.size()); }
  // The last step; throws std::logic_error before the first step.
  const StepStats& current() const;
  const std::vector<StepStats>& history() const { return history_; }
  void clear_history() { history_.clear(); }  // keeps the state, for long runs
  // Each expert's general skill: what the rich have got richer in.
  const std::vector<double>& expert_skill() const { return skill_; }
  // True when going from `from` to `to` cannot continue the current state
  // (n_experts, d_model, tokens_per_batch or seed changed); other knobs can change mid-run.
  static bool needs_restart(const CollapseParams& from, const CollapseParams& to);
  // Continues from the current router and experts with new knobs; throws
  // std::invalid_argument when needs_restart(params(), params).
  void retune(const CollapseParams& params);

 private:
  CollapseParams params_;
  Rng rng_;                  // the token stream: one draw per token of a batch
  std::vector<float> pool_;  // token pool, pool_tokens_ × d_model (x[0] = 1: a bias)
  std::int64_t pool_tokens_ = 0;
  std::vector<float> w_;                   // router, stored transposed: d × E
  std::vector<double> experience_;         // tokens each expert has processed
  std::vector<double> skill_;              // experience / (experience + half)
  std::vector<double> recent_share_;       // EMA of each expert's share of slots
  std::vector<double> recent_gate_share_;  // EMA of its gate-weighted share
  // per-step scratch, kept to avoid allocation
  std::vector<float> z_, p_, grad_w_, batch_;
  std::vector<float> slot_fraction_;  // fᵢ: expert i's share of the routed slots
  std::vector<double> lse_;
  std::vector<double> demand_;  // gate-weighted slots per expert
  std::vector<std::int64_t> chosen_;
  std::vector<std::int64_t> kept_count_;
  std::vector<unsigned char> kept_;
  std::vector<StepStats> history_;

  // The phases of step(), in order.
  void draw_batch();
  void route(StepStats& st);
  void dispatch(StepStats& st);
  void account_load(StepStats& st);
  void accumulate_gradient(StepStats& st);
  void update_router();
  void update_experts(StepStats& st);
};

// Runs `steps` steps from a fresh simulation and returns the history.
std::vector<StepStats> run_collapse(const CollapseParams& params, std::int64_t steps);

// ------------------------------------------------------- the work of a run

// A step routes T tokens against E experts (the E × d logits dominate) and
// records per-expert statistics that a recorded run keeps for every step
// (scrubbing, the traces): the second term counts that as kCollapseRecordTokens
// tokens' worth, so a long run at a large E and a tiny batch is bounded in
// memory as well as in time.
inline constexpr std::int64_t kCollapseRecordTokens = 1024;
// The one budget for a recorded run (a document's run of record, replayed by
// the file reader's consumers: the app, the report, napkin-cli diff): about
// five seconds on one core of a 2020s laptop; the sliders' corners (E = 256,
// T = 4,096) at the default 300 steps stay inside it.
inline constexpr double kMaxCollapseRunWork = 5e8;
// steps × E × (T + kCollapseRecordTokens).
double collapse_run_work(const CollapseParams& params, std::int64_t steps);
// The most steps a recorded run of `params` may have within the budget (at least 1).
std::int64_t max_recorded_collapse_steps(const CollapseParams& params);

}  // namespace napkin
