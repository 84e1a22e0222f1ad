// Memory per rank by pipeline stage: weights, gradients and optimizer states
// (sharded by ZeRO), activations of the in-flight micro-batches, buffers.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "parallel.h"
#include "parallel_internal.h"
#include "validate.h"

namespace napkin {

using parallel_detail::ceil_div;

std::int64_t korthikanti_layer_activation_bytes(std::int64_t s, std::int64_t b, std::int64_t h,
                                                std::int64_t a, std::int64_t t,
                                                bool sequence_parallel, Checkpointing recompute) {
  require_count(s, "seq_len", "tokens");
  require_count(b, "micro_batch", "sequences");
  require_count(h, "d_model", "elements");
  require_count(a, "heads", "attention heads");
  require_count(t, "tp", "tensor-parallel ranks");
  const char* what = "activation bytes";
  const std::int64_t sbh = checked_mul({s, b, h}, what);
  const bool sp = sequence_parallel && t > 1;
  if (recompute == Checkpointing::full) return checked_mul(2, sbh, what) / (sp ? t : 1);
  // The 5as²b of the attention scores (softmax output, dropout mask, dropout
  // output) is what selective recomputation drops (§5).
  const std::int64_t core =
      recompute == Checkpointing::selective ? 0 : checked_mul({5, a, s, s, b}, what);
  if (t == 1) return checked_add(checked_mul(34, sbh, what), core, what);  // eq. 1
  if (sp) return checked_add(checked_mul(34, sbh, what), core, what) / t;  // eq. 3, 5
  return checked_add(checked_mul(10, sbh, what),
                     checked_add(checked_mul(24, sbh, what), core, what) / t, what);  // eq. 2
}

namespace {

// A layer's kept activations under torchtitan's op-level policy, on a rank
// holding n tokens and heads_r query heads (kv_r KV heads).
std::int64_t op_policy_activation_bytes(const ModelShape& shape, std::int64_t n, std::int64_t t,
                                        bool sp, std::int64_t heads_r, std::int64_t kv_r) {
  const char* what = "activation bytes";
  const std::int64_t nH = checked_mul(n, shape.d_model, what);
  const std::int64_t rep_div = sp ? t : 1;
  const std::int64_t dh = shape.d_head;
  // torchtitan's op-level policy keeps its save list's outputs (Layout's
  // kRecomputeOp): the block's input (the checkpoint's), the queries and
  // values (matmuls 1 and 3), the attention's output and log-sum-exp, the
  // MLP's first matmul (5) and, gated, its down projection (7), and with
  // sequence parallelism the two reduce-scatters' outputs. The norms, the
  // keys, the output projection, the other MLP matmul and the element-wise
  // work are recomputed, and nothing of theirs is kept.
  const std::int64_t shard = ceil_div(nH, rep_div);  // a d_model-wide SP shard
  const std::int64_t q = checked_mul({n, heads_r, dh}, what);
  const std::int64_t v = checked_mul({n, kv_r, dh}, what);
  std::int64_t elements = shard;
  for (const std::int64_t kept : {q, v, q, checked_mul(n, shape.d_ff / t, what)})
    elements = checked_add(elements, kept, what);
  if (shape.gated) elements = checked_add(elements, nH, what);
  if (sp) elements = checked_add(elements, checked_mul(2, shard, what), what);
  return checked_add(checked_mul(2, elements, what), checked_mul({4, n, heads_r}, what), what);
}

// A layer's kept MLP activations on a rank holding n tokens: the dense MLP's,
// or the routed experts' and the shared experts', less what the selective
// recomputation's modules `re` re-run.
std::int64_t mlp_activation_bytes(const ModelShape& shape, const LayerActivationInputs& in,
                                  std::int64_t n, std::uint32_t re, bool moe) {
  const char* what = "activation bytes";
  const std::int64_t t = in.tp;
  const std::int64_t H = shape.d_model;
  std::int64_t bytes = 0;
  // The MLP: non-gated keeps FC1's output and the activation's (2 × 2 bytes per
  // hidden unit); fused SwiGLU keeps the gate and up outputs and the product (3 × 2).
  // A recomputed MLP keeps only its input (with the norm's); a recomputed
  // expert activation keeps FC1's outputs, not the product.
  // With the SwiGLU's input kept in FP8 (TrainingSoftware::
  // fp8_activation_input), the gate and up outputs take a byte each.
  const std::int64_t per_unit = shape.gated ? (in.fp8_activation_input ? 4 : 6) : 4;
  if (!moe) {
    if (!(re & kRecomputeMlp))
      bytes = checked_add(bytes, checked_mul({per_unit, n, shape.d_ff / t}, what), what);
  } else {
    // The experts' tokens: the TP group's (all n) when the experts split tp
    // ways, etp sequence shards when fewer (Layout::etp).
    const std::int64_t etp = in.etp > 0 ? in.etp : t;
    const double routed = parallel_detail::expert_tokens(static_cast<double>(n), t, etp) *
                          static_cast<double>(shape.top_k) * in.moe_load_imbalance;
    const std::int64_t te = static_cast<std::int64_t>(std::ceil(routed));  // tokens × top_k
    const std::int64_t ef = shape.effective_expert_d_ff();
    // Permuted expert inputs, and the expert outputs where the combine
    // weights them.
    bytes =
        checked_add(bytes, checked_mul({in.moe_combine_keeps_outputs ? 4 : 2, te, H}, what), what);
    const std::int64_t act_unit = (re & kRecomputeMoeAct) ? per_unit - 2 : per_unit;
    bytes = checked_add(bytes, checked_mul({act_unit, te, ef / etp}, what), what);
    if (shape.shared_experts > 0 && !(re & kRecomputeSharedExperts))
      bytes =
          checked_add(bytes, checked_mul({per_unit, n, shape.shared_experts * ef / t}, what), what);
  }
  return bytes;
}

}  // namespace

std::int64_t layer_activation_bytes(const ModelShape& shape, const LayerActivationInputs& in,
                                    bool moe_layer) {
  shape.validate();
  require_count(in.seq_len, "seq_len", "tokens");
  require_count(in.micro_batch, "micro_batch", "sequences");
  require_count(in.tp, "tp", "tensor-parallel ranks", 1, shape.n_heads);
  require_count(in.cp, "cp", "context-parallel ranks", 1, in.seq_len);
  require_real(in.moe_load_imbalance, "moe_load_imbalance", "busiest ÷ mean tokens", 1.0, 64.0);
  const char* what = "activation bytes";
  const std::int64_t t = in.tp;
  const std::int64_t H = shape.d_model;
  const std::int64_t n =
      checked_mul(in.micro_batch, in.seq_len / in.cp, what);  // tokens on the rank
  const std::int64_t nH = checked_mul(n, H, what);
  const bool sp = in.sequence_parallel && t > 1;
  const std::int64_t rep_div = sp ? t : 1;  // sequence parallelism shards the replicated part
  if (in.recompute == Checkpointing::full) return ceil_div(checked_mul(2, nH, what), rep_div);

  const bool moe = moe_layer && shape.is_moe();
  // Selective recomputation's modules (Layout::recompute_modules).
  const std::uint32_t re =
      in.recompute != Checkpointing::selective
          ? 0u
          : (in.recompute_modules != 0 ? in.recompute_modules : std::uint32_t{kRecomputeCoreAttn});
  // Heads on the rank (TP splits them; a KV head is never split below one).
  const std::int64_t heads_r = shape.n_heads / t;
  const std::int64_t kv_r = std::max<std::int64_t>(1, shape.n_kv_heads / t);
  const std::int64_t dh = shape.d_head;
  if (re & kRecomputeOp) return op_policy_activation_bytes(shape, n, t, sp, heads_r, kv_r);

  // Replicated across TP (sharded with SP): the inputs of the two norms and of
  // the two TP regions (QKV and MLP/router; the norms' outputs, which a
  // recomputed norm does not keep), and the two dropout masks. A parallel
  // block keeps its input once and each of its norms' outputs (one, or
  // Falcon-40B's two of the same input), and one mask.
  const bool parallel = shape.parallel_blocks && !moe;
  const std::int64_t norms = parallel ? shape.norms_per_layer : 2;
  const std::int64_t kept_inputs = parallel ? 1 : 2;
  std::int64_t rep =
      checked_mul(2 * kept_inputs + ((re & kRecomputeLayernorm) ? 0 : 2 * norms), nH, what);
  if (in.eager_norms && !(re & kRecomputeLayernorm))  // 6 bytes a norm keeps, not 2
    rep = checked_add(rep, checked_mul(4 * norms, nH, what), what);
  if (in.dropout) rep = checked_add(rep, checked_mul(kept_inputs, nH, what), what);
  if (moe)
    rep = checked_add(rep, checked_mul({4, n, shape.n_experts}, what), what);  // fp32 router logits
  std::int64_t bytes = ceil_div(rep, rep_div);
  // DTensor's TP keeps the two regions' inputs (the norms' outputs) gathered.
  if (sp && in.tp_inputs_gathered && !(re & kRecomputeLayernorm)) {
    const std::int64_t regions = checked_mul(2 * norms, nH, what);
    bytes = checked_add(ceil_div(rep - regions, rep_div), regions, what);
  }

  // Split across TP: Q, K, V and the output projection's input. MLA keeps
  // its latents too (the up-projections' inputs, on every rank), and its
  // values and outputs are v_head_dim wide.
  if (shape.is_mla()) {
    // Recomputed up-projections keep the latents and the output (and the
    // queries where they have no latent of their own).
    const std::int64_t kept = shape.v_head_dim + (shape.q_lora_rank > 0 ? 0 : dh);
    const std::int64_t per_token =
        shape.q_lora_rank + shape.kv_lora_rank + shape.qk_rope_head_dim +
        heads_r * ((re & kRecomputeMlaUpProj) ? kept : 2 * dh + 2 * shape.v_head_dim);
    bytes = checked_add(bytes, checked_mul({2, n, per_token}, what), what);
  } else {
    bytes = checked_add(bytes, checked_mul({2, n, 2 * heads_r + 2 * kv_r, dh}, what), what);
  }
  // The attention core: FlashAttention keeps the fp32 log-sum-exp per query
  // and head; the unfused kernel keeps the scores' softmax (2 bytes), and with
  // dropout its mask (1) and output (2), unless selective recomputation.
  if (in.flash_attention) {
    bytes = checked_add(bytes, checked_mul({4, n, heads_r}, what), what);
  } else if (!(re & kRecomputeCoreAttn)) {
    const std::int64_t per = in.dropout ? 5 : 2;
    const std::int64_t s_q = in.seq_len / in.cp;
    bytes = checked_add(bytes, checked_mul({per, in.micro_batch, heads_r, s_q, in.seq_len}, what),
                        what);
  }
  return checked_add(bytes, mlp_activation_bytes(shape, in, n, re, moe), what);
}

std::vector<std::int64_t> stage_layers(std::int64_t n_layers, std::int64_t pp) {
  require_count(n_layers, "layers", "blocks");
  require_count(pp, "pp", "pipeline stages", 1, n_layers);
  std::vector<std::int64_t> out(static_cast<std::size_t>(pp), n_layers / pp);
  std::int64_t extra = n_layers % pp;
  // Middle stages first (the edges carry the embedding and the output layer).
  for (std::int64_t i = 1; i + 1 < pp && extra > 0; ++i, --extra)
    ++out[static_cast<std::size_t>(i)];
  if (extra > 0) ++out.back(), --extra;
  if (extra > 0) ++out.front(), --extra;
  return out;
}

std::vector<std::int64_t> chunk_layers(std::int64_t n_layers, std::int64_t chunks) {
  require_count(n_layers, "layers", "blocks");
  require_count(chunks, "pp × vpp", "model chunks", 1, n_layers);
  const std::int64_t each = (n_layers + chunks - 1) / chunks;
  std::vector<std::int64_t> out(static_cast<std::size_t>(chunks), each);
  std::int64_t deficit = each * chunks - n_layers;
  // Shorter edges, as Llama 3 405B's 126 layers: the first and the last chunk
  // give up a layer each, then the second and the second-to-last, and so on.
  for (std::int64_t k = 0; deficit > 0; ++k) {
    const auto lo = static_cast<std::size_t>(k % ((chunks + 1) / 2));
    --out[lo], --deficit;
    if (deficit > 0 && static_cast<std::size_t>(chunks) - 1 - lo != lo)
      --out[static_cast<std::size_t>(chunks) - 1 - lo], --deficit;
  }
  return out;
}

namespace parallel_detail {

LayerActivationInputs activation_inputs(const TrainingJob& job, const Layout& L) {
  const TrainingSoftware& sw = job.software;
  LayerActivationInputs in;
  in.seq_len = job.seq_len;
  in.micro_batch = L.micro_batch;
  in.tp = L.tp;
  in.etp = L.etp;
  in.cp = L.cp;
  in.sequence_parallel = L.sequence_parallel;
  in.recompute = L.recompute;
  in.recompute_modules = L.recompute_modules;
  in.flash_attention = sw.flash_attention;
  in.dropout = sw.dropout;
  in.moe_load_imbalance = sw.moe_load_imbalance;
  in.moe_combine_keeps_outputs = !sw.moe_probs_in_activation;
  in.fp8_activation_input = sw.fp8_activation_input;
  in.tp_inputs_gathered = sw.tp_saves_gathered_inputs;
  in.eager_norms = sw.eager_norms;
  return in;
}

std::int64_t in_flight(std::int64_t stage, std::int64_t pp, std::int64_t vpp,
                       std::int64_t micro_batches) {
  if (vpp <= 1) return std::min(pp - stage, micro_batches);
  return std::min(2 * (pp - stage - 1) + (vpp - 1) * pp + 1, micro_batches * vpp);
}

namespace {

// The layers of every model chunk (chunk j of stage i is model chunk j·p + i),
// sized by chunk_layers, with the embedding and the loss as a layer each when
// the software counts them; and the first layer of each.
struct ModelChunks {
  std::vector<std::int64_t> sizes, start;
};

ModelChunks model_chunks(const JobContext& c, const Layout& layout) {
  const ModelShape& s = c.job->shape;
  const bool counts_edges =
      c.job->software.pipeline_split_counts_edges && layout.pp * layout.vpp > 1;
  ModelChunks mc;
  mc.sizes = chunk_layers(s.n_layers + (counts_edges ? 2 : 0), layout.pp * layout.vpp);
  if (counts_edges) --mc.sizes.front(), --mc.sizes.back();
  mc.start.assign(mc.sizes.size(), 0);
  for (std::size_t g = 1; g < mc.sizes.size(); ++g) mc.start[g] = mc.start[g - 1] + mc.sizes[g - 1];
  return mc;
}

// Dense and MoE layers of a model chunk.
std::pair<std::int64_t, std::int64_t> chunk_kinds(const JobContext& c, const ModelChunks& mc,
                                                  std::size_t g) {
  const ModelShape& s = c.job->shape;
  const std::int64_t dense_lead = s.is_moe() ? s.n_dense_layers : s.n_layers;
  const std::int64_t dense = std::clamp<std::int64_t>(dense_lead - mc.start[g], 0, mc.sizes[g]);
  return {dense, mc.sizes[g] - dense};
}

// torch.distributed.pipelining's receive buffers beyond the activations
// already counted (TrainingSoftware::pipeline_preallocates_receives): each of
// the rank's chunks that is not the model's first holds an input buffer for
// every micro-batch, `counted` of which are the in-flight inputs the
// activations hold; each input's gradient stays on its buffer until the step
// ends, and at the stage's peak, the end of the steady 1F1B phase, as many
// backwards as there are uncounted inputs have run; each chunk that is not
// the model's last holds a gradient buffer for every micro-batch. A buffer is
// the stage boundary's bf16 activation, sequence-sharded under SP.
std::int64_t preallocated_receive_bytes(const TrainingJob& job, const Layout& layout,
                                        std::int64_t stage, std::int64_t micro_batches,
                                        std::int64_t counted) {
  const char* what = "pipeline receive buffers";
  const std::int64_t v = std::max<std::int64_t>(1, layout.vpp);
  const std::int64_t not_first = v - (stage == 0 ? 1 : 0);
  const std::int64_t not_last = v - (stage == layout.pp - 1 ? 1 : 0);
  const std::int64_t tokens = checked_mul(layout.micro_batch, job.seq_len / layout.cp, what);
  const std::int64_t shards = layout.sequence_parallel ? layout.tp : 1;
  const std::int64_t buffer = ceil_div(checked_mul(2 * tokens, job.shape.d_model, what), shards);
  const std::int64_t inputs =
      std::max<std::int64_t>(0, checked_mul(not_first, micro_batches, what) - counted);
  const std::int64_t count =
      checked_add(checked_mul(not_last, micro_batches, what), checked_mul(2, inputs, what), what);
  return checked_mul(count, buffer, what);
}

}  // namespace

void stage_compositions(const JobContext& c, const Layout& layout,
                        std::vector<StageComposition>& out) {
  const ModelShape& s = c.job->shape;
  const std::int64_t p = layout.pp, v = layout.vpp;
  const std::int64_t dense_lead = s.is_moe() ? s.n_dense_layers : s.n_layers;
  out.assign(static_cast<std::size_t>(p), StageComposition{});
  const bool counts_edges = c.job->software.pipeline_split_counts_edges && p * v > 1;
  if (v <= 1 && !counts_edges) {
    // As stage_layers: the extra layers go to the middle stages, then the last, then the first.
    const std::int64_t base = s.n_layers / p;
    std::int64_t extra = s.n_layers % p;
    const std::int64_t middle_extra = std::min(extra, std::max<std::int64_t>(0, p - 2));
    extra -= middle_extra;
    std::int64_t first = 0;
    for (std::int64_t i = 0; i < p; ++i) {
      StageComposition& sc = out[static_cast<std::size_t>(i)];
      sc.layers = base;
      if (i > 0 && i + 1 < p && i <= middle_extra) ++sc.layers;
      if (i + 1 == p && p > 1 && extra > 0) ++sc.layers;
      sc.dense_layers = std::clamp<std::int64_t>(dense_lead - first, 0, sc.layers);
      sc.moe_layers = sc.layers - sc.dense_layers;
      first += sc.layers;
    }
  } else {
    const ModelChunks mc = model_chunks(c, layout);
    for (std::int64_t i = 0; i < p; ++i) {
      StageComposition& sc = out[static_cast<std::size_t>(i)];
      for (std::int64_t j = 0; j < v; ++j) {
        const auto g = static_cast<std::size_t>(j * p + i);
        const auto [dense, moe] = chunk_kinds(c, mc, g);
        sc.dense_layers += dense;
        sc.moe_layers += moe;
        sc.layers += mc.sizes[g];
        if (j == 0) sc.first_chunk_dense_layers = dense, sc.first_chunk_moe_layers = moe;
      }
    }
  }
  out.front().first = true;
  out.back().last = true;
  // Multi-token prediction (DeepSeek-V3 §2.2): each module is one more block
  // after the last layer, on the last stage, sharing the output head.
  if (s.mtp_modules > 0) {
    StageComposition& last = out.back();
    last.layers += s.mtp_modules;
    (s.is_moe() ? last.moe_layers : last.dense_layers) += s.mtp_modules;
  }
  if (v <= 1)
    for (StageComposition& sc : out)
      sc.first_chunk_dense_layers = sc.dense_layers, sc.first_chunk_moe_layers = sc.moe_layers;
}

std::vector<StageComposition> stage_compositions(const JobContext& c, const Layout& layout) {
  std::vector<StageComposition> out;
  stage_compositions(c, layout, out);
  return out;
}

namespace {

// The stage's weights, gradients and optimizer states into `m`: its
// parameters by the group that reduces (and shards) them, at the ZeRO stage
// it runs as. DualPipe keeps two copies of its parameters (DeepSeek-V3
// §3.2.1): a rank's weights and gradients are its two stages', its own and
// `mirror` (stage p − 1 − r, dualpipe_mirror); the optimizer states are its
// own stage's, sharded as before.
void add_model_states(const JobContext& c, const Layout& layout, const StageComposition& comp,
                      const StageComposition* mirror, const LayerCost& dense, const LayerCost& moe,
                      const EdgeCost& embed, const EdgeCost& out, StageMemory& m) {
  const TrainingJob& job = *c.job;
  const char* what = "memory per rank";
  struct Params {
    std::int64_t dense = 0, expert = 0;
  };
  auto params_of = [&](const StageComposition& k) {
    Params p{checked_add(checked_mul(k.dense_layers, dense.dense_params, what),
                         checked_mul(k.moe_layers, moe.dense_params, what), what),
             checked_mul(k.moe_layers, moe.expert_params, what)};
    if (k.first) p.dense = checked_add(p.dense, embed.params, what);
    if (k.last) p.dense = checked_add(p.dense, out.params, what);
    return p;
  };
  const Params own = params_of(comp);
  Params held = own;
  if (mirror != nullptr) {
    const Params other = params_of(*mirror);
    held = {checked_add(own.dense, other.dense, what), checked_add(own.expert, other.expert, what)};
  }
  const std::int64_t shard = layout.zero_shard();
  const std::int64_t expert_shard = layout.expert_dp();
  auto bytes = [&](double per_param, bool sharded, const Params& p) {
    const std::int64_t d = sharded ? ceil_div(p.dense, shard) : p.dense;
    const std::int64_t e = sharded ? ceil_div(p.expert, expert_shard) : p.expert;
    return static_cast<std::int64_t>(std::ceil(per_param * static_cast<double>(d + e)));
  };
  const int zero = zero_as_run(job, layout);
  // FSDP2 and MaxText hold no bf16 shard: the fp32 shard (counted with the
  // optimizer states) is the parameter, cast to bf16 only while gathered.
  m.weights_bytes = zero >= 3 && job.software.zero3_master_is_param ? 0 : bytes(2, zero >= 3, held);
  m.grads_bytes = bytes(c.grad_bytes, zero >= 2, held);
  // fp32 gradients accumulated by a kernel of their own: the backward writes
  // a fresh bf16 gradient beside them first (BF16_Optimizer's lp grads).
  if (job.software.fp32_grads && !job.software.fused_grad_accumulation)
    m.grads_bytes = checked_add(m.grads_bytes, bytes(2, false, held), what);
  m.optimizer_bytes = bytes(c.optimizer_bytes, zero >= 1, own);
}

// What the stage's activations add up to at its peak.
struct StageActivations {
  std::int64_t bytes = 0;
  std::int64_t first_chunk_in_flight = 0;  // micro-batches held by the stage's first chunk
  std::int64_t loss_hole_bytes = 0;        // the block the loss's peak leaves reserved
};

// The kept activations of the stage's in-flight micro-batches (m.in_flight,
// each chunk's own under the interleaved schedule), the embedding's and the
// loss's, and the working set at the backward's peak: the loss's, or the
// layers a full recomputation re-materialises, whichever is larger.
StageActivations stage_activations(const JobContext& c, const Layout& layout, std::int64_t stage,
                                   const StageComposition& comp, const StageComposition* mirror,
                                   const LayerCost& dense, const LayerCost& moe,
                                   const EdgeCost& embed, const EdgeCost& out, const StageMemory& m,
                                   bool dualpipe) {
  const TrainingJob& job = *c.job;
  const char* what = "memory per rank";
  const std::int64_t mbs = micro_batches_per_step(job, layout);
  // A chunk's kept activations; with full recomputation in groups of g
  // layers (Layout::recompute_group), one checkpoint (the group's input, the
  // same for a dense and an MoE layer) per group.
  const std::int64_t group = layout.recompute == Checkpointing::full && layout.recompute_layers == 0
                                 ? layout.recompute_group
                                 : 1;
  auto chunk_bytes = [&](std::int64_t nd, std::int64_t nm) {
    if (group > 1)
      return checked_mul(ceil_div(nd + nm, group),
                         std::max(dense.activation_bytes, moe.activation_bytes), what);
    return checked_add(checked_mul(nd, dense.activation_bytes, what),
                       checked_mul(nm, moe.activation_bytes, what), what);
  };
  StageActivations a;
  // A DualPipe rank's in-flight micro-batches go through its own stage and
  // its mirror, half each: the mean of the two stages' kept activations.
  std::int64_t per_micro_batch = chunk_bytes(comp.dense_layers, comp.moe_layers);
  if (mirror != nullptr)
    per_micro_batch = ceil_div(
        checked_add(per_micro_batch, chunk_bytes(mirror->dense_layers, mirror->moe_layers), what),
        2);
  const bool first = comp.first || (mirror != nullptr && mirror->first);
  const bool last = comp.last || (mirror != nullptr && mirror->last);
  std::int64_t act = checked_mul(m.in_flight, per_micro_batch, what);
  a.first_chunk_in_flight = m.in_flight;
  if (layout.vpp > 1 && !dualpipe) {
    // Megatron's interleaved schedule runs forward k on chunk (k mod p·v) / p:
    // p micro-batches through chunk 0, then p through chunk 1, and so on. Of
    // the in-flight forwards, count each chunk's, times its own layers (the
    // edge chunks are shorter, or hold only the embedding or the loss).
    const std::int64_t p = layout.pp, v = layout.vpp, round = p * v;
    const ModelChunks mc = model_chunks(c, layout);
    act = 0;
    for (std::int64_t j = 0; j < v; ++j) {
      const std::int64_t held =
          m.in_flight / round * p + std::clamp<std::int64_t>(m.in_flight % round - j * p, 0, p);
      if (j == 0) a.first_chunk_in_flight = held;
      const auto [nd, nm] = chunk_kinds(c, mc, static_cast<std::size_t>(j * p + stage));
      const std::int64_t chunk = chunk_bytes(nd, nm);
      act = checked_add(act, checked_mul(held, chunk, what), what);
    }
  }
  if (first)
    act =
        checked_add(act, checked_mul(a.first_chunk_in_flight, embed.activation_bytes, what), what);
  if (last) {
    act = checked_add(act, out.activation_bytes, what);
    act = checked_add(act, checked_mul(mbs, out.kept_per_micro_batch_bytes, what), what);
  }
  // Full recomputation re-materializes one layer at a time during the
  // backward (a group's layers together); the loss's backward comes before
  // any of them.
  std::int64_t working = 0;
  if (layout.recompute == Checkpointing::full) {
    working = std::max(comp.dense_layers > 0 ? dense.full_activation_bytes : 0,
                       comp.moe_layers > 0 ? moe.full_activation_bytes : 0);
    const std::int64_t chunk_layers = ceil_div(comp.layers, std::max<std::int64_t>(1, layout.vpp));
    working = checked_mul(
        std::clamp<std::int64_t>(group, 1, std::max<std::int64_t>(1, chunk_layers)), working, what);
  }
  // Context parallelism's exchanged K, V and gradients, during a layer's
  // attention (parallel_cp.cpp).
  working = checked_add(working,
                        std::max(comp.dense_layers > 0 ? dense.cp_buffer_bytes : 0,
                                 comp.moe_layers > 0 ? moe.cp_buffer_bytes : 0),
                        what);
  // The loss's peak (with the block it leaves reserved) or the layers',
  // whichever is larger: they come at different times.
  if (last && out.transient_bytes + out.loss_hole_bytes > working) {
    working = out.transient_bytes;
    a.loss_hole_bytes = out.loss_hole_bytes;
  }
  a.bytes = checked_add(act, working, what);
  return a;
}

// Buffers: pipeline send/receive, the sequence-parallel all-gather output,
// ZeRO-3's prefetched layers, a ZeRO-2/3 layer gradient awaiting its
// reduce-scatter, expert all-to-all staging.
std::int64_t stage_buffers(const JobContext& c, const Layout& layout, std::int64_t stage,
                           const StageComposition& comp, const LayerCost& dense,
                           const LayerCost& moe, const StageMemory& m,
                           std::int64_t first_chunk_in_flight) {
  const TrainingJob& job = *c.job;
  const char* what = "memory per rank";
  const ModelShape& s = job.shape;
  const int zero = zero_as_run(job, layout);
  const std::int64_t mbs = micro_batches_per_step(job, layout);
  const std::int64_t n = checked_mul(layout.micro_batch, job.seq_len / layout.cp, what);
  const std::int64_t nH = checked_mul(n, s.d_model, what);
  std::int64_t buf = 0;
  if (layout.pp > 1) buf = checked_add(buf, checked_mul(4, nH, what) / layout.tp, what);
  if (layout.pp > 1 && job.software.pipeline_preallocates_receives)
    buf = checked_add(
        buf,
        preallocated_receive_bytes(job, layout, stage, mbs,
                                   stage == 0 ? m.in_flight - first_chunk_in_flight : m.in_flight),
        what);
  if (layout.tp > 1 && layout.sequence_parallel)
    buf = checked_add(buf, checked_mul(2, nH, what), what);
  const std::int64_t layer_params =
      std::max(comp.dense_layers > 0 ? dense.dense_params + dense.expert_params : 0,
               comp.moe_layers > 0 ? moe.dense_params + moe.expert_params : 0);
  if (zero >= 3)
    buf = checked_add(buf, checked_mul(4, layer_params, what), what);  // two layers in bf16
  // ZeRO-2/3 hold a layer's whole gradient until its reduce-scatter has sent
  // it (FSDP's unsharded gradient, freed after the reduce-scatter).
  if (zero >= 2 && layout.zero_shard() > 1)
    buf = checked_add(
        buf, static_cast<std::int64_t>(std::ceil(c.grad_bytes * static_cast<double>(layer_params))),
        what);
  if (comp.moe_layers > 0) {
    const double routed = expert_tokens(static_cast<double>(n), layout.tp, layout.expert_tp()) *
                          static_cast<double>(s.top_k) * job.software.moe_load_imbalance *
                          static_cast<double>(s.d_model);
    buf = checked_add(buf, static_cast<std::int64_t>(std::ceil(4.0 * routed)), what);
  }
  return buf;
}

}  // namespace

StageMemory stage_memory(const JobContext& c, const Layout& layout, std::int64_t stage,
                         const StageComposition& comp, const LayerCost& dense, const LayerCost& moe,
                         const EdgeCost& embed, const EdgeCost& out,
                         const StageComposition* mirror) {
  const TrainingJob& job = *c.job;
  const char* what = "memory per rank";
  StageMemory m;
  m.stage = stage;
  m.layers = comp.layers;
  add_model_states(c, layout, comp, mirror, dense, moe, embed, out, m);
  // Activations of the in-flight micro-batches (DualPipe: p + 1 on every rank).
  const bool dualpipe = runs_dualpipe(job, layout);
  const std::int64_t mbs = micro_batches_per_step(job, layout);
  m.in_flight =
      dualpipe ? std::min(layout.pp + 1, mbs) : in_flight(stage, layout.pp, layout.vpp, mbs);
  const StageActivations a =
      stage_activations(c, layout, stage, comp, mirror, dense, moe, embed, out, m, dualpipe);
  m.activations_bytes = a.bytes;
  m.buffers_bytes = stage_buffers(c, layout, stage, comp, dense, moe, m, a.first_chunk_in_flight);
  const std::int64_t tensors = checked_add(
      checked_add(checked_add(m.weights_bytes, m.grads_bytes, what), m.optimizer_bytes, what),
      checked_add(m.activations_bytes, m.buffers_bytes, what), what);
  add_non_tensor_memory(c, layout, tensors, a.loss_hole_bytes, m);
  m.total_bytes = checked_add(tensors, m.non_tensor_bytes(), what);
  return m;
}

}  // namespace parallel_detail

std::vector<StageMemory> memory_by_stage(const TrainingJob& job, const Layout& layout) {
  using namespace parallel_detail;
  const JobContext c = make_context(job);
  if (auto problem = layout_problem(job, layout)) throw std::invalid_argument(*problem);
  const LayerCost dense = layer_cost(c, layout, false);
  const LayerCost moe = job.shape.is_moe() ? layer_cost(c, layout, true) : dense;
  const EdgeCost embed = embedding_cost(c, layout);
  const EdgeCost out = output_cost(c, layout);
  const std::vector<StageComposition> comps = stage_compositions(c, layout);
  std::vector<StageMemory> stages;
  stages.reserve(comps.size());
  for (std::size_t i = 0; i < comps.size(); ++i)
    stages.push_back(stage_memory(c, layout, static_cast<std::int64_t>(i), comps[i], dense, moe,
                                  embed, out, dualpipe_mirror(job, layout, comps, i)));
  return stages;
}

}  // namespace napkin
