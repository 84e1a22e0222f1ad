// Time per step of a layout: the layers of each pipeline stage
// (parallel_time.cpp), the pipeline with its bubble, the data-parallel reduce
// overlapped with the backward, and the optimizer step; then the assembled
// result of a layout (memory per stage against HBM, MFU, tokens/s).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "parallel.h"
#include "parallel_internal.h"
#include "validate.h"

namespace napkin {

namespace parallel_detail {

namespace {

// f × a + (1 − f) × b, field by field (the parameters are the same).
LayerCost blend(const LayerCost& a, const LayerCost& b, double f) {
  const double g = 1 - f;
  LayerCost x = a;
  for (auto m :
       {&LayerCost::fwd_compute, &LayerCost::bwd_compute, &LayerCost::recompute, &LayerCost::fwd_tp,
        &LayerCost::bwd_tp, &LayerCost::recompute_tp, &LayerCost::fwd_ep, &LayerCost::bwd_ep,
        &LayerCost::recompute_ep, &LayerCost::fwd_cp, &LayerCost::bwd_cp, &LayerCost::recompute_cp,
        &LayerCost::wgrad})
    x.*m = f * a.*m + g * b.*m;
  for (auto m : {&LayerCost::fwd_mix, &LayerCost::bwd_mix, &LayerCost::recompute_mix}) {
    x.*m = ComputeMix{};
    (x.*m).add(a.*m, f);
    (x.*m).add(b.*m, g);
  }
  x.activation_bytes = std::llround(f * static_cast<double>(a.activation_bytes) +
                                    g * static_cast<double>(b.activation_bytes));
  return x;
}

// Stages of the same layers take the same time.
bool same_layers(const StageComposition& a, const StageComposition& b) {
  return a.layers == b.layers && a.moe_layers == b.moe_layers && a.first == b.first &&
         a.last == b.last;
}

// And split the same way into model chunks: their memory (the earlier
// chunks hold more micro-batches) and their last gradient bucket match too.
bool same_composition(const StageComposition& a, const StageComposition& b) {
  return same_layers(a, b) && a.first_chunk_dense_layers == b.first_chunk_dense_layers &&
         a.first_chunk_moe_layers == b.first_chunk_moe_layers;
}

// Whether the pipeline's sends run beside other chunks' compute: Megatron
// overlaps them only in its interleaved schedule; DualPipe always.
bool p2p_overlapped(const TrainingJob& job, const Layout& L) {
  return job.software.overlap_p2p_comm && L.pp > 1 &&
         (L.vpp > 1 || job.software.pipe_schedule == PipeSchedule::dualpipe);
}

bool pipeline_across_nodes(const JobContext& c, const Layout& L) {
  return L.tp * L.cp * L.dp >= c.network.chips_per_node;
}

// Decimal gigabytes with one decimal ("93.1 GB"), without printf: the search
// writes this for every layout that does not fit.
std::string gigabytes(std::int64_t bytes) {
  const std::int64_t tenths = (bytes + 50'000'000) / 100'000'000;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " GB";
}

std::string over_hbm_reason(const StageMemory& m, std::int64_t hbm) {
  return "stage " + std::to_string(m.stage) + " needs " + gigabytes(m.total_bytes) +
         " per chip, over the " + gigabytes(hbm) + " of HBM the device reports by " +
         gigabytes(m.total_bytes - hbm);
}

// Two stages' times averaged, part by part.
StageTime mean_of(const StageTime& a, const StageTime& b) {
  StageTime m;
  m.fwd = (a.fwd + b.fwd) / 2;
  m.bwd = (a.bwd + b.bwd) / 2;
  m.compute = (a.compute + b.compute) / 2;
  m.recompute = (a.recompute + b.recompute) / 2;
  m.tp = (a.tp + b.tp) / 2;
  m.ep = (a.ep + b.ep) / 2;
  m.cp = (a.cp + b.cp) / 2;
  m.dp = (a.dp + b.dp) / 2;
  m.pp = (a.pp + b.pp) / 2;
  m.pp_hop = (a.pp_hop + b.pp_hop) / 2;
  m.wgrad = (a.wgrad + b.wgrad) / 2;
  m.mix.add(a.mix, 0.5);
  m.mix.add(b.mix, 0.5);
  return m;
}

// The pipeline into `tm`: m micro-batches at the slowest stage's pace, plus
// the fill and drain of the others, 1/v as long when interleaved (Narayanan
// et al. §2.2: bubble (p − 1)/(v·m) of the ideal time for equal stages).
void add_pipeline(const JobContext& c, const Layout& L, const std::vector<StageTime>& st,
                  std::int64_t m, StepTime& tm) {
  const TrainingJob& job = *c.job;
  const double vd = static_cast<double>(L.vpp);
  std::size_t slow = 0;
  double sum = 0, dp_sum = 0;
  for (std::size_t i = 0; i < st.size(); ++i) {
    sum += st[i].total();
    dp_sum += st[i].dp;
    if (st[i].total() > st[slow].total()) slow = i;
  }
  const double md = static_cast<double>(m);
  // DualPipe: rank r holds stage r and stage p − 1 − r (the DualPipe
  // repository's example builds every rank from full_modules[rank] and
  // full_modules[pp_size - 1 - rank]) and runs half the micro-batches in each
  // direction, so a rank's pace is the mean of its two stages: the last
  // stage's output head and loss share a rank with the first stage's
  // embedding.
  StageTime paired;
  if (dualpipe_pairs(job, L, st.size())) {
    double slowest = -1;
    for (std::size_t i = 0; i < st.size() / 2; ++i) {
      const StageTime mean = mean_of(st[i], st[st.size() - 1 - i]);
      if (mean.total() > slowest) slowest = mean.total(), paired = mean;
    }
  }
  const StageTime& b = paired.total() > 0 ? paired : st[slow];
  tm.compute_seconds = md * b.compute;
  tm.recompute_seconds = md * b.recompute;
  tm.kernels.add(b.mix, md);
  tm.tp_comm_seconds = md * b.tp;
  tm.ep_comm_seconds = md * b.ep;
  tm.cp_comm_seconds = md * b.cp;
  tm.pp_comm_seconds = md * b.pp;
  // Overlapped sends still lie on the fill's and the drain's path: the
  // first micro-batch's activation crosses every stage boundary before the
  // last stage can start, its gradient every boundary back.
  if (p2p_overlapped(job, L)) tm.pp_comm_seconds += static_cast<double>(L.pp - 1) * b.pp_hop;
  tm.dp_comm_seconds = md * b.dp;
  // ZeRO-2's reduce-scatters are not in the fill (no gradients yet) and
  // drain into the idle time of the drain: the bubble is the other stages'
  // work without them.
  const double zero2 = zero_as_run(job, L) == 2 ? 1.0 : 0.0;
  const double others = sum - b.total() - zero2 * (dp_sum - b.dp);
  tm.pp_bubble_seconds = std::max(0.0, others) / vd;
  // Zero-bubble schedules fill the fill and drain with weight gradients: the
  // 1F1B bubble scaled by each schedule's published bubble over 1F1B's
  // (p − 1)(F + B + W), with W the slowest stage's weight-gradient GEMMs.
  if (L.pp > 1 && job.software.pipe_schedule != PipeSchedule::one_f_one_b && b.total() > 0) {
    const double F = b.fwd, W = std::min(b.wgrad, b.bwd), B = b.bwd - W;
    const double full = std::max(F + B + W, 1e-300), p = static_cast<double>(L.pp);
    const double ratio = job.software.pipe_schedule == PipeSchedule::zb_h1
                             ? (F + B - W) / full
                             // DualPipe: (p/2 − 1)(F&B + B − 3W), F&B a forward and a backward
                             // chunk overlapped, taken as F + B + W (their kernels still add).
                             : (p / 2 - 1) / (p - 1) * std::max(0.0, F + 2 * B - 2 * W) / full;
    tm.pp_bubble_seconds *= std::clamp(ratio, 0.0, 1.0);
  }
}

// Data parallelism once per step, and the optimizer, into `tm`: the worst
// stage's exposed gradient reduction and parameter gather, and its update.
void add_data_parallel(const JobContext& c, const Layout& L,
                       const std::vector<StageComposition>& comps, const std::vector<StageTime>& st,
                       const LayerCost& dense, const LayerCost& moe, const EdgeCost& embed,
                       const EdgeCost& out, StepTime& tm) {
  const TrainingJob& job = *c.job;
  const double vd = static_cast<double>(L.vpp);
  double dp_exposed = 0, optimizer = 0, fwd_before = 0, bwd_before = 0;
  const std::int64_t shard = L.zero_shard();
  const std::int64_t expert_shard = L.expert_dp();
  const int zero = zero_as_run(job, L);
  // The gradient buffer's own passes (zeroing, the NaN check's norm, the 1/DP
  // scaling), over every local gradient unless ZeRO-2/3 shards them.
  const int buffer_passes =
      job.software.grad_buffer_passes + (L.dp * L.cp > 1 ? job.software.grad_scaling_passes : 0);
  DpStep d, tail;
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
      const auto [tail_dense, tail_expert] = last_grad_bucket(c, L, sc, dense, moe, embed, out);
      tail = dp_step(c, L, tail_dense, tail_expert);
      const std::int64_t owned =
          zero >= 1 ? ceil_div(dense_params, shard) + ceil_div(expert_params, expert_shard)
                    : dense_params + expert_params;
      const std::int64_t buffered = zero >= 2 ? owned : dense_params + expert_params;
      update = streaming_seconds(c.rates,
                                 c.update_bytes * static_cast<double>(owned) +
                                     buffer_passes * c.grad_bytes * static_cast<double>(buffered));
    }
    // Overlapped: the gradients reduce in buckets during the last micro-
    // batch's backward (and while the stages before it drain), the last
    // bucket only after it; the parameters gather during the next step's
    // first forward, the first bucket before it (last_grad_bucket).
    const double drain_b = bwd_before / vd, drain_f = fwd_before / vd;
    const double exposed =
        job.software.overlap_dp_comm
            ? overlapped(c, d.grads, st[i].bwd + drain_b, tail.grads, drain_b) +
                  overlapped(c, d.params, st[i].fwd + drain_f, tail.params, drain_f)
            : d.grads + d.params;
    dp_exposed = std::max(dp_exposed, exposed);
    fwd_before += st[i].fwd;
    bwd_before += st[i].bwd;
    optimizer = std::max(optimizer, update);
  }
  // A tied embedding's two copies (first and last stage) sum their gradients.
  if (job.shape.tied_embeddings && L.pp > 1)
    dp_exposed +=
        collective_seconds(Collective::all_reduce, c.grad_bytes * static_cast<double>(embed.params),
                           2, pipeline_across_nodes(c, L) ? c.inter : c.intra);
  tm.dp_comm_seconds += dp_exposed;
  tm.optimizer_seconds = optimizer;
}

// The FLOPs a step spends recomputing what its checkpointing did not keep,
// over `tokens` (the step's): the recomputed modules' matmuls for a selective
// recomputation (and the attention core without FlashAttention), the share of
// the forward that a full recomputation runs again.
double recompute_flops_per_step(const JobContext& c, const Layout& L, double tokens) {
  const TrainingJob& job = *c.job;
  const ModelShape& s = job.shape;
  double flops = 0;
  const double attn = (job.attention_flops == CausalMask::causal_half ? 2.0 : 4.0) *
                      static_cast<double>(s.n_layers) * static_cast<double>(job.seq_len) *
                      static_cast<double>(s.n_heads) * s.attention_head_dim();
  switch (L.recompute) {
    case Checkpointing::none: break;
    case Checkpointing::selective: {
      const std::uint32_t re = L.selective_modules();
      if ((re & kRecomputeCoreAttn) && !job.software.flash_attention) flops = tokens * attn;
      // The recomputed modules' matmuls, forward: 2 FLOPs per weight and token.
      const double moe_layers = s.is_moe() ? static_cast<double>(s.n_layers - s.n_dense_layers) : 0;
      const double dense_layers = static_cast<double>(s.n_layers) - moe_layers;
      const double up = s.gated ? 2 : 1, H = static_cast<double>(s.d_model);
      const double ef = static_cast<double>(s.effective_expert_d_ff());
      double weights = 0;
      if ((re & kRecomputeMlaUpProj) && s.is_mla())
        weights += static_cast<double>(s.n_layers) * static_cast<double>(s.n_heads) *
                   (static_cast<double>(s.q_lora_rank > 0 ? s.q_lora_rank * s.d_head : 0) +
                    static_cast<double>(s.kv_lora_rank * (s.qk_nope_head_dim + s.v_head_dim)));
      if (re & kRecomputeMlp) weights += dense_layers * (up + 1) * H * static_cast<double>(s.d_ff);
      if (re & kRecomputeOp)  // the keys, the output projection and one MLP matmul
        weights += dense_layers * H *
                   (static_cast<double>((s.n_kv_heads + s.n_heads) * s.d_head + s.d_ff));
      if (re & kRecomputeSharedExperts)
        weights += moe_layers * static_cast<double>(s.shared_experts) * (up + 1) * H * ef;
      flops += 2 * tokens * weights;
      break;
    }
    case Checkpointing::full:
      flops = recompute_share(s, L) * tokens *
              (2.0 * static_cast<double>(c.params.non_embedding_active) + attn);
      break;
  }
  return flops;
}

// The peak stage's memory into `res`, and whether it fits. Stages of the
// same layers hold fewer micro-batches the later they come, so only the first
// of each kind can peak.
void add_peak_memory(const JobContext& c, const Layout& L,
                     const std::vector<StageComposition>& comps, const LayerCost& dense,
                     const LayerCost& moe, const EdgeCost& embed, const EdgeCost& out,
                     LayoutResult& res) {
  for (std::size_t i = 0; i < comps.size(); ++i) {
    const StageComposition* mirror = dualpipe_mirror(*c.job, L, comps, i);
    if (i > 0 && mirror == nullptr && same_composition(comps[i], comps[i - 1])) continue;
    const StageMemory sm =
        stage_memory(c, L, static_cast<std::int64_t>(i), comps[i], dense, moe, embed, out, mirror);
    if (i == 0 || sm.total_bytes > res.memory.total_bytes) res.memory = sm;
  }
  res.fits = res.memory.total_bytes <= res.hbm_bytes;
  if (!res.fits) {
    res.over_hbm_bytes = res.memory.total_bytes - res.hbm_bytes;
    res.reason = over_hbm_reason(res.memory, res.hbm_bytes);
  }
}

}  // namespace

