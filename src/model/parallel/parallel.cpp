// The planner's inputs: the job, the layout's validity, and the model FLOPs
// a step counts for MFU (the layout's text form: parallel_layout_text.cpp).
#include "parallel.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <stdexcept>
#include <string>
#include <utility>

#include "format.h"
#include "validate.h"

namespace napkin {

void TrainingJob::validate() const {
  shape.validate();
  (void)chip_by_name(chip);
  require_count(n_chips, "chips", "chips", 1, 100'000'000);
  require_count(seq_len, "seq", "tokens", 1, 100'000'000);
  require_count(global_batch, "global_batch", "sequences", 1, 1'000'000'000);
  // Up to the largest run a plan can ask for (Scenario::validate checks the
  // plan's tokens against the same constant).
  require_real(train_tokens, "tokens", "tokens", 1.0, kMaxTrainTokens);
  require_real(software.fp8_gemm_speedup, "fp8_gemm_speedup", "× CUTLASS", 0.25, 4.0);
  require_real(software.moe_load_imbalance, "moe_load_imbalance", "busiest ÷ mean tokens", 1.0,
               64.0);
  if (measured_non_tensor_bytes)
    require_count(*measured_non_tensor_bytes, "measured_non_tensor_bytes", "bytes", 0,
                  1'000'000'000'000);
  require_count(software.fp8_bf16_edge_layers, "fp8_bf16_edge_layers", "layers at each end", 0,
                shape.n_layers / 2);
  require_real(software.extra_update_bytes_per_param, "extra_update_bytes_per_param",
               "bytes per parameter", 0, 1'000);
  require_real(software.accumulation_copy_bytes, "accumulation_copy_bytes", "bytes per parameter",
               0, 1'000);
  require_count(software.ep_nodes_per_token, "ep_nodes_per_token", "nodes", 0, 100'000);
  require_count(software.zero3_prefetch_layers, "zero3_prefetch_layers", "layers", 0, 1'000);
  if (software.fp8_matmuls && !software.fp8_training)
    throw std::invalid_argument("training precision fp8: " + fp8_refusal(software) +
                                "; train in bf16 or choose newer software");
  if (network) {
    require_count(network->chips_per_node, "gpus_per_node", "GPUs", 1, 100'000);
    require_positive(network->intra_node_bytes_per_s, "scale_up_bandwidth", "bytes/s");
    require_positive(network->inter_node_bytes_per_s, "scale_out_bandwidth", "bytes/s");
  }
  if (calibrated) {
    require_real(calibrated->matmul_efficiency, "matmul_efficiency", "fraction of peak", 0.01, 1.0);
    require_real(calibrated->hbm_efficiency, "hbm_efficiency", "fraction of HBM bandwidth", 0.01,
                 1.0);
    require_real(calibrated->scale_up_efficiency, "scale_up_efficiency",
                 "fraction of scale-up bandwidth", 0.01, 1.0);
    require_real(calibrated->scale_out_efficiency, "scale_out_efficiency",
                 "fraction of scale-out bandwidth", 0.01, 1.0);
    require_real(calibrated->host_dispatch_seconds, "host_dispatch_seconds", "s", 0.0, 0.1);
  }
  if (software.fp8_matmuls && chip_by_name(chip).fp8_peak_flops_per_s <= 0)
    throw std::invalid_argument("fp8 matmuls need a chip with an FP8 peak; " + chip + " has none");
  (void)checked_mul(global_batch, seq_len, "tokens per step");
}

const Network& TrainingJob::cluster() const {
  return network ? *network : chip_by_name(chip).network;
}

CalibratedConstants TrainingJob::constants() const {
  if (calibrated) return *calibrated;
  const Efficiency& e = chip_by_name(chip).efficiency;
  return {e.matmul, e.hbm, e.link, e.link, software.host_dispatch_seconds, 0, {}, {}};
}

std::int64_t Layout::chips() const { return checked_mul({dp, tp, pp, cp}, "dp × tp × pp × cp"); }

std::int64_t Layout::expert_dp() const {
  return std::max<std::int64_t>(
      1, checked_mul({tp, dp, cp}, "tp × dp × cp") / std::max<std::int64_t>(1, expert_tp() * ep));
}

namespace {

using Problem = std::optional<std::string>;

// Each axis at least 1, the ZeRO stage, and the ranks adding up to the chips.
Problem axes_problem(const TrainingJob& job, const Layout& l) {
  auto at_least_one = [](std::int64_t v, const char* name) -> std::optional<std::string> {
    if (v >= 1) return std::nullopt;
    return std::string(name) + " must be >= 1; got " + format_grouped(v);
  };
  for (auto [v, name] : {std::pair{l.tp, "tp (tensor-parallel ranks)"},
                         {l.pp, "pp (pipeline stages)"},
                         {l.vpp, "vpp (model chunks per stage)"},
                         {l.dp, "dp (data-parallel replicas)"},
                         {l.cp, "cp (context-parallel ranks)"},
                         {l.ep, "ep (expert-parallel ranks)"},
                         {l.micro_batch, "mb (micro-batch, sequences)"}})
    if (auto p = at_least_one(v, name)) return p;
  if (l.zero < 0 || l.zero > 3)
    return "zero (ZeRO stage) must be 0, 1, 2 or 3; got " +
           format_grouped(static_cast<std::int64_t>(l.zero));
  if (l.shard < 0)
    return "shard (ZeRO's group of DP × CP ranks) must be >= 1; got " + format_grouped(l.shard);
  std::int64_t product = 0;
  if (__builtin_mul_overflow(l.dp, l.tp, &product) ||
      __builtin_mul_overflow(product, l.pp, &product) ||
      __builtin_mul_overflow(product, l.cp, &product) || product != job.n_chips)
    return "dp × tp × pp × cp = " +
           (product > 0 ? format_grouped(product) : std::string("overflow")) +
           " must equal chips = " + format_grouped(job.n_chips);
  if (l.shard > 0 && l.shard != l.dp * l.cp) {
    const std::string group = "shard (ZeRO's group of DP × CP ranks) ";
    if ((l.dp * l.cp) % l.shard != 0)
      return group + "must divide dp × cp = " + format_grouped(l.dp * l.cp) + "; got " +
             format_grouped(l.shard);
    if (l.shard == 1 || l.zero == 0)
      return group + format_grouped(l.shard) +
             " shards nothing: plain data parallelism is zero=0 without shard";
  }
  return std::nullopt;
}

// What the framework runs at all (TrainingSoftware::zero_stages and after).
Problem software_problem(const TrainingJob& job, const Layout& l) {
  const TrainingSoftware& sw = job.software;
  if (l.dp * l.cp > 1 && !offers_zero(sw, l.zero, l.pp > 1)) {
    const bool differs = sw.zero_stages != sw.zero_stages_with_pp;
    return "zero (ZeRO stage) " + format_grouped(static_cast<std::int64_t>(l.zero)) + ": " +
           std::string(sw.framework) + " runs ZeRO " + offered_zero_stages(sw, l.pp > 1) +
           (differs ? (l.pp > 1 ? " with pipeline parallelism" : " without pipeline parallelism")
                    : "") +
           " only";
  }
  if (l.vpp > 1 && !sw.interleaved_pipeline)
    return "vpp (model chunks per stage) must be 1: " + std::string(sw.framework) +
           " has no interleaved pipeline schedule; got " + format_grouped(l.vpp);
  if (l.cp > 1 && !sw.context_parallel)
    return "cp (context-parallel ranks) must be 1: " + std::string(sw.framework) +
           " has no context parallelism; got " + format_grouped(l.cp);
  if (l.sequence_parallel && l.tp > 1 && !sw.sequence_parallel)
    return "sp (sequence parallelism) must be off: " + std::string(sw.framework) +
           " has no sequence parallelism";
  if (l.recompute == Checkpointing::selective && !sw.selective_recompute)
    return "recompute=selective: " + std::string(sw.framework) +
           " recomputes whole layers only (recompute=full or none)";
  // Op-level checkpointing is torchtitan's policy and Megatron's modules are
  // Megatron's: neither framework runs the other's (torchtitan's selective is
  // by op or by layer, Megatron's by module).
  const bool op = (l.recompute_modules & kRecomputeOp) != 0;
  if (l.recompute == Checkpointing::selective && op && !sw.op_level_selective)
    return "recompute=selective:op is torchtitan's op-level policy, which " +
           std::string(sw.framework) + " does not have (recompute=selective, " +
           "selective:M1+M2, full, full:N or none)";
  if (l.recompute == Checkpointing::selective && !op && sw.op_level_selective)
    return "recompute=" + recompute_text(l) + ": " + std::string(sw.framework) +
           " checkpoints by op or by layer, not by module (recompute=selective:op, full, "
           "full:N or none)";
  if (l.shard > 0 && l.shard != l.dp * l.cp && !sw.hybrid_sharding)
    return "shard (ZeRO's group of DP × CP ranks) must be all of them: " +
           std::string(sw.framework) + " has no hybrid sharding; got " + format_grouped(l.shard);
  if (l.ep > 1 && !sw.expert_parallel)
    return "ep (expert-parallel ranks) must be 1: " + std::string(sw.framework) +
           " has no expert parallelism; got " + format_grouped(l.ep);
  return std::nullopt;
}

// The model's shape against the tensor- and pipeline-parallel split.
Problem shape_problem(const TrainingJob& job, const Layout& l) {
  const ModelShape& s = job.shape;
  if (l.tp > s.n_heads)
    return "tp (tensor-parallel ranks) must be at most heads = " + format_grouped(s.n_heads) +
           "; got " + format_grouped(l.tp);
  if (s.n_heads % l.tp != 0)
    return "tp (tensor-parallel ranks) must divide heads = " + format_grouped(s.n_heads) +
           "; got " + format_grouped(l.tp);
  if (s.n_kv_heads % l.tp != 0 && l.tp % s.n_kv_heads != 0)
    return "tp (tensor-parallel ranks) must divide kv_heads = " + format_grouped(s.n_kv_heads) +
           " or be a multiple of it; got " + format_grouped(l.tp);
  const bool has_dense_mlp = !s.is_moe() || s.n_dense_layers > 0;
  if (has_dense_mlp && s.d_ff % l.tp != 0)
    return "tp (tensor-parallel ranks) must divide d_ff = " + format_grouped(s.d_ff) + "; got " +
           format_grouped(l.tp);
  if (l.etp < 0)
    return "etp (expert tensor-parallel ranks) must be >= 1; got " + format_grouped(l.etp);
  const std::int64_t etp = l.expert_tp();
  if (!s.is_moe() && etp != l.tp)
    return "etp (expert tensor-parallel ranks) must equal tp for a dense model; got " +
           format_grouped(etp);
  if (s.is_moe() && l.tp % etp != 0)
    return "etp (expert tensor-parallel ranks) must divide tp = " + format_grouped(l.tp) +
           " (Napkin splits the experts within the TP group); got " + format_grouped(etp);
  if (s.is_moe() && etp < l.tp && !l.sequence_parallel)
    return "etp (expert tensor-parallel ranks) below tp needs sequence parallelism (sp=on): "
           "Megatron Core runs MoE with TP only with it";
  if (s.is_moe() && s.effective_expert_d_ff() % etp != 0)
    return std::string(etp == l.tp ? "tp (tensor-parallel ranks)"
                                   : "etp (expert tensor-parallel ranks)") +
           " must divide expert_d_ff = " + format_grouped(s.effective_expert_d_ff()) + "; got " +
           format_grouped(etp);
  if (s.is_moe() && l.shard > 0 && l.shard != l.dp * l.cp)
    return "shard (hybrid sharding) is priced for dense models; the routed experts' groups "
           "are not modelled: leave shard out for a MoE model";
  if (l.pp > s.n_layers)
    return "pp (pipeline stages) must be at most layers = " + format_grouped(s.n_layers) +
           "; got " + format_grouped(l.pp);
  return std::nullopt;
}

// Recomputation: its layers, groups and modules.
Problem recompute_problem(const TrainingJob& job, const Layout& l) {
  const ModelShape& s = job.shape;
  if (l.recompute_layers < 0)
    return "recompute=full:N needs N >= 1; got " + format_grouped(l.recompute_layers);
  if (l.recompute_group < 1)
    return "recompute=uniform:N needs N >= 1; got " + format_grouped(l.recompute_group);
  if (l.recompute_group > 1 && (l.recompute != Checkpointing::full || l.recompute_layers > 0))
    return "recompute=uniform:" + format_grouped(l.recompute_group) +
           " groups full recomputation of every layer; it excludes recompute=full:N and "
           "selective";
  if (l.recompute_modules != 0) {
    if (l.recompute != Checkpointing::selective)
      return "recompute modules (" + recompute_modules_text(l.recompute_modules) +
             ") apply to selective recomputation only (recompute=selective:M1+M2)";
    const std::uint32_t m = l.recompute_modules;
    const bool dense_mlp = !s.is_moe() || s.n_dense_layers > 0;
    if ((m & kRecomputeMlaUpProj) && !s.is_mla())
      return "recompute module mla_up_proj needs multi-head latent attention (MLA)";
    if ((m & kRecomputeMoeAct) && !s.is_moe())
      return "recompute module moe_act needs a mixture-of-experts model";
    if ((m & kRecomputeSharedExperts) && s.shared_experts == 0)
      return "recompute module shared_experts needs shared experts";
    if ((m & kRecomputeMlp) && !dense_mlp)
      return "recompute module mlp needs a dense MLP layer (every layer here is MoE)";
    if (m & kRecomputeOp) {
      if (m != kRecomputeOp)
        return "recompute=selective:op (torchtitan's op-level policy) stands alone";
      if (s.is_moe() || s.is_mla())
        return "recompute=selective:op (torchtitan's op-level policy) is priced for dense blocks "
               "with separate Q, K and V projections; not for MoE or MLA";
    }
  }
  if (l.recompute_layers > 0) {
    if (l.recompute != Checkpointing::full)
      return "recompute layers (" + format_grouped(l.recompute_layers) +
             ") apply to full recomputation only (recompute=full:N)";
    // Every layer of the longest chunk: that is full recomputation.
    const std::int64_t chunks = checked_mul(l.pp, l.vpp, "pp × vpp");
    const std::int64_t longest = (s.n_layers + chunks - 1) / chunks;
    if (l.recompute_layers >= longest)
      return "recompute=full:" + format_grouped(l.recompute_layers) + " covers every layer of a " +
             format_grouped(longest) + "-layer chunk: write recompute=full";
  }
  return std::nullopt;
}

// The batch, the pipeline schedule and context parallelism.
Problem schedule_problem(const TrainingJob& job, const Layout& l) {
  const ModelShape& s = job.shape;
  const std::int64_t replicas = l.dp * l.micro_batch;
  if (job.global_batch % replicas != 0)
    return "global_batch (" + format_grouped(job.global_batch) +
           " sequences) must be a multiple of dp × mb = " + format_grouped(replicas);
  const std::int64_t micro_batches = micro_batches_per_step(job, l);
  if (l.vpp > 1) {
    if (l.pp == 1)
      return "vpp (model chunks per stage) needs pp > 1; got vpp = " + format_grouped(l.vpp);
    // When the embedding and the loss count as layers of the split, the first
    // and the last chunk may hold nothing else (Llama 3 405B: 126 layers in
    // 16 × 8 chunks, the first holding only the embedding).
    const bool edges = job.software.pipeline_split_counts_edges;
    const std::int64_t slots = s.n_layers + (edges ? 2 : 0);
    if (l.pp * l.vpp > slots)
      return "pp × vpp = " + format_grouped(l.pp * l.vpp) + " model chunks must be at most " +
             (edges ? "layers + 2 (the embedding and the loss count as layers) = " : "layers = ") +
             format_grouped(slots) + " for the interleaved schedule";
    if (micro_batches % l.pp != 0)
      return "micro-batches per step (" + format_grouped(micro_batches) +
             ") must be a multiple of pp = " + format_grouped(l.pp) +
             " for the interleaved schedule";
  }
  if (job.software.pipe_schedule == PipeSchedule::dualpipe && l.pp > 1) {
    // DualPipe holds two chunks per rank of its own (DeepSeek-V3 §3.2.1): it
    // needs even stage and micro-batch counts and no further interleaving.
    if (l.vpp > 1)
      return "the dualpipe schedule keeps its own two chunks per rank: vpp must be 1; got " +
             format_grouped(l.vpp);
    if (l.pp % 2 != 0 || micro_batches % 2 != 0)
      return "the dualpipe schedule needs an even pp and an even number of micro-batches; got "
             "pp = " +
             format_grouped(l.pp) + ", " + format_grouped(micro_batches) + " micro-batches";
  }
  if (l.cp > 1) {
    if (job.seq_len % (2 * l.cp) != 0)
      return "cp (context-parallel ranks) must divide seq / 2 = " +
             format_grouped(job.seq_len / 2) + " (two balanced chunks per rank); got " +
             format_grouped(l.cp);
    if (!job.software.flash_attention)
      return "cp (context-parallel ranks) > 1 needs fused (flash) attention";
  }
  return std::nullopt;
}

// Expert parallelism and its grid.
Problem experts_problem(const TrainingJob& job, const Layout& l) {
  const ModelShape& s = job.shape;
  const std::int64_t etp = l.expert_tp();
  if (!s.is_moe()) {
    if (l.ep != 1)
      return "ep (expert-parallel ranks) must be 1 for a dense model; got " + format_grouped(l.ep);
  } else {
    if (s.n_experts % l.ep != 0)
      return "ep (expert-parallel ranks) must divide experts = " + format_grouped(s.n_experts) +
             "; got " + format_grouped(l.ep);
    // The expert grid etp × ep × expert-DP re-carves tp × dp × cp (Megatron
    // Core's expert rank generator, parallel_state.py).
    if (etp == l.tp && (l.dp * l.cp) % l.ep != 0)
      return "ep (expert-parallel ranks) must divide dp × cp = " + format_grouped(l.dp * l.cp) +
             "; got " + format_grouped(l.ep) +
             (l.tp > 1 && (l.tp * l.dp * l.cp) % l.ep == 0
                  ? " (or fold EP over TP with etp=1, Megatron Core's "
                    "--expert-tensor-parallel-size 1)"
                  : "");
    if ((l.tp * l.dp * l.cp) % (etp * l.ep) != 0)
      return "etp × ep = " + format_grouped(etp * l.ep) +
             " must divide tp × dp × cp = " + format_grouped(l.tp * l.dp * l.cp) +
             " (the expert grid re-carves the same ranks)";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> layout_problem(const TrainingJob& job, const Layout& l) {
  if (auto p = axes_problem(job, l)) return p;
  if (auto p = software_problem(job, l)) return p;
  if (auto p = shape_problem(job, l)) return p;
  if (auto p = recompute_problem(job, l)) return p;
  if (auto p = schedule_problem(job, l)) return p;
  return experts_problem(job, l);
}

double step_model_flops(const TrainingJob& job) {
  job.validate();
  const ModelShape& s = job.shape;
  const ParamCount p = count_params(s);
  const double tokens = static_cast<double>(job.global_batch) * static_cast<double>(job.seq_len);
  const double attention = (job.attention_flops == CausalMask::causal_half ? 6.0 : 12.0) *
                           static_cast<double>(s.n_layers) * static_cast<double>(job.seq_len) *
                           static_cast<double>(s.n_heads) * s.attention_head_dim();
  const double per_token = 6.0 * static_cast<double>(p.non_embedding_active) +
                           6.0 * static_cast<double>(s.vocab) * static_cast<double>(s.d_model) +
                           attention;
  return tokens * per_token;
}

double StepTime::exposed_comm_seconds() const {
  return tp_comm_seconds + pp_comm_seconds + dp_comm_seconds + ep_comm_seconds + cp_comm_seconds;
}

double StepTime::total_seconds() const {
  return compute_seconds + recompute_seconds + pp_bubble_seconds + exposed_comm_seconds() +
         optimizer_seconds;
}

double StepTime::bubble_share() const {
  const double t = total_seconds();
  return t > 0 ? pp_bubble_seconds / t : 0;
}

double StepTime::exposed_comm_share() const {
  const double t = total_seconds();
  return t > 0 ? exposed_comm_seconds() / t : 0;
}

}  // namespace napkin
