// Phase 04 — the training software: what a framework's kernels, schedules
// and communication do (TrainingSoftware), the named presets that describe
// the frameworks (parallel_software.cpp, from their code and documentation),
// and the names of the enums that describe them.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

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

// The vocabulary-parallel cross-entropy where the loss is not eager PyTorch's
// (TrainingSoftware::eager_loss), by the passes it makes over the logits
// (bytes per logit on this rank, forward / backward):
enum class LossKernel {
  // Megatron's vocab_parallel_cross_entropy on the logits cast to fp32 (its
  // GPT models' output.float() unless fp16_lm_cross_entropy; Megatron Core's
  // cross_entropy_loss_fusion off, its default): the cast (2 read, 4 written),
  // max (4), subtract, exp and divide in place (8 each), sum (4): 38; the
  // backward's product in place (8) and the cast back (6): 14.
  megatron,
  // Megatron Core's cross_entropy_loss_fusion with the "native" kernels
  // (megatron/core/fusions/fused_cross_entropy.py, jit_fuser): the cast with
  // the max (6), subtract-exp-sum (8), divide (8): 22; the backward's product
  // and cast in one kernel (6).
  megatron_fused,
  // Transformer Engine's parallel_cross_entropy (Megatron Core's
  // cross_entropy_fusion_impl "te"): an online-softmax pass over the bf16
  // logits (2), then one that writes the gradient over them in place (4): 6;
  // the backward scales it by the per-token loss gradient (4). The gradient
  // is kept in the logits' 2 bytes (Transformer Engine before July 2026,
  // which writes it in fp32).
  te,
  // One compiled kernel each way (torch.compile): the bf16 logits read and
  // the fp32 softmax written and read for the loss (10); the backward reads it
  // and writes the bf16 gradient (6).
  compiled,
};
std::string_view to_string(LossKernel k);
struct LossBytes {
  double forward_per_logit = 0;
  double backward_per_logit = 0;
  double kept_per_logit = 4;  // for the backward: the fp32 softmax, or the gradient
};
LossBytes loss_bytes(LossKernel k);

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

// The fused attention kernel the software runs.
enum class AttentionKernel {
  // The chip's best (cuDNN or FlashAttention-3 on Hopper, FlashAttention-4
  // class on Blackwell): Efficiency::attention.
  best,
  // FlashAttention-2 (PyTorch SDPA's flash backend, its default on Hopper):
  // the chip's Efficiency::attention_fa2 where that is set, else its best.
  flash_attention_2,
  // A FlashAttention-1-class kernel (FlashAttention 1.x, or the Triton
  // FlashAttention that MosaicML's llm-foundry ran by default until 2024):
  // half FlashAttention-2's rate, as FlashAttention-2 is "around 2x faster
  // than FlashAttention" (Dao 2023, abstract; its figures put the Triton
  // kernel at FlashAttention's speed).
  flash_attention_1,
};