LayerCost layer_cost(const JobContext& c, const Layout& L, bool moe_layer, bool bf16_gemms) {
  // Full recomputation of N layers of each chunk: the stage's layers, on
  // average, cost that share recomputed and the rest as without (sums over a
  // stage's layers are what the step and the memory read).
  if (L.recompute == Checkpointing::full && L.recompute_layers > 0) {
    Layout all = L, none = L;
    all.recompute_layers = 0;
    none.recompute = Checkpointing::none;
    none.recompute_layers = 0;
    return blend(layer_cost(c, all, moe_layer, bf16_gemms),
                 layer_cost(c, none, moe_layer, bf16_gemms), recompute_share(c.job->shape, L));
  }
  return price_layer(c, L, moe_layer, bf16_gemms);
}

void stage_times(const JobContext& c, const Layout& L, const std::vector<StageComposition>& comps,
                 const LayerCost& dense, const LayerCost& moe, const EdgeCost& embed,
                 const EdgeCost& out, std::vector<StageTime>& st, double* p2p_seconds) {
  const TrainingJob& job = *c.job;
  // Pipeline sends: each micro-batch crosses every chunk boundary forward and
  // backward; with TP each rank sends its 1/t share and the receiver
  // all-gathers it over the TP group before using it, on the critical path
  // (Megatron's scatter-gather: gather_split_1d_tensor after the receive;
  // DeepSpeed's pipeline engine: PartitionedTensor.full() after the receive,
  // deepspeed/runtime/pipe/engine.py), or, without, the whole tensor. With
  // sequence parallelism the tensor between stages is already the rank's
  // 1/t of the sequence: nothing to gather.
  double one = 0, one_bwd = 0;
  if (L.pp > 1) {
    const Link& link = pipeline_across_nodes(c, L) ? c.inter : c.intra;
    const double bytes = 2.0 * static_cast<double>(L.micro_batch * (job.seq_len / L.cp)) *
                         static_cast<double>(job.shape.d_model);
    const double t = static_cast<double>(L.tp);
    const TrainingSoftware& sw = job.software;
    const double gather = L.sequence_parallel ? 0.0
                                              : group_seconds(c, Collective::all_gather, bytes,
                                                              placement(c, L.tp, 1));
    auto send = [&](bool scattered) {
      return link.latency_seconds + bytes / (scattered ? t : 1.0) / link.bytes_per_s_among(2) +
             (scattered ? gather : 0.0);
    };
    one = send(sw.pipeline_scatter_gather);
    one_bwd = send(sw.pipeline_grad_scatter_gather);
  }
  if (p2p_seconds) *p2p_seconds = one;
  const auto [zd_f, zd_b] = zero_layer_exposed(c, L, dense);
  const auto [zm_f, zm_b] = zero_layer_exposed(c, L, moe);
  st.assign(comps.size(), StageTime{});
  for (std::size_t i = 0; i < comps.size(); ++i) {
    const StageComposition& sc = comps[i];
    // Stages with the same layers take the same time: copy the first.
    if (i > 0 && same_layers(sc, comps[i - 1])) {
      st[i] = st[i - 1];
      continue;
    }
    const double nd = static_cast<double>(sc.dense_layers), nm = static_cast<double>(sc.moe_layers);
    StageTime& x = st[i];
    x.compute =
        nd * (dense.fwd_compute + dense.bwd_compute) + nm * (moe.fwd_compute + moe.bwd_compute);
    x.recompute = nd * dense.recompute + nm * moe.recompute;
    for (const auto& [lc, k] : {std::pair{&dense, nd}, std::pair{&moe, nm}}) {
      x.mix.add(lc->fwd_mix, k);
      x.mix.add(lc->bwd_mix, k);
      x.mix.add(lc->recompute_mix, k);
    }
    x.tp = nd * (dense.fwd_tp + dense.bwd_tp + dense.recompute_tp) +
           nm * (moe.fwd_tp + moe.bwd_tp + moe.recompute_tp);
    x.ep = nm * (moe.fwd_ep + moe.bwd_ep + moe.recompute_ep);
    x.cp = nd * (dense.fwd_cp + dense.bwd_cp + dense.recompute_cp) +
           nm * (moe.fwd_cp + moe.bwd_cp + moe.recompute_cp);
    x.dp = nd * (zd_f + zd_b) + nm * (zm_f + zm_b);
    x.fwd = nd * (dense.forward() + zd_f) + nm * (moe.forward() + zm_f);
    x.bwd = nd * (dense.backward() + zd_b) + nm * (moe.backward() + zm_b);
    x.wgrad = nd * dense.wgrad + nm * moe.wgrad;
    {
      const bool dense_first = sc.dense_layers > 0;
      const LayerCost& last_layer = sc.moe_layers > 0 ? moe : dense;
      const auto [ef, eb] = zero3_edges_exposed(
          c, L, sc, dense_first ? dense : moe,
          dense_first ? std::pair{zd_f, zd_b} : std::pair{zm_f, zm_b}, last_layer, embed, out);
      x.dp += ef + eb;
      x.fwd += ef;
      x.bwd += eb;
    }
    if (sc.first) {
      x.compute += embed.fwd_compute + embed.bwd_compute;
      x.mix.gemm_seconds += embed.gemm;
      x.mix.elementwise_seconds += embed.fwd_compute + embed.bwd_compute - embed.gemm;
      x.tp += embed.tp;
      x.fwd += embed.fwd_compute + embed.tp / 2;
      x.bwd += embed.bwd_compute + embed.tp / 2;
    }
    if (sc.last) {
      // The output head and the loss, once more for every MTP module.
      const double heads = 1.0 + static_cast<double>(job.shape.mtp_modules);
      x.compute += heads * (out.fwd_compute + out.bwd_compute);
      x.mix.gemm_seconds += heads * out.gemm;
      x.mix.elementwise_seconds += heads * (out.fwd_compute + out.bwd_compute - out.gemm);
      x.tp += heads * out.tp;
      x.fwd += heads * (out.fwd_compute + out.tp / 2);
      x.bwd += heads * (out.bwd_compute + out.tp / 2);
    }
    // Overlapped sends (TrainingSoftware::overlap_p2p_comm): a chunk's output
    // travels while the stage runs another chunk's backward, its input
    // gradient while it runs the next forward.
    const double vd = static_cast<double>(L.vpp);
    x.pp = p2p_overlapped(job, L)
               ? vd * (overlapped(c, one, x.bwd / vd) + overlapped(c, one_bwd, x.fwd / vd))
               : vd * (one + one_bwd);
    x.pp_hop = one + one_bwd;
  }
}

