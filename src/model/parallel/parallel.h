// Phase 04 — the parallelism planner: for a model shape, a cluster and a
// training set-up, how to split a step over the chips (a Layout), what each
// rank holds (memory per pipeline stage), how long a step takes and where the
// time goes, and the MFU that follows; plus the search over every layout.
//
// The parts and their sources:
//  - activation memory: Korthikanti et al., "Reducing Activation Recomputation
//    in Large Transformer Models" (MLSys 2023, arXiv:2205.05198) §4, eq. 1-5,
//    term by term, then extended to gated MLPs, GQA, FlashAttention and MoE;
//  - pipeline schedules: Narayanan et al., "Efficient Large-Scale Language
//    Model Training on GPU Clusters Using Megatron-LM" (SC'21) §2.2 — 1F1B
//    and the interleaved schedule, bubble (p−1)/m and (p−1)/(v·m);
//  - ZeRO: Rajbhandari et al. (SC'20) stages 1-3;
//  - kernels: kernel_time.h (roofline + wave quantization); collectives:
//    collectives.h (α–β ring and hierarchical).
// What the training software does is parallel_software.h.
// Implementation: parallel_memory.cpp (memory), parallel_time.cpp (time and
// the assembled result), parallel_search.cpp (search, Pareto front, MFU grid),
// parallel_schedule.cpp (the pipeline schedule as a Gantt list).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "algebra.h"
#include "hardware.h"
#include "parallel_software.h"