// What the training software does: it changes time and memory, not the math.
struct TrainingSoftware {
  bool flash_attention = true;  // fused attention: the s×s scores are never stored
  // Which fused attention kernel runs (AttentionKernel above).
  AttentionKernel attention_kernel = AttentionKernel::best;
  bool dropout = false;  // dropout after attention and MLP (and on the scores without flash)
  TpOverlap tp_overlap = TpOverlap::backward;
  // Gradient reduce in buckets during the last micro-batch's backward and the
  // parameter all-gather during the next forward (Megatron overlap_grad_reduce
  // / overlap_param_gather); off: both after the backward, exposed.
  bool overlap_dp_comm = true;
  // Megatron Core's gradient buckets under overlap_dp_comm (megatron/core/
  // distributed/distributed_data_parallel.py and the buffers' layout in
  // param_and_grad_buffer.py / distrib_optimizer.py, April 2024 on). A bucket
  // reduces once its last gradient is made, and the parameters fill the
  // buckets in backward order, whole tensors, until one holds max(40M,
  // 1M × DP) of them: the last bucket (the first layers and the embedding) is
  // ready only when the backward ends, and the next forward gathers it first
  // (its all-gather is waited on by the first layer; each later bucket's is
  // started one ahead). Only the first pipeline stage buckets ("data-parallel
  // communication on these stages is not on the critical path"): a later
  // stage reduces each model chunk as one bucket after its backward and
  // gathers it before its forward. Off: every gradient reduces as soon as it
  // is made, every weight gathers just in time.
  bool megatron_dp_buckets = true;
  // Gradients accumulated and reduced in fp32 (Megatron's main_grad with bf16);
  // off: bf16 gradients.
  bool fp32_grads = true;
  // Passes over the whole local gradient buffer each step, outside the
  // optimizer's update and on the compute stream (exposed): Megatron Core's
  // DDP (megatron/core/distributed/param_and_grad_buffer.py, 2024 on) zeroes
  // the buffer before the step's first forward (zero_grad_buffer, from
  // megatron/training/training.py's train_step) and takes each bucket's norm
  // for the NaN check before its reduction (check_for_nan_in_grad, set by
  // Megatron-LM's --check-for-nan-in-loss-and-grad, on unless
  // --no-check-for-nan-in-loss-and-grad): a write and a read, 2. The buffer
  // holds every local parameter's gradient (the distributed optimizer shards
  // only its states).
  int grad_buffer_passes = 2;
  // And, where the gradients are reduced over more than one rank, their
  // scaling by 1/DP before the reduction (grad_data *= gradient_scaling_factor,
  // skipped when the factor is 1, unless --ddp-average-in-collective): a read
  // and a write, 2.
  int grad_scaling_passes = 2;
  // The optimizer's states in bytes per parameter, in place of the
  // optimizer's own count (Adam: 12, an fp32 master copy and two fp32
  // moments); 0: the optimizer's. Apex's distributed Adam (NeMo 1.0) keeps
  // the fp32 master as the 16 bits the bf16 weight lacks: 10.
  double optimizer_bytes_per_param = 0;
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
  // FP8 linears keep their inputs for the backward as the FP8 copies they
  // cast (Transformer Engine: 1 byte each, the bf16 tensor not kept); off:
  // as the bf16 input, cast again in the backward (torchao's Float8Linear:
  // matmul_with_hp_or_float8_args saves input_hp).
  bool fp8_saves_quantized_inputs = true;
  // Transformer layers kept in bf16 at each end of the model with FP8 GEMMs
  // (Megatron's --first-last-layers-bf16: 1 at the start and 1 at the end in
  // NVIDIA's current-scaling recipes).
  std::int64_t fp8_bf16_edge_layers = 0;
  double moe_load_imbalance = 1.0;  // busiest expert rank's tokens ÷ the mean, >= 1
  // The routing probabilities applied inside the experts, to the activation's
  // output (Megatron Core since April 2025, "Memory efficient token
  // permutation", Megatron-LM commit 2659630: TEGroupedMLP's weighted SwiGLU
  // and an unweighted unpermute): the combine keeps nothing for the
  // probabilities' gradient, which the activation's backward takes from the
  // input it saves anyway. Off (Megatron before it, torchtitan's scores on
  // the experts' inputs, stacks whose code does not say): the combine keeps
  // the experts' bf16 outputs to weight them, 2 bytes per routed copy and
  // hidden unit.
  bool moe_probs_in_activation = true;
  // The gated activation's input (the gate and up projections' outputs) kept
  // for its backward in FP8, 1 byte per element, and cast back there:
  // DeepSeek-V3's "inputs of the SwiGLU operator in MoE" (§3.3.3), Megatron
  // Core's activation_func_fp8_input_store (off by default). 2 bytes per
  // hidden unit fewer, in every gated MLP.
  bool fp8_activation_input = false;
  // Pipeline sends of activations (forward) and of their gradients
  // (backward): each TP rank sends its 1/t share and the next stage gathers it
  // (Megatron's scatter-gather; DeepSpeed's pipeline engine partitions the
  // activations but, where grad_partitioned is off, sends whole gradients);
  // off: every TP rank sends the whole tensor.
  bool pipeline_scatter_gather = true;
  bool pipeline_grad_scatter_gather = true;
  // Pipeline sends posted asynchronously in the interleaved schedule and
  // waited for only by the chunk that needs them (Megatron's
  // overlap_p2p_comm, its default since October 2023 and only with
  // interleaving: megatron/core/pipeline_parallel/schedules.py, the steady
  // 1F1B phase's send_forward_recv_forward / send_backward_recv_backward with
  // overlap_p2p_comm=True), so each transfer runs beside the opposite pass of
  // one chunk; DualPipe's (DeepSeek-V3 §3.2.1: "both all-to-all and PP
  // communication can be fully hidden"). The fill's and the drain's hops stay
  // on the critical path. Off, or without interleaving: every send and
  // receive blocks.
  bool overlap_p2p_comm = true;
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
  // contiguous, SwiGLU as silu then a product; off: fused as Megatron and
  // Transformer Engine run them.
  bool eager_elementwise = false;
  // RMSNorm as separate PyTorch ops (eager, not compiled): torchtitan's own
  // RMSNorm until February 2025, x.float() → pow(2) → mean → rsqrt → x · r →
  // type_as → · weight, and nn.RMSNorm before PyTorch 2.9's fused rms_norm
  // kernel, each op a pass over an fp32 [tokens, d_model] tensor: 36 bytes
  // per element forward (2 read + 4 written, 8, 4, 8, 6, 4) and 92 backward
  // (autograd's nodes: the weight's product and its sum 12, the cast 6, the
  // product with rsqrt and its sum 24, mean's expansion 4, pow's 2·x·dy 28,
  // the two uses of x.float() added 12, the cast back 6), where a fused
  // kernel reads x and writes y (4) and reads x and dy and writes dx (6).
  // Off: fused (a Triton or CUDA kernel, or torch.compile).
  bool eager_norms = false;
  // The loss as eager PyTorch runs it, outside any compiled region:
  // F.cross_entropy on the logits cast to fp32 (torchtitan's loss without
  // compile, and with compile until the loss joined compile.components in
  // 2025). Its log-softmax and backward take separate passes, and the
  // backward's peak holds three fp32 copies of the logits: the log-softmax
  // output kept for it, the gradient arriving from nll_loss and the one
  // leaving (autograd frees the saved output after the node runs), 8 bytes
  // per logit above the 4 a fused, in-place vocabulary-parallel loss keeps.
  bool eager_loss = false;
  // The loss's kernels where it is not eager.
  LossKernel loss_kernel = LossKernel::megatron;
  // With TP, the eager loss as DTensor's loss_parallel runs it (torch.
  // distributed.tensor.parallel.loss: _log_softmax and _nll_loss_and_log_
  // softmax_backward): the vocabulary-sharded log-softmax and its backward
  // decomposed into element-wise ops, each writing a fresh fp32 tensor. The
  // forward keeps x, x − max and exp(x − max) at once; the backward keeps the
  // saved output, zeros_like with the target scattered in, exp(output) and
  // their sum or product: 12 bytes per logit above the saved output (8 for
  // F.cross_entropy's fused kernels), and 38 bytes per logit streamed each
  // way. Only where the loss is eager and TP > 1.
  bool dtensor_loss_parallel = false;
  // ZeRO-3 as FSDP2 runs the model's last layers: the output layer and the
  // final norm stay gathered (bf16) from their forward to their backward, so
  // they are whole on every rank while the loss runs (torchtitan's
  // fully_shard([norm, output], reshard_after_forward=False); before, the
  // root module, which FSDP2's lazy init never reshards after forward).
  bool zero3_output_gathered = false;
  // ...and the embedding with them: the root module held the embedding, the
  // final norm and the output layer (torchtitan until 2025; FSDPState's lazy
  // init sets the root's post_forward_mesh_info to None).
  bool zero3_root_gathered = false;
  // torch.distributed.pipelining's last stage keeps every micro-batch's
  // output, the bf16 logits, until the step ends, for step() to merge and
  // return (stage.py, output_chunks); torchtitan passes return_outputs=False
  // since October 2025 ("Update PP to release memory earlier", #1922).
  bool pipeline_keeps_outputs = false;
  // torch.distributed.pipelining's PipelineStage allocates its receive
  // buffers once, one per micro-batch, and keeps them across steps
  // (stage.py: _prepare_forward_infra, "should be deleted once lazy buffer
  // allocation is implemented", and _setup_backward_recv_info): every
  // micro-batch's input on a stage that is not the first, every
  // micro-batch's output gradient on one that is not the last. An input
  // buffer is a leaf whose .grad, the gradient sent back, stays set until
  // the step ends (clear_runtime_states). Off: Megatron's p2p, which
  // receives into a fresh tensor per micro-batch.
  bool pipeline_preallocates_receives = false;
  // Tensor parallelism as PyTorch's DTensor runs it (torch.distributed.tensor.
  // parallel): with sequence parallelism, PrepareModuleInput all-gathers a TP
  // region's input before the module and its linears save that gathered
  // tensor for the backward, where Megatron saves the local shard and
  // gathers it again in the backward. More memory (the attention's and the
  // MLP's inputs, and the output layer's, whole on every rank), one
  // all-gather fewer per region in the backward.
  bool tp_saves_gathered_inputs = false;
  // ZeRO-3 as FSDP2 runs it: every gather's output is copied out into the
  // parameters on the compute stream, and every reduce-scatter first copies
  // the gradients into its input, cast to the reduce dtype, while the compute
  // stream waits (torch/distributed/_composable/fsdp/_fsdp_collectives.py).
  bool fsdp2_copies = false;
  // ZeRO-3's sharded parameter is the fp32 master itself, cast to bf16 only
  // while gathered, so no bf16 shard is held at rest (FSDP2's
  // MixedPrecisionPolicy; Flax's fp32 parameters under MaxText's FSDP).
  bool zero3_master_is_param = false;
  // Context parallelism as PyTorch's experimental context_parallel runs it
  // (torch/distributed/tensor/experimental/_attention.py, torchtitan's
  // default rotate method "allgather"; parallel_cp.cpp): K and V all-gathered
  // once per attention call, waited for after the first chunk's kernel; in
  // the backward gathered again, and dK, dV passed on in fp32 after every
  // chunk; each chunk's output merged into an fp32 running output, the
  // gradients accumulated in fp32. Off: a ring of point-to-point sends, one
  // chunk ahead of the kernel (Megatron Core and Transformer Engine).
  bool torch_context_parallel = false;
  // The model expands K and V to every query head before the attention call
  // (torchtitan's Llama, repeat_kv, until "GQA without kv repeats" in January
  // 2026), so context parallelism exchanges the expanded tensors.
  bool kv_repeated_for_attention = false;
  // What the framework can run at all, from its documentation and code: a
  // layout outside it is refused (layout_problem) and never searched. The
  // ZeRO stages it offers when the data-parallel group shards anything (bit s
  // for stage s), and those it offers with pipeline parallelism too; whether
  // it has an interleaved pipeline schedule (vpp > 1) and context parallelism
  // (cp > 1) and the rest below. `framework` names it in a refusal.
  std::uint8_t zero_stages = 0b1111;
  std::uint8_t zero_stages_with_pp = 0b1111;
  bool interleaved_pipeline = true;
  bool context_parallel = true;
  // ZeRO over groups of fewer ranks than DP × CP, the groups replicas of one
  // another (Layout::shard): Megatron Core's --num-distributed-optimizer-
  // instances since core 0.10 (param_and_grad_buffer.py: the reduce-scatter
  // inside an instance, then an all-reduce across instances, both on the
  // communication stream), Megatron FSDP's and PyTorch FSDP's hybrid sharding
  // (FSDP2 over a 2-D mesh: torchtitan's data_parallel_replicate_degree).
  bool hybrid_sharding = true;
  // Megatron's sequence parallelism and selective recomputation (Korthikanti
  // et al. 2022) and expert parallelism (a MoE layer's experts over ranks).
  bool sequence_parallel = true;
  bool selective_recompute = true;
  // Its selective recomputation is torchtitan's op-level policy
  // (activation_checkpoint.mode "selective", selective_ac_option "op";
  // recompute=selective:op), not Megatron's attention core: a search's
  // selective candidates are that policy where it applies.
  bool op_level_selective = false;
  bool expert_parallel = true;
  bool fp8_training = true;  // FP8 GEMMs (Transformer Engine, torchao float8)
  std::string_view framework = "Megatron Core";
  bool operator==(const TrainingSoftware&) const = default;
};

// Bytes per element of d_model one norm streams, forward and backward, as the
// software runs it (TrainingSoftware::eager_norms).
struct NormBytes {
  double forward = 4;
  double backward = 6;
};
NormBytes norm_bytes(const TrainingSoftware& software);

// Whether `software` runs ZeRO stage `zero` (0-3), with pipeline parallelism
// when `pipelined`.
bool offers_zero(const TrainingSoftware& software, int zero, bool pipelined);
// The stages `software` offers, in words: "0 and 1", "2 or 3", "1".
std::string offered_zero_stages(const TrainingSoftware& software, bool pipelined);
// The stages a layout search tries where the data-parallel group shards:
// those offered, without ZeRO-0 where ZeRO-1 is offered (it moves the same
// bytes and holds more). The first is the framework's lowest sharding stage.
std::vector<int> searched_zero_stages(const TrainingSoftware& software, bool pipelined);
// Why `software` cannot train in FP8 ("Megatron-LM 2022 has no FP8 GEMMs");
// "" when it can.
std::string fp8_refusal(const TrainingSoftware& software);

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

}  // namespace napkin
