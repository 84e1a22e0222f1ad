// Time per step: every kernel of a transformer layer by the roofline with wave
// quantization (kernel_time.h), the tensor-, expert- and context-parallel
// collectives on the critical path (collectives.h), the pipeline with its
// bubble, the data-parallel reduce overlapped with the backward, and the
// optimizer step; then the assembled result of a layout.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "parallel.h"
#include "parallel_internal.h"
#include "validate.h"

namespace napkin {

namespace parallel_detail {

JobContext make_context(const TrainingJob& job) {
  job.validate();
  JobContext c;
  c.job = &job;
  c.chip = &chip_by_name(job.chip);
  c.rates = kernel_rates(*c.chip, job.software.fp8_matmuls);
  c.intra = intra_node_link(*c.chip);
  c.inter = inter_node_link(*c.chip);
  const ModelShape& s = job.shape;
  c.params = count_params(s);
  c.dense_layer = params_per_layer(s, false);
  c.moe_layer = s.is_moe() ? params_per_layer(s, true) : c.dense_layer;
  c.expert_params = s.is_moe() ? c.moe_layer.mlp / (s.n_experts + s.shared_experts) : 0;
  c.moe_layers = s.is_moe() ? s.n_layers - s.n_dense_layers : 0;
  c.grad_bytes = job.software.fp32_grads ? 4 : 2;
  // Mixed precision: an fp32 master copy plus the optimizer's moments (as
  // training_memory counts them); the step reads the gradient twice (norm for
  // clipping, update), reads and writes master and moments, writes bf16 weights.
  switch (job.optimizer) {
    case Optimizer::adam: c.optimizer_bytes = 12; break;
    case Optimizer::sgd_momentum: c.optimizer_bytes = 8; break;
    case Optimizer::adafactor: c.optimizer_bytes = 4; break;
  }
  // Per parameter the step zeroes the gradient buffer, reads it for the norm
  // (clipping) and for the update, reads and writes the fp32 master and the
  // moments, and writes the bf16 weights from the master (Megatron's mixed-
  // precision optimizer): 3 gradient passes + 2 × states + 6.
  c.update_bytes = 3 * c.grad_bytes + 2 * c.optimizer_bytes + 6;
  c.comm_unit_fraction = c.chip->compute_units > 0
                             ? std::min(0.5, 20.0 / static_cast<double>(c.chip->compute_units))
                             : 0;
  c.model_flops = step_model_flops(job);
  return c;
}

GroupPlacement placement(const JobContext& c, std::int64_t ranks, std::int64_t stride) {
  return {ranks, ranks_per_node(ranks, stride, c.chip->network.chips_per_node)};
}

double group_seconds(const JobContext& c, Collective op, double bytes, const GroupPlacement& g) {
  if (g.ranks <= 1 || bytes <= 0) return 0;
  return group_collective_seconds(op, bytes, g, c.intra, c.inter);
}

namespace {

double hide(double comm, double window) { return std::max(0.0, comm - window); }

}  // namespace

double overlapped(const JobContext& c, double comm, double window) {
  return hide(comm, window) + c.comm_unit_fraction * std::min(comm, window);
}

namespace {

// A GEMM with a weight: forward, input gradient, weight gradient (accumulated
// into the fp32 gradient buffer: read and written once more).
struct WeightGemm {
  double fwd = 0, dgrad = 0, wgrad = 0;
  double bwd() const { return dgrad + wgrad; }
};

WeightGemm weight_gemm(const KernelRates& r, std::int64_t m, std::int64_t n, std::int64_t k,
                       std::int64_t batch = 1) {
  WeightGemm g;
  g.fwd = gemm_seconds(r, {m, n, k, batch});
  g.dgrad = gemm_seconds(r, {m, k, n, batch});
  g.wgrad = gemm_seconds(
      r, {k, n, m, batch},
      8.0 * static_cast<double>(k) * static_cast<double>(n) * static_cast<double>(batch));
  return g;
}

}  // namespace

LayerCost layer_cost(const JobContext& c, const Layout& L, bool moe_layer) {
  const TrainingJob& job = *c.job;
  const ModelShape& s = job.shape;
  const TrainingSoftware& sw = job.software;
  const KernelRates& r = c.rates;
  const bool moe = moe_layer && s.is_moe();
  const std::int64_t t = L.tp;
  const bool sp = L.sequence_parallel && t > 1;
  const std::int64_t s_local = job.seq_len / L.cp;
  const std::int64_t n = L.micro_batch * s_local;  // tokens on this rank
  const double nd = static_cast<double>(n);
  const double H = static_cast<double>(s.d_model);
  const double nt = sp ? nd / static_cast<double>(t) : nd;  // tokens of the replicated work
  const std::int64_t heads_r = s.n_heads / t;
  const std::int64_t kv_r = std::max<std::int64_t>(1, s.n_kv_heads / t);
  const std::int64_t dh = s.d_head;
  LayerCost lc;

  // Element-wise kernels outside the TP regions: two norms (forward reads x
  // and writes y; backward reads x and dy, writes dx) and two residual
  // junctions (bias-dropout-add: + a 1-byte mask with dropout).
  const double rep = nt * H;
  const double residual = sw.dropout ? 7 : 6;
  double ew_f = rep * (2 * 4 + 2 * residual);
  double ew_b = rep * (2 * 6 + 2 * residual);

  // Attention.
  const WeightGemm qkv = weight_gemm(r, n, (heads_r + 2 * kv_r) * dh, s.d_model);
  const WeightGemm proj = weight_gemm(r, n, s.d_model, heads_r * dh);
  double core_f = 0, core_b = 0, core_recompute = 0;
  if (sw.flash_attention) {
    // QKᵀ and A·V over the causal half (each query sees on average half of
    // the keys; context parallelism balances the halves): 4·n·s·d_head per
    // head forward, 2.5× that backward (FlashAttention-2: five matmuls to two).
    const double flops =
        4.0 * nd * static_cast<double>(job.seq_len) * 0.5 * static_cast<double>(heads_r * dh);
    core_f = flops / r.attention_flops_per_s;
    core_b = 2.5 * core_f;
  } else {
    // Unfused: batched QKᵀ and A·V over the whole s×s matrix, the fused
    // scale-mask-softmax (reads and writes the scores; backward reads the
    // probabilities and their gradient), dropout on the probabilities.
    const std::int64_t batch = L.micro_batch * heads_r, sq = job.seq_len;
    const double qk_f = gemm_seconds(r, {sq, sq, dh, batch});
    const double qk_b = gemm_seconds(r, {sq, dh, sq, batch}) * 2;
    const double av_f = gemm_seconds(r, {sq, dh, sq, batch});
    const double av_b = gemm_seconds(r, {sq, sq, dh, batch}) + gemm_seconds(r, {sq, dh, sq, batch});
    const double scores =
        static_cast<double>(batch) * static_cast<double>(sq) * static_cast<double>(sq);
    const double soft_f = 4 * scores + (sw.dropout ? 5 * scores : 0);
    const double soft_b = 6 * scores + (sw.dropout ? 5 * scores : 0);
    core_f = qk_f + av_f + streaming_seconds(r, soft_f);
    core_b = qk_b + av_b + streaming_seconds(r, soft_b);
    if (L.recompute == Checkpointing::selective) core_recompute = core_f;
  }

  // The MLP (dense, or routed experts plus shared experts).
  const double per_unit_f = s.gated ? 6 : 4, per_unit_b = s.gated ? 10 : 6;
  const std::int64_t up = s.gated ? 2 : 1;
  WeightGemm fc1, fc2;
  double mlp_f = 0, mlp_b = 0;
  if (!moe) {
    const std::int64_t f_r = s.d_ff / t;
    fc1 = weight_gemm(r, n, up * f_r, s.d_model);
    fc2 = weight_gemm(r, n, s.d_model, f_r);
    mlp_f = fc1.fwd + fc2.fwd + streaming_seconds(r, per_unit_f * nd * static_cast<double>(f_r));
    mlp_b =
        fc1.bwd() + fc2.bwd() + streaming_seconds(r, per_unit_b * nd * static_cast<double>(f_r));
  } else {
    const std::int64_t ef_r = s.effective_expert_d_ff() / t;
    const std::int64_t local_experts = s.n_experts / L.ep;
    const double routed = nd * static_cast<double>(s.top_k) * sw.moe_load_imbalance;
    const std::int64_t per_expert = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::ceil(routed / static_cast<double>(local_experts))));
    const std::int64_t n_rt = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(nt)));
    const WeightGemm router = weight_gemm(r, n_rt, s.n_experts, s.d_model);
    fc1 = weight_gemm(r, per_expert, up * ef_r, s.d_model, local_experts);
    fc2 = weight_gemm(r, per_expert, s.d_model, ef_r, local_experts);
    // Routing (softmax, top-k) in fp32, and permuting the tokens to their
    // experts and back (read and write each routed token twice).
    const double route_bytes = 12.0 * nt * static_cast<double>(s.n_experts);
    const double permute_bytes = 8.0 * routed * H;
    mlp_f = router.fwd + fc1.fwd + fc2.fwd +
            streaming_seconds(
                r, route_bytes + permute_bytes + per_unit_f * routed * static_cast<double>(ef_r));
    mlp_b = router.bwd() + fc1.bwd() + fc2.bwd() +
            streaming_seconds(
                r, route_bytes + permute_bytes + per_unit_b * routed * static_cast<double>(ef_r));
    if (s.shared_experts > 0) {
      const std::int64_t sf_r = s.shared_experts * s.effective_expert_d_ff() / t;
      const WeightGemm s1 = weight_gemm(r, n, up * sf_r, s.d_model);
      const WeightGemm s2 = weight_gemm(r, n, s.d_model, sf_r);
      mlp_f += s1.fwd + s2.fwd + streaming_seconds(r, per_unit_f * nd * static_cast<double>(sf_r));
      mlp_b +=
          s1.bwd() + s2.bwd() + streaming_seconds(r, per_unit_b * nd * static_cast<double>(sf_r));
    }
  }

  // Biases: QKV's is added by its own kernel (the others fuse into the
  // following element-wise kernel); every bias gradient reads its output
  // gradient once more. The unfused attention copies its output to [s, b, h].
  const double qkv_width = static_cast<double>((heads_r + 2 * kv_r) * dh);
  if (s.qkv_bias) {
    ew_f += 4 * nd * qkv_width;
    ew_b += 2 * nd * qkv_width;
  }
  if (s.o_bias) ew_b += 2 * rep;
  if (s.mlp_bias) ew_b += 2 * rep + 2 * nd * static_cast<double>(up * (moe ? 0 : s.d_ff / t));
  if (!sw.flash_attention) {
    ew_f += 4 * nd * static_cast<double>(heads_r * dh);
    ew_b += 4 * nd * static_cast<double>(heads_r * dh);
  }
  lc.fwd_compute = qkv.fwd + proj.fwd + core_f + mlp_f + streaming_seconds(r, ew_f);
  lc.bwd_compute = qkv.bwd() + proj.bwd() + core_b + mlp_b + streaming_seconds(r, ew_b);

  // Tensor-parallel collectives of the activations (n × d_model in bf16).
  if (t > 1) {
    const GroupPlacement grp = placement(c, t, 1);
    const double bytes = 2.0 * nd * H;
    const bool full_overlap = sw.tp_overlap == TpOverlap::full;
    const bool bwd_overlap = sw.tp_overlap != TpOverlap::none;
    if (sp) {
      const double ag = group_seconds(c, Collective::all_gather, bytes, grp);
      const double rs = group_seconds(c, Collective::reduce_scatter, bytes, grp);
      // Forward: all-gather into QKV and FC1, reduce-scatter out of the
      // output projection and FC2.
      lc.fwd_tp = full_overlap ? overlapped(c, ag, qkv.fwd) + overlapped(c, ag, fc1.fwd) +
                                     overlapped(c, rs, proj.fwd) + overlapped(c, rs, fc2.fwd)
                               : 2 * ag + 2 * rs;
      // Backward: the all-gather of the output gradients (blocking), the
      // reduce-scatter of the input gradients (beside the weight-gradient
      // GEMM), and the all-gather of the inputs again for the weight gradient
      // (beside the input-gradient GEMM) unless the recomputed forward kept it.
      double bwd =
          full_overlap ? overlapped(c, ag, proj.dgrad) + overlapped(c, ag, fc2.dgrad) : 2 * ag;
      bwd += bwd_overlap ? overlapped(c, rs, qkv.wgrad) + overlapped(c, rs, fc1.wgrad) : 2 * rs;
      if (L.recompute != Checkpointing::full)
        bwd += bwd_overlap ? overlapped(c, ag, qkv.dgrad) + overlapped(c, ag, fc1.dgrad) : 2 * ag;
      lc.bwd_tp = bwd;
    } else {
      const double ar = group_seconds(c, Collective::all_reduce, bytes, grp);
      lc.fwd_tp = full_overlap ? overlapped(c, ar, proj.fwd) + overlapped(c, ar, fc2.fwd) : 2 * ar;
      lc.bwd_tp =
          bwd_overlap ? overlapped(c, ar, qkv.wgrad) + overlapped(c, ar, fc1.wgrad) : 2 * ar;
    }
  }

  // Expert all-to-alls: dispatch and combine, forward and backward.
  if (moe && L.ep > 1) {
    const double bytes = 2.0 * nt * static_cast<double>(s.top_k) * sw.moe_load_imbalance * H;
    const double a2a = group_seconds(c, Collective::all_to_all, bytes, placement(c, L.ep, t));
    lc.fwd_ep = sw.overlap_ep_comm ? overlapped(c, 2 * a2a, lc.fwd_compute) : 2 * a2a;
    lc.bwd_ep = sw.overlap_ep_comm ? overlapped(c, 2 * a2a, lc.bwd_compute) : 2 * a2a;
  }

  // Context parallelism: K and V chunks go around the ring (cp − 1 steps),
  // overlapped with the attention kernels; the backward also returns dK, dV.
  if (L.cp > 1) {
    const GroupPlacement grp = placement(c, L.cp, t);
    const Link& link = grp.ranks_per_node == grp.ranks ? c.intra : c.inter;
    const double chunk = 4.0 * nd * static_cast<double>(kv_r * dh);
    const double ring =
        static_cast<double>(L.cp - 1) * (link.latency_seconds + chunk / link.bytes_per_s);
    lc.fwd_cp = overlapped(c, ring, core_f);
    lc.bwd_cp = overlapped(c, 2 * ring, core_b);
  }

  // Recomputation before the backward.
  switch (L.recompute) {
    case Checkpointing::none: break;
    case Checkpointing::selective: lc.recompute = core_recompute; break;
    case Checkpointing::full:
      lc.recompute = lc.fwd_compute;
      lc.recompute_tp = lc.fwd_tp;
      lc.recompute_ep = lc.fwd_ep;
      lc.recompute_cp = lc.fwd_cp;
      break;
  }

  // Parameters on this rank.
  const LayerParams& lp = moe ? c.moe_layer : c.dense_layer;
  if (!moe) {
    lc.dense_params = ceil_div(lp.attn, t) + ceil_div(lp.mlp, t) + lp.norms;
  } else {
    lc.dense_params = ceil_div(lp.attn, t) + lp.norms + lp.router +
                      ceil_div(checked_mul(s.shared_experts, c.expert_params, "parameters"), t);
    lc.expert_params = checked_mul(s.n_experts / L.ep, ceil_div(c.expert_params, t), "parameters");
  }

  LayerActivationInputs in;
  in.seq_len = job.seq_len;
  in.micro_batch = L.micro_batch;
  in.tp = t;
  in.cp = L.cp;
  in.sequence_parallel = L.sequence_parallel;
  in.recompute = L.recompute;
  in.flash_attention = sw.flash_attention;
  in.dropout = sw.dropout;
  in.moe_load_imbalance = sw.moe_load_imbalance;
  lc.activation_bytes = layer_activation_bytes(s, in, moe);
  in.recompute = Checkpointing::none;
  lc.full_activation_bytes = layer_activation_bytes(s, in, moe);
  return lc;
}

