// Phase 03 — roofline, MFU & inference co-design (seed Phase 03, "Lab 01 —
// Roofline, MFU Budget & the Latency Napkin", and Claim 14, the latency napkin).
//
// Every hardware number comes from hardware_table() (pass a Chip, or a chip
// name resolved with chip_by_name()). Counts of shapes (FLOPs of a matmul,
// bytes of a KV cache) are exact 64-bit integers computed by the Phase 00
// algebra; seconds, fractions and FLOP/s are doubles. Invalid input throws
// std::invalid_argument naming the parameter, its unit and the accepted range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algebra.h"
#include "hardware.h"

namespace napkin {

// ------------------------------------------------------------------- roofline

// FLOPs per byte moved: a property of the algorithm and its blocking, not of
// the chip (seed Phase 03 ch. 3).
double arithmetic_intensity(double flops, double bytes);

// The roofline: min(peak, bandwidth × intensity). The two roofs meet exactly
// at the ridge point, so the function is continuous there (seed Phase 03 ch. 3).
double attainable_flops_per_s(const Chip& chip, double intensity);

// Below the ridge an operation is memory-bound and the lever is to cut bytes;
// at or above it, compute-bound and the lever is to cut FLOPs.
enum class Bound { memory, compute };
std::string_view to_string(Bound bound);
// "reduce bytes moved" or "reduce FLOPs" (the seed's verdict wording).
std::string_view lever(Bound bound);

struct RooflinePoint {
  double flops = 0;
  double bytes = 0;
  double intensity = 0;             // FLOP/byte
  double ridge_flops_per_byte = 0;  // of the chip
  double attainable_flops_per_s = 0;
  double fraction_of_peak = 0;  // attainable ÷ peak
  double seconds = 0;           // max(FLOPs ÷ peak, bytes ÷ bandwidth) on one chip
  Bound bound = Bound::memory;
};

// Places an operation of `flops` and `bytes` on the chip's roofline.
RooflinePoint roofline_point(const Chip& chip, double flops, double bytes);

struct RooflineCurvePoint {
  double intensity = 0;
  double attainable_flops_per_s = 0;
};

// The roofline sampled at `n_points` log-spaced intensities in [lo, hi], with
// the ridge point inserted when it lies inside, for a log-log plot.
std::vector<RooflineCurvePoint> roofline_curve(const Chip& chip, double min_intensity,
                                               double max_intensity, std::int64_t n_points = 64);

// ------------------------------------------------------- operations to place

// Where the panel's labelled operations sit. Defaults are the seed's (8192³
// matmul, 8k prompt, batch-1 decode, 8k context, bf16).
struct OperationSetting {
  std::int64_t matmul_dim = 8192;      // square matmul side
  std::int64_t prompt_tokens = 8192;   // prefill and layernorm rows
  std::int64_t decode_batch = 1;       // requests per decode step
  std::int64_t context_tokens = 8192;  // KV cache length for decode and attention
  double bytes_per_param = 2.0;        // weights (the precision control)
  std::int64_t bytes_per_elem = 2;     // activations and KV cache
  void validate() const;
};

struct PlacedOperation {
  std::string name;
  double flops = 0;
  double bytes = 0;
  double intensity = 0;
  double attainable_flops_per_s = 0;
  double fraction_of_peak = 0;
  Bound bound = Bound::memory;
};

// The seed's placed operations (Phase 03 ch. 3) for a chip and model, in this
// order: "large matmul" (d³, three d×d tensors moved), "prefill" (2N·T FLOPs
// over the weights plus the KV cache written), "decode" (one step of the batch:
// 2N·B FLOPs over the weights read once plus every request's KV cache),
// "layernorm" (prompt × d_model, ~5 FLOPs per element, read once and written
// once), "attention" (one decode step's QKᵀ and A·V over the context: reads
// the KV cache; its intensity is the GQA group size at bf16). Prefill and
// decode count the linear layers through N (active parameters for an MoE);
// the sequence-dependent attention is the separate "attention" point.
std::vector<PlacedOperation> place_operations(const Chip& chip, const ModelShape& shape,
                                              const OperationSetting& setting = {});

// ----------------------------------------------------------------------- MFU

// Useful model FLOPs ÷ (seconds × peak × chips) (seed Phase 03 ch. 4). Throws
// when the FLOPs exceed what the chips could do in that time (MFU > 1).
double mfu(double model_flops, double seconds, const Chip& chip, std::int64_t n_chips);

// MFU with recomputation counted as useful work: hardware FLOPs = model FLOPs
// × `recompute` (8/6 with full activation checkpointing; ≥ 1, so HFU ≥ MFU).
double hfu(double model_flops, double seconds, const Chip& chip, std::int64_t n_chips,
           double recompute = recompute_factor(Checkpointing::full));

// Wall-clock of a step split by the unit that was busy (seed Phase 03 ch. 4).
// Defaults are the seed's example (100 / 45 / 60 / 50 / 25 s).
struct MfuBudgetInputs {
  double matmul_seconds = 100;
  double vector_seconds = 45;
  double memory_seconds = 60;
  double comms_seconds = 50;
  double optimizer_seconds = 25;
  void validate() const;
  bool operator==(const MfuBudgetInputs&) const = default;
};

// What costs the matmul unit the most idle time; `none` when nothing does.
// Ties go to the first in this order.
enum class MfuLever { vector, memory, comms, optimizer, none };
std::string_view to_string(MfuLever lever);

struct MfuBudget {
  double total_seconds = 0;
  double mfu = 0;  // matmul busy fraction
  double vector_fraction = 0;
  double memory_fraction = 0;
  double comms_fraction = 0;
  double optimizer_fraction = 0;
  MfuLever biggest_lever = MfuLever::none;
  double biggest_lever_fraction = 0;  // its share of the step; 0 for none
};

// The accounting identity: the five fractions sum to 1.
MfuBudget mfu_budget(const MfuBudgetInputs& in);
// The same step with one unit's seconds removed: what pulling that lever
// buys ("removing the biggest lever lifts MFU to …"). `none` removes nothing.
MfuBudget mfu_budget_without(const MfuBudgetInputs& in, MfuLever lever);

struct MfuAgendaItem {
  MfuLever lever = MfuLever::none;
  double fraction = 0;  // of the step
};
// The step's non-matmul time as an agenda: vector, memory, comms and
// optimizer, largest share first (ties keep that order).
std::vector<MfuAgendaItem> mfu_agenda(const MfuBudget& budget);

// ------------------------------------------------------- prefill and decode

// Forward FLOPs of the sequence-dependent attention matmuls (QKᵀ and A·V)
// when `new_tokens` are prefilled after `prior_context_tokens` already in the
// cache: 4·L·H·d_h per (query, key) pair (seed Phase 03 extension 1; Phase 00
// Break 1). `full_matrix` counts new × (prior + new) pairs, `causal_half`
// only the unmasked ones.
std::int64_t prefill_attention_flops(std::int64_t n_layers, std::int64_t n_heads,
                                     std::int64_t d_head, std::int64_t new_tokens,
                                     std::int64_t prior_context_tokens,
                                     CausalMask mask = CausalMask::full_matrix);

// Prefill is compute-bound: 2N FLOPs per token, forward only — not 6N, which
// is training (seed Phase 03 ch. 5) — plus any attention FLOPs, at `mfu_fraction`
// of the chips' peak.
double prefill_seconds(std::int64_t n_tokens, double n_params, const Chip& chip,
                       std::int64_t n_chips, double mfu_fraction = 1.0,
                       std::int64_t attention_flops = 0);

// Decode is memory-bound and has no peak FLOP/s in it: each of `n_tokens`
// steps reads the weights once (shared by the batch) plus every request's KV
// cache, over the chips' aggregate bandwidth (seed Phase 03 ch. 5 and ch. 8).
double decode_seconds(std::int64_t n_tokens, double n_params, const Chip& chip,
                      std::int64_t n_chips, double bytes_per_param = 2.0, std::int64_t batch = 1,
                      std::int64_t kv_bytes_per_request = 0, double bandwidth_efficiency = 1.0);

// ceil(N × bytes per parameter ÷ HBM per chip): chips needed just to hold the
// weights (seed Phase 03 ch. 6).
std::int64_t chips_to_hold_weights(double n_params, const Chip& chip, double bytes_per_param = 2.0);

// One interactive turn (seed Claim 14 and Phase 03 ch. 6). Defaults are the
// talk's agent: Llama3-70B on TPU v5e, 8k incremental prefill, 128 decode
// tokens, a 1 s budget of which 250 ms is scaffolding.
struct TurnInputs {
  std::string chip = "TPU v5e";
  std::int64_t n_chips = 1;
  double n_params = 70e9;        // drives prefill FLOPs and decode bytes (active, for an MoE)
  double n_resident_params = 0;  // held in HBM; 0 = n_params (total, for an MoE)
  std::int64_t prefill_tokens = 8192;
  std::int64_t decode_tokens = 128;
  std::int64_t batch = 1;
  double bytes_per_param = 2.0;
  std::int64_t kv_bytes_per_request = 0;     // the seed's napkin ignores the KV cache
  std::int64_t prefill_attention_flops = 0;  // see prefill_attention_flops()
  double prefill_mfu = 1.0;                  // the talk: "assume fully compute bound"
  double decode_bandwidth_efficiency = 1.0;
  double overhead_seconds = 0.25;  // scaffolding, load balancing, validation, KV retrieval
  double budget_seconds = 1.0;
  // Serial time per decode step that more chips cannot shrink (kernel
  // launches, collective hops, sampling). 0 in the seed's napkin.
  double per_step_floor_seconds = 0.0;
  // The largest slice chips_for_latency_budget() considers.
  std::int64_t max_chips = 65536;
  void validate() const;
};

struct TurnLatency {
  std::int64_t n_chips = 0;
  double prefill_seconds = 0;
  double decode_seconds = 0;  // includes decode_tokens × per_step_floor_seconds
  double overhead_seconds = 0;
  double total_seconds = 0;
  bool meets_budget = false;  // total ≤ budget
};

// The turn at in.n_chips.
TurnLatency interactive_latency(const TurnInputs& in);
// The same turn on `n_chips` chips (in.n_chips ignored).
TurnLatency interactive_latency(const TurnInputs& in, std::int64_t n_chips);

// The smallest power-of-two slice (1, 2, 4, … ≤ max_chips) whose turn meets
// the budget; std::nullopt when no amount of hardware does — the budget is at
// or below the serial floor, or it needs more than max_chips. Terminates after
// at most log2(max_chips) + 1 trials. Throws when budget ≤ overhead: that
// budget is impossible, not merely expensive (seed Phase 03 lab traps).
// Latency only: compare with chips_to_hold_weights().
std::optional<std::int64_t> chips_for_latency_budget(const TurnInputs& in);

// Chips to hold the resident weights for the turn's model and chip.
std::int64_t chips_to_hold_weights(const TurnInputs& in);

// What a latency budget allows: a slice that meets it, none up to max_chips
// (the answer is a smaller model), or none at all because the budget is at or
// below the fixed overhead (no hardware helps: cut the overhead).
enum class LatencyVerdict { meets, no_slice, below_overhead };
struct ServingNeed {
  LatencyVerdict verdict = LatencyVerdict::meets;
  std::optional<std::int64_t> chips_for_budget;  // set when verdict == meets
  std::int64_t chips_to_hold_weights = 0;
  // The deployment: max(chips for the budget, chips to hold the weights),
  // and which of the two sets it. Empty when nothing meets the budget.
  std::optional<std::int64_t> deploy_chips;
  bool deploy_latency_bound = true;  // false: the weights, not the budget, set the count
};
// The latency napkin's verdict for a turn. Unlike chips_for_latency_budget()
// it does not throw for a budget at or below the overhead: it says so.
ServingNeed serving_need(const TurnInputs& in);

// The stacked prefill / decode / overhead components at 1, 2, 4, … ≤ max_chips.
std::vector<TurnLatency> latency_vs_chips(const TurnInputs& in, std::int64_t max_chips = 1024);

struct ModelSizePoint {
  double n_params = 0;
  std::optional<std::int64_t> chips_for_budget;
  std::int64_t chips_to_hold_weights = 0;
  double single_chip_seconds = 0;  // the turn's total on one chip
};

// "The answer is a smaller model" (seed Phase 03 ch. 6): for each N (both
// n_params and n_resident_params set to it), chips for the budget and to hold.
// chips_for_budget is empty when no slice meets the budget, including a
// budget at or below the overhead.
std::vector<ModelSizePoint> model_size_sweep(const TurnInputs& in,
                                             const std::vector<double>& n_params);

struct ServableSizes {
  double largest_on_one_chip = 0;  // the largest N that meets the budget on one chip; 0: none
  double largest_on_any = 0;       // … on any slice up to max_chips; 0: none
};
// From a model-size sweep (in ascending N, as model_size_sweep returns it).
ServableSizes largest_servable(const std::vector<ModelSizePoint>& sweep);

// ------------------------------------------------------------ the decode wall

struct DecodeShape {
  double n_params = 70e9;
  std::int64_t n_layers = 80;
  std::int64_t n_kv_heads = 8;
  std::int64_t d_head = 128;
  std::int64_t seq_len = 8192;  // tokens in each request's KV cache
  double bytes_per_param = 2.0;
  std::int64_t kv_bytes_per_elem = 2;
  // KV bytes one token adds over all layers; 0 = 2·L·n_kv·d_head·kv_bytes_per_elem.
  // Set it from kv_cache_bytes_per_token(shape) for MLA, whose cache is a latent.
  std::int64_t kv_bytes_per_token = 0;
  void validate() const;
};

// Decode FLOP/byte at a batch: weights read once and shared, KV per request
// (seed Phase 03 ch. 8, via the Phase 00 decode_arithmetic_intensity).
double decode_batch_intensity(const DecodeShape& shape, std::int64_t batch);

struct DecodeIntensityPoint {
  std::int64_t batch = 0;
  double intensity = 0;
  double weight_bytes = 0;
  std::int64_t kv_bytes = 0;     // the whole batch's cache
  double kv_share_of_bytes = 0;  // kv ÷ (weights + kv)
  double fraction_of_ridge = 0;  // intensity ÷ ridge
  double attainable_flops_per_s = 0;
  Bound bound = Bound::memory;
};

// Of the bytes a decode step reads, the KV cache's share: kv ÷ (weights + kv).
double kv_share_of_bytes(double weight_bytes, double kv_bytes);

DecodeIntensityPoint decode_intensity_point(const Chip& chip, const DecodeShape& shape,
                                            std::int64_t batch);
std::vector<DecodeIntensityPoint> decode_intensity_sweep(const Chip& chip, const DecodeShape& shape,
                                                         const std::vector<std::int64_t>& batches);

// lo, 2·lo, 4·lo, … ≤ hi (lo ≥ 1): the batch and chip-count axes.
std::vector<std::int64_t> powers_of_two(std::int64_t lo, std::int64_t hi);

// -------------------------------------------------------- co-design levers

// Fraction of a padded matmul that is real work along one dimension:
// dim ÷ (dim rounded up to the tile) (seed Claim 4 and Phase 03 ch. 7).
double tile_efficiency(std::int64_t dim, std::int64_t tile = 128);
// The same for a whole (m × k) @ (k × n) matmul: the three dimensions compound.
double matmul_tile_efficiency(std::int64_t m, std::int64_t k, std::int64_t n,
                              std::int64_t tile = 128);

struct TilePoint {
  std::int64_t dim = 0;
  std::int64_t padded_dim = 0;
  double efficiency = 0;
};

// Every dimension in [lo, hi] (at most 1,000,000 of them).
std::vector<TilePoint> tile_efficiency_sweep(std::int64_t lo, std::int64_t hi,
                                             std::int64_t tile = 128);

// KV cache shrink of GQA: n_query_heads ÷ n_kv_heads. Throws when kv heads
// exceed query heads or do not divide them (seed Phase 03 lab trap).
double gqa_saving(std::int64_t n_query_heads, std::int64_t n_kv_heads);

// A serving deployment for the KV-heads lever. Defaults are the seed's:
// a 70B model on 8 × H100 at 8k context (Phase 00 ch. 9, Phase 03 ch. 7).
struct KvServing {
  double n_params = 70e9;
  std::int64_t n_layers = 80;
  std::int64_t n_query_heads = 64;
  std::int64_t d_head = 128;
  std::int64_t seq_len = 8192;
  std::int64_t batch = 32;  // for the cache size of a batch
  std::string chip = "H100";
  std::int64_t n_chips = 8;
  double bytes_per_param = 2.0;
  std::int64_t kv_bytes_per_elem = 2;
  std::int64_t workspace_bytes = 10'000'000'000;
  void validate() const;
};

struct GqaPoint {
  std::int64_t n_kv_heads = 0;
  std::int64_t group_size = 0;  // query heads per KV head
  double saving = 0;            // KV cache shrink vs MHA
  std::int64_t kv_bytes_per_request = 0;
  std::int64_t kv_bytes_batch = 0;
  std::int64_t concurrent_requests = 0;  // that fit beside weights and workspace
};

GqaPoint gqa_point(const KvServing& serving, std::int64_t n_kv_heads);
// Every valid kv-heads count (the divisors of n_query_heads), MHA first.
std::vector<GqaPoint> kv_heads_sweep(const KvServing& serving);

// Depth vs width at fixed N ≈ 12·L·d² (seed Phase 00 ch. 4, Phase 03 ch. 7):
// the bandwidth term of a decode step is the same at every depth; depth adds
// serial per-layer latency and narrower, less tile-friendly matmuls.
struct DepthWidthInputs {
  double n_params = 7e9;
  std::string chip = "H100";
  std::int64_t n_chips = 1;
  double bytes_per_param = 2.0;
  std::int64_t tile = 128;
  double per_layer_serial_seconds = 0.0;  // launch/sync cost per layer per step
  void validate() const;
};

struct DepthWidthPoint {
  std::int64_t n_layers = 0;
  std::int64_t d_model = 0;  // nearest integer to sqrt(N ÷ 12L)
  double aspect_ratio = 0;   // d_model ÷ n_layers
  double tile_efficiency = 0;
  double weight_bytes_per_layer = 0;
  double decode_step_seconds = 0;  // bandwidth term + L × per-layer serial cost
  double serial_seconds_per_step = 0;
};

DepthWidthPoint depth_vs_width(const DepthWidthInputs& in, std::int64_t n_layers);
std::vector<DepthWidthPoint> depth_vs_width_sweep(const DepthWidthInputs& in,
                                                  const std::vector<std::int64_t>& layers);

}  // namespace napkin
