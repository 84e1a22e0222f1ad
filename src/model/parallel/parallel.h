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

namespace napkin {

// ------------------------------------------------------------------ the set-up

// How tensor-parallel collectives overlap with GEMMs.
enum class TpOverlap {
  none,      // every TP collective on the critical path (Megatron-LM 2021)
  backward,  // backward collectives overlap the independent GEMM: the grad-input
             // reduce with the weight-gradient GEMM, the sequence-parallel
             // all-gather with the input-gradient GEMM (Megatron-LM since 2022)
  full,      // forward collectives pipelined with their GEMM too (Transformer
             // Engine userbuffers overlap)
};
std::string_view to_string(TpOverlap o);

// How FP8 GEMM operands get their scale (Megatron's --fp8-recipe; Transformer
// Engine's recipes). It decides which casts fuse into the kernel that
// produced the tensor and which read it again.
enum class Fp8Recipe {
  delayed,     // scale from the amax history: the cast fuses into the producer
  tensorwise,  // per-tensor current scaling: the tensor's amax first (fused into
               // norms and activations, its own pass otherwise), then the cast
               // reads it again; sequence-parallel inputs reduce their amax
               // over the TP group (Transformer Engine's Float8CurrentScaling)
  blockwise,   // 1×128 / 128×128 tiles scaled where they are produced
               // (DeepSeek-V3 §3.3.2 "online quantization"): no extra pass
};
std::string_view to_string(Fp8Recipe r);

// The pipeline schedule. 1F1B (interleaved when vpp > 1; Narayanan et al.
// 2021) pays (p − 1) stage times of fill and drain. zb-h1 (Qi et al., "Zero
// Bubble Pipeline Parallelism", ICLR 2024, §3.1) splits the backward into the
// input gradient B and the weight gradient W and fills the drain with W:
// (p − 1)(F + B − W), at 1F1B's memory. dualpipe (DeepSeek-V3 §3.2.1, Table 2)
// runs micro-batches from both ends: (p/2 − 1)(F&B + B − 3W), twice the
// parameters and p + 1 micro-batches of activations on every rank; no vpp.
enum class PipeSchedule { one_f_one_b, zb_h1, dualpipe };
std::string_view to_string(PipeSchedule s);
// How the routed tokens travel to their experts' ranks. all_to_all
// ("alltoall"): every (token, expert) copy on its own, so a token bound for
// two experts on one rank crosses twice (Megatron Core's alltoall dispatcher
// permutes a token once per chosen expert, then all-to-alls the copies).
// deduplicated ("flex"): one copy per destination rank, and between nodes one
// per destination node, forwarded over NVLink inside it (DeepEP's normal
// kernels, DeepSeek-V3 §3.2.2; HybridEP; Megatron Core's flex dispatcher).
enum class EpDispatch { all_to_all, deduplicated };
std::string_view to_string(EpDispatch d);
// Throws std::invalid_argument naming the accepted names.
EpDispatch ep_dispatch_by_name(std::string_view name);
// Throws std::invalid_argument naming the accepted names.
PipeSchedule pipe_schedule_by_name(std::string_view name);
// Throws std::invalid_argument naming the accepted names.
Fp8Recipe fp8_recipe_by_name(std::string_view name);

// What the training software does: it changes time and memory, not the math.
struct TrainingSoftware {
  bool flash_attention = true;  // fused attention: the s×s scores are never stored
  // The fused attention is FlashAttention-2 (PyTorch SDPA's flash backend, its
  // default on Hopper), at the chip's Efficiency::attention_fa2 where that is
  // set, rather than the chip's best kernel (cuDNN or FlashAttention-3).
  bool attention_fa2 = false;
  bool dropout = false;  // dropout after attention and MLP (and on the scores without flash)
  TpOverlap tp_overlap = TpOverlap::backward;
  // Gradient reduce in buckets during the last micro-batch's backward and the
  // parameter all-gather during the next forward (Megatron overlap_grad_reduce
  // / overlap_param_gather); off: both after the backward, exposed.
  bool overlap_dp_comm = true;
  // Gradients accumulated and reduced in fp32 (Megatron's main_grad with bf16);
  // off: bf16 gradients.
  bool fp32_grads = true;
  // Weight gradients summed over the micro-batches inside the weight-gradient
  // GEMM (Megatron's gradient_accumulation_fusion, 2022 on: the GEMM's
  // epilogue adds into the fp32 main_grad); off: the GEMM writes a fresh
  // gradient and a separate element-wise kernel adds it into the accumulated
  // one (PyTorch's AccumulateGrad, in place: both read, one written), on every
  // micro-batch after the first (fp16 .grad) or on every one (fp32 main_grad).
  bool fused_grad_accumulation = true;
  // Bytes per parameter and micro-batch that an unfused accumulation adds for
  // a cast copy of the fresh gradient (DeepSpeed's BF16_Optimizer.
  // update_hp_grads: hp_grad.add_(lp.grad.to(fp32)) writes and reads a
  // temporary fp32 gradient: 8).
  double accumulation_copy_bytes = 0;
  // ZeRO-1 that reduces the whole gradient with an all-reduce and shards only
  // the update, then all-gathers the weights (DeepSpeed's BF16_Optimizer: the
  // engine all-reduces get_grads_for_reduction(), the whole fp32 buffer);
  // off: a reduce-scatter of the gradients (Megatron's distributed optimizer).
  bool zero1_all_reduce = false;
  // HBM traffic per parameter of the step's gradient path beyond the fused
  // mixed-precision update the model assumes (see parallel_time.cpp): the
  // separate copies of an older framework's data-parallel reduce and fp16
  // optimizer (megatron-2021 sets it from its code).
  double extra_update_bytes_per_param = 0;
  // Expert all-to-alls hidden behind another micro-batch's compute (DeepSeek-
  // V3's DualPipe, Megatron's EP overlap); off: on the critical path.
  bool overlap_ep_comm = false;
  EpDispatch ep_dispatch = EpDispatch::all_to_all;  // Megatron Core's default
  // Node-limited routing (DeepSeek-V3 §2.1.2): a token's experts lie on at
  // most this many nodes, which bounds the nodes a deduplicated dispatch
  // sends it to; 0: no limit.
  std::int64_t ep_nodes_per_token = 0;
  // The forward dispatch and the backward's gradient dispatch in FP8 (1 byte
  // per element; DeepSeek-V3 §3.3.2), the combines in bf16; off: all bf16.
  bool fp8_ep_dispatch = false;
  bool fp8_matmuls = false;  // GEMMs at the chip's FP8 rate
  // The FP8 GEMM library's speed over a tuned CUTLASS FP8 GEMM, which the
  // chip's FP8 efficiency describes: 1 for cuBLAS / Transformer Engine.
  double fp8_gemm_speedup = 1.0;
  Fp8Recipe fp8_recipe = Fp8Recipe::delayed;  // Megatron's and TE's default
  // Transformer layers kept in bf16 at each end of the model with FP8 GEMMs
  // (Megatron's --first-last-layers-bf16: 1 at the start and 1 at the end in
  // NVIDIA's current-scaling recipes).
  std::int64_t fp8_bf16_edge_layers = 0;
  double moe_load_imbalance = 1.0;  // busiest expert rank's tokens ÷ the mean, >= 1
  // Pipeline sends of activations (forward) and of their gradients
  // (backward): each TP rank sends its 1/t share and the next stage gathers it
  // (Megatron's scatter-gather; DeepSpeed's pipeline engine partitions the
  // activations but, where grad_partitioned is off, sends whole gradients);
  // off: every TP rank sends the whole tensor.
  bool pipeline_scatter_gather = true;
  bool pipeline_grad_scatter_gather = true;
  // The embedding and the loss each count as a layer when the layers are
  // split into pipeline chunks, so the first and the last chunk hold one layer
  // fewer (Megatron's account_for_embedding_in_pipeline_split and
  // account_for_loss_in_pipeline_split); off: the layers split evenly and the
  // edge stages carry the embedding and the loss on top.
  bool pipeline_split_counts_edges = false;
  PipeSchedule pipe_schedule = PipeSchedule::one_f_one_b;
  // ZeRO-3: layers whose weights are gathered ahead of use (FSDP's forward and
  // backward prefetch: 1); the gather of a layer hides behind this many
  // layers' compute at most.
  std::int64_t zero3_prefetch_layers = 1;
  // ZeRO-3 with full recomputation: the recomputed forward gathers the layer's
  // weights again (DeepSpeed ZeRO-3's fetch on every forward); off: the
  // backward's gather serves the recompute too (FSDP2 skips its forward hook
  // while a module is unsharded for the backward).
  bool zero3_regather_for_recompute = false;
  // ZeRO-3 with pipeline parallelism keeps each stage's weights gathered from
  // its first micro-batch's forward to its last backward and reduces the
  // gradients once, after the last: what ZeRO-1 moves and holds (torchtitan's
  // default fsdp_reshard_after_forward with PP, and torch.distributed.
  // pipelining's no-sync backward for every micro-batch but the last).
  bool zero3_gathers_once_with_pp = false;
  // Host time per kernel or collective: an eager framework dispatches every
  // kernel from Python, so a pass over a layer takes at least its kernel count
  // × this, and short kernels leave the GPU waiting (small layers, thin TP
  // slices, small micro-batches). 10 µs: an estimate for eager PyTorch (no
  // CUDA graphs); megatron-deepspeed sets its own (see its preset).
  double host_dispatch_seconds = 10e-6;
  // The model's element-wise work as eager PyTorch runs it (torchtitan
  // without torch.compile): rotary embeddings through fp32 complex numbers,
  // GQA's K and V expanded to every query head, the attention output made
  // contiguous, SwiGLU as silu then a product, the logits cast to fp32 before
  // the loss; off: fused as Megatron and Transformer Engine run them.
  bool eager_elementwise = false;
  // ZeRO-3 as FSDP2 runs it: every gather's output is copied out into the
  // parameters on the compute stream, and every reduce-scatter first copies
  // the gradients into its input, cast to the reduce dtype, while the compute
  // stream waits (torch/distributed/_composable/fsdp/_fsdp_collectives.py).
  bool fsdp2_copies = false;
  bool operator==(const TrainingSoftware&) const = default;
};

// Named software generations, so a published run is evaluated with the
// software it ran: "modern" (the defaults: FlashAttention, no dropout, TP
// backward overlap, DP overlap, fp32 gradients), "tp-overlap" (modern with the
// forward TP collectives pipelined too), "megatron-2022" (Korthikanti et al.:
// unfused attention with dropout, async backward TP collectives, DP reduce
// after the backward), "megatron-2021" (Narayanan et al.: as 2022 with
// blocking TP all-reduces and fp16 gradients).
struct SoftwarePreset {
  std::string_view name;
  TrainingSoftware software;
  std::string_view description;
};
std::span<const SoftwarePreset> software_presets();
// Throws std::invalid_argument naming the accepted names.
const TrainingSoftware& software_by_name(std::string_view name);
// What `run` changes of the preset `base` among the properties a run states
// on top of its framework (attention kernel, dropout, FP8 and its recipe,
// pipeline schedule, expert dispatch and overlap, expert load imbalance), one
// phrase each: {"flex expert dispatch", "zb-h1 schedule"}.
std::vector<std::string> software_changes(const TrainingSoftware& base,
                                          const TrainingSoftware& run);

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
  TrainingSoftware software;
  // The cluster: GPUs per node, scale-up and scale-out bandwidth per GPU.
  // Unset: the node the chip usually ships in (its hardware table row).
  std::optional<Network> network;
  // Throws std::invalid_argument naming the first field out of range.
  void validate() const;
  bool operator==(const TrainingJob&) const = default;
  // The network in use: `network` or the chip's.
  const Network& cluster() const;
  // Fitted to the cluster's measured runs; unset: the datasheet values.
  std::optional<CalibratedConstants> calibrated;
  // Device memory outside the tensors, as measured on the cluster (the
  // driver's used memory at the peak less the allocator's peak allocated):
  // replaces Napkin's itemised estimate (StageMemory's runtime, communication
  // buffers and fragmentation). Unset: the estimate.
  std::optional<std::int64_t> measured_non_tensor_bytes;
  // `calibrated`, or the datasheet values it replaces (the chip's
  // efficiencies, the software's host dispatch; runs 0).
  CalibratedConstants constants() const;
};