EdgeCost embedding_cost(const JobContext& c, const Layout& L) {
  const TrainingJob& job = *c.job;
  const ModelShape& s = job.shape;
  const std::int64_t t = L.tp;
  const bool sp = L.sequence_parallel && t > 1;
  const double nd = static_cast<double>(L.micro_batch * (job.seq_len / L.cp));
  const double H = static_cast<double>(s.d_model);
  const double nt = sp ? nd / static_cast<double>(t) : nd;
  EdgeCost e;
  e.params = ceil_div(checked_mul(s.vocab, s.d_model, "embedding parameters"), t);
  // Look-up (read the rows, write the output); backward scatter-adds into the
  // fp32 gradient of the table.
  e.fwd_compute =
      streaming_seconds(c.rates, 4.0 * nd * H + (job.software.dropout ? 5.0 * nt * H : 0));
  e.bwd_compute =
      streaming_seconds(c.rates, 8.0 * nd * H + (job.software.dropout ? 5.0 * nt * H : 0));
  if (t > 1) {
    // Vocabulary-parallel: each rank holds V/t rows; the partial outputs are
    // summed (reduce-scattered with SP).
    const GroupPlacement grp = placement(c, t, 1);
    const double bytes = 2.0 * nd * H;
    e.tp = sp ? group_seconds(c, Collective::reduce_scatter, bytes, grp) +
                    group_seconds(c, Collective::all_gather, bytes, grp)
              : group_seconds(c, Collective::all_reduce, bytes, grp);
  }
  if (job.software.dropout)
    e.activation_bytes = static_cast<std::int64_t>(std::ceil(nt * H));  // the dropout mask
  return e;
}

