// The embedding (first stage) and the output layer with the loss (last stage)
// of one micro-batch on one rank, and the bf16 edge layers of an FP8 run.
#include <cmath>

#include "parallel.h"
#include "parallel_internal.h"
#include "validate.h"

namespace napkin {

namespace parallel_detail {

namespace {

// The TP collectives around a vocabulary-parallel table of `elements` bf16
// activations: an all-reduce, or with sequence parallelism a reduce-scatter
// and an all-gather.
double vocab_parallel_seconds(const JobContext& c, const Layout& L, double elements) {
  if (L.tp <= 1) return 0;
  const GroupPlacement grp = placement(c, L.tp, 1);
  const double bytes = 2.0 * elements;
  return L.sequence_parallel ? group_seconds(c, Collective::reduce_scatter, bytes, grp) +
                                   group_seconds(c, Collective::all_gather, bytes, grp)
                             : group_seconds(c, Collective::all_reduce, bytes, grp);
}

// The extra time of the software's bf16 edge layers over the FP8 layers they
// replace, added to the first stage (the first layers) or the last (the last).
void add_bf16_edge_layers(const JobContext& c, const Layout& L, bool moe_layer, EdgeCost& e) {
  const TrainingSoftware& sw = c.job->software;
  if (!sw.fp8_matmuls || sw.fp8_bf16_edge_layers <= 0) return;
  const LayerCost fp8 = layer_cost(c, L, moe_layer);
  const LayerCost bf16 = layer_cost(c, L, moe_layer, true);
  const double k = static_cast<double>(sw.fp8_bf16_edge_layers);
  const double fwd = bf16.fwd_compute - fp8.fwd_compute;
  const double bwd = bf16.bwd_compute + bf16.recompute - fp8.bwd_compute - fp8.recompute;
  const double gemm = bf16.fwd_mix.gemm_seconds + bf16.bwd_mix.gemm_seconds +
                      bf16.recompute_mix.gemm_seconds - fp8.fwd_mix.gemm_seconds -
                      fp8.bwd_mix.gemm_seconds - fp8.recompute_mix.gemm_seconds;
  e.fwd_compute += k * fwd;
  e.bwd_compute += k * bwd;
  e.gemm += k * gemm;
}

}  // namespace

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
  e.bwd_compute = streaming_seconds(
      c.rates, 8.0 * nd * H + (job.software.dropout ? 5.0 * nt * H : 0) +
                   unfused_accumulation_bytes(c, L) * static_cast<double>(e.params));
  // Vocabulary-parallel: each rank holds V/t rows; the partial outputs are
  // summed (reduce-scattered with SP).
  e.tp = vocab_parallel_seconds(c, L, nd * H);
  if (job.software.dropout)
    e.activation_bytes = static_cast<std::int64_t>(std::ceil(nt * H));  // the dropout mask
  add_bf16_edge_layers(c, L, s.is_moe() && s.n_dense_layers == 0, e);
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
  // In bf16 under FP8 training: Megatron's output layer is not a Transformer
  // Engine module, and DeepSeek-V3 keeps the output head in bf16 (§3.3.1).
  const WeightGemm out = weight_gemm(c.bf16_rates, n, v_r, s.d_model);
  // Final norm; the vocabulary-parallel cross-entropy as the software runs it
  // (LossKernel). Eager: the logits cast to fp32 first (2 read, 4 written),
  // and F.cross_entropy's log-softmax and its backward in separate passes;
  // under DTensor's loss_parallel each of their steps is a pass of its own
  // (cast 6, max 4, shift 8, exp 8, sum 4, result 8; zeros 4, exp 8, sum 12,
  // product 8, cast 6).
  const bool eager = job.software.eager_loss;
  const bool dtensor = eager && t > 1 && job.software.dtensor_loss_parallel;
  const LossBytes kernel = loss_bytes(job.software.loss_kernel);
  const double fwd_loss_bytes = dtensor ? 38 : eager ? 14 : kernel.forward_per_logit;
  const double bwd_loss_bytes = dtensor ? 38 : eager ? 22 : kernel.backward_per_logit;
  const NormBytes norm = norm_bytes(job.software);
  e.fwd_compute =
      out.fwd + streaming_seconds(c.rates, norm.forward * nt * H + fwd_loss_bytes * logits);
  e.bwd_compute =
      out.bwd() + streaming_seconds(c.rates, norm.backward * nt * H + bwd_loss_bytes * logits +
                                                 unfused_accumulation_bytes(c, L) *
                                                     static_cast<double>(e.params));
  e.gemm = out.fwd + out.bwd();
  e.tp = vocab_parallel_seconds(c, L, nd * H);
  if (t > 1)  // the loss's max, sum and target logit
    e.tp += 3 * group_seconds(c, Collective::all_reduce, 4.0 * nd, placement(c, t, 1));
  const double rep_div = sp ? static_cast<double>(t) : 1.0;
  // The final norm's input and output (its output gathered whole where the
  // output layer saves its input as DTensor's ColwiseParallel does); an eager
  // RMSNorm keeps its input's fp32 copy and the output before the weight.
  const double norm_out_div = job.software.tp_saves_gathered_inputs ? 1.0 : rep_div;
  const double norm_in = job.software.eager_norms ? 10.0 : 2.0;
  e.activation_bytes =
      static_cast<std::int64_t>(std::ceil(norm_in * nd * H / rep_div + 2.0 * nd * H / norm_out_div +
                                          (eager ? 4.0 : kernel.kept_per_logit) * logits));
  if (eager) {
    e.transient_bytes = static_cast<std::int64_t>(std::ceil((dtensor ? 12.0 : 8.0) * logits));
    // PyTorch's caching allocator places a tensor in one free block. The
    // bf16 logits (2 bytes each), freed once cast to fp32 in the forward,
    // leave a block that none of the backward's fp32 copies (4 bytes each)
    // fits in, with or without the fp32 copy freed beside it (6 bytes hold
    // one 4-byte copy and leave 2): the backward's copies are reserved anew
    // and 2 bytes per logit stay reserved, unused, at the loss's peak. Not
    // where the pipeline keeps the logits (they are never freed).
    if (!(job.software.pipeline_keeps_outputs && L.pp > 1))
      e.loss_hole_bytes = static_cast<std::int64_t>(std::ceil(2.0 * logits));
  }
  // ZeRO-3 that keeps the last layers gathered: the final norm and the
  // output layer whole in bf16 while the loss runs (the embedding too where it
  // is the root's), above the layers the prefetch buffers count.
  const bool root = job.software.zero3_root_gathered;
  if ((job.software.zero3_output_gathered || root) && zero_as_run(job, L) >= 3 &&
      L.zero_shard() > 1) {
    const std::int64_t table = ceil_div(checked_mul(s.vocab, s.d_model, "embedding parameters"), t);
    const bool tied_here = s.tied_embeddings && L.pp == 1;
    std::int64_t held = e.params + (tied_here ? table : 0);
    if (root && L.pp == 1 && !tied_here) held = checked_add(held, table, "gathered parameters");
    e.transient_bytes = checked_add(e.transient_bytes, checked_mul(2, held, "gathered parameters"),
                                    "loss transient bytes");
  }
  if (job.software.pipeline_keeps_outputs && L.pp > 1)
    e.kept_per_micro_batch_bytes = static_cast<std::int64_t>(std::ceil(2.0 * logits));
  add_bf16_edge_layers(c, L, s.is_moe(), e);
  return e;
}

}  // namespace parallel_detail

}  // namespace napkin