namespace napkin {

// ------------------------------------------------------------------ the set-up

// A cluster's constants fitted to its measured runs (a cluster profile, from
// napkin-cli calibrate): they replace the chip's datasheet efficiencies
// (hardware.h Efficiency) and the software's host time per kernel. Unset in a
// job: the datasheet values. Attention (fused) keeps the chip's efficiency.
struct CalibratedConstants {
  double matmul_efficiency = 0.8;        // GEMMs that fill whole waves: achieved ÷ peak
  double hbm_efficiency = 0.85;          // element-wise kernels: achieved ÷ HBM bandwidth
  double scale_up_efficiency = 0.8;      // collectives in a node: bus ÷ scale-up bandwidth
  double scale_out_efficiency = 0.8;     // collectives across nodes: bus ÷ scale-out bandwidth
  double host_dispatch_seconds = 10e-6;  // host time per kernel or collective
  std::int64_t runs = 0;                 // measured runs they were fitted on
  // What the runs ran under: the framework as the runs named it
  // ("megatron-deepspeed") and the software preset it maps to
  // ("megatron-2021"); "" when the profile does not say.
  std::string framework;
  std::string software;
  bool operator==(const CalibratedConstants&) const = default;
};

// The fit's uncertainty as two corners of the constants' bootstrap 90 %
// intervals: `slow` has every efficiency at its 5th percentile and the host
// time at its 95th, `fast` the opposite. A step timed at both brackets the
// calibrated step (correlations between constants ignored, so it is wide,
// not optimistic).
struct CalibratedInterval {
  CalibratedConstants slow;
  CalibratedConstants fast;
  bool operator==(const CalibratedInterval&) const = default;
};

// A model, a cluster and a step. Mixed-precision (bf16) training.
struct TrainingJob {
  ModelShape shape;
  std::string chip = "H100";
  std::int64_t n_chips = 1024;
  std::int64_t seq_len = 8192;      // tokens per sequence
  std::int64_t global_batch = 512;  // sequences per optimizer step
  double train_tokens = 15e12;      // tokens of the whole run, for days
  Optimizer optimizer = Optimizer::adam;
  // How MFU counts the attention matmuls: the whole s×s matrix (Megatron,
  // PaLM; the default) or the causal half a fused kernel executes.
  CausalMask attention_flops = CausalMask::full_matrix;
  TrainingSoftware software{};
  // The cluster: GPUs per node, scale-up and scale-out bandwidth per GPU.
  // Unset: the node the chip usually ships in (its hardware table row).
  std::optional<Network> network{};
  // Throws std::invalid_argument naming the first field out of range.
  void validate() const;
  bool operator==(const TrainingJob&) const = default;
  // The network in use: `network` or the chip's.
  const Network& cluster() const;
  // Fitted to the cluster's measured runs; unset: the datasheet values.
  std::optional<CalibratedConstants> calibrated{};
  // Device memory outside the tensors, as measured on the cluster (the
  // driver's used memory at the peak less the allocator's peak allocated):
  // replaces Napkin's itemised estimate (StageMemory's runtime, communication
  // buffers and fragmentation). Unset: the estimate.
  std::optional<std::int64_t> measured_non_tensor_bytes{};
  // `calibrated`, or the datasheet values it replaces (the chip's
  // efficiencies, the software's host dispatch; runs 0).
  CalibratedConstants constants() const;
};

// ------------------------------------------------------------------ the layout

// The modules a selective recomputation re-runs in the backward instead of
// storing their outputs (Megatron Core's --recompute-modules): the attention
// core (Korthikanti et al.; nothing stored beyond FlashAttention's own), the
// norms' outputs, MLA's up-projections (queries, keys and values from the
// latents), the routed experts' activation function, the dense MLP, the
// shared experts. A bit set; `selective` alone is the attention core.
// `op` is not a module but torchtitan's op-level policy (selective_ac_option
// "op"): in each block it keeps the outputs of the matrix multiplications
// but every second one (the keys, the output projection and the MLP's up
// projection of a gated MLP, or its down projection otherwise), the
// attention kernel's and the TP reduce-scatters', and recomputes the rest
// (torchtitan's parallelize_llama.py, _save_list and _custom_policy). Dense
// blocks with separate Q, K and V projections, as torchtitan's Llama; alone.
enum RecomputeModule : std::uint32_t {
  kRecomputeCoreAttn = 1u << 0,
  kRecomputeLayernorm = 1u << 1,
  kRecomputeMlaUpProj = 1u << 2,
  kRecomputeMoeAct = 1u << 3,
  kRecomputeMlp = 1u << 4,
  kRecomputeSharedExperts = 1u << 5,
  kRecomputeOp = 1u << 6,
};
// One spelling: the attention core alone is plain selective (0).
inline std::uint32_t canonical_recompute_modules(std::uint32_t m) {
  return m == kRecomputeCoreAttn ? 0u : m;
}
// "layernorm+moe_act" in Megatron's names; "" for none.
std::string recompute_modules_text(std::uint32_t modules);
// Parses Megatron's names joined by '+' (or given one by one): core_attn,
// layernorm, mla_up_proj, moe_act, mlp, shared_experts (and op). Throws
// std::invalid_argument naming the unknown module and the accepted names.
std::uint32_t parse_recompute_modules(std::string_view text);

// The largest value of each layout axis that a layout, a lock, a file, a
// --layout flag or a control takes (the smallest is 1; etp 0 means tp).
struct LayoutLimits {
  std::int64_t tp = 65'536;
  std::int64_t pp = 100'000;
  std::int64_t vpp = 1'024;
  std::int64_t dp = 100'000'000;
  std::int64_t cp = 65'536;
  std::int64_t ep = 65'536;
  std::int64_t micro_batch = 1'000'000;
  std::int64_t recompute_layers = 100'000;  // full:N and uniform:N
};
inline constexpr LayoutLimits kLayoutLimits{};

struct Layout {
  std::int64_t tp = 1;   // tensor-parallel ranks: heads and MLP columns split
  std::int64_t pp = 1;   // pipeline stages
  std::int64_t vpp = 1;  // model chunks per pipeline rank (interleaved schedule); 1 = 1F1B
  std::int64_t dp = 1;   // data-parallel replicas
  std::int64_t cp = 1;   // context-parallel ranks: each holds seq/cp tokens of every sequence
  std::int64_t ep = 1;   // expert-parallel ranks, carved out of DP × CP (× TP when etp < tp)
  // Expert tensor-parallel ranks: each routed expert's hidden units split
  // etp ways; 0 means tp (Megatron Core's default, expert_tensor_parallel_size
  // unset). etp = 1 with tp > 1 folds EP over TP, as the Qwen3 and
  // DeepSeek-V3 Megatron recipes run: the expert grid etp × ep × expert-DP
  // re-carves tp × dp × cp. Kept 0 when it equals tp (one spelling each).
  std::int64_t etp = 0;
  int zero = 1;  // ZeRO stage 0-3, sharding over DP × CP (or `shard`)
  // Hybrid sharding: ZeRO shards over groups of `shard` of the DP × CP ranks
  // and the groups hold replicas (PyTorch FSDP's HYBRID_SHARD, torchtitan's
  // data_parallel_shard_degree with data_parallel_replicate_degree, Megatron
  // Core's --num-distributed-optimizer-instances): the gathers and reduce-
  // scatters stay in the group, and the groups all-reduce their gradient
  // shards (once per step with ZeRO-1, per layer and micro-batch with ZeRO-2
  // and 3). 0: one group of all DP × CP ranks (kept 0 when it equals them:
  // one spelling each). Written "shard=N".
  std::int64_t shard = 0;
  std::int64_t micro_batch = 1;   // sequences per micro-batch
  bool sequence_parallel = true;  // shard norms/dropout over TP (no effect at tp = 1)
  Checkpointing recompute = Checkpointing::selective;
  // With full recomputation: the first N layers of each model chunk are
  // recomputed and the others keep their activations (Megatron's
  // --recompute-method block --recompute-num-layers N; torchtitan's layer
  // checkpointing of every k-th layer recomputes 1/k as many); 0: every
  // layer. Written "recompute=full:N".
  std::int64_t recompute_layers = 0;
  // With full recomputation of every layer (recompute_layers 0): the layers
  // checkpointed this many at a time (Megatron's --recompute-method uniform
  // --recompute-num-layers N): one checkpoint per group of a chunk's layers,
  // whose layers are re-materialized together in the backward. The same
  // FLOPs as 1; fewer checkpoints, a larger working set. Written
  // "recompute=uniform:N"; 1: each layer its own checkpoint ("full").
  std::int64_t recompute_group = 1;
  // With selective recomputation: the modules re-run (RecomputeModule bits);
  // 0 is the attention core alone, written "recompute=selective"; others
  // "recompute=selective:layernorm+moe_act".
  std::uint32_t recompute_modules = 0;
  // The modules a selective recomputation re-runs (the attention core where
  // none are named); 0 without selective recomputation.
  std::uint32_t selective_modules() const {
    if (recompute != Checkpointing::selective) return 0;
    return recompute_modules != 0 ? recompute_modules : kRecomputeCoreAttn;
  }
  // dp·tp·pp·cp; throws on overflow.
  std::int64_t chips() const;
  std::int64_t expert_tp() const { return etp > 0 ? etp : tp; }
  // The ranks ZeRO shards over (shard, or dp·cp) and the replicas of that
  // group (dp·cp ÷ it).
  std::int64_t zero_shard() const { return shard > 0 ? shard : dp * cp; }
  std::int64_t zero_replicas() const { return shard > 0 ? dp * cp / shard : 1; }
  // Expert data-parallel replicas: tp·dp·cp ÷ (etp·ep), the group that
  // reduces (and shards) the routed experts' gradients.
  std::int64_t expert_dp() const;
  bool operator==(const Layout&) const = default;
};

// "tp=8,pp=4,vpp=1,dp=32,cp=1,ep=1,zero=1,mb=1,sp=on,recompute=selective"
// (",etp=N" after ep when the experts' TP differs from tp; ",shard=N" after
// zero when ZeRO shards over fewer than dp·cp ranks; "recompute=full:N" for N
// layers of each chunk).
std::string to_string(const Layout& layout);
// "TP 2 · PP 5×8 · DP 25 · CP 4": the axes that split the model and the data
// (CP, EP and ETP only where they split), short enough for a read-out.
std::string layout_axes_text(const Layout& layout);
// The recompute entry's value: "none", "selective", "selective:layernorm+
// moe_act", "full" or "full:3".
std::string recompute_text(const Layout& layout);
// Reads that value back into `layout`'s recompute, recompute_layers and
// recompute_modules. Throws std::invalid_argument saying what it takes.
void parse_recompute_text(std::string_view value, Layout& layout);

// Parses the CLI's --layout text (keys tp, pp, vpp, cp, ep, etp, zero, mb, sp,
// recompute, which takes none, selective, full or full:N; dp=N optional). Missing keys keep
// `base`'s values; dp is derived as n_chips / (tp·pp·cp) when not given. Throws naming the key on a
// bad key, value, or a product that does not divide n_chips.
Layout parse_layout(std::string_view text, std::int64_t n_chips, const Layout& base = {});

// Micro-batches each pipeline runs per step: global batch / (dp × mb) (what
// layout_problem() requires to divide evenly).
inline std::int64_t micro_batches_per_step(const TrainingJob& job, const Layout& layout) {
  return job.global_batch / (layout.dp * layout.micro_batch);
}

// The ZeRO stage `layout` runs as: its own, or 1 where the software keeps a
// pipeline stage's ZeRO-3 weights gathered for the whole step
// (TrainingSoftware::zero3_gathers_once_with_pp).
inline int zero_as_run(const TrainingJob& job, const Layout& layout) {
  return layout.zero == 3 && layout.pp > 1 && job.software.zero3_gathers_once_with_pp ? 1
                                                                                      : layout.zero;
}

// Why `layout` cannot run `job` (divisibility, ranges), naming the field as a
// user types it; nullopt when it can. Memory is not checked here.
std::optional<std::string> layout_problem(const TrainingJob& job, const Layout& layout);

// Layers of each pipeline stage. Even when `pp` divides `n_layers`; otherwise
// the extra layers go to the middle stages first (the first and last stages
// also carry the embedding and the output layer, as Llama 3 405B's 126 layers
// on 16 stages: 7, 8 × 14, 7).
std::vector<std::int64_t> stage_layers(std::int64_t n_layers, std::int64_t pp);

// Layers of each of `chunks` model chunks of the interleaved schedule (chunk
// j·pp + i on stage i). All of ceil(L / chunks) when that divides L; else the
// edge chunks are a layer shorter, outermost first (Llama 3 405B: 126 layers
// in 16 × 4 chunks: 1, 2 × 62, 1 — stages of 7, 8 × 14, 7).
std::vector<std::int64_t> chunk_layers(std::int64_t n_layers, std::int64_t chunks);

// ---------------------------------------------------------- activation memory

// Korthikanti et al. 2022 §4 for the GPT layer they study (MHA, 4h GeLU MLP,
// dropout, no fused attention), bytes per layer for one micro-batch of b
// sequences of s tokens, hidden h, a heads, t tensor-parallel ranks:
//   none, t = 1:      sbh(34 + 5as/h)                       (eq. 1)
//   TP:               sbh(10 + 24/t + 5as/(ht))             (eq. 2)
//   TP + SP:          sbh/t · (34 + 5as/h)                  (eq. 3)
//   TP + selective:   sbh(10 + 24/t)
//   TP + SP + sel.:   34·sbh/t                              (eq. 5)
//   full:             2sbh (the layer input; 2sbh/t with SP)
// Exact when t divides h and a (the paper's shapes).
std::int64_t korthikanti_layer_activation_bytes(std::int64_t s, std::int64_t b, std::int64_t h,
                                                std::int64_t a, std::int64_t t,
                                                bool sequence_parallel, Checkpointing recompute);

// The same terms for any shape, per rank: gated MLPs keep the gate and up
// projections and the product (6·d_ff instead of 16h... per token, fused
// SwiGLU), GQA keeps n_kv_heads·d_head for K and V, FlashAttention keeps only
// the fp32 log-sum-exp instead of the s×s scores, no dropout drops the masks,
// context parallelism divides the tokens by cp. `moe_layer` uses the routed
// experts (top_k tokens per token through expert_d_ff, scaled by the load
// imbalance) and shared experts. Equals korthikanti_layer_activation_bytes for
// GPT shapes with dropout and without flash attention.
struct LayerActivationInputs {
  std::int64_t seq_len = 2048;
  std::int64_t micro_batch = 1;
  std::int64_t tp = 1;
  std::int64_t etp = 0;  // expert tensor-parallel ranks; 0 = tp
  std::int64_t cp = 1;
  bool sequence_parallel = false;
  Checkpointing recompute = Checkpointing::none;
  std::uint32_t recompute_modules = 0;  // with selective: RecomputeModule bits (0: core_attn)
  bool flash_attention = false;
  bool dropout = true;
  double moe_load_imbalance = 1.0;
  // The experts' outputs kept for the weighted combine's backward
  // (!TrainingSoftware::moe_probs_in_activation).
  bool moe_combine_keeps_outputs = true;
  // The gated activation's input kept in FP8 (TrainingSoftware::
  // fp8_activation_input).
  bool fp8_activation_input = false;
  // With sequence parallelism, the TP regions' inputs kept whole rather than
  // as the local shard (TrainingSoftware::tp_saves_gathered_inputs).
  bool tp_inputs_gathered = false;
  // RMSNorm as eager ops (TrainingSoftware::eager_norms): each norm keeps its
  // input's fp32 copy and the normalised output before the weight (4 + 2
  // bytes), not its bf16 input (2).
  bool eager_norms = false;
};
std::int64_t layer_activation_bytes(const ModelShape& shape, const LayerActivationInputs& in,
                                    bool moe_layer = false);

// --------------------------------------------------------------------- results

// Bytes on one rank of a pipeline stage.
struct StageMemory {
  std::int64_t stage = 0;
  std::int64_t layers = 0;
  std::int64_t in_flight = 0;  // micro-batches (model chunks when interleaved) held at the peak
  std::int64_t weights_bytes = 0;
  std::int64_t grads_bytes = 0;
  std::int64_t optimizer_bytes = 0;
  std::int64_t activations_bytes = 0;
  // Transient tensors of the step: pipeline send/receive, the sequence-parallel
  // gather, ZeRO-3's prefetched layers, expert all-to-all staging.
  std::int64_t buffers_bytes = 0;
  // Outside the tensors (see non_tensor_memory): the CUDA context and loaded
  // kernels, NCCL's buffers for each communicator the layout uses, and the
  // caching allocator's reserved-but-unused blocks; or, when the job carries
  // a measured figure, that figure as runtime_bytes and the other two zero.
  std::int64_t runtime_bytes = 0;
  std::int64_t comm_buffers_bytes = 0;
  std::int64_t fragmentation_bytes = 0;
  std::int64_t communicators = 0;  // NCCL communicators counted in comm_buffers_bytes
  bool non_tensor_measured = false;
  // On an XLA-compiled chip (Chip::xla_compiled) none of the three is counted.
  bool non_tensor_xla = false;
  // On a ROCm chip (Chip::rocm) the runtime is HIP's and the buffers RCCL's.
  bool non_tensor_rocm = false;
  std::int64_t total_bytes = 0;
  std::int64_t non_tensor_bytes() const {
    return runtime_bytes + comm_buffers_bytes + fragmentation_bytes;
  }
};

// Compute (and recomputation) by kind of kernel: GEMMs, attention (the fused
// kernel, or QKᵀ, softmax and A·V unfused), element-wise and norm kernels, and
// the time the GPU waits for an eager framework's host to dispatch the next
// kernel. Sums to StepTime's compute + recompute.
struct ComputeMix {
  double gemm_seconds = 0;
  double attention_seconds = 0;
  double elementwise_seconds = 0;
  double host_wait_seconds = 0;
  double total_seconds() const {
    return gemm_seconds + attention_seconds + elementwise_seconds + host_wait_seconds;
  }
  void add(const ComputeMix& o, double times = 1.0) {
    gemm_seconds += times * o.gemm_seconds;
    attention_seconds += times * o.attention_seconds;
    elementwise_seconds += times * o.elementwise_seconds;
    host_wait_seconds += times * o.host_wait_seconds;
  }
};

// The parts of one step; they add up to the step.
struct StepTime {
  double compute_seconds = 0;    // forward + backward kernels on the slowest stage
  double recompute_seconds = 0;  // re-run forward kernels
  double tp_comm_seconds = 0;    // exposed tensor-parallel collectives
  double pp_bubble_seconds = 0;  // pipeline fill and drain
  double pp_comm_seconds = 0;    // stage-to-stage sends
  double dp_comm_seconds = 0;    // exposed gradient reduce / parameter gathers
  double ep_comm_seconds = 0;    // expert all-to-alls
  double cp_comm_seconds = 0;    // exposed context-parallel K/V exchange
  double optimizer_seconds = 0;  // the optimizer step
  ComputeMix kernels;            // compute + recompute by kind (already in the parts above)
  double total_seconds() const;
  // Exposed communication: TP + PP sends + DP + EP + CP (the bubble apart).
  double exposed_comm_seconds() const;
  // Shares of the step (0 for a step that takes no time).
  double bubble_share() const;
  double exposed_comm_share() const;
};

struct LayoutResult {
  Layout layout;
  bool valid = false;  // divisibility and ranges hold
  bool fits = false;   // valid and the peak stage fits in HBM
  std::string reason;  // why not valid or why it does not fit; empty when it fits
  StageMemory memory;  // the peak stage
  // The device memory the peak stage must fit in: the driver's total for the
  // chip (device_memory), which the non-tensor reserve is counted against.
  std::int64_t hbm_bytes = 0;
  std::int64_t over_hbm_bytes = 0;  // peak − device memory when it does not fit, else 0
  std::int64_t micro_batches = 0;   // per pipeline per step
  double step_seconds = 0;
  StepTime time;
  double tokens_per_second_per_chip = 0;
  double mfu = 0;   // model FLOPs (no recompute) ÷ (step × chips × bf16 peak)
  double hfu = 0;   // model + recompute FLOPs ÷ the same
  double days = 0;  // train_tokens at this step time
  double model_flops_per_step = 0;
  double recompute_flops_per_step = 0;
};

// Model FLOPs of one step: 6 × active non-embedding parameters and the
// unembedding per token, plus the attention matmuls 12·L·s·heads·d_head per
// token (the whole s×s matrix, as Megatron and PaLM count MFU; half of it with
// attention_flops = causal_half).
double step_model_flops(const TrainingJob& job);
// The FLOPs per step Megatron-LM reports its TFLOP/s and MFU against
// (Narayanan et al. 2021, eq. 3; Korthikanti et al. 2022, §6): a GPT layer
// with the whole attention matrix, 72·B·s·l·h²·(1 + s/6h + V/12lh); with full
// recomputation 96·B·s·l·h²·(1 + s/6h + V/16lh).
double megatron_step_flops(const TrainingJob& job, bool with_recompute = false);

// Evaluates one layout. Never throws for a layout that cannot run (valid false
// and the reason); throws std::invalid_argument for a bad job.
LayoutResult evaluate_layout(const TrainingJob& job, const Layout& layout);

// Memory of every pipeline stage (for the stacked bars); throws naming the
// field when the layout is not valid.
std::vector<StageMemory> memory_by_stage(const TrainingJob& job, const Layout& layout);

// ------------------------------------------------------------ pipeline schedule

// One forward or backward of one micro-batch through one model chunk of one
// stage, as a Gantt bar.
struct ScheduleOp {
  std::int64_t stage = 0;
  std::int64_t micro_batch = 0;
  std::int64_t chunk = 0;  // model chunk (virtual stage) on this rank, 0 for 1F1B
  bool forward = true;
  bool weight = false;  // a zero-bubble schedule's deferred weight-gradient pass W (forward false)
  double start_seconds = 0;
  double end_seconds = 0;
};

struct PipelineSchedule {
  PipeSchedule order = PipeSchedule::one_f_one_b;  // the order drawn (1F1B or zb-h1)
  std::vector<ScheduleOp> ops;                     // in order of start time per stage
  std::int64_t stages = 1;
  std::int64_t chunks = 1;
  std::int64_t micro_batches = 1;
  double makespan_seconds = 0;  // first start to last end
  double bubble_fraction = 0;   // idle share of stages × makespan
};

// Simulates Megatron's 1F1B (chunks = 1) or interleaved schedule from per-stage
// forward and backward seconds of one micro-batch through one chunk, with a
// point-to-point delay between stages. Interleaving needs micro_batches to be a
// multiple of the stages.
//
// With `weight_grad_seconds` (chunks = 1), zb-h1 (Qi et al., ICLR 2024, §3.1):
// each backward runs its input gradient B (backward − W) in 1F1B's order and
// defers its weight gradient W. A stage runs a deferred W where it would
// otherwise wait for a neighbour (the gap holds the whole W), and before a
// forward that would put more than p micro-batches in flight (from F to W),
// the count 1F1B's first stage holds: "all pipeline stages have the same
// number of in-flight microbatches" (§2.1), and a W holds less than a B, so no
// stage exceeds 1F1B's peak; what is left runs at the end, filling the drain.
PipelineSchedule simulate_pipeline(std::span<const double> forward_seconds,
                                   std::span<const double> backward_seconds,
                                   std::int64_t micro_batches, std::int64_t chunks,
                                   double p2p_seconds,
                                   std::span<const double> weight_grad_seconds = {});

// The schedule of one step of `layout` (the first `max_micro_batches` micro-
// batches when > 0, to keep a chart readable): zb-h1's order for a zb-h1 job
// without interleaving, else 1F1B's (interleaved when vpp > 1). DualPipe's
// two-directional order is not drawn: its chart is 1F1B's, `order` says so,
// and its bubble is in the step time.
PipelineSchedule pipeline_schedule(const TrainingJob& job, const Layout& layout,
                                   std::int64_t max_micro_batches = 0);

// ---------------------------------------------------------------------- search

struct SearchOptions {
  // Fixed axes (the panel's locks); unset: searched.
  std::optional<std::int64_t> tp, pp, vpp, cp, ep, micro_batch;
  std::optional<std::int64_t> etp;  // experts' TP (1 folds EP over TP); unset: tp and 1
  std::optional<int> zero;
  // ZeRO's group (Layout::shard; 0: all of DP × CP). Unset: the whole group,
  // and where the framework has hybrid sharding and the group spans nodes,
  // the ranks it has in one node too.
  std::optional<std::int64_t> shard;
  std::optional<Checkpointing> recompute;
  // With recompute full: the first N layers of each chunk (Layout::
  // recompute_layers); never searched, only locked.
  std::int64_t recompute_layers = 0;
  std::int64_t recompute_group = 1;       // with recompute full (Layout::recompute_group)
  std::uint32_t recompute_modules = 0;    // with recompute selective (Layout::recompute_modules)
  std::optional<std::int64_t> dp;         // a partial --layout that names dp
  std::optional<bool> sequence_parallel;  // unset: on wherever tp > 1
  bool even_stages = true;                // PP divides the layers
  bool tp_within_node = true;             // TP inside one fast domain
  bool ep_within_node = true;             // ETP × EP inside one fast domain
  std::int64_t max_vpp = 8;
  std::int64_t max_micro_batch = 16;
  std::int64_t max_cp = 32;
};

struct SearchResult {
  // Every valid layout (ZeRO-0 only where DP × CP = 1 or when fixed: elsewhere
  // ZeRO-1 moves the same bytes and holds less): those that fit by step time,
  // then the rest by how far they exceed HBM.
  std::vector<LayoutResult> layouts;
  // Indices into `layouts` of the fitting layouts no other beats in both peak
  // memory and step time, by increasing memory.
  std::vector<std::size_t> pareto;
  std::int64_t fitting = 0;
  // Why `layouts` is empty ("" when it is not): the first lock or limit that
  // no split of the chips passes, e.g. "3,000 chips is not divisible by
  // TP × PP = 32".
  std::string none_reason;
};

SearchResult search_layouts(const TrainingJob& job, const SearchOptions& options = {});

// Why search_layouts(job, options) finds no valid layout, in words a user
// can act on; "" when the locks leave at least the simplest split valid.
std::string no_layout_reason(const TrainingJob& job, const SearchOptions& options = {});

// The best MFU per (TP, PP) among fitting layouts, for a heat map; cells where
// nothing fits have fits false and the smallest over-HBM layout's index.
struct MfuCell {
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  double mfu = 0;
  bool fits = false;
  std::size_t index = 0;  // into SearchResult::layouts
};
std::vector<MfuCell> mfu_by_tp_pp(const SearchResult& result);

}  // namespace napkin