EdgeCost output_cost(const JobContext& c, const Layout& L) {
  const TrainingJob& job = *c.job;
  const ModelShape& s = job.shape;
  const std::int64_t t = L.tp;
  const bool sp = L.sequence_parallel && t > 1;
  const std::int64_t n = L.micro_batch * (job.seq_len / L.cp);
  const double nd = static_cast<double>(n);
  const double H = static_cast<double>(s.d_model);
  const double nt = sp ? nd / static_cast<double>(t) : nd;
  const std::int64_t v_r = ceil_div(s.vocab, t);
  const double logits = nd * static_cast<double>(v_r);
  EdgeCost e;
  // The unembedding is its own matrix unless tied on a single stage; a tied
  // table is copied to the last stage when there are several (Megatron).
  e.params = s.d_model + ((!s.tied_embeddings || L.pp > 1)
                              ? ceil_div(checked_mul(s.vocab, s.d_model, "unembedding"), t)
                              : 0);
  const WeightGemm out = weight_gemm(c.rates, n, v_r, s.d_model);
  // Final norm; the vocabulary-parallel cross-entropy in fp32 (max, exp-sum,
  // loss: reads the logits and writes fp32 softmax; backward writes the
  // gradient).
  e.fwd_compute = out.fwd + streaming_seconds(c.rates, 4.0 * nt * H + 10.0 * logits);
  e.bwd_compute = out.bwd() + streaming_seconds(c.rates, 6.0 * nt * H + 6.0 * logits);
  if (t > 1) {
    const GroupPlacement grp = placement(c, t, 1);
    const double bytes = 2.0 * nd * H;
    e.tp = sp ? group_seconds(c, Collective::all_gather, bytes, grp) +
                    group_seconds(c, Collective::reduce_scatter, bytes, grp)
              : group_seconds(c, Collective::all_reduce, bytes, grp);
    e.tp += 3 * group_seconds(c, Collective::all_reduce, 4.0 * nd, grp);  // max, sum, target
  }
  const double rep_div = sp ? static_cast<double>(t) : 1.0;
  e.activation_bytes = static_cast<std::int64_t>(std::ceil(4.0 * nd * H / rep_div + 4.0 * logits));
  return e;
}

}  // namespace parallel_detail

