// The training software presets: what each framework's kernels, schedules
// and communication do (from its code and documentation), and the names of
// the enums that describe them.
#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "parallel_software.h"
#include "validate.h"

namespace napkin {
namespace {

// Each enum's names, in display order: to_string and the by-name parsers read
// the same table.
template <class E>
struct Named {
  E value;
  std::string_view name;
};
constexpr std::array<Named<TpOverlap>, 3> kTpOverlaps{
    {{TpOverlap::none, "none"}, {TpOverlap::backward, "backward"}, {TpOverlap::full, "full"}}};
constexpr std::array<Named<Fp8Recipe>, 3> kFp8Recipes{{{Fp8Recipe::delayed, "delayed"},
                                                       {Fp8Recipe::tensorwise, "tensorwise"},
                                                       {Fp8Recipe::blockwise, "blockwise"}}};
constexpr std::array<Named<PipeSchedule>, 3> kPipeSchedules{{{PipeSchedule::one_f_one_b, "1f1b"},
                                                             {PipeSchedule::zb_h1, "zb-h1"},
                                                             {PipeSchedule::dualpipe, "dualpipe"}}};
constexpr std::array<Named<LossKernel>, 4> kLossKernels{
    {{LossKernel::megatron, "megatron"},
     {LossKernel::megatron_fused, "megatron-fused"},
     {LossKernel::te, "te"},
     {LossKernel::compiled, "compiled"}}};
constexpr std::array<Named<EpDispatch>, 2> kEpDispatches{
    {{EpDispatch::all_to_all, "alltoall"}, {EpDispatch::deduplicated, "flex"}}};

template <class E, std::size_t N>
std::string_view name_in(const std::array<Named<E>, N>& table, E value) {
  for (const Named<E>& n : table)
    if (n.value == value) return n.name;
  return table.front().name;
}

template <class E, std::size_t N>
E value_in(const std::array<Named<E>, N>& table, std::string_view name, std::string_view what) {
  for (const Named<E>& n : table)
    if (n.name == name) return n.value;
  throw_unknown_name(what, name, table, [](const Named<E>& n) { return n.name; });
}

}  // namespace

std::string_view to_string(TpOverlap o) { return name_in(kTpOverlaps, o); }
std::string_view to_string(Fp8Recipe r) { return name_in(kFp8Recipes, r); }
std::string_view to_string(PipeSchedule s) { return name_in(kPipeSchedules, s); }
std::string_view to_string(EpDispatch d) { return name_in(kEpDispatches, d); }
std::string_view to_string(LossKernel k) { return name_in(kLossKernels, k); }

LossBytes loss_bytes(LossKernel k) {
  switch (k) {
    case LossKernel::megatron: return {38, 14};
    case LossKernel::megatron_fused: return {22, 6};
    case LossKernel::te: return {6, 4, 2};
    case LossKernel::compiled: return {10, 6};
  }
  return {38, 14};
}

NormBytes norm_bytes(const TrainingSoftware& software) {
  return software.eager_norms ? NormBytes{36, 92} : NormBytes{4, 6};
}

EpDispatch ep_dispatch_by_name(std::string_view name) {
  return value_in(kEpDispatches, name, "ep-dispatch");
}

Fp8Recipe fp8_recipe_by_name(std::string_view name) {
  return value_in(kFp8Recipes, name, "fp8-recipe");
}

PipeSchedule pipe_schedule_by_name(std::string_view name) {
  return value_in(kPipeSchedules, name, "pipeline-schedule");
}

namespace {

TrainingSoftware megatron(bool y2021) {
  TrainingSoftware s;
  s.flash_attention = false;
  s.dropout = true;
  s.moe_probs_in_activation = false;
  s.tp_overlap = y2021 ? TpOverlap::none : TpOverlap::backward;
  s.overlap_dp_comm = false;
  s.overlap_p2p_comm = false;  // May 2023
  s.fp32_grads = !y2021;
  // Megatron-LM 2022's local DDP with contiguous buffers (megatron/model/
  // distributed.py): zero_grad_buffer's zero_() and allreduce_gradients'
  // buffer /= DP before the all-reduce, which the optimizer calls at any DP:
  // 3 passes every step; 2021's copies are in extra_update_bytes_per_param.
  s.grad_buffer_passes = y2021 ? 0 : 3;
  s.grad_scaling_passes = 0;
  // Data parallelism by all-reduce only in 2021 (megatron/model/distributed.py);
  // the distributed optimizer (ZeRO-1, megatron/optimizer/distrib_optimizer.py)
  // came in March 2022. Context parallelism came with Megatron Core (August
  // 2023), after both.
  s.zero_stages = s.zero_stages_with_pp = y2021 ? 0b0001 : 0b0011;
  s.context_parallel = false;
  s.hybrid_sharding = false;
  // Sequence parallelism and selective recomputation came in April-May 2022
  // (Megatron-LM's --sequence-parallel, --recompute-granularity), MoE layers
  // with expert parallelism in October 2023 (megatron/core/transformer/
  // switch_mlp.py).
  s.sequence_parallel = s.selective_recompute = !y2021;
  s.expert_parallel = false;
  // Transformer Engine's FP8 came to Megatron-LM in December 2022.
  s.fp8_training = false;
  s.framework = y2021 ? "Megatron-LM 2021" : "Megatron-LM 2022";
  if (y2021) {
    // Megatron-LM of April 2021 (git aed2f75, the code of Narayanan et al.):
    // the weight-gradient GEMMs write fp16 .grad and autograd adds each
    // micro-batch's into it (gradient accumulation fusion came with the 2022
    // code). Its local DDP without contiguous buffers (the examples' default)
    // flattens the fp16 gradients, divides, all-reduces and copies them back
    // (megatron/model/distributed.py: 12 bytes per parameter), and its fp16
    // optimizer (Float16OptimizerWithFloat16Params.step) copies them to fp32
    // (6), unscales them and checks for inf (8), takes their norm (4), runs
    // Adam (28) and copies the fp32 weights back to fp16 (6): 64 bytes where
    // the fused update counts 36 (3 gradient passes + 2 × 12 + 6).
    s.fused_grad_accumulation = false;
    s.extra_update_bytes_per_param = 64 - 36;
  }
  return s;
}

// DeepSpeed's pipeline engine running Megatron's layers (Megatron-DeepSpeed):
// unfused attention with dropout, blocking TP all-reduces, gradients reduced
// after the backward, fp16 gradients. Its PipelineEngine partitions what it
// sends over the model-parallel ranks, the activations (is_pipe_partitioned)
// and, since DeepSpeed commit 17a479dd8 ("fix pipeline engine", October
// 2021, v0.5.5), their gradients too (is_grad_partitioned =
// is_model_parallel in deepspeed/runtime/pipe/engine.py until a config
// switch came in November 2023, default on): each TP rank sends its 1/t
// share both ways and the receiver all-gathers it inside the node.
TrainingSoftware megatron_deepspeed() {
  TrainingSoftware s = megatron(true);
  // DeepSpeed's engine keeps the gradients in .grad, which autograd
  // accumulates over the micro-batches (unfused, as megatron-2021); its own
  // fp16 optimizer and reduce replace Megatron 2021's copies, which are not
  // charged here.
  s.extra_update_bytes_per_param = 0;
  // ZeRO-3 fetches a module's parameters on every forward, the recomputed one too.
  s.zero3_regather_for_recompute = true;
  // Calibrated on the vTrain single-node rows (Megatron-DeepSpeed on one A100
  // node, hidden 1,024-2,048): halving the micro-batch below 4 leaves the step
  // nearly unchanged, the host bound of about 3.5 ms per layer and micro-batch
  // (forward, recomputed forward, backward: ~60 kernels). The multi-node rows
  // were not used.
  s.host_dispatch_seconds = 60e-6;
  // DeepSpeed's ZeRO stages 0-3, but its PipelineEngine asserts "ZeRO-2 and
  // ZeRO-3 are incompatible with pipeline parallelism"
  // (deepspeed/runtime/pipe/engine.py), and its TrainSchedule is plain 1F1B
  // (deepspeed/runtime/pipe/schedule.py: no interleaved schedule); DeepSpeed-
  // Ulysses splits the sequence another way than context parallelism.
  s.zero_stages = 0b1111;
  s.zero_stages_with_pp = 0b0011;
  s.interleaved_pipeline = false;
  s.context_parallel = false;
  // Megatron-DeepSpeed's own sequence parallelism and recomputation flags
  // are not checked here; DeepSpeed-MoE has expert parallelism.
  s.sequence_parallel = s.selective_recompute = s.expert_parallel = s.fp8_training = true;
  s.framework = "DeepSpeed's pipeline engine (megatron-deepspeed)";
  return s;
}

// Megatron-DeepSpeed in bf16, as BLOOM trained (bigscience's tr11 scripts:
// bf16 with ZeRO stage 0 in the DeepSpeed config, "bf16 must use z0! it
// implements its own zero stage 1 equivalent"): DeepSpeed's BF16_Optimizer
// (deepspeed/runtime/bf16_optimizer.py). After every micro-batch's backward
// the pipeline engine calls update_hp_grads, which adds each bf16 gradient
// into an fp32 buffer through a cast copy; after the last, the engine
// all-reduces that whole fp32 buffer (buffered_allreduce_fallback on
// get_grads_for_reduction()); each rank updates its 1/dp of the fp32 master
// weights and all-gathers the bf16 weights.
TrainingSoftware megatron_deepspeed_bf16() {
  TrainingSoftware s = megatron_deepspeed();
  s.fp32_grads = true;
  s.accumulation_copy_bytes = 8;
  s.zero1_all_reduce = true;
  // The BF16_Optimizer is its own ZeRO-1 and the only stage it runs.
  s.zero_stages = s.zero_stages_with_pp = 0b0010;
  return s;
}

// PyTorch FSDP2 as torchtitan runs it: FlashAttention (SDPA), no dropout,
// per-layer all-gathers prefetched one layer ahead in both passes, the
// reduce-scatter of each layer's gradients overlapped with the backward, fp32
// gradient reduction (MixedPrecisionPolicy(param_dtype=bf16,
// reduce_dtype=fp32) in parallelize_llama.py), FSDP2's copies around its
// collectives. Eager by default (compile = false in torchtitan's training
// configs): the model's element-wise work runs as written in
// models/llama/model.py (TrainingSoftware::eager_elementwise). Its norms are
// taken as fused (nn.RMSNorm on PyTorch 2.9 or later, or the Triton
// fused_rmsnorm torchtitan offered until February 2025); torchtitan's own
// eager RMSNorm of 2024 is TrainingSoftware::eager_norms.
TrainingSoftware fsdp(bool compiled) {
  TrainingSoftware s;
  s.tp_overlap = TpOverlap::none;
  // torchtitan's MoE multiplies the routed tokens by their scores outside
  // the experts (before them with score_before_experts, after them without)
  // and keeps the unscaled tensor for the scores' gradient: 2 bytes per
  // routed copy and hidden unit, as a weighted combine.
  s.moe_probs_in_activation = false;
  s.zero3_prefetch_layers = 1;
  s.zero3_regather_for_recompute = false;
  // torchtitan's fsdp_reshard_after_forward "default": "For PP, by default do
  // not reshard after forward to avoid per-microbatch all-gathers"
  // (torchtitan/distributed/fsdp.py).
  s.zero3_gathers_once_with_pp = true;
  s.fsdp2_copies = s.zero3_master_is_param = true;
  s.megatron_dp_buckets = false;
  // FSDP2 sets the gradients to None (no buffer to zero) and divides in its
  // own reduce-scatter copies (fsdp2_copies).
  s.grad_buffer_passes = s.grad_scaling_passes = 0;
  // torch.distributed.pipelining: not modelled as overlapped.
  s.overlap_p2p_comm = false;
  // F.scaled_dot_product_attention: FlashAttention-2 on Hopper, cuDNN only
  // on Blackwell (torchtitan's models/attention.py picks CUDNN_ATTENTION
  // first only for compute capability 10.0; PyTorch keeps cuDNN opt-in).
  s.attention_kernel = AttentionKernel::flash_attention_2;
  // torch.compile fuses the casts, the rotary product, silu · w3 x and the
  // copies into the kernels around them, as Megatron's fused kernels do.
  s.eager_elementwise = !compiled;
  // compile.components defaults to ["model", "loss"] (torchtitan
  // config/configs.py, CompileConfig): with compile the loss is compiled too.
  s.eager_loss = !compiled;
  s.loss_kernel = LossKernel::compiled;
  // torchtitan's TP plan: SequenceParallel norms, PrepareModuleInput to
  // Replicate before the attention and the feed-forward, ColwiseParallel on
  // the output layer (models/llama3/infra/parallelize.py).
  s.tp_saves_gathered_inputs = true;
  // torchtitan's loss_parallel is on with TP unless disable_loss_parallel
  // (parallel_dims.loss_parallel_enabled); the output layer's ColwiseParallel
  // keeps the logits sharded for it.
  s.dtensor_loss_parallel = true;
  // fsdp.py: "do not reshard_after_forward the last layers by default since
  // FSDP would prefetch them immediately".
  s.zero3_output_gathered = true;
  // torchtitan's pipeline parallelism is torch.distributed.pipelining.
  s.pipeline_preallocates_receives = true;
  // Its context parallelism is PyTorch's context_parallel, rotate method
  // "allgather" (job_config experimental.context_parallel_rotate_method),
  // and its Llama expands K and V with repeat_kv before
  // F.scaled_dot_product_attention (models/llama/model.py at the December
  // 2024 benchmarks' commit 9dec370).
  s.torch_context_parallel = true;
  s.kv_repeated_for_attention = true;
  // fully_shard reshards the gathered weights after the forward (ZeRO-3) or
  // keeps them to the backward (reshard_after_forward=False: ZeRO-2);
  // replicate is plain DDP (ZeRO-0). FSDP has no optimizer-only sharding
  // (ZeRO-1). torchtitan runs interleaved pipeline schedules and context
  // parallelism.
  s.zero_stages = s.zero_stages_with_pp = 0b1101;
  // torchtitan's Float8 is torchao's Float8Linear, which saves the bf16 input.
  s.fp8_saves_quantized_inputs = false;
  // torchtitan's selective checkpointing is by op (or by layer: full:N).
  s.op_level_selective = true;
  s.framework = "PyTorch FSDP2 (torchtitan)";
  return s;
}

// MaxText (JAX and XLA on TPU) as its 2023 high-performance configurations
// ran it (MaxText/configs/v5e and v5p, commit 76bd53b, December 2023; its
// layers, pyconfig and base.yml there). FSDP is GSPMD sharding the weights'
// embed dimension over the slice's chips (ici_fsdp_parallelism -1), gathered
// per layer by XLA's async collective fusion one layer ahead inside the
// layer scan; the slices of a multi-slice run are data-parallel replicas over
// DCN (dcn_data_parallelism): hybrid sharding with the slice as the group.
// Tensor parallelism shards heads and the MLP over the tensor axis and the
// activations between regions on their embed dimension ("activation_embed":
// "tensor"), so each region gathers its input and reduce-scatters its output
// as sequence parallelism does, with no collective-matmul flag in the
// configurations (blocking). Flax keeps the parameters in fp32 and casts them
// to bf16 in each matmul, so the gradients reduce in fp32 and the fp32 shard is
// the parameter (optax's AdamW: two fp32 moments). One compiled program per
// step: no host time per kernel, the element-wise work fused by XLA, no
// gradient buffer to zero. jax.checkpoint re-runs a layer whole, its weights'
// gathers included (they enter the scanned layer sharded); the "minimal"
// policy (checkpoint_dots_with_no_batch_dims) keeps the weight matmuls'
// outputs and recomputes the norms and the attention core
// (recompute=selective:core_attn+layernorm). Attention by the Pallas flash
// kernel (the chip's fused attention rate).
TrainingSoftware maxtext() {
  TrainingSoftware s;
  s.tp_overlap = TpOverlap::none;
  s.megatron_dp_buckets = false;
  s.grad_buffer_passes = s.grad_scaling_passes = 0;
  s.host_dispatch_seconds = 0;
  s.zero3_prefetch_layers = 1;
  s.zero3_regather_for_recompute = true;
  s.zero3_master_is_param = true;
  s.overlap_p2p_comm = false;
  // FSDP (ZeRO-3) or plain data parallelism; its 2023 code has no interleaved
  // pipeline, context parallelism, expert parallelism or FP8.
  s.zero_stages = s.zero_stages_with_pp = 0b1001;
  s.interleaved_pipeline = s.context_parallel = s.expert_parallel = s.fp8_training = false;
  s.framework = "MaxText (JAX/XLA)";
  return s;
}

// DeepSeek-V3's training stack (DeepSeek-AI 2024, §3.2-3.3): DualPipe hides
// the expert all-to-alls behind another micro-batch's compute; FP8 GEMMs with
// fine-grained scaling by DeepGEMM, 1.0-1.2x a tuned CUTLASS FP8 GEMM at its
// dense and grouped training shapes (DeepGEMM README, H800: 1.1x geometric
// mean); FlashAttention-style attention kernels, no dropout.
TrainingSoftware deepseek_v3() {
  TrainingSoftware s;
  s.tp_overlap = TpOverlap::none;
  s.overlap_ep_comm = true;
  // The gating weights travel with the tokens and are applied on the experts'
  // side: DeepEP, the open release of the report's dispatch kernels
  // (aligned with its node-limited gating), returns them from dispatch
  // (recv_topk_weights), takes their gradient in dispatch's backward and
  // combines unweighted (its README's training example). The combine keeps
  // no expert outputs for the weights' gradient.
  s.moe_probs_in_activation = true;
  // "we cache the inputs of the SwiGLU operator ... stored in FP8" (§3.3.3).
  s.fp8_activation_input = true;
  // Node-limited routing, each token to at most 4 nodes (§2.1.2; topk_group
  // 4 in its config.json), dispatched once per node over InfiniBand and
  // forwarded over NVLink (§3.2.2; DeepEP); FP8 dispatch, bf16 combine
  // (§3.3.2).
  s.ep_dispatch = EpDispatch::deduplicated;
  s.ep_nodes_per_token = 4;
  s.fp8_ep_dispatch = true;
  s.fp8_matmuls = true;
  s.fp8_gemm_speedup = 1.1;
  s.fp8_recipe = Fp8Recipe::blockwise;
  s.pipe_schedule = PipeSchedule::dualpipe;
  // "ZeRO-1 data parallelism" (§3.2).
  s.zero_stages = s.zero_stages_with_pp = 0b0010;
  // "we adopt the BF16 data format instead of FP32 to track the first and
  // second moments in the AdamW optimizer" while "the master weights ... and
  // gradients ... are still retained in FP32" (§3.3.2): 4 + 2 + 2 bytes.
  s.optimizer_bytes_per_param = 8;
  s.hybrid_sharding = false;                         // ZeRO-1 over the DP group (§3.2)
  s.megatron_dp_buckets = false;                     // its buckets are not published
  s.grad_buffer_passes = s.grad_scaling_passes = 0;  // nor its gradient buffer's passes
  s.framework = "DeepSeek-V3's stack";
  return s;
}

// Meta's Llama 3 training stack as its paper describes it (Llama Team 2024,
// "The Llama 3 Herd of Models", §3.3.2): an interleaved pipeline in which the
// first chunk holds only the embedding and the last only the output and the
// loss (one layer fewer on the first and the last stage), FP32 gradient
// accumulation over the micro-batches and FP32 reduce-scatters. Its FSDP
// "shards optimizer states and gradients" but does not reshard the parameters
// after the forward (§3.3.2): FSDP's SHARD_GRAD_OP, whose sharded gradients
// mean a reduce-scatter of every micro-batch's gradients (gradient
// accumulation with communication; the other flavour keeps whole gradients),
// which a layout states as ZeRO-2 here. Kernels as `modern` (the paper names
// no others).
TrainingSoftware llama3() {
  TrainingSoftware s;
  s.pipeline_split_counts_edges = true;
  s.zero_stages = s.zero_stages_with_pp = 0b0100;
  s.megatron_dp_buckets = false;
  s.overlap_p2p_comm = false;                        // the paper does not say
  s.grad_buffer_passes = s.grad_scaling_passes = 0;  // the paper does not say
  s.hybrid_sharding = false;                         // the paper shards over the whole DP group
  s.framework = "Meta's Llama 3 stack";
  return s;
}

// NeMo 1.0, as the NeMo Framework Launcher ran it to container 24.07
// (launcher_scripts/conf/training/*: optim.name distributed_fused_adam):
// Megatron Core with Transformer Engine, and Apex's DistributedFusedAdam in
// place of Megatron's distributed optimizer. NeMo's MegatronDistributedFusedAdam
// (nemo/collections/nlp/models/language_modeling/megatron_base_model.py,
// setup_optimization) sets store_params off and store_param_remainders on for
// bf16 weights with fp32 optimizer states: the master copy is the 16 bits
// the bf16 weight lacks, 2 bytes with the two fp32 moments, sharded over the
// data-parallel ranks like Megatron's (10 bytes per parameter, not 12); the
// contiguous gradient buffer is in fp32 (grad_sync_dtype defaults to the
// optimizer's dtype), reduce-scattered during the backward and the weights
// all-gathered during the forward (overlap_grad_sync, overlap_param_sync).
// Userbuffers TP overlap and FP8 are each model's choice (tp-overlap, --fp8).
TrainingSoftware nemo_1() {
  TrainingSoftware s;
  s.optimizer_bytes_per_param = 10;
  // Apex's distributed Adam is a ZeRO-1: it shards the optimizer and reduce-
  // scatters the gradients once per step (no_sync for the micro-batches
  // before the last), and keeps the whole weights.
  s.zero_stages = s.zero_stages_with_pp = 0b0010;
  s.hybrid_sharding = false;  // Megatron Core 0.8 had no optimizer instances
  // Apex's buckets (bucket_cap_mb, parameters split across them) are its own
  // and not modelled: its gradients reduce as they are made; nor are its
  // buffer's passes.
  s.megatron_dp_buckets = false;
  s.grad_buffer_passes = s.grad_scaling_passes = 0;
  s.framework = "NeMo 1.0 (Apex's distributed Adam)";
  return s;
}

TrainingSoftware with_full_overlap() {
  TrainingSoftware s;
  s.tp_overlap = TpOverlap::full;
  return s;
}

// Megatron Core with Transformer Engine in FP8, as NVIDIA's Megatron Bridge
// (NeMo) performance recipes run it: tp-overlap (userbuffers) with FP8 GEMMs
// (cuBLAS) and TE's casts, per-tensor current scaling on every transformer
// layer. The training recipes' bf16_with_fp8_current_scaling_mixed
// (megatron/bridge/training/mixed_precision.py) keeps the first and the last
// layer in bf16; the performance scripts turn that off ("Disable BF16
// Transformer layers in the performance config": first_last_layers_bf16 =
// False in scripts/performance/utils/helpers.py since Megatron Bridge v0.1.0,
// the 25.09 container, and in perf_recipes/_common.py's _perf_precision).
TrainingSoftware megatron_core_fp8() {
  TrainingSoftware s = with_full_overlap();
  s.fp8_matmuls = true;
  s.fp8_recipe = Fp8Recipe::tensorwise;
  s.fp8_bf16_edge_layers = 0;
  // Megatron Bridge's performance scripts turn the NaN check off
  // (scripts/performance/utils/overrides.py: ddp.check_for_nan_in_grad =
  // False), and its recipes average in the collective
  // (ddp.average_in_collective = True, recipes/common.py): the buffer's
  // zeroing is left, 1 pass.
  s.grad_buffer_passes = 1;
  s.grad_scaling_passes = 0;
  // Megatron Bridge's performance scripts set cross_entropy_fusion_impl "te"
  // over recipes that turn cross_entropy_loss_fusion on
  // (scripts/performance/utils/overrides.py; the per-model configurations
  // before November 2025 the same).
  s.loss_kernel = LossKernel::te;
  // The Llama 3.1 405B recipe splits the pipeline with the embedding and the
  // loss counted as layers; the 70B recipe's explicit layout
  // ("Et*2|(t*2|)*34,t*3|(t*2|)*3,tL") lightens the last chunk the same way.
  s.pipeline_split_counts_edges = true;
  return s;
}

const std::array kSoftware{
    SoftwarePreset{"modern", TrainingSoftware{},
                   "FlashAttention, no dropout, backward TP overlap, DP overlap in Megatron's "
                   "buckets, interleaved pipeline sends overlapped, fp32 gradients"},
    SoftwarePreset{"tp-overlap", with_full_overlap(),
                   "modern, with forward TP collectives pipelined with their GEMMs too"},
    SoftwarePreset{"megatron-core-fp8", megatron_core_fp8(),
                   "tp-overlap with FP8 GEMMs, per-tensor current scaling on every layer (the "
                   "performance scripts keep no layer in bf16), embedding and loss counted in "
                   "the pipeline split, Transformer Engine's fused cross-entropy (Megatron "
                   "Bridge / NeMo performance recipes)"},
    SoftwarePreset{"nemo-1.0", nemo_1(),
                   "NeMo 1.0 (NeMo Framework Launcher, to 24.07): modern, with Apex's "
                   "distributed Adam, whose fp32 master is kept as the 16 bits the bf16 weight "
                   "lacks (10 bytes of optimizer state per parameter, sharded over DP)"},
    SoftwarePreset{"megatron-2022", megatron(false),
                   "Megatron-LM 2022 (Korthikanti et al.): unfused attention with dropout, async "
                   "backward TP collectives, DP reduce after the backward"},
    SoftwarePreset{"megatron-2021", megatron(true),
                   "Megatron-LM 2021 (Narayanan et al.): unfused attention with dropout, blocking "
                   "TP all-reduces, fp16 gradients accumulated by autograd (unfused) and reduced "
                   "after the backward, the fp16 optimizer's copies"},
    SoftwarePreset{
        "megatron-deepspeed", megatron_deepspeed(),
        "Megatron-DeepSpeed (DeepSpeed's pipeline engine): as megatron-2021; activations and "
        "their gradients partitioned over TP between stages"},
    SoftwarePreset{"megatron-deepspeed-bf16", megatron_deepspeed_bf16(),
                   "megatron-deepspeed in bf16 (DeepSpeed's BF16_Optimizer, as BLOOM): each "
                   "micro-batch's gradients added into fp32 through a cast copy, the whole fp32 "
                   "gradient all-reduced after the backward, the update sharded (zero=1)"},
    SoftwarePreset{
        "deepseek-v3", deepseek_v3(),
        "DeepSeek-V3's stack: DualPipe hides the expert all-to-alls, dispatched once per "
        "remote node (at most 4) in FP8; FP8 GEMMs by "
        "DeepGEMM (1.1x CUTLASS) with tile-wise scaling; the DualPipe schedule; "
        "FlashAttention, no dropout; AdamW's moments in bf16 (8 bytes of optimizer state per "
        "parameter)"},
    SoftwarePreset{"llama3", llama3(),
                   "Meta's Llama 3 stack (its paper, §3.3.2): modern kernels, the embedding and "
                   "the loss counted as pipeline layers, fp32 gradient accumulation and "
                   "reduce-scatter; its FSDP shards gradients but not parameters: use zero=2"},
    SoftwarePreset{"fsdp", fsdp(false),
                   "PyTorch FSDP2 / torchtitan, eager (its default): FlashAttention, ZeRO-3 "
                   "gathers prefetched one layer ahead and copied out, gradients copied in and "
                   "reduce-scattered in fp32 per layer, blocking TP collectives; rotary, SwiGLU, "
                   "GQA's K/V expansion and the fp32 loss as unfused PyTorch ops; with PP, "
                   "torch.distributed.pipelining's receive buffers for every micro-batch; "
                   "selective recomputation is its op-level policy (recompute=selective:op); "
                   "Float8 linears (torchao) keep their bf16 inputs; context parallelism as "
                   "PyTorch's context_parallel (K/V expanded to every query head and "
                   "all-gathered once per call, dK/dV passed on in fp32, fp32 running sums)"},
    SoftwarePreset{"fsdp-compile", fsdp(true),
                   "fsdp with torch.compile: the element-wise work fused as in modern"},
    SoftwarePreset{"maxtext", maxtext(),
                   "MaxText (JAX/XLA, TPU): FSDP over the slice by GSPMD, each layer's gather "
                   "one layer ahead and again in a recomputed forward, slices as data-parallel "
                   "replicas (hybrid sharding); blocking TP gathers and reduce-scatters around "
                   "each region; fp32 parameters and gradients (the fp32 shard is the "
                   "parameter); one compiled program (no host time per kernel, element-wise "
                   "work fused, no gradient buffer passes); Pallas flash attention"},
};

}  // namespace

bool offers_zero(const TrainingSoftware& software, int zero, bool pipelined) {
  if (zero < 0 || zero > 3) return false;
  const std::uint8_t stages = pipelined ? software.zero_stages_with_pp : software.zero_stages;
  return (stages >> zero & 1U) != 0;
}

std::string offered_zero_stages(const TrainingSoftware& software, bool pipelined) {
  std::vector<std::string> stages;
  for (int z = 0; z <= 3; ++z)
    if (offers_zero(software, z, pipelined)) stages.push_back(std::to_string(z));
  std::string out;
  for (std::size_t i = 0; i < stages.size(); ++i)
    out += (i == 0 ? "" : i + 1 == stages.size() ? " and " : ", ") + stages[i];
  return out.empty() ? "none" : out;
}

std::vector<int> searched_zero_stages(const TrainingSoftware& software, bool pipelined) {
  std::vector<int> zeros;
  for (int z = offers_zero(software, 1, pipelined) ? 1 : 0; z <= 3; ++z)
    if (offers_zero(software, z, pipelined)) zeros.push_back(z);
  return zeros;
}

std::string fp8_refusal(const TrainingSoftware& software) {
  return software.fp8_training ? std::string()
                               : std::string(software.framework) + " has no FP8 GEMMs";
}

std::span<const SoftwarePreset> software_presets() { return kSoftware; }

const TrainingSoftware& software_by_name(std::string_view name) {
  for (const SoftwarePreset& p : kSoftware)
    if (p.name == name) return p.software;
  throw_unknown_name("software", name, kSoftware, [](const SoftwarePreset& p) { return p.name; });
}

std::vector<std::string> software_changes(const TrainingSoftware& base,
                                          const TrainingSoftware& run) {
  std::vector<std::string> out;
  if (run.flash_attention != base.flash_attention)
    out.emplace_back(run.flash_attention ? "fused attention" : "unfused attention");
  if (run.dropout != base.dropout) out.emplace_back(run.dropout ? "dropout" : "no dropout");
  if (run.attention_kernel != base.attention_kernel)
    out.emplace_back(run.attention_kernel == AttentionKernel::best
                         ? "the chip's best attention kernel"
                     : run.attention_kernel == AttentionKernel::flash_attention_2
                         ? "FlashAttention-2"
                         : "FlashAttention-1-class attention");
  if (run.fp8_matmuls != base.fp8_matmuls)
    out.emplace_back(run.fp8_matmuls ? "FP8 GEMMs" : "bf16 GEMMs");
  if (run.fp8_matmuls && run.fp8_recipe != base.fp8_recipe)
    out.push_back(std::string(to_string(run.fp8_recipe)) + " FP8 scaling");
  if (run.pipe_schedule != base.pipe_schedule)
    out.push_back(std::string(to_string(run.pipe_schedule)) + " schedule");
  if (run.eager_norms != base.eager_norms)
    out.emplace_back(run.eager_norms ? "eager RMSNorm" : "fused norms");
  if (run.eager_loss != base.eager_loss)
    out.emplace_back(run.eager_loss ? "eager fp32 loss" : "fused loss");
  if (!run.eager_loss && run.loss_kernel != base.loss_kernel)
    out.push_back(std::string(to_string(run.loss_kernel)) + " cross-entropy");
  if (run.zero3_root_gathered != base.zero3_root_gathered)
    out.emplace_back(run.zero3_root_gathered ? "FSDP root kept gathered" : "FSDP root resharded");
  if (run.pipeline_keeps_outputs != base.pipeline_keeps_outputs)
    out.emplace_back(run.pipeline_keeps_outputs ? "pipeline outputs kept"
                                                : "pipeline outputs freed");
  if (run.pipeline_preallocates_receives != base.pipeline_preallocates_receives)
    out.emplace_back(run.pipeline_preallocates_receives ? "pipeline receives preallocated"
                                                        : "pipeline receives per micro-batch");
  if (run.ep_dispatch != base.ep_dispatch)
    out.push_back(std::string(to_string(run.ep_dispatch)) + " expert dispatch");
  if (run.overlap_ep_comm != base.overlap_ep_comm)
    out.emplace_back(run.overlap_ep_comm ? "expert all-to-alls overlapped"
                                         : "expert all-to-alls exposed");
  if (run.fp8_activation_input != base.fp8_activation_input)
    out.emplace_back(run.fp8_activation_input ? "activation inputs kept in FP8"
                                              : "activation inputs kept in bf16");
  if (run.moe_probs_in_activation != base.moe_probs_in_activation)
    out.emplace_back(run.moe_probs_in_activation ? "routing weights in the experts"
                                                 : "expert outputs kept for the combine");
  if (run.moe_load_imbalance != base.moe_load_imbalance) {
    char b[64];
    std::snprintf(b, sizeof b, "busiest expert rank %.2fx the mean", run.moe_load_imbalance);
    out.emplace_back(b);
  }
  return out;
}

}  // namespace napkin
