// Data parallelism's collectives: the gradient reduction and the weights'
// gather once per step (ZeRO-0/1), per layer and micro-batch (ZeRO-2/3), with
// hybrid sharding's groups and replicas (Layout::shard), and what of them the
// step's compute hides.
#include <algorithm>
#include <array>
#include <cmath>

#include "parallel.h"
#include "parallel_internal.h"
#include "validate.h"

namespace napkin::parallel_detail {

namespace {

GroupPlacement dense_dp_group(const JobContext& c, const Layout& L) {
  return placement(c, L.dp * L.cp, L.tp);
}

// Hybrid sharding (Layout::shard): ZeRO's group, `shard` consecutive DP × CP
// ranks, and the replicas that hold the same shard, `shard` apart.
GroupPlacement dense_shard_group(const JobContext& c, const Layout& L) {
  return placement(c, L.zero_shard(), L.tp);
}
GroupPlacement dense_replica_group(const JobContext& c, const Layout& L) {
  return placement(c, L.zero_replicas(), L.tp * L.zero_shard());
}

GroupPlacement expert_dp_group(const JobContext& c, const Layout& L) {
  return placement(c, L.expert_dp(), L.expert_tp() * L.ep);
}

// The data-parallel collectives over a rank's parameters: dense ones over
// DP × CP, routed experts' over the expert-DP group (Layout::expert_dp); gradients of c.grad_bytes,
// weights of 2 bytes. With hybrid sharding the reduce-scatter and the gather
// stay in the shard group and the replicas all-reduce the gradient shard.
// Cached: the search meets the same stages many times.
const DpCollectives& dp_collectives(const JobContext& c, const Layout& L, std::int64_t dense_params,
                                    std::int64_t expert_params) {
  const std::array<std::int64_t, 8> key{dense_params, expert_params, L.dp,  L.cp,
                                        L.tp,         L.ep,          L.etp, L.zero_shard()};
  if (auto it = c.dp_cache.find(key); it != c.dp_cache.end()) return it->second;
  if (c.dp_cache.size() > 100'000) c.dp_cache.clear();
  // The all-reduce over the whole group; the reduce-scatter and the gather
  // over ZeRO's (the whole group without hybrid sharding).
  const GroupPlacement dg = dense_dp_group(c, L), sg = dense_shard_group(c, L),
                       eg = expert_dp_group(c, L);
  const double dense = static_cast<double>(dense_params),
               expert = static_cast<double>(expert_params);
  auto both = [&](Collective op, double per_param, const GroupPlacement& dense_group) {
    return group_seconds(c, op, per_param * dense, dense_group) +
           group_seconds(c, op, per_param * expert, eg);
  };
  DpCollectives& d = c.dp_cache[key];
  d.all_reduce = both(Collective::all_reduce, c.grad_bytes, dg);
  d.reduce_scatter = both(Collective::reduce_scatter, c.grad_bytes, sg);
  d.all_gather = both(Collective::all_gather, 2, sg);
  if (L.zero_replicas() > 1)
    d.replica_all_reduce = group_seconds(c, Collective::all_reduce,
                                         c.grad_bytes * dense / static_cast<double>(L.zero_shard()),
                                         dense_replica_group(c, L));
  return d;
}

// The fixed cost of a ring all-gather or reduce-scatter over the whole
// data-parallel group: NCCL runs them as one flat ring (it has no tree for
// them), n − 1 steps each paced by the slowest hop, the network between nodes.
// The hierarchical model of the bandwidth counts fewer steps; this is what it
// leaves out, the term that dominates ZeRO-3's per-layer gathers at scale.
double flat_ring_extra_latency(const JobContext& c, const GroupPlacement& g) {
  if (g.ranks <= 1 || g.ranks_per_node == g.ranks) return 0;
  const double n = static_cast<double>(g.ranks), r = static_cast<double>(g.ranks_per_node);
  const double hierarchical =
      (r - 1) * c.intra.latency_seconds + (n / r - 1) * c.inter.latency_seconds;
  return std::max(0.0, (n - 1) * c.inter.latency_seconds - hierarchical);
}

}  // namespace

// Once per step: ZeRO-0 all-reduces the gradients; ZeRO-1 reduce-scatters
// them and all-gathers the updated weights; ZeRO-2 reduce-scattered them per
// micro-batch already and all-gathers the weights; ZeRO-3 does it per layer.

DpStep dp_step(const JobContext& c, const Layout& L, std::int64_t dense_params,
               std::int64_t expert_params) {
  const int zero = zero_as_run(*c.job, L);
  if (L.dp * L.cp == 1 || zero >= 3) return {};
  const DpCollectives& d = dp_collectives(c, L, dense_params, expert_params);
  switch (zero) {
    case 0: return {d.all_reduce, 0};
    case 1:
      return {
          c.job->software.zero1_all_reduce ? d.all_reduce : d.reduce_scatter + d.replica_all_reduce,
          d.all_gather};
    default: return {0, d.all_gather};
  }
}

namespace {

// Megatron's layout of a buffer's buckets: tensors join the open bucket in
// backward order and a bucket closes with the tensor that brings it to
// `bucket` parameters or more.
struct Buckets {
  std::int64_t bucket = 0;
  std::int64_t open = 0;    // parameters in the open bucket
  std::int64_t closed = 0;  // in the last one closed
  // `count` tensors of `size` parameters each.
  void add(std::int64_t size, std::int64_t count = 1) {
    if (count <= 0 || size <= 0) return;
    const std::int64_t to_close = ceil_div(bucket - open, size);
    if (count < to_close) {
      open += count * size;
      return;
    }
    const std::int64_t per_bucket = ceil_div(bucket, size), rest = count - to_close;
    closed = rest >= per_bucket ? per_bucket * size : open + to_close * size;
    open = rest % per_bucket * size;
  }
  // The last bucket: the open one, or the last closed if none is open.
  std::int64_t last() const { return open > 0 ? open : closed; }
};

}  // namespace

std::pair<std::int64_t, std::int64_t> last_grad_bucket(const JobContext& c, const Layout& L,
                                                       const StageComposition& sc,
                                                       const LayerCost& dense, const LayerCost& moe,
                                                       const EdgeCost& embed, const EdgeCost& out) {
  const TrainingJob& job = *c.job;
  if (!job.software.megatron_dp_buckets || !job.software.overlap_dp_comm) return {0, 0};
  const std::int64_t nd = sc.first_chunk_dense_layers, nm = sc.first_chunk_moe_layers;
  const bool head = sc.last && L.vpp <= 1;  // the output layer is in the first chunk
  // A later stage's first chunk is one bucket.
  if (!sc.first)
    return {nd * dense.dense_params + nm * moe.dense_params + (head ? out.params : 0),
            nm * moe.expert_params};
  // The first stage: its tensors in backward order (the output layer, then
  // each layer's MLP and attention from the last layer down, the embedding
  // last), a dense and an expert buffer, each bucket closed by the tensor
  // that fills it.
  // Cached: the search meets the same first stage many times.
  const std::array<std::int64_t, 8> key{nd, nm, head ? 1 : 0, L.tp, L.ep, L.etp, L.dp * L.cp, L.pp};
  if (auto it = c.bucket_cache.find(key); it != c.bucket_cache.end()) return it->second;
  if (c.bucket_cache.size() > 100'000) c.bucket_cache.clear();
  const ModelShape& s = job.shape;
  const std::int64_t bucket = std::max<std::int64_t>(40'000'000, 1'000'000 * L.dp * L.cp);
  const std::int64_t t = L.tp, up = s.gated ? 2 : 1;
  const std::int64_t proj = std::min(
      ceil_div(
          checked_mul({s.n_heads, s.is_mla() ? s.v_head_dim : s.d_head, s.d_model}, "parameters"),
          t),
      ceil_div(c.dense_layer.attn, t));
  Buckets params{bucket}, experts{bucket};
  // An MLP's two matrices (the down projection first), then the attention's
  // output projection and the rest of the layer (QKV with its norm).
  const auto layer = [&](std::int64_t mlp, std::int64_t rest) {
    params.add(mlp / (up + 1));
    params.add(mlp - mlp / (up + 1));
    params.add(proj);
    params.add(rest - proj);
  };
  if (head && !s.tied_embeddings) params.add(out.params);
  // A routed layer's shared experts are its MLP in the dense buffer; its
  // experts' matrices, expert by expert, fill the expert buffer.
  const std::int64_t shared =
      ceil_div(checked_mul(s.shared_experts, c.expert_params, "parameters"), t);
  const std::int64_t one = ceil_div(c.expert_params, L.expert_tp()), local = s.n_experts / L.ep;
  for (std::int64_t i = 0; i < nm; ++i) {
    layer(shared, moe.dense_params - shared);
    experts.add(one / (up + 1), local);
    experts.add(one - one / (up + 1), local);
  }
  const std::int64_t mlp = ceil_div(c.dense_layer.mlp, t);
  for (std::int64_t i = 0; i < nd; ++i) layer(mlp, dense.dense_params - mlp);
  params.add(embed.params);
  return c.bucket_cache[key] = {params.last(), experts.last()};
}

// ZeRO-2/3 traffic per layer and micro-batch. ZeRO-2 reduce-scatters each
// micro-batch's gradients and accumulates the shards (FSDP's gradient
// accumulation with communication, which stores sharded gradients; PyTorch
// pull request #126166 names the two flavours): the reduce-scatter runs on its
// own stream and nothing but the optimizer step waits for it, so it hides
// behind the layer's backward and, for every micro-batch but the last, behind
// the next micro-batch's forward too, and behind tensor-parallel collectives
// that stay inside the node. Its traffic per micro-batch is the whole stage's
// gradients: where that outlasts the rest of the work the step is bound by the
// link. ZeRO-3 (DeepSpeed ZeRO-3,
// FSDP) also all-gathers the layer's weights before its forward, again before
// its backward (and before a recomputed forward where the framework fetches
// again), each prefetched behind at most `zero3_prefetch_layers` layers of
// compute; in the backward the gathers and the reduce-scatters share the
// links. Rajbhandari et al. (SC'20) §5; Zhao et al., PyTorch FSDP (VLDB 2023)
// §3.3 (backward and forward prefetch of the next unit only).
std::pair<double, double> zero_layer_exposed(const JobContext& c, const Layout& L,
                                             const LayerCost& lc) {
  const int zero = zero_as_run(*c.job, L);
  if (zero < 2 || L.dp * L.cp == 1) return {0.0, 0.0};
  const DpCollectives& d = dp_collectives(c, L, lc.dense_params, lc.expert_params);
  if (zero == 2) {
    const double m = std::max(1.0, static_cast<double>(micro_batches_per_step(*c.job, L)));
    double fwd = lc.fwd_compute, bwd = lc.bwd_compute + lc.recompute;
    // Tensor-parallel collectives inside a node leave the scale-out link free.
    const GroupPlacement tp = placement(c, L.tp, 1);
    if (L.tp > 1 && tp.ranks_per_node == tp.ranks) {
      fwd += lc.fwd_tp;
      bwd += lc.bwd_tp + lc.recompute_tp;
    }
    return {0.0, overlapped(c, d.reduce_scatter + d.replica_all_reduce, bwd + fwd * (m - 1) / m)};
  }
  const TrainingSoftware& sw = c.job->software;
  const double ring = flat_ring_extra_latency(c, dense_shard_group(c, L));
  const double gather = d.all_gather + ring,
               scatter = d.reduce_scatter + ring + d.replica_all_reduce;
  const double window = static_cast<double>(sw.zero3_prefetch_layers);
  const double regather =
      sw.zero3_regather_for_recompute ? recompute_share(c.job->shape, L) * gather : 0.0;
  return {overlapped(c, gather, window * lc.fwd_compute),
          overlapped(c, gather + regather + scatter, window * (lc.bwd_compute + lc.recompute))};
}

// ZeRO-3's units at the ends of a micro-batch, on the stages that hold them.
// Nothing runs before the embedding's gather (FSDP2's root in torchtitan until
// 2025 held the embedding, the final norm and the output layer: parallelize_
// llama.py wraps each block, then the whole model) nor after its gradients'
// reduce-scatter, so both are exposed; the first layer's gather follows it
// with only the embedding's lookup to hide behind, and the first layer's
// reduce-scatter only the embedding's backward. The output layer in a unit of
// its own (or with the last layers) hides behind a layer as the layers do.
// Per micro-batch: FSDP reduce-scatters every backward.
std::pair<double, double> zero3_edges_exposed(const JobContext& c, const Layout& L,
                                              const StageComposition& sc,
                                              const LayerCost& first_layer,
                                              std::pair<double, double> first_hidden,
                                              const LayerCost& last_layer, const EdgeCost& embed,
                                              const EdgeCost& out) {
  if (zero_as_run(*c.job, L) < 3 || L.dp * L.cp == 1 || !(sc.first || sc.last)) return {0.0, 0.0};
  const TrainingSoftware& sw = c.job->software;
  const double ring = flat_ring_extra_latency(c, dense_shard_group(c, L));
  auto gather = [&](std::int64_t dense, std::int64_t expert) {
    return dp_collectives(c, L, dense, expert).all_gather + ring;
  };
  auto scatter = [&](std::int64_t dense, std::int64_t expert) {
    const DpCollectives& d = dp_collectives(c, L, dense, expert);
    return d.reduce_scatter + ring + d.replica_all_reduce;
  };
  const double window = static_cast<double>(sw.zero3_prefetch_layers);
  const bool root_holds_output = sw.zero3_root_gathered && sc.first && sc.last;
  double fwd = 0, bwd = 0;
  if (sc.first) {
    const std::int64_t unit = embed.params + (root_holds_output ? out.params : 0);
    fwd += gather(unit, 0);
    bwd += scatter(unit, 0);
    if (sc.layers > 0) {
      // The first layer, fully exposed where zero_layer_exposed hid it
      // (`first_hidden`, what it charged the layer).
      const auto [hidden_f, hidden_b] = first_hidden;
      const double g = gather(first_layer.dense_params, first_layer.expert_params);
      const double regather =
          sw.zero3_regather_for_recompute ? recompute_share(c.job->shape, L) * g : 0.0;
      fwd += g - hidden_f;
      bwd +=
          overlapped(c, g + regather, window * (first_layer.bwd_compute + first_layer.recompute)) +
          scatter(first_layer.dense_params, first_layer.expert_params) - hidden_b;
    }
  }
  if (sc.last && !root_holds_output) {
    fwd += overlapped(c, gather(out.params, 0), window * last_layer.fwd_compute);
    bwd += overlapped(c, scatter(out.params, 0),
                      window * (last_layer.bwd_compute + last_layer.recompute));
  }
  return {fwd, bwd};
}

}  // namespace napkin::parallel_detail