namespace parallel_detail {

namespace {

GroupPlacement dense_dp_group(const JobContext& c, const Layout& L) {
  return placement(c, L.dp * L.cp, L.tp);
}

GroupPlacement expert_dp_group(const JobContext& c, const Layout& L) {
  return placement(c, std::max<std::int64_t>(1, L.dp * L.cp / L.ep), L.tp * L.ep);
}

// The data-parallel collectives over a rank's parameters: dense ones over
// DP × CP, routed experts' over DP × CP / EP; gradients of c.grad_bytes,
// weights of 2 bytes. Cached: the search meets the same stages many times.
const DpCollectives& dp_collectives(const JobContext& c, const Layout& L, std::int64_t dense_params,
                                    std::int64_t expert_params) {
  const std::array<std::int64_t, 6> key{dense_params, expert_params, L.dp, L.cp, L.tp, L.ep};
  if (auto it = c.dp_cache.find(key); it != c.dp_cache.end()) return it->second;
  if (c.dp_cache.size() > 100'000) c.dp_cache.clear();
  const GroupPlacement dg = dense_dp_group(c, L), eg = expert_dp_group(c, L);
  const double dense = static_cast<double>(dense_params),
               expert = static_cast<double>(expert_params);
  auto both = [&](Collective op, double per_param) {
    return group_seconds(c, op, per_param * dense, dg) +
           group_seconds(c, op, per_param * expert, eg);
  };
  DpCollectives& d = c.dp_cache[key];
  d.all_reduce = both(Collective::all_reduce, c.grad_bytes);
  d.reduce_scatter = both(Collective::reduce_scatter, c.grad_bytes);
  d.all_gather = both(Collective::all_gather, 2);
  return d;
}

// Once per step: ZeRO-0 all-reduces the gradients; ZeRO-1 reduce-scatters
// them and all-gathers the updated weights; ZeRO-2 reduce-scattered them per
// micro-batch already and all-gathers the weights; ZeRO-3 does it per layer.
struct DpStep {
  double grads = 0;
  double params = 0;
};

DpStep dp_step(const JobContext& c, const Layout& L, std::int64_t dense_params,
               std::int64_t expert_params) {
  if (L.dp * L.cp == 1 || L.zero >= 3) return {};
  const DpCollectives& d = dp_collectives(c, L, dense_params, expert_params);
  switch (L.zero) {
    case 0: return {d.all_reduce, 0};
    case 1: return {d.reduce_scatter, d.all_gather};
    default: return {0, d.all_gather};
  }
}

// ZeRO-2/3 traffic per layer and micro-batch, hidden behind that layer's
// compute: ZeRO-2 reduce-scatters each micro-batch's gradients; ZeRO-3 also
// gathers the layer's weights before its forward and again before its backward.
std::pair<double, double> zero_layer_exposed(const JobContext& c, const Layout& L,
                                             const LayerCost& lc) {
  if (L.zero < 2 || L.dp * L.cp == 1) return {0.0, 0.0};
  const DpCollectives& d = dp_collectives(c, L, lc.dense_params, lc.expert_params);
  if (L.zero == 2) return {0.0, overlapped(c, d.reduce_scatter, lc.bwd_compute)};
  return {overlapped(c, d.all_gather, lc.fwd_compute),
          overlapped(c, d.all_gather + d.reduce_scatter, lc.bwd_compute + lc.recompute)};
}

bool same_composition(const StageComposition& a, const StageComposition& b) {
  return a.layers == b.layers && a.moe_layers == b.moe_layers && a.first == b.first &&
         a.last == b.last;
}

bool pipeline_across_nodes(const JobContext& c, const Layout& L) {
  return L.tp * L.cp * L.dp >= c.chip->network.chips_per_node;
}

// Decimal gigabytes with one decimal ("93.1 GB"), without printf: the search
// writes this for every layout that does not fit.
std::string gigabytes(std::int64_t bytes) {
  const std::int64_t tenths = (bytes + 50'000'000) / 100'000'000;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " GB";
}

std::string over_hbm_reason(const StageMemory& m, std::int64_t hbm) {
  return "stage " + std::to_string(m.stage) + " needs " + gigabytes(m.total_bytes) +
         " per chip, over the " + gigabytes(hbm) + " of HBM by " + gigabytes(m.total_bytes - hbm);
}

}  // namespace

void stage_times(const JobContext& c, const Layout& L, const std::vector<StageComposition>& comps,
                 const LayerCost& dense, const LayerCost& moe, const EdgeCost& embed,
                 const EdgeCost& out, std::vector<StageTime>& st, double* p2p_seconds) {
  const TrainingJob& job = *c.job;
  // Pipeline sends: each micro-batch crosses every chunk boundary forward and
  // backward; with TP each rank sends its 1/t share (Megatron's scatter-gather).
  double one = 0;
  if (L.pp > 1) {
    const Link& link = pipeline_across_nodes(c, L) ? c.inter : c.intra;
    const double bytes = 2.0 * static_cast<double>(L.micro_batch * (job.seq_len / L.cp)) *
                         static_cast<double>(job.shape.d_model) / static_cast<double>(L.tp);
    one = link.latency_seconds + bytes / link.bytes_per_s;
  }
  if (p2p_seconds) *p2p_seconds = one;
  const auto [zd_f, zd_b] = zero_layer_exposed(c, L, dense);
  const auto [zm_f, zm_b] = zero_layer_exposed(c, L, moe);
  st.assign(comps.size(), StageTime{});
  for (std::size_t i = 0; i < comps.size(); ++i) {
    const StageComposition& sc = comps[i];
    // Stages with the same layers take the same time: copy the first.
    if (i > 0 && same_composition(sc, comps[i - 1])) {
      st[i] = st[i - 1];
      continue;
    }
    const double nd = static_cast<double>(sc.dense_layers), nm = static_cast<double>(sc.moe_layers);
    StageTime& x = st[i];
    x.compute =
        nd * (dense.fwd_compute + dense.bwd_compute) + nm * (moe.fwd_compute + moe.bwd_compute);
    x.recompute = nd * dense.recompute + nm * moe.recompute;
    x.tp = nd * (dense.fwd_tp + dense.bwd_tp + dense.recompute_tp) +
           nm * (moe.fwd_tp + moe.bwd_tp + moe.recompute_tp);
    x.ep = nm * (moe.fwd_ep + moe.bwd_ep + moe.recompute_ep);
    x.cp = nd * (dense.fwd_cp + dense.bwd_cp + dense.recompute_cp) +
           nm * (moe.fwd_cp + moe.bwd_cp + moe.recompute_cp);
    x.dp = nd * (zd_f + zd_b) + nm * (zm_f + zm_b);
    x.pp = 2.0 * static_cast<double>(L.vpp) * one;
    x.fwd = nd * (dense.forward() + zd_f) + nm * (moe.forward() + zm_f);
    x.bwd = nd * (dense.backward() + zd_b) + nm * (moe.backward() + zm_b);
    if (sc.first) {
      x.compute += embed.fwd_compute + embed.bwd_compute;
      x.tp += embed.tp;
      x.fwd += embed.fwd_compute + embed.tp / 2;
      x.bwd += embed.bwd_compute + embed.tp / 2;
    }
    if (sc.last) {
      x.compute += out.fwd_compute + out.bwd_compute;
      x.tp += out.tp;
      x.fwd += out.fwd_compute + out.tp / 2;
      x.bwd += out.bwd_compute + out.tp / 2;
    }
  }
}

LayoutResult evaluate_prepared(const JobContext& c, const Layout& L, const LayerCost& dense,
                               const LayerCost& moe, const EdgeCost& embed, const EdgeCost& out) {
  const TrainingJob& job = *c.job;
  const ModelShape& s = job.shape;
  LayoutResult res;
  res.layout = L;
  res.layout.sequence_parallel = L.sequence_parallel && L.tp > 1;  // no effect at tp = 1
  res.hbm_bytes = c.chip->hbm_bytes;
  res.valid = true;
  const std::int64_t m = job.global_batch / (L.dp * L.micro_batch);
  res.micro_batches = m;
  std::vector<StageComposition>& comps = c.comps_scratch;
  std::vector<StageTime>& st = c.times_scratch;
  stage_compositions(c, L, comps);
  stage_times(c, L, comps, dense, moe, embed, out, st);
  const double vd = static_cast<double>(L.vpp);

  // The pipeline: m micro-batches at the slowest stage's pace, plus the fill
  // and drain of the others, 1/v as long when interleaved (Narayanan et al.
  // §2.2: bubble (p − 1)/(v·m) of the ideal time for equal stages).
  std::size_t slow = 0;
  double sum = 0;
  for (std::size_t i = 0; i < st.size(); ++i) {
    sum += st[i].total();
    if (st[i].total() > st[slow].total()) slow = i;
  }
  const double md = static_cast<double>(m);
  const StageTime& b = st[slow];
  StepTime& tm = res.time;
  tm.compute_seconds = md * b.compute;
  tm.recompute_seconds = md * b.recompute;
  tm.tp_comm_seconds = md * b.tp;
  tm.ep_comm_seconds = md * b.ep;
  tm.cp_comm_seconds = md * b.cp;
  tm.pp_comm_seconds = md * b.pp;
  tm.dp_comm_seconds = md * b.dp;
  tm.pp_bubble_seconds = (sum - b.total()) / vd;

  // Data parallelism once per step, and the optimizer: the worst stage.
  double dp_exposed = 0, optimizer = 0, fwd_before = 0, bwd_before = 0;
  const std::int64_t shard = L.dp * L.cp;
  const std::int64_t expert_shard = std::max<std::int64_t>(1, shard / L.ep);
  DpStep d;
  double update = 0;
  for (std::size_t i = 0; i < comps.size(); ++i) {
    const StageComposition& sc = comps[i];
    if (i == 0 || !same_composition(sc, comps[i - 1])) {
      std::int64_t dense_params =
          sc.dense_layers * dense.dense_params + sc.moe_layers * moe.dense_params;
      const std::int64_t expert_params = sc.moe_layers * moe.expert_params;
      if (sc.first) dense_params += embed.params;
      if (sc.last) dense_params += out.params;
      d = dp_step(c, L, dense_params, expert_params);
      const std::int64_t owned =
          L.zero >= 1 ? ceil_div(dense_params, shard) + ceil_div(expert_params, expert_shard)
                      : dense_params + expert_params;
      update = streaming_seconds(c.rates, c.update_bytes * static_cast<double>(owned));
    }
    // Overlapped: the gradients reduce in buckets during the last micro-
    // batch's backward (and while the stages before it drain); the parameters
    // gather during the next step's first forward.
    const double exposed = job.software.overlap_dp_comm
                               ? overlapped(c, d.grads, st[i].bwd + bwd_before / vd) +
                                     overlapped(c, d.params, st[i].fwd + fwd_before / vd)
                               : d.grads + d.params;
    dp_exposed = std::max(dp_exposed, exposed);
    fwd_before += st[i].fwd;
    bwd_before += st[i].bwd;
    optimizer = std::max(optimizer, update);
  }
  // A tied embedding's two copies (first and last stage) sum their gradients.
  if (s.tied_embeddings && L.pp > 1)
    dp_exposed +=
        collective_seconds(Collective::all_reduce, c.grad_bytes * static_cast<double>(embed.params),
                           2, pipeline_across_nodes(c, L) ? c.inter : c.intra);
  tm.dp_comm_seconds += dp_exposed;
  tm.optimizer_seconds = optimizer;
  res.step_seconds = tm.total_seconds();

  // Memory: the peak stage. Stages of the same layers hold fewer micro-
  // batches the later they come, so only the first of each kind can peak.
  for (std::size_t i = 0; i < comps.size(); ++i) {
    if (i > 0 && same_composition(comps[i], comps[i - 1])) continue;
    const StageMemory sm =
        stage_memory(c, L, static_cast<std::int64_t>(i), comps[i], dense, moe, embed, out);
    if (i == 0 || sm.total_bytes > res.memory.total_bytes) res.memory = sm;
  }
  res.fits = res.memory.total_bytes <= res.hbm_bytes;
  if (!res.fits) {
    res.over_hbm_bytes = res.memory.total_bytes - res.hbm_bytes;
    res.reason = over_hbm_reason(res.memory, res.hbm_bytes);
  }

  // Throughput and utilization.
  const double tokens = static_cast<double>(job.global_batch) * static_cast<double>(job.seq_len);
  const double chips = static_cast<double>(job.n_chips);
  res.model_flops_per_step = c.model_flops;
  const double attn = (job.attention_flops == CausalMask::causal_half ? 2.0 : 4.0) *
                      static_cast<double>(s.n_layers) * static_cast<double>(job.seq_len) *
                      static_cast<double>(s.n_heads * s.d_head);
  switch (L.recompute) {
    case Checkpointing::none: break;
    case Checkpointing::selective:
      if (!job.software.flash_attention) res.recompute_flops_per_step = tokens * attn;
      break;
    case Checkpointing::full:
      res.recompute_flops_per_step =
          tokens * (2.0 * static_cast<double>(c.params.non_embedding_active) + attn);
      break;
  }
  const double peak_flops = res.step_seconds * chips * c.chip->peak_flops_per_s;
  res.tokens_per_second_per_chip = tokens / res.step_seconds / chips;
  res.mfu = res.model_flops_per_step / peak_flops;
  res.hfu = (res.model_flops_per_step + res.recompute_flops_per_step) / peak_flops;
  res.days = job.train_tokens / (tokens / res.step_seconds) / 86400.0;
  return res;
}

}  // namespace parallel_detail

LayoutResult evaluate_layout(const TrainingJob& job, const Layout& L) {
  using namespace parallel_detail;
  const JobContext c = make_context(job);
  if (auto problem = layout_problem(job, L)) {
    LayoutResult res;
    res.layout = L;
    res.hbm_bytes = c.chip->hbm_bytes;
    res.reason = *problem;
    return res;
  }
  const LayerCost dense = layer_cost(c, L, false);
  const LayerCost moe = job.shape.is_moe() ? layer_cost(c, L, true) : dense;
  return evaluate_prepared(c, L, dense, moe, embedding_cost(c, L), output_cost(c, L));
}

}  // namespace napkin