LayoutResult evaluate_prepared(const JobContext& c, const Layout& L, const LayerCost& dense,
                               const LayerCost& moe, const EdgeCost& embed, const EdgeCost& out) {
  const TrainingJob& job = *c.job;
  LayoutResult res;
  res.layout = L;
  res.layout.sequence_parallel = L.sequence_parallel && L.tp > 1;  // no effect at tp = 1
  res.hbm_bytes = c.device_bytes;
  res.valid = true;
  const std::int64_t m = micro_batches_per_step(job, L);
  res.micro_batches = m;
  std::vector<StageComposition>& comps = c.comps_scratch;
  std::vector<StageTime>& st = c.times_scratch;
  stage_compositions(c, L, comps);
  stage_times(c, L, comps, dense, moe, embed, out, st);

  StepTime& tm = res.time;
  add_pipeline(c, L, st, m, tm);
  add_data_parallel(c, L, comps, st, dense, moe, embed, out, tm);
  res.step_seconds = tm.total_seconds();

  add_peak_memory(c, L, comps, dense, moe, embed, out, res);

  // Throughput and utilization.
  const double tokens = static_cast<double>(job.global_batch) * static_cast<double>(job.seq_len);
  const double chips = static_cast<double>(job.n_chips);
  res.model_flops_per_step = c.model_flops;
  res.recompute_flops_per_step = recompute_flops_per_step(c, L, tokens);
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
    res.hbm_bytes = c.device_bytes;
    res.reason = *problem;
    return res;
  }
  const LayerCost dense = layer_cost(c, L, false);
  const LayerCost moe = job.shape.is_moe() ? layer_cost(c, L, true) : dense;
  return evaluate_prepared(c, L, dense, moe, embedding_cost(c, L), output_cost(c, L));
}

double megatron_step_flops(const TrainingJob& j, bool with_recompute) {
  const double B = static_cast<double>(j.global_batch), s = static_cast<double>(j.seq_len);
  const double l = static_cast<double>(j.shape.n_layers), h = static_cast<double>(j.shape.d_model);
  const double V = static_cast<double>(j.shape.vocab);
  if (with_recompute) return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  return 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
}

}  // namespace napkin
