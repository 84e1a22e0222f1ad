#include "serving_eval.h"

#include <algorithm>
#include <cmath>

#include "kernel_time.h"
#include "validate.h"

namespace napkin::detail {

namespace {

// A sampled token id sent from the last stage back to the first.
constexpr double kTokenIdBytes = 8.0;

// The node holding global rank `rank` on nodes of `per_node` chips.
std::int64_t node_of(std::int64_t rank, std::int64_t per_node) { return rank / per_node; }

}  // namespace

LayoutEval::LayoutEval(const ServingModel& m, const ServingInputs& in) : m_(m), in_(in) {
  in.validate();
  m.validate();
  validate_layout(m, in.layout);
  chip_ = &chip_by_name(in.chip);
  tp_ = in.layout.tp;
  pp_ = in.layout.pp;
  ep_ = m.is_moe() ? in.layout.ep : 1;
  chips_ = tp_ * pp_ * ep_;

  const std::int64_t stage_layers = ceil_div(m.n_layers, pp_);
  stage_layers_ = static_cast<double>(stage_layers);
  stage_fraction_ = stage_layers_ / static_cast<double>(m.n_layers);
  stage_moe_layers_ = static_cast<double>(m.n_moe_layers) * stage_fraction_;

  set_rates();
  set_kv_cache();
  set_weights_and_flops();
  set_links();
  set_memory();

  mean_context_ = static_cast<double>(in.cached_tokens + in.prompt_tokens) +
                  static_cast<double>(in.decode_tokens - 1) / 2.0;

  // Prefill: one chunk when there is one stage; otherwise the chunk count
  // (a power of two up to 16 per stage) that streams the prompt fastest.
  const Step best = best_prefill(1, prefill_chunks_);
  prefill_ = best.time;
  prefill_bytes_chip_ = best.bytes_per_chip;

  if (in.pool == ServingPool::prefill && comm_ && kv_bytes_token_ > 0) {
    // Each chip sends its shard of the prompt's cache to the decode pool over
    // its own network link, in parallel.
    const double bytes = static_cast<double>(in.cached_tokens + in.prompt_tokens) * kv_bytes_token_;
    kv_transfer_ = inter_.latency_seconds + bytes / inter_.bytes_per_s;
  }
  ttft_ = in.overhead_seconds + engine_->per_call_seconds + prefill_.seconds + kv_transfer_;
}

// The rates: GEMMs (at the engine's FP8 fraction where it has one), the 16-bit
// tables, fused attention, element-wise kernels, launches and HBM.
void LayoutEval::set_rates() {
  const ServingInputs& in = in_;
  const Chip& chip = *chip_;
  const ServingAssumptions& a = in_.assume;
  engine_ = &engine_by_name(in.engine);
  const ServingEngine& e = *engine_;
  peak_ = compute_peak_flops_per_s(chip, in.weights) *
          a.matmul_efficiency.value_or(chip.efficiency.matmul);
  // Per-kernel engines: GEMMs at the engine's FP8 GEMM fraction when it has
  // one (and the user set no matmul efficiency), attention at the chip's fused
  // attention rate, element-wise kernels at its streaming-kernel HBM fraction
  // (kernel_time.h, shared with the training side).
  per_kernel_ = e.per_kernel;
  gemm_peak_ = peak_;
  if (per_kernel_ && !a.matmul_efficiency && e.fp8_matmul_efficiency > 0 &&
      uses_fp8_compute(chip, in.weights))
    gemm_peak_ = compute_peak_flops_per_s(chip, in.weights) * e.fp8_matmul_efficiency;
  if (per_kernel_ && !a.matmul_efficiency && e.fp4_matmul_efficiency > 0 &&
      uses_fp4_compute(chip, in.weights))
    gemm_peak_ = compute_peak_flops_per_s(chip, in.weights) * e.fp4_matmul_efficiency;
  // The embedding tables of a quantized checkpoint (serving.h): held and
  // read at 2 bytes, the unembedding GEMM at the 16-bit rate.
  weight_bytes_ = bytes_per_element(in.weights);
  const bool tables_16_bit = tables_in_16_bit(in.engine, in.weights);
  table_bytes_ = tables_16_bit ? 2.0 : weight_bytes_;
  table_peak_ = tables_16_bit ? compute_peak_flops_per_s(chip, Dtype::bf16) *
                                    a.matmul_efficiency.value_or(chip.efficiency.matmul)
                              : gemm_peak_;
  const KernelRates rates = kernel_rates(chip);
  attn_peak_ = per_kernel_ ? rates.attention_flops_per_s : peak_;
  attention_curve_ = per_kernel_ ? best_attention_curve(chip) : AttentionCurve::flat;
  elementwise_bw_ = rates.hbm_bytes_per_s;
  launch_seconds_ = (static_cast<double>(e.kernels_per_layer) * stage_layers_ +
                     static_cast<double>(e.moe_extra_kernels_per_layer) * stage_moe_layers_) *
                    e.launch_seconds_per_kernel;
  setup_kernels(rates);
  hbm_efficiency_ = a.hbm_efficiency_on(chip);
  bw_ = chip.hbm_bytes_per_s * hbm_efficiency_;
}

// The KV cache per token on a chip, and how often a step reads it.
void LayoutEval::set_kv_cache() {
  const ServingModel& m = m_;
  const ServingInputs& in = in_;
  const ServingAssumptions& a = in_.assume;
  const ServingEngine& e = *engine_;
  const double tp = static_cast<double>(tp_);
  // Groups per chip: split TP ways, replicated beyond the group count unless
  // the cache is sharded over the extra ranks (attention data parallelism).
  const double groups_chip = a.shard_kv_beyond_heads
                                 ? static_cast<double>(m.kv.groups) / tp
                                 : static_cast<double>(ceil_div(m.kv.groups, tp_));
  kv_bytes_token_ = a.kv_cache ? groups_chip * static_cast<double>(m.kv.elements_per_group) *
                                     stage_layers_ * bytes_per_element(in.kv)
                               : 0.0;
  // Pre-XQA generation attention: each query head on a chip reads its KV
  // group's cache itself, so a group is read (query heads ÷ groups) times;
  // not where the engine's early XQA kernel takes the layer (serving_engine.h).
  const bool xqa = e.early_xqa && xqa_takes_layer(m.n_heads / tp_, m.n_kv_heads / tp_, m.d_head,
                                                  bytes_per_element(in.kv) == 2.0);
  if (a.kv_reads_per_query_head || (e.kv_reads_per_query_head && !xqa)) {
    const double groups = static_cast<double>(ceil_div(m.kv.groups, tp_));
    kv_read_factor_ = std::max(1.0, static_cast<double>(m.n_heads) / tp / groups);
  }
}

// Weights held and read per chip, and FLOPs per token and per pair.
void LayoutEval::set_weights_and_flops() {
  const ServingModel& m = m_;
  const ServingAssumptions& a = in_.assume;
  const double tp = static_cast<double>(tp_);
  const double ep = static_cast<double>(ep_);
  // Weights: every layer's non-expert weights split TP ways, the routed
  // experts TP × EP ways, the vocabulary tables TP ways (vocab-parallel). The
  // fullest stage is the last: its layers and the unembedding (both tables
  // when there is one stage).
  const double dense_layer = (m.layer_params - m.routed_expert_params) * stage_fraction_;
  expert_chip_ = m.routed_expert_params * stage_fraction_ / (tp * ep);
  output_chip_ = m.output_embedding_params / tp;
  const double stored_tables =
      pp_ == 1 ? m.input_embedding_params + (m.tied_embeddings ? 0.0 : m.output_embedding_params)
               : std::max(m.input_embedding_params, m.output_embedding_params);
  weights_held_ = dense_layer / tp + expert_chip_ + stored_tables / tp;
  tables_held_ = stored_tables / tp;
  dense_read_ = dense_layer / tp;

  // FLOPs: 2 per active parameter per token. A decode micro-batch on one EP
  // replica sends its tokens to experts on every replica while the others do
  // the same, so each chip computes its share of all of them; one prompt's
  // prefill runs on a single replica's attention chips.
  const double active_dense = m.active_layer_params - m.active_routed_expert_params;
  decode_flops_token_ = 2.0 * m.active_layer_params * stage_fraction_ / tp;
  prefill_flops_token_ = 2.0 * (active_dense * stage_fraction_ / tp +
                                m.active_routed_expert_params * stage_fraction_ / (tp * ep));
  // QKᵀ and A·V over the pairs, the heads split TP ways.
  attn_flops_pair_ =
      a.attention_flops ? m.attention_flops_per_pair_per_layer * stage_layers_ / tp : 0.0;
}

// The links a step's collectives and pipeline hops cross.
void LayoutEval::set_links() {
  const Chip& chip = *chip_;
  const ServingAssumptions& a = in_.assume;
  comm_ = a.communication;
  const std::int64_t per_node = std::max<std::int64_t>(1, chip.network.chips_per_node);
  if (comm_) {
    intra_ = intra_node_link(chip);
    inter_ = inter_node_link(chip);
    tp_group_ = {tp_, ranks_per_node(tp_, 1, per_node)};
    ep_group_ = {ep_, ranks_per_node(ep_, tp_, per_node)};
    // One trip through the pipeline: S − 1 activation hops and the sampled
    // token back to the first stage. A hop crosses nodes unless both stages
    // sit in one node.
    if (pp_ > 1) {
      const std::int64_t stage = tp_ * ep_;
      auto one_node = [&](std::int64_t s, std::int64_t t) {
        const std::int64_t lo = std::min(s, t) * stage, hi = (std::max(s, t) + 1) * stage - 1;
        return node_of(lo, per_node) == node_of(hi, per_node);  // ranks fill nodes in order
      };
      for (std::int64_t s = 0; s + 1 < pp_; ++s)
        (one_node(s, s + 1) ? hops_intra_ : hops_inter_) += 1;
      wrap_inter_ = !one_node(0, pp_ - 1);
    }
  }
}

LayoutEval::Step LayoutEval::best_prefill(std::int64_t requests, std::int64_t& chunks,
                                          std::int64_t prompt_tokens) const {
  Step best = prefill_with(1, requests, prompt_tokens);
  chunks = 1;
  if (pp_ > 1) {
    const std::int64_t tokens = requests * (prompt_tokens > 0 ? prompt_tokens : in_.prompt_tokens);
    for (std::int64_t c = 2; c <= tokens && c <= 16 * pp_; c *= 2) {
      Step s = prefill_with(c, requests, prompt_tokens);
      if (s.time.seconds < best.time.seconds) {
        best = s;
        chunks = c;
      }
    }
  }
  return best;
}

double LayoutEval::p2p_seconds(double bytes, bool across_nodes) const {
  return collective_seconds(Collective::point_to_point, bytes, 2, across_nodes ? inter_ : intra_);
}

LayoutEval::DecodeStage LayoutEval::decode_stage(bool last, double b, double context,
                                                 double kv_bytes, double touched) const {
  const double table = last ? output_chip_ : 0.0;
  DecodeStage st;
  const double attn_flops = b * attn_flops_pair_ * context;
  const double gemm_time = b * decode_flops_token_ / gemm_peak_ + 2.0 * b * table / table_peak_;
  st.compute = gemm_time + attn_flops / attn_peak_;
  const double weight_bytes =
      (dense_read_ + expert_chip_ * touched) * weight_bytes_ + table * table_bytes_;
  st.weights = weight_bytes / bw_;
  st.kv = kv_bytes / bw_;
  st.bytes = weight_bytes + kv_bytes;
  if (per_kernel_) {
    st.gemm = overlapped_kernel_seconds(gemm_time, st.weights, chip_->compute_units);
    if (const double layers = stage_gemm_seconds(b, b * static_cast<double>(ep_), touched);
        layers >= 0)
      st.gemm =
          layers + overlapped_kernel_seconds(2.0 * b * table / table_peak_,
                                             table * table_bytes_ / bw_, chip_->compute_units);
    st.attention = std::max(attn_flops / attn_peak_, st.kv);
    st.elementwise =
        b * (elementwise_bytes_token_ + (last ? logits_bytes_token_ : 0.0)) / elementwise_bw_;
    st.launch = launch_seconds_;
    st.roof = st.gemm + st.attention + st.elementwise + st.launch;
  } else {
    st.roof = std::max(st.compute, st.weights + st.kv);
  }
  return st;
}

LayoutEval::DecodeComm LayoutEval::decode_comm(double b) const {
  const ServingModel& m = m_;
  const double d = static_cast<double>(m.d_model);
  DecodeComm c;
  if (comm_) {
    // Two all-reduces per layer (after attention and after the MLP or the
    // experts' combine), of the micro-batch's activations.
    if (tp_ > 1)
      c.tp = 2.0 * stage_layers_ *
             all_reduce_seconds(b * d * kActivationBytes, tp_group_, intra_, inter_);
    // Dispatch and combine per MoE layer: each rank sends its share (1/TP) of
    // its tokens' top_k activation copies.
    if (ep_ > 1)
      c.ep = 2.0 * stage_moe_layers_ *
             group_collective_seconds(
                 Collective::all_to_all,
                 b * static_cast<double>(m.top_k) * d * kActivationBytes / static_cast<double>(tp_),
                 ep_group_, intra_, inter_);
    if (pp_ > 1) {
      const double act = b * d * kActivationBytes;
      c.hops = static_cast<double>(hops_intra_) * p2p_seconds(act, false) +
               static_cast<double>(hops_inter_) * p2p_seconds(act, true) +
               p2p_seconds(b * kTokenIdBytes, wrap_inter_);
    }
  }
  // The last stage gathers the micro-batch's logits over its TP group.
  c.gather = comm_ && logits_gather_bytes_token_ > 0
                 ? group_collective_seconds(Collective::all_gather, b * logits_gather_bytes_token_,
                                            tp_group_, intra_, inter_)
                 : 0.0;
  return c;
}

LayoutEval::Step LayoutEval::decode_step(std::int64_t micro_batches, std::int64_t micro_batch,
                                         double context, double tokens_per_request) const {
  const ServingModel& m = m_;
  // b requests, each computing tokens_per_request positions (speculative
  // verification) against its cache, read once.
  const double requests = static_cast<double>(micro_batch);
  const double b = requests * tokens_per_request;
  // Routed experts a step touches: each of the b × EP tokens the EP group
  // routes picks top_k of the experts (uniform routing), so an expert is idle
  // with probability (1 − k/E)^(b·EP).
  double touched = 1.0;
  if (m.is_moe())
    touched = 1.0 - std::pow(1.0 - static_cast<double>(m.top_k) / static_cast<double>(m.n_experts),
                             b * static_cast<double>(ep_));
  const double kv_bytes = requests * context * kv_bytes_token_ * kv_read_factor_;
  // With one stage, that stage is the last.
  const DecodeStage last = decode_stage(true, b, context, kv_bytes, touched);
  const DecodeStage other = pp_ > 1 ? decode_stage(false, b, context, kv_bytes, touched) : last;
  const DecodeComm dc = decode_comm(b);
  const double tp_comm = dc.tp, ep_comm = dc.ep, hops = dc.hops, gather = dc.gather;

  // A micro-batch's trip crosses every stage in turn; with M micro-batches in
  // flight the last stage must also serve all M of them each round.
  const double others = static_cast<double>(pp_ - 1);
  const double comm = tp_comm + ep_comm;
  const double trip = others * (other.roof + comm) + last.roof + comm + gather + hops;
  const double busiest = static_cast<double>(micro_batches) * (last.roof + comm + gather);

  Step out;
  out.bytes_per_chip = last.bytes;
  PhaseTime& t = out.time;
  t.compute_seconds = others * other.compute + last.compute;
  t.weights_read_seconds = others * other.weights + last.weights;
  t.kv_read_seconds = others * other.kv + last.kv;
  t.memory_seconds = t.weights_read_seconds + t.kv_read_seconds;
  t.roofline_seconds = others * other.roof + last.roof;
  t.tp_comm_seconds = static_cast<double>(pp_) * tp_comm + gather;
  t.ep_comm_seconds = static_cast<double>(pp_) * ep_comm;
  t.pipeline_hop_seconds = hops;
  t.pipeline_bubble_seconds = std::max(0.0, busiest - trip);
  t.bound = t.compute_seconds >= t.memory_seconds ? Bound::compute : Bound::memory;
  t.per_kernel = per_kernel_;
  t.gemm_seconds = others * other.gemm + last.gemm;
  t.attention_seconds = others * other.attention + last.attention;
  t.elementwise_seconds = others * other.elementwise + last.elementwise;
  t.launch_seconds = others * other.launch + last.launch;
  t.host_seconds = engine_->per_step_seconds;
  t.seconds = t.roofline_seconds + t.tp_comm_seconds + t.ep_comm_seconds + t.pipeline_hop_seconds +
              t.pipeline_bubble_seconds + t.host_seconds;
  return out;
}

LayoutEval::Step LayoutEval::prefill_with(std::int64_t chunks, std::int64_t requests,
                                          std::int64_t prompt_tokens) const {
  const ServingModel& m = m_;
  const double r = static_cast<double>(requests);
  const double p = static_cast<double>(prompt_tokens > 0 ? prompt_tokens : in_.prompt_tokens);
  const double cached = prompt_tokens > 0 ? 0.0 : static_cast<double>(in_.cached_tokens);
  const double n = static_cast<double>(chunks);
  const double c_tok = r * p / n;  // tokens per chunk, over all the requests
  const double d = static_cast<double>(m.d_model);
  // Pairs a causal kernel computes (FlashAttention skips the masked half):
  // every new token with the cached context and the new tokens up to itself,
  // within its own request.
  const double pairs = r * (p * cached + p * (p + 1.0) / 2.0);
  // Logits only for each request's last prompt token.
  const double flops = c_tok * prefill_flops_token_ + attn_flops_pair_ * pairs / n;
  const double table_time = 2.0 * r * output_chip_ / n / table_peak_;
  double touched = 1.0;
  if (m.is_moe())
    touched = 1.0 - std::pow(1.0 - static_cast<double>(m.top_k) / static_cast<double>(m.n_experts),
                             c_tok);
  const double weight_bytes =
      (dense_read_ + expert_chip_ * touched) * weight_bytes_ + output_chip_ / n * table_bytes_;
  // Reads the cache before the chunk (on average each request's cached
  // context and half its prompt) and writes the chunk's own.
  const double kv_bytes = (r * (cached + p / 2.0) + c_tok) * kv_bytes_token_;

  Step out;
  out.bytes_per_chip = weight_bytes + kv_bytes;
  const double gemm_flops = flops - attn_flops_pair_ * pairs / n;
  const double attn_flops = attn_flops_pair_ * pairs / n;
  // The prefill kernel at the length of the context its queries read.
  const double attn_rate =
      attn_peak_ * attention_length_factor(attention_curve_,
                                           std::max<std::int64_t>(1, std::llround(cached + p)));
  const double c = gemm_flops / gemm_peak_ + table_time + attn_flops / attn_rate;
  const double mw = weight_bytes / bw_, mk = kv_bytes / bw_;
  double gemm = 0, attention = 0, elementwise = 0, launch = 0, roof = 0;
  if (per_kernel_) {
    gemm = std::max(gemm_flops / gemm_peak_ + table_time, mw);
    if (const double layers = stage_gemm_seconds(c_tok, c_tok, touched); layers >= 0)
      gemm = layers + std::max(table_time, output_chip_ / n * table_bytes_ / bw_);
    attention = std::max(attn_flops / attn_rate, mk);
    // Each request's last prompt token yields logits: the sampler's pass.
    elementwise =
        (c_tok * elementwise_bytes_token_ + r / n * logits_bytes_token_) / elementwise_bw_;
    launch = launch_seconds_;
    roof = gemm + attention + elementwise + launch;
  } else {
    roof = std::max(c, mw + mk);
  }
  double tp_comm = 0, ep_comm = 0, hop = 0;
  if (comm_) {
    if (tp_ > 1)
      tp_comm = 2.0 * stage_layers_ *
                all_reduce_seconds(c_tok * d * kActivationBytes, tp_group_, intra_, inter_);
    if (ep_ > 1)
      ep_comm = 2.0 * stage_moe_layers_ *
                group_collective_seconds(Collective::all_to_all,
                                         c_tok * static_cast<double>(m.top_k) * d *
                                             kActivationBytes / static_cast<double>(tp_),
                                         ep_group_, intra_, inter_);
    if (pp_ > 1) hop = p2p_seconds(c_tok * d * kActivationBytes, hops_inter_ > 0);
  }
  // A stage's work on a chunk; the hop to the next stage overlaps the next
  // chunk's work (seed Claim 12), so a pipeline step is the larger of the two.
  if (in_.assume.overlap_prefill_comm && tp_comm + ep_comm > 0) {
    // Only what the matmuls cannot hide stays on the critical path.
    const double exposed = std::max(0.0, tp_comm + ep_comm - roof) / (tp_comm + ep_comm);
    tp_comm *= exposed;
    ep_comm *= exposed;
  }
  const double work = roof + tp_comm + ep_comm;
  const double step = std::max(work, hop);
  PhaseTime& t = out.time;
  t.compute_seconds = n * c;
  t.weights_read_seconds = n * mw;
  t.kv_read_seconds = n * mk;
  t.memory_seconds = n * (mw + mk);
  t.roofline_seconds = n * roof;
  t.tp_comm_seconds = n * tp_comm;
  t.ep_comm_seconds = n * ep_comm;
  t.pipeline_hop_seconds = n * (step - work);
  t.pipeline_bubble_seconds = static_cast<double>(pp_ - 1) * step;
  t.bound = c >= mw + mk ? Bound::compute : Bound::memory;
  t.per_kernel = per_kernel_;
  t.gemm_seconds = n * gemm;
  t.attention_seconds = n * attention;
  t.elementwise_seconds = n * elementwise;
  t.launch_seconds = n * launch;
  t.seconds = t.roofline_seconds + t.tp_comm_seconds + t.ep_comm_seconds + t.pipeline_hop_seconds +
              t.pipeline_bubble_seconds;
  return out;
}

void LayoutEval::micro_batching(std::int64_t batch, std::int64_t& micro_batches,
                                std::int64_t& micro_batch) const {
  // Each EP replica decodes its share of the batch; a pipeline keeps up to S
  // micro-batches in flight, one per stage.
  const std::int64_t per_replica = ceil_div(batch, ep_);
  micro_batches = std::min(per_replica, pp_);
  micro_batch = ceil_div(per_replica, micro_batches);
}

// What does not depend on the batch: the weights per chip and the share of
// memory the engine gives weights + KV cache.
void LayoutEval::set_memory() {
  weights_bytes_ = (weights_held_ - tables_held_) * weight_bytes_ + tables_held_ * table_bytes_;
  // The run's own memory setting where it states one, read as its engine
  // reads it; else the engine's, else the scenario's share of HBM.
  const double fraction = in_.assume.engine_memory_fraction.value_or(
      engine_->hbm_usable_fraction > 0 ? engine_->hbm_usable_fraction
                                       : in_.assume.hbm_usable_fraction);
  usable_bytes_ = static_cast<double>(chip_->hbm_bytes) * fraction;
  if (engine_->hbm_usable_fraction <= 0) return;
  const double device = static_cast<double>(device_memory(*chip_).bytes);
  if (engine_->fraction_of_device_total) {
    // vLLM and SGLang size their share of the device's total memory
    // (torch.cuda.mem_get_info), and vLLM takes its profile run's peak and
    // the memory outside PyTorch from it.
    const double vocab =
        m_.d_model > 0 ? m_.output_embedding_params / static_cast<double>(m_.d_model) : 0.0;
    usable_bytes_ =
        std::max(0.0, fraction * device - engine_reserved_bytes(*engine_, *chip_, tp_, vocab));
  }
  if (engine_->kv_fraction_of_free_memory) {
    // TensorRT-LLM sizes its KV cache after loading the engine: the free
    // memory cudaMemGetInfo reports × kv_cache_free_gpu_mem_fraction
    // (kvCacheManager.cpp, calculateFreeMemBytes; gptSessionBenchmark's
    // --kv_cache_free_gpu_mem_fraction). The device's total is what CUDA
    // reports (85.1 GB on an A100 80GB), not the datasheet's 80 GB.
    usable_bytes_ = weights_bytes_ + fraction * std::max(0.0, device - weights_bytes_);
  }
}

ServingMemory LayoutEval::memory(std::int64_t batch) const {
  require_count(batch, "batch", "requests", 1, 1'000'000);
  ServingMemory mem;
  mem.weights_bytes = weights_bytes_;
  const std::int64_t context = in_.cached_tokens + in_.prompt_tokens +
                               (in_.pool == ServingPool::prefill ? 0 : in_.decode_tokens);
  // A paged cache holds whole blocks: each request's context rounds up.
  const std::int64_t block = engine_->kv_block_tokens;
  const std::int64_t held = ceil_div(context, block) * block;
  mem.kv_bytes =
      static_cast<double>(ceil_div(batch, ep_)) * static_cast<double>(held) * kv_bytes_token_;
  mem.total_bytes = mem.weights_bytes + mem.kv_bytes;
  mem.hbm_bytes = static_cast<double>(chip_->hbm_bytes);
  mem.usable_bytes = usable_bytes_;
  mem.kv_groups_per_chip = ceil_div(m_.kv.groups, tp_);
  mem.fits = mem.total_bytes <= mem.usable_bytes;
  return mem;
}

LayoutEval::Latency LayoutEval::latency(std::int64_t batch) const {
  std::int64_t micro_batches = 1, micro_batch = 1;
  micro_batching(batch, micro_batches, micro_batch);
  const double step = decode_step(micro_batches, micro_batch, mean_context_).time.seconds;
  const double d = static_cast<double>(in_.decode_tokens);
  const double interference =
      in_.pool == ServingPool::colocated ? static_cast<double>(batch - 1) * prefill_.seconds : 0.0;
  Latency l;
  l.tpot_seconds = step + interference / d;
  l.turn_seconds = ttft_ + d * l.tpot_seconds;
  return l;
}

ServingResult LayoutEval::at(std::int64_t batch) const {
  ServingResult r;
  r.memory = memory(batch);
  r.fits = r.memory.fits;
  r.layout = {tp_, pp_, ep_};
  r.chips = chips_;
  r.batch = batch;
  r.pool = in_.pool;
  r.fp8_compute = uses_fp8_compute(*chip_, in_.weights);
  r.fp4_compute = uses_fp4_compute(*chip_, in_.weights);
  r.compute_flops_per_s = peak_;
  r.hbm_bytes_per_s = bw_;
  r.hbm_efficiency = hbm_efficiency_;
  r.prefill = prefill_;
  r.prefill_chunks = prefill_chunks_;
  std::int64_t micro_batches = 1, micro_batch = 1;
  micro_batching(batch, micro_batches, micro_batch);
  r.micro_batches = micro_batches;
  const Step step = decode_step(micro_batches, micro_batch, mean_context_);
  r.decode_step = step.time;
  r.kv_transfer_seconds = kv_transfer_;
  r.overhead_seconds = in_.overhead_seconds;
  r.prefill_seconds = prefill_.seconds;
  r.decode_step_seconds = step.time.seconds;
  const double d = static_cast<double>(in_.decode_tokens);
  const double b = static_cast<double>(batch);
  const double c = static_cast<double>(chips_);
  r.decode_seconds = d * r.decode_step_seconds;
  if (in_.pool == ServingPool::colocated) r.interference_seconds = (b - 1.0) * r.prefill_seconds;
  r.ttft_seconds = ttft_;
  r.tpot_seconds = r.decode_step_seconds + r.interference_seconds / d;
  r.turn_seconds = r.ttft_seconds + d * r.tpot_seconds;
  r.comm_seconds_per_step = step.time.comm_seconds();

  // Steady state, and the DRAM bits behind one token for the seed's model.
  double bits_per_token = 0;
  switch (in_.pool) {
    case ServingPool::colocated: {
      // Every B requests: B prefills and D steps of the batch.
      const double cycle = b * r.prefill_seconds + d * r.decode_step_seconds;
      r.tokens_per_second_per_chip = b * d / (c * cycle);
      r.requests_per_second = b / cycle;
      bits_per_token = 8.0 * c * static_cast<double>(micro_batches) * step.bytes_per_chip / b;
      break;
    }
    case ServingPool::decode:
      r.tokens_per_second_per_chip = b / (c * r.decode_step_seconds);
      r.requests_per_second = b / (d * r.decode_step_seconds);
      bits_per_token = 8.0 * c * static_cast<double>(micro_batches) * step.bytes_per_chip / b;
      break;
    case ServingPool::prefill:
      r.tokens_per_second_per_chip =
          static_cast<double>(in_.prompt_tokens) / (c * r.prefill_seconds);
      r.requests_per_second = 1.0 / r.prefill_seconds;
      bits_per_token = 8.0 * c * static_cast<double>(prefill_chunks_) * prefill_bytes_chip_ /
                       static_cast<double>(in_.prompt_tokens);
      break;
  }
  r.cost = token_cost(*chip_, r.tokens_per_second_per_chip, in_.cost, bits_per_token);
  return r;
}

StaticBatchResult LayoutEval::static_batch(std::int64_t batch) const {
  StaticBatchResult r;
  r.memory = memory(batch);
  r.fits = r.memory.fits;
  r.layout = {tp_, pp_, ep_};
  r.chips = chips_;
  r.batch = batch;
  r.hbm_efficiency = hbm_efficiency_;
  // One context phase for every prompt: the weights are read once per chunk
  // for all of them (gptSessionBenchmark's context phase, TensorRT-LLM). Each
  // EP replica's attention chips take their share of the prompts.
  r.prefill = best_prefill(ceil_div(batch, ep_), r.prefill_chunks).time;
  r.prefill_seconds = r.prefill.seconds;
  // The context phase yields the first token; step j = 1 … D − 1 attends to
  // the cached context, the prompt and j generated tokens: on average
  // cached + prompt + D ÷ 2.
  r.decode_steps = in_.decode_tokens - 1;
  r.mean_context_tokens = static_cast<double>(in_.cached_tokens + in_.prompt_tokens) +
                          static_cast<double>(in_.decode_tokens) / 2.0;
  if (r.decode_steps > 0) {
    std::int64_t micro_batches = 1, micro_batch = 1;
    micro_batching(batch, micro_batches, micro_batch);
    r.decode_step = decode_step(micro_batches, micro_batch, r.mean_context_tokens).time;
    r.decode_step_seconds = r.decode_step.seconds;
  }
  r.overhead_seconds = in_.overhead_seconds + engine_->per_call_seconds;
  r.total_seconds = r.overhead_seconds + r.prefill_seconds +
                    static_cast<double>(r.decode_steps) * r.decode_step_seconds;
  r.tokens_per_second_per_chip = static_cast<double>(batch) *
                                 static_cast<double>(in_.decode_tokens) /
                                 (r.total_seconds * static_cast<double>(chips_));
  return r;
}

double LayoutEval::step_seconds(std::int64_t batch, double context_tokens,
                                double tokens_per_request) const {
  std::int64_t micro_batches = 1, micro_batch = 1;
  micro_batching(batch, micro_batches, micro_batch);
  return decode_step(micro_batches, micro_batch, context_tokens, tokens_per_request).time.seconds;
}

double LayoutEval::context_phase_seconds(std::int64_t requests, std::int64_t prompt_tokens) const {
  std::int64_t chunks = 1;
  return best_prefill(ceil_div(requests, ep_), chunks, prompt_tokens).time.seconds;
}

}  // namespace napkin::detail
