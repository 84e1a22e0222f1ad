// Serving layouts: a model sharded over a slice of chips as tensor ×
// pipeline (× expert) parallelism, at a weight and a KV-cache precision —
// memory per chip, prefill and decode times with their communication, the
// turn's latency, throughput per chip and the cost of a token.
//
// The seed's latency napkin (Phase 03 ch. 6, Claim 14) asks "16 chips is not
// a number, it is a topology: how would we shard on 4×4?". This module answers
// it with the standard model of LLM serving:
//   - weights: sharded TP ways inside a layer (Megatron-LM, Shoeybi et al.
//     2019), PP ways across layers, routed experts EP ways more (GShard,
//     Lepikhin et al. 2020; DeepSeek-V3 §3.4: attention data-parallel across
//     the EP ranks, experts spread over all of them);
//   - KV cache: sharded with the attention heads up to the KV-head count and
//     replicated beyond (GQA, Ainslie et al. 2023) — see kv_geometry();
//   - prefill: max(FLOPs incl. the attention T² term ÷ peak, bytes ÷ HBM
//     bandwidth) per stage, chunked through the pipeline as in the seed's
//     Claim 12 (bubble (S−1)/(M+S−1));
//   - decode step: max(FLOPs ÷ peak, bytes read ÷ HBM bandwidth) per stage,
//     plus two TP all-reduces of the batch's activations per layer
//     (Megatron-LM) and, for MoE, a dispatch and a combine all-to-all per
//     layer; a pipeline passes every token through its S stages in turn plus
//     S−1 hops (Pope et al. 2022, "Efficiently Scaling Transformer
//     Inference", §3);
//   - communication by the α–β model of collectives.h over the hardware
//     table's network fields, shared with the parallelism planner.
// Pool roles and the disaggregation argument follow DistServe (Zhong et al.
// 2024) and Splitwise (Patel et al. 2024).
//
// Times are seconds, sizes bytes, rates per second; shapes' counts come from
// the Phase 00 algebra. Invalid input throws std::invalid_argument naming the
// parameter, its unit and the accepted range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algebra.h"
#include "cluster_cost.h"
#include "hardware.h"
#include "quantize.h"
#include "roofline.h"
#include "serving_engine.h"

namespace napkin {

// ------------------------------------------------------ the model as served

// The KV cache of one token in one layer: `groups` independent groups of
// `elements_per_group` values. GQA/MHA/MQA keep a K and a V vector per KV head
// (groups = KV heads, 2·d_head values each); tensor parallelism splits the
// groups over its ranks and replicates a group on every rank beyond the group
// count. MLA (DeepSeek-V2) keeps one compressed latent of kv_lora_rank +
// qk_rope_head_dim values shared by every head: groups = 1, replicated on
// every TP rank.
struct KvGeometry {
  std::int64_t groups = 1;
  std::int64_t elements_per_group = 0;
};

// The one place a shape's KV-cache layout is decided: MLA shapes plug in here
// ({1, kv_lora_rank + qk_rope_head_dim}); everything else serving computes
// about the cache (bytes per chip, reads per step, transfer) follows from it.
KvGeometry kv_geometry(const ModelShape& shape);

// Attention's sequence-dependent FLOPs per (query, key) pair per layer, all
// heads: QKᵀ and A·V, 4·heads·d_head (seed Phase 03). MLA with absorbed
// projections plugs in here: 2·heads·(kv_lora_rank + qk_rope_head_dim) +
// 2·heads·kv_lora_rank.
double attention_flops_per_pair_per_layer(const ModelShape& shape);

// A model as the serving arithmetic sees it. Parameter counts are doubles:
// they only ever multiply bytes and FLOPs here.
struct ServingModel {
  double layer_params = 0;                 // all blocks: attention, MLPs, every expert, norms
  double routed_expert_params = 0;         // of layer_params: routed experts (all held)
  double active_layer_params = 0;          // of layer_params: what one token computes through
  double active_routed_expert_params = 0;  // of active_layer_params: its top-k routed experts
  double input_embedding_params = 0;       // the input table: a row gather, not a matmul
  double output_embedding_params = 0;      // the unembedding matmul (the same table when tied)
  bool tied_embeddings = false;
  std::int64_t n_layers = 1;
  std::int64_t n_moe_layers = 0;
  std::int64_t d_model = 1;
  std::int64_t n_heads = 1;
  std::int64_t n_kv_heads = 1;
  std::int64_t d_head = 1;
  std::int64_t n_experts = 0;
  std::int64_t top_k = 0;
  // The dense MLP's hidden width and form, for the per-kernel engines' GEMM
  // shapes (kernel_time.h); 0: not known (a MoE model's MLPs are experts).
  std::int64_t d_ff = 0;
  bool gated = true;
  // A MoE model's MLP widths for the same GEMM shapes (0: not known, e.g.
  // MLA attention or a bare parameter count): each routed expert's, the
  // shared experts' together, and the dense MLP of its dense layers.
  std::int64_t expert_d_ff = 0;
  std::int64_t shared_d_ff = 0;
  std::int64_t dense_layer_d_ff = 0;
  KvGeometry kv;
  double attention_flops_per_pair_per_layer = 0;  // split over the heads' TP ranks
  bool shape_assumed = false;                     // built from a bare parameter count