// ------------------------------------------------------------------ the layout

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
  int zero = 1;                   // ZeRO stage 0-3, sharding over DP × CP
  std::int64_t micro_batch = 1;   // sequences per micro-batch
  bool sequence_parallel = true;  // shard norms/dropout over TP (no effect at tp = 1)
  Checkpointing recompute = Checkpointing::selective;
  // With full recomputation: the first N layers of each model chunk are
  // recomputed and the others keep their activations (Megatron's
  // --recompute-method block --recompute-num-layers N; torchtitan's layer
  // checkpointing of every k-th layer recomputes 1/k as many); 0: every
  // layer. Written "recompute=full:N".
  std::int64_t recompute_layers = 0;
  // dp·tp·pp·cp; throws on overflow.
  std::int64_t chips() const;
  std::int64_t expert_tp() const { return etp > 0 ? etp : tp; }
  // Expert data-parallel replicas: tp·dp·cp ÷ (etp·ep), the group that
  // reduces (and shards) the routed experts' gradients.
  std::int64_t expert_dp() const;
  bool operator==(const Layout&) const = default;
};

// "tp=8,pp=4,vpp=1,dp=32,cp=1,ep=1,zero=1,mb=1,sp=on,recompute=selective"
// (",etp=N" after ep when the experts' TP differs from tp; "recompute=full:N"
// for N layers of each chunk).
std::string to_string(const Layout& layout);

// Parses the CLI's --layout text (keys tp, pp, vpp, cp, ep, etp, zero, mb, sp,
// recompute, which takes none, selective, full or full:N; dp=N optional). Missing keys keep `base`'s values; dp is derived
// as n_chips / (tp·pp·cp) when not given. Throws naming the key on a bad key,
// value, or a product that does not divide n_chips.
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
  bool flash_attention = false;
  bool dropout = true;
  double moe_load_imbalance = 1.0;
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
  std::optional<Checkpointing> recompute;
  // With recompute full: the first N layers of each chunk (Layout::
  // recompute_layers); never searched, only locked.
  std::int64_t recompute_layers = 0;
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