  double total_params() const;   // held in HBM
  double active_params() const;  // 2 × this = FLOPs per token (the seed's 2N)
  bool is_moe() const { return n_experts > 0 && routed_expert_params > 0; }
  void validate() const;
};

// From a shape: counts from count_params(); routed-expert weights from
// total − active (= MoE layers × (experts − top_k) × one expert) so that any
// shared-expert width stays with the always-read weights.
ServingModel serving_model(const ModelShape& shape);

// The latency napkin's bare parameter count N: every parameter is a layer
// parameter, so a token costs exactly 2N FLOPs and a step reads exactly N
// weights, as in the seed; the layers, width, heads and KV heads (for the
// attention term, the KV cache and TP) come from serving_shape_for_params(N).
ServingModel serving_model(double n_params);

// Whether a checkpoint's embedding tables are held, read and multiplied in 16
// bits below 16-bit weights: under a per-kernel engine, as quantized
// checkpoints ship them (Model Optimizer's export excludes lm_head; AutoFP8,
// AutoAWQ and GPTQ leave it unquantized); `ideal` keeps the seed's napkin,
// every parameter at the weight precision. Throws on an unknown engine.
bool tables_in_16_bit(std::string_view engine, Dtype weights);

// dense_shape_for_params(N) with the head count rounded to a power of two
// (d_head = d_model ÷ heads) so that power-of-two TP degrees divide it.
ModelShape serving_shape_for_params(double n_params);

// -------------------------------------------------------------- the layout

// A slice of tp × pp × ep chips. Ranks are numbered TP fastest, then EP, then
// PP, and fill the hardware's fast domains (nodes) in order.
struct ServingLayout {
  std::int64_t tp = 1;  // tensor parallel: splits every layer's heads and MLP
  std::int64_t pp = 1;  // pipeline stages: splits the layers
  std::int64_t ep = 1;  // expert parallel (MoE): splits the routed experts;
                        // attention runs data-parallel over these ranks
  std::int64_t chips() const { return tp * pp * ep; }
  bool operator==(const ServingLayout&) const = default;
};

// Throws naming `tp_name` when TP does not divide the attention heads,
// `pp_name` when PP exceeds the layers, `ep_name` when EP does not divide the
// routed experts (or is not 1 for a dense model).
void validate_layout(const ServingModel& model, const ServingLayout& layout,
                     std::string_view tp_name = "tp", std::string_view pp_name = "pp",
                     std::string_view ep_name = "ep");

// ---------------------------------------------------------- the assumptions

struct ServingAssumptions {
  bool communication = true;    // TP all-reduces, EP all-to-alls, PP hops, KV transfer
  bool kv_cache = true;         // hold and read every request's KV cache
  bool attention_flops = true;  // attention's sequence-dependent FLOPs (prefill's T² term)
  // Prefill's TP all-reduces and expert all-to-alls hidden behind its matmuls
  // (collective matmuls, asynchronous TP) instead of following them as in
  // Megatron-style serving. Decode's small collectives are latency-bound and
  // are never hidden.
  bool overlap_prefill_comm = false;
  // Fraction of the matmul peak reached; unset: the chip's calibrated
  // efficiency.matmul from the hardware table.
  std::optional<double> matmul_efficiency;
  // Fraction of the HBM datasheet bandwidth that weight and KV-cache reads
  // reach; unset: the chip's streaming-read fraction from the hardware table
  // (Chip::hbm_stream_efficiency, e.g. H100 0.90, A100 0.88). 1.0 is the
  // datasheet roofline (napkin(), the CLI's --ideal).
  std::optional<double> hbm_efficiency;
  double hbm_usable_fraction = 0.9;  // of HBM for weights + KV; the rest holds activations and
                                     // workspace (vLLM's gpu_memory_utilization default)
  // The engine's memory setting as a run states it, in place of the preset's
  // (ServingEngine::hbm_usable_fraction), read as that engine reads it:
  // TensorRT-LLM's kv_cache_free_gpu_mem_fraction (the KV cache's share of
  // the memory left free after the weights), vLLM's gpu_memory_utilization
  // and SGLang's mem_fraction_static (weights + KV cache's share of the
  // device's memory); for engines without one (ideal, jetstream) it replaces
  // hbm_usable_fraction. Unset: the engine's.
  std::optional<double> engine_memory_fraction;
  // Deprecated: the `tensorrt-llm-0.6` engine preset sets this (serving_engine.h).
  // Decode's attention reads a KV head's cache once per query head that
  // shares it (GQA: n_heads ÷ n_kv_heads times per chip) instead of once per
  // KV head, as TensorRT-LLM's generation attention did before its XQA kernel
  // (NVIDIA, "Boost Llama throughput with XQA", TensorRT-LLM
  // docs/source/blogs/XQA-kernel.md: XQA "reduces data loading" for MQA/GQA,
  // released with v0.8). Off: what the engine does.
  bool kv_reads_per_query_head = false;
  // Beyond the KV-head count, shard the KV cache over the extra TP ranks
  // (attention data parallelism: each rank holds and reads its share of the
  // requests' caches) instead of replicating it (Megatron-style TP). The
  // scaling book's LLaMA-3-70B on a TPU v5e 4x4 (Austin et al. 2025, "How to
  // Scale Your Model", ch. "Serving LLaMA") assumes this.
  bool shard_kv_beyond_heads = false;
  // The seed's napkin: no communication, no KV cache, no attention term, the
  // datasheet peak and bandwidth, all of HBM usable (Phase 03 ch. 6: "assume
  // fully compute bound on prefill, HBM-bound on decode").
  static ServingAssumptions napkin();
  // The HBM fraction used on `chip`: hbm_efficiency, or the chip's
  // streaming-read fraction when unset.
  double hbm_efficiency_on(const Chip& chip) const;
  void validate() const;
};

// What the slice does: both phases (prefill interleaved with the batch's
// decode steps), or one phase of a disaggregated deployment.
enum class ServingPool { colocated, prefill, decode };
std::string_view to_string(ServingPool pool);

struct ServingInputs {
  std::string chip = "TPU v5e";
  ServingLayout layout;
  std::int64_t batch = 1;             // requests decoding together on the slice
  std::int64_t prompt_tokens = 8192;  // new tokens prefilled per turn
  std::int64_t cached_tokens = 0;     // context already in the KV cache before the turn
  std::int64_t decode_tokens = 128;   // tokens generated per turn
  Dtype weights = Dtype::bf16;
  Dtype kv = Dtype::bf16;
  double overhead_seconds = 0.25;  // scaffolding, load balancing, validation (seed Claim 14)
  ServingPool pool = ServingPool::colocated;
  // The inference engine preset (serving_engine.h): how the step is timed,
  // attention's KV reads, fixed costs, KV blocks and reserved memory.
  std::string engine = "ideal";
  ServingAssumptions assume;
  CostInputs cost;  // chip-hour price, $/kWh, PUE
  void validate() const;
};

// ----------------------------------------------------------------- results

// Bytes per chip on the fullest pipeline stage (the last: its layers plus
// the unembedding table).
struct ServingMemory {
  double weights_bytes = 0;
  double kv_bytes = 0;  // every resident request at its full context
  double total_bytes = 0;
  double usable_bytes = 0;  // HBM × usable fraction
  double hbm_bytes = 0;
  std::int64_t kv_groups_per_chip = 0;  // KV heads (or MLA latents) held per chip
  bool fits = false;                    // total ≤ usable
};

// One labelled slice of a stacked bar; a list of them sums to its whole.
struct TimePart {
  std::string_view label;
  double seconds = 0;
};

// A prefill, or one decode step, on the critical path. `seconds` is the sum
// of the parts: the roofline part (compute, or weights + KV reads when
// memory-bound), tensor-parallel and expert communication, pipeline hops that
// compute does not hide, and the pipeline bubble.
struct PhaseTime {
  double seconds = 0;
  double compute_seconds = 0;  // FLOPs ÷ (peak × efficiency), along the critical path
  double memory_seconds = 0;   // bytes ÷ (HBM × efficiency), along the critical path
  double weights_read_seconds = 0;
  double kv_read_seconds = 0;
  double roofline_seconds = 0;  // max(compute, memory)
  double tp_comm_seconds = 0;
  double ep_comm_seconds = 0;
  double pipeline_hop_seconds = 0;
  // Prefill: the (S−1) steps filling and draining the pipeline. Decode: the
  // time the last stage (which also holds the unembedding) needs beyond one
  // trip to serve every micro-batch in flight.
  double pipeline_bubble_seconds = 0;
  Bound bound = Bound::memory;
  // Per-kernel engines: the roofline part as the kernels the engine runs,
  // summed (gemm + attention + element-wise + launch gaps = roofline), plus
  // the engine's host work per step or per call.
  bool per_kernel = false;
  double gemm_seconds = 0;         // the GEMMs (kernel_time.h per GEMM on dense models)
  double attention_seconds = 0;    // max(attention FLOPs ÷ attention rate, KV bytes ÷ HBM)
  double elementwise_seconds = 0;  // norms, residual adds: activation bytes ÷ HBM
  double launch_seconds = 0;       // kernels × the engine's launch gap
  double host_seconds = 0;         // the engine's per-step (decode) or per-call (prefill) work
  double comm_seconds() const { return tp_comm_seconds + ep_comm_seconds + pipeline_hop_seconds; }
  // The fraction of the phase the roofline accounts for (the rest is
  // communication and pipeline bubbles); 0 for a phase that takes no time.
  double roofline_share() const { return seconds > 0 ? roofline_seconds / seconds : 0; }
  // compute or (weights read, KV cache read), TP all-reduce, expert
  // all-to-all, pipeline hops, pipeline bubble; zero parts left out.
  std::vector<TimePart> parts() const;
};

// The cost of a token at a throughput, from the chip-hour price and the
// chip's power: the user's own numbers for the seed's "99 % of the cost of
// operation is power" (Claim 5).
struct TokenCost {
  double dollars_per_million_tokens = 0;  // chip-hour price ÷ tokens per chip-hour
  double joules_per_token = 0;            // chip TDP × PUE ÷ tokens/s per chip
  double energy_dollars_per_million_tokens = 0;
  // Energy's share of the chip-hour price: TDP × PUE × $/kWh ÷ price. It
  // counts the chips at full power, cooling and power delivery (PUE); not host
  // CPUs, networking or storage. Capped at 1 (price_below_energy then).
  double energy_share_of_bill = 0;
  // The chip-hour price at which energy would be 99 % of the bill.
  double chip_hour_dollars_for_99_percent = 0;
  bool price_below_energy = false;
  // The seed's DRAM-only model at this layout: bits read per token × 20 pJ.
  double dram_joules_per_token = 0;
};

// Throws when tokens_per_second_per_chip is not > 0.
TokenCost token_cost(const Chip& chip, double tokens_per_second_per_chip, const CostInputs& cost,
                     double dram_bits_per_token = 0.0);
// One sentence stating the share and what it includes, for the CLI, the
// panels and the memo.
std::string energy_share_text(const Chip& chip, const CostInputs& cost);

struct ServingResult {
  ServingLayout layout;
  std::int64_t chips = 0;
  std::int64_t batch = 0;
  ServingPool pool = ServingPool::colocated;
  ServingMemory memory;
  bool fits = false;
  bool fp8_compute = false;         // the chip's FP8 peak is used
  bool fp4_compute = false;         // the chip's FP4 (NVFP4) peak is used
  double compute_flops_per_s = 0;   // per chip, after efficiency
  double hbm_bytes_per_s = 0;       // per chip, after efficiency
  double hbm_efficiency = 1;        // the fraction of the datasheet bandwidth assumed
  PhaseTime prefill;                // one request's prompt on this slice
  std::int64_t prefill_chunks = 1;  // prompt chunks streamed through the pipeline
  PhaseTime decode_step;            // one step of the batch at the turn's mean context
  std::int64_t micro_batches = 1;   // in flight through the pipeline
  double kv_transfer_seconds = 0;   // prefill pool → decode pool, in TTFT
  double overhead_seconds = 0;
  double prefill_seconds = 0;
  double decode_step_seconds = 0;
  double decode_seconds = 0;  // decode_tokens × decode_step_seconds
  // Colocated only: the other requests' prefills stalling this request's
  // steps, (batch − 1) × prefill per turn in steady state.
  double interference_seconds = 0;
  double ttft_seconds = 0;  // overhead + prefill (+ KV transfer)
  double tpot_seconds = 0;  // decode step + interference ÷ decode tokens
  double turn_seconds = 0;  // ttft + decode_tokens × tpot
  double comm_seconds_per_step = 0;
  // Generated tokens per second per chip in steady state (prompt tokens for a
  // prefill pool).
  double tokens_per_second_per_chip = 0;
  double requests_per_second = 0;  // per slice
  TokenCost cost;
  // overhead, prefill, KV transfer, decode, other requests' prefills.
  std::vector<TimePart> turn_parts() const;
};

// Evaluates in.layout at in.batch. Never throws for a layout that does not
// fit: memory.fits says so and the times are still computed.
ServingResult evaluate_serving(const ServingModel& model, const ServingInputs& in);

// A static batch as gptSessionBenchmark-style runs time it (TensorRT-LLM
// docs/source/performance.md): in.batch identical requests, one context phase
// for the whole batch — the weights read once, batch × the linear and
// attention FLOPs, batch × the prompts' KV writes, the TP all-reduces of
// batch × prompt tokens — which also yields the first output token, then
// decode_tokens − 1 generation steps of the whole batch at their mean
// context. Uses in.layout, in.batch, the token counts, precisions and
// assumptions; in.pool is ignored; in.overhead_seconds is added once.
struct StaticBatchResult {
  ServingLayout layout;
  std::int64_t chips = 0;
  std::int64_t batch = 0;
  ServingMemory memory;  // every request at its full context
  bool fits = false;
  double hbm_efficiency = 1;        // the fraction of the datasheet bandwidth assumed
  PhaseTime prefill;                // the whole batch's context phase
  std::int64_t prefill_chunks = 1;  // chunks streamed through the pipeline
  PhaseTime decode_step;            // one generation step of the batch
  std::int64_t decode_steps = 0;    // decode_tokens − 1
  double mean_context_tokens = 0;   // a request's cache, averaged over the steps
  double prefill_seconds = 0;
  double decode_step_seconds = 0;
  double overhead_seconds = 0;
  double total_seconds = 0;  // overhead + prefill + decode_steps × step
  // batch × decode_tokens ÷ total ÷ chips (NVIDIA's out_tps per GPU).
  double tokens_per_second_per_chip = 0;
};

StaticBatchResult evaluate_static_batch(const ServingModel& model, const ServingInputs& in);

// KV-cache bytes of one token on one chip of the layout (its stage's layers,
// its share of the groups) at a precision; the whole model on one chip at
// tp = pp = 1.
double kv_bytes_per_token_per_chip(const ServingModel& model, const ServingLayout& layout,
                                   Dtype kv);

}  // namespace napkin
