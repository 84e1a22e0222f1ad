// The cost of one transformer layer: every kernel by the roofline with wave
// quantization (kernel_time.h) and the tensor-, expert- and context-parallel
// collectives on the critical path (collectives.h). parallel_edges.cpp prices
// the embedding and the output layer; parallel_step.cpp blends layers and
// assembles a step.
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

// One layer's cost, priced part by part: what every part reads (the job,
// this rank's slice of the layer, the kernel rates) is set on construction;
// each part adds its kernels to the running sums below, in the order the
// layer runs them.
struct LayerPricer {
  LayerPricer(const JobContext& context, const Layout& layout, bool is_moe_layer, bool force_bf16)
      : c(context), L(layout), moe_layer(is_moe_layer), bf16_gemms(force_bf16) {}

  const JobContext& c;
  const Layout& L;
  const bool moe_layer, bf16_gemms;
  const TrainingJob& job = *c.job;
  const ModelShape& s = job.shape;
  const TrainingSoftware& sw = job.software;
  const bool fp8 = sw.fp8_matmuls && !bf16_gemms;
  const KernelRates& r = fp8 ? c.rates : c.bf16_rates;
  const double operand_bytes = fp8 ? 1.0 : 2.0;  // a weight GEMM's inputs
  const bool moe = moe_layer && s.is_moe();
  const std::int64_t t = L.tp;
  const bool sp = L.sequence_parallel && t > 1;
  const std::int64_t n = L.micro_batch * (job.seq_len / L.cp);  // tokens on this rank
  const double nd = static_cast<double>(n);
  const double H = static_cast<double>(s.d_model);
  const double nt = sp ? nd / static_cast<double>(t) : nd;  // tokens of the replicated work
  // The routed experts' tensor parallelism (Layout::etp): below tp the MLP
  // leaves the TP group, and each rank's experts see etp sequence shards.
  const std::int64_t etp = moe ? L.expert_tp() : t;
  const double expert_n = expert_tokens(nd, t, etp);
  const std::int64_t heads_r = s.n_heads / t;
  const std::int64_t kv_r = std::max<std::int64_t>(1, s.n_kv_heads / t);
  const std::int64_t dh = s.d_head;
  const std::int64_t v_dh = s.is_mla() ? s.v_head_dim : dh;
  const double rep = nt * H;  // an activation replicated over TP (or its SP shard)
  // Selective recomputation's modules (Layout::recompute_modules).
  const std::uint32_t re = L.selective_modules();
  const bool eager = sw.eager_elementwise;
  const std::int64_t up = s.gated ? 2 : 1;  // FC1's outputs per hidden unit

  // The running sums.
  LayerCost lc;
  WeightGemm qkv, proj, fc1, fc2;
  double core_f = 0, core_b = 0, core_recompute = 0;  // the attention core
  double mlp_f = 0, mlp_b = 0;
  double mlp_gemm_f = 0, mlp_gemm_b = 0;  // the MLP's GEMMs alone, for the breakdown
  double ew_f = 0, ew_b = 0;              // element-wise bytes, forward and backward
  double re_gemm = 0, re_bytes = 0;       // what selective recomputation re-runs
  double fp8_amax_reductions = 0;         // blocking amax all-reduces per pass
  CpExchange cp;                          // context parallelism's exchange

  LayerCost price() {
    norms_and_junctions();
    attention();
    mlp();
    elementwise();
    compute();
    tp_collectives();
    ep_all_to_alls();
    context_parallel();
    host_floor();
    recomputation();
    activations();
    return lc;
  }

  void norms_and_junctions() {
    // Element-wise kernels outside the TP regions: the block's norms (fused,
    // forward reads x and writes y, backward reads x and dy and writes dx; or
    // as eager ops, norm_bytes), one per norm vector (two; Gemma's four; a
    // parallel block's one or two), and its residual junctions (bias-dropout-
    // add: + a 1-byte mask with dropout): two, or in a parallel block one
    // that adds both branches to x (GPT-J, PaLM §2: x + Attn(LN x) + MLP(LN x)),
    // reading three tensors.
    const double residual = sw.dropout ? 7 : 6;
    const double junctions = s.parallel_blocks ? residual + 2 : 2 * residual;
    const double norms = static_cast<double>(s.norms_per_layer);
    const NormBytes norm = norm_bytes(sw);
    ew_f = rep * (norms * norm.forward + junctions);
    ew_b = rep * (norms * norm.backward + junctions);
    // Selective recomputation's modules re-run their forward before the
    // backward (Layout::recompute_modules): GEMMs and element-wise bytes.
    if (re & (kRecomputeLayernorm | kRecomputeOp)) re_bytes += norms * norm.forward * rep;
    if (re & kRecomputeOp) re_bytes += residual * rep;  // the MLP norm's input, x + attention
  }

  void attention() {
    // Attention. Multi-head latent attention (DeepSeek-V2/V3; Megatron Core's
    // MLASelfAttention) projects down to its latents on every TP rank (the
    // down-projections are duplicated, not split), then up to the rank's heads:
    // queries of qk = nope + rope wide, keys the same, values v wide.
    if (s.is_mla()) {
      const std::int64_t q_in = s.q_lora_rank > 0 ? s.q_lora_rank : s.d_model;
      if (s.q_lora_rank > 0) qkv = weight_gemm(r, n, s.q_lora_rank, s.d_model, 1, operand_bytes);
      const WeightGemm q_proj = weight_gemm(r, n, heads_r * dh, q_in, 1, operand_bytes);
      qkv += q_proj;
      qkv += weight_gemm(r, n, s.kv_lora_rank + s.qk_rope_head_dim, s.d_model, 1, operand_bytes);
      const WeightGemm kv_up = weight_gemm(r, n, heads_r * (s.qk_nope_head_dim + v_dh),
                                           s.kv_lora_rank, 1, operand_bytes);
      qkv += kv_up;
      // mla_up_proj: the keys and values from their latent, and the queries
      // from theirs where there is one (q_lora_rank > 0).
      if (re & kRecomputeMlaUpProj) re_gemm += kv_up.fwd + (s.q_lora_rank > 0 ? q_proj.fwd : 0.0);
      // The latents' own norms.
      const double latents = nd * static_cast<double>(s.q_lora_rank + s.kv_lora_rank);
      ew_f += 4 * latents;
      ew_b += 6 * latents;
    } else {
      qkv = weight_gemm(r, n, (heads_r + 2 * kv_r) * dh, s.d_model, 1, operand_bytes);
    }
    proj = weight_gemm(r, n, s.d_model, heads_r * v_dh, 1, operand_bytes);
    // torchtitan's op-level policy re-runs the keys' projection (matmul 2)
    // and the output projection (4).
    if (re & kRecomputeOp)
      re_gemm += weight_gemm(r, n, kv_r * dh, s.d_model, 1, operand_bytes).fwd + proj.fwd;
    if (sw.flash_attention) {
      // QKᵀ and A·V over the causal half (each query sees on average half of
      // the keys; context parallelism balances the halves): 2·n·s·(d_qk + d_v)
      // per head forward, 2.5× that backward (FlashAttention-2: five matmuls
      // to two), at the kernel's rate for the rank's sequence length (its
      // sequence over CP: the query block each call sees).
      const double flops = 2.0 * nd * static_cast<double>(job.seq_len) * 0.5 *
                           static_cast<double>(heads_r * (dh + v_dh));
      core_f = flops / (r.attention_flops_per_s *
                        attention_length_factor(c.attention_curve, job.seq_len / L.cp));
      core_b = 2.5 * core_f;
    } else {
      // Unfused: batched QKᵀ and A·V over the whole s×s matrix, the fused
      // scale-mask-softmax (reads and writes the scores; backward reads the
      // probabilities and their gradient), dropout on the probabilities.
      const std::int64_t batch = L.micro_batch * heads_r, sq = job.seq_len;
      const double qk_f = gemm_seconds(r, {sq, sq, dh, batch});
      const double qk_b = gemm_seconds(r, {sq, dh, sq, batch}) * 2;
      const double av_f = gemm_seconds(r, {sq, dh, sq, batch});
      const double av_b =
          gemm_seconds(r, {sq, sq, dh, batch}) + gemm_seconds(r, {sq, dh, sq, batch});
      const double scores =
          static_cast<double>(batch) * static_cast<double>(sq) * static_cast<double>(sq);
      const double soft_f = 4 * scores + (sw.dropout ? 5 * scores : 0);
      const double soft_b = 6 * scores + (sw.dropout ? 5 * scores : 0);
      core_f = qk_f + av_f + streaming_seconds(r, soft_f);
      core_b = qk_b + av_b + streaming_seconds(r, soft_b);
      if (re & kRecomputeCoreAttn) core_recompute = core_f;
    }
  }

  void mlp() {
    // The MLP (dense, or routed experts plus shared experts).
    // Eager SwiGLU, F.silu(w1 x) * w3 x, writes silu's output and reads it
    // back, and its backward is two products and silu's own: 10 and 18 bytes
    // per hidden unit where the fused kernel takes 6 and 10.
    const double per_unit_f = s.gated ? (eager ? 10 : 6) : 4,
                 per_unit_b = s.gated ? (eager ? 18 : 10) : 6;
    if (!moe) {
      const std::int64_t f_r = s.d_ff / t;
      fc1 = weight_gemm(r, n, up * f_r, s.d_model, 1, operand_bytes);
      fc2 = weight_gemm(r, n, s.d_model, f_r, 1, operand_bytes);
      mlp_gemm_f = fc1.fwd + fc2.fwd;
      mlp_gemm_b = fc1.bwd() + fc2.bwd();
      mlp_f = fc1.fwd + fc2.fwd + streaming_seconds(r, per_unit_f * nd * static_cast<double>(f_r));
      mlp_b =
          fc1.bwd() + fc2.bwd() + streaming_seconds(r, per_unit_b * nd * static_cast<double>(f_r));
      if (re & kRecomputeMlp) {
        re_gemm += fc1.fwd + fc2.fwd;
        re_bytes += per_unit_f * nd * static_cast<double>(f_r);
      }
      if (re & kRecomputeOp) {  // matmul 6 (w3 of a gated MLP, else FC2) and the activation
        re_gemm += s.gated ? weight_gemm(r, n, f_r, s.d_model, 1, operand_bytes).fwd : fc2.fwd;
        re_bytes += per_unit_f * nd * static_cast<double>(f_r);
      }
    } else {
      // Each routed expert's hidden units split over the expert TP group; its
      // tokens are the group's sequence shards gathered (all n when etp = tp;
      // with EP folded over TP, etp = 1, only the rank's own n/t).
      const std::int64_t ef_r = s.effective_expert_d_ff() / etp;
      const std::int64_t local_experts = s.n_experts / L.ep;
      const double routed = expert_n * static_cast<double>(s.top_k) * sw.moe_load_imbalance;
      const std::int64_t per_expert = std::max<std::int64_t>(
          1, static_cast<std::int64_t>(std::ceil(routed / static_cast<double>(local_experts))));
      const std::int64_t n_rt = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(nt)));
      // The router stays in bf16 when the experts run in FP8: Megatron-Core's
      // TopKRouter.gating is a plain torch.nn.functional.linear (not a
      // Transformer Engine module, so fp8_autocast leaves it alone) in the
      // input's dtype or fp32/fp64 with --moe-router-dtype
      // (megatron/core/transformer/moe/router.py).
      const WeightGemm router = weight_gemm(c.bf16_rates, n_rt, s.n_experts, s.d_model);
      fc1 = weight_gemm(r, per_expert, up * ef_r, s.d_model, local_experts, operand_bytes);
      fc2 = weight_gemm(r, per_expert, s.d_model, ef_r, local_experts, operand_bytes);
      // Routing (softmax, top-k) in fp32, and permuting the tokens to their
      // experts and back (read and write each routed token twice).
      const double route_bytes = 12.0 * nt * static_cast<double>(s.n_experts);
      const double permute_bytes = 8.0 * routed * H;
      lc.wgrad += router.wgrad;
      mlp_gemm_f = router.fwd + fc1.fwd + fc2.fwd;
      mlp_gemm_b = router.bwd() + fc1.bwd() + fc2.bwd();
      mlp_f = router.fwd + fc1.fwd + fc2.fwd +
              streaming_seconds(
                  r, route_bytes + permute_bytes + per_unit_f * routed * static_cast<double>(ef_r));
      mlp_b = router.bwd() + fc1.bwd() + fc2.bwd() +
              streaming_seconds(
                  r, route_bytes + permute_bytes + per_unit_b * routed * static_cast<double>(ef_r));
      if (re & kRecomputeMoeAct) re_bytes += per_unit_f * routed * static_cast<double>(ef_r);
      if (s.shared_experts > 0) {
        const std::int64_t sf_r = s.shared_experts * s.effective_expert_d_ff() / t;
        const WeightGemm s1 = weight_gemm(r, n, up * sf_r, s.d_model, 1, operand_bytes);
        const WeightGemm s2 = weight_gemm(r, n, s.d_model, sf_r, 1, operand_bytes);
        lc.wgrad += s1.wgrad + s2.wgrad;
        mlp_gemm_f += s1.fwd + s2.fwd;
        mlp_gemm_b += s1.bwd() + s2.bwd();
        mlp_f +=
            s1.fwd + s2.fwd + streaming_seconds(r, per_unit_f * nd * static_cast<double>(sf_r));
        mlp_b +=
            s1.bwd() + s2.bwd() + streaming_seconds(r, per_unit_b * nd * static_cast<double>(sf_r));
        if (re & kRecomputeSharedExperts) {
          re_gemm += s1.fwd + s2.fwd;
          re_bytes += per_unit_f * nd * static_cast<double>(sf_r);
        }
      }
    }
  }

  void elementwise() {
    // Context parallelism's work around the attention's chunks.
    cp = cp_exchange(c, L, nd, heads_r, kv_r, dh, v_dh, core_f, core_b);
    ew_f += cp.fwd_bytes;
    ew_b += cp.bwd_bytes;
    // Biases: QKV's is added by its own kernel (the others fuse into the
    // following element-wise kernel); every bias gradient reads its output
    // gradient once more. The unfused attention copies its output to [s, b, h].
    // The attention's projection outputs per token (MLA: its latents and the
    // up-projections' queries, keys and values).
    const double qkv_width =
        s.is_mla() ? static_cast<double>(s.q_lora_rank + s.kv_lora_rank + s.qk_rope_head_dim +
                                         heads_r * (dh + s.qk_nope_head_dim + v_dh))
                   : static_cast<double>((heads_r + 2 * kv_r) * dh);
    if (s.qkv_bias) {
      ew_f += 4 * nd * qkv_width;
      ew_b += 2 * nd * qkv_width;
    }
    if (s.o_bias) ew_b += 2 * rep;
    if (s.mlp_bias) ew_b += 2 * rep + 2 * nd * static_cast<double>(up * (moe ? 0 : s.d_ff / t));
    const double q_elems = nd * static_cast<double>(heads_r * dh);
    if (!sw.flash_attention) {
      ew_f += 4 * q_elems;
      ew_b += 4 * q_elems;
    }
    if (eager) {
      // torchtitan's apply_rotary_emb on q and k: cast to fp32 (2 bytes read,
      // 4 written), a complex product (4, 4), cast back (4, 2); the backward
      // the same. repeat_kv materialises K and V for every query head (2 bytes
      // read per KV element, 2 written per query element, each), and its
      // backward sums them back. wq, wk, wv and w1, w3 are separate Linears:
      // autograd adds their input gradients, three adds of d_model-wide
      // tensors (4 bytes read, 2 written each).
      const double kv_elems = nd * static_cast<double>(kv_r * dh);
      ew_f += 20 * (q_elems + kv_elems);
      ew_b += 20 * (q_elems + kv_elems) + 18 * nd * H;
      if (kv_r < heads_r) {
        ew_f += 4 * (q_elems + kv_elems);
        ew_b += 4 * (q_elems + kv_elems);
      }
      if (re & kRecomputeOp) re_bytes += (kv_r < heads_r ? 24 : 20) * (q_elems + kv_elems);
    }
    // FP8 GEMMs (Transformer Engine): Hopper's FP8 tensor cores take only the
    // TN layout, so every GEMM operand is materialised in FP8 and transposed.
    // Forward: each weight GEMM's input is written twice more in FP8 (x and xᵀ,
    // 1 byte each); the cast fuses into the norm or activation that produced x,
    // but the attention output is read again by a cast of its own. Backward:
    // each output gradient is read in bf16 and written as dy and dyᵀ in FP8
    // (cast_transpose, its own kernel: 4 bytes). Weights are cast once per step.
    // Per-tensor current scaling needs the whole tensor's amax before the cast:
    // norms and activations compute it as they write x in bf16 and the cast
    // reads x again; the attention output and the output gradients (but FC1's,
    // whose amax fuses into the activation's backward) get an amax pass of
    // their own (Float8CurrentScalingQuantizer::quantize_impl: compute_amax,
    // then quantize). With sequence parallelism the column-parallel inputs and
    // the row-parallel output gradients reduce their amax over the TP group, a
    // blocking all-reduce of one float each (linear.py, layernorm_linear.py).
    if (fp8) {
      const double attn_out = nd * static_cast<double>(heads_r * v_dh);
      double inputs = static_cast<double>(s.d_model + s.q_lora_rank + s.kv_lora_rank) +
                      static_cast<double>(heads_r * v_dh);
      double outputs = qkv_width + H;
      double act_grads = 0;  // FC1's output gradients
      if (!moe) {
        const double f_r = static_cast<double>(s.d_ff / t);
        inputs = inputs * nd + (H + f_r) * nd;
        outputs = outputs * nd + (static_cast<double>(up) * f_r + H) * nd;
        act_grads = static_cast<double>(up) * f_r * nd;
      } else {
        const double ef_r = static_cast<double>(s.effective_expert_d_ff() / t);
        const double routed = nd * static_cast<double>(s.top_k) * sw.moe_load_imbalance;
        const double sf_r = static_cast<double>(s.shared_experts * s.effective_expert_d_ff() / t);
        inputs = inputs * nd + (H + ef_r) * routed + (H + sf_r) * (sf_r > 0 ? nd : 0);
        outputs = outputs * nd + (static_cast<double>(up) * ef_r + H) * routed +
                  (static_cast<double>(up) * sf_r + H) * (sf_r > 0 ? nd : 0);
        act_grads = static_cast<double>(up) * (ef_r * routed + (sf_r > 0 ? sf_r * nd : 0));
      }
      ew_f += 2 * inputs + 2 * attn_out;
      ew_b += 4 * outputs;
      if (sw.fp8_recipe == Fp8Recipe::tensorwise) {
        ew_f += 2 * inputs + 2 * attn_out;
        ew_b += 2 * (outputs - act_grads);
        if (sp) fp8_amax_reductions = 2;  // per pass: 2 forward, 2 backward
      }
    }
  }

  void compute() {
    // Parameters on this rank.
    const LayerParams& lp = moe ? c.moe_layer : c.dense_layer;
    if (!moe) {
      lc.dense_params = ceil_div(lp.attn, t) + ceil_div(lp.mlp, t) + lp.norms;
    } else {
      lc.dense_params = ceil_div(lp.attn, t) + lp.norms + lp.router +
                        ceil_div(checked_mul(s.shared_experts, c.expert_params, "parameters"), t);
      lc.expert_params =
          checked_mul(s.n_experts / L.ep, ceil_div(c.expert_params, etp), "parameters");
    }
    // FSDP2's copies (TrainingSoftware::fsdp2_copies): the forward's and the
    // backward's gathered weights copied out (2 bytes read, 2 written each), the
    // bf16 gradients copied into the reduce-scatter's input in its dtype.
    if (sw.fsdp2_copies && zero_as_run(job, L) >= 3 && L.zero_shard() > 1) {
      const double p = static_cast<double>(lc.dense_params + lc.expert_params);
      ew_f += 4 * p;
      ew_b += (4 + 2 + c.grad_bytes) * p;
    }
    // Gradient accumulation as its own kernel (TrainingSoftware::fused_grad_accumulation).
    ew_b +=
        unfused_accumulation_bytes(c, L) * static_cast<double>(lc.dense_params + lc.expert_params);
    lc.wgrad += qkv.wgrad + proj.wgrad + fc1.wgrad + fc2.wgrad;
    lc.fwd_compute = qkv.fwd + proj.fwd + core_f + mlp_f + streaming_seconds(r, ew_f);
    lc.bwd_compute = qkv.bwd() + proj.bwd() + core_b + mlp_b + streaming_seconds(r, ew_b);
    lc.fwd_mix.gemm_seconds = qkv.fwd + proj.fwd + mlp_gemm_f;
    lc.fwd_mix.attention_seconds = core_f;
    lc.fwd_mix.elementwise_seconds = lc.fwd_compute - lc.fwd_mix.gemm_seconds - core_f;
    lc.bwd_mix.gemm_seconds = qkv.bwd() + proj.bwd() + mlp_gemm_b;
    lc.bwd_mix.attention_seconds = core_b;
    lc.bwd_mix.elementwise_seconds = lc.bwd_compute - lc.bwd_mix.gemm_seconds - core_b;
  }

  void tp_collectives() {
    // Tensor-parallel collectives of the activations (n × d_model in bf16).
    if (t > 1) {
      const GroupPlacement grp = placement(c, t, 1);
      const double bytes = 2.0 * nd * H;
      const bool full_overlap = sw.tp_overlap == TpOverlap::full;
      const bool bwd_overlap = sw.tp_overlap != TpOverlap::none;
      // The GEMMs each collective feeds or drains: the attention's and the
      // MLP's. A parallel block (GPT-J; PaLM §2, "parallel layers") reads one
      // normed input into both and adds both outputs before the residual, so
      // it gathers once into QKV and FC1 together and reduces once out of the
      // output projection and FC2 (their partial sums added first); the
      // backward gathers the one output gradient both branches read and
      // reduces the input gradients' sum: half the collectives, each as large.
      const bool one_region = s.parallel_blocks && !moe;
      WeightGemm in = qkv, out = proj, in_m = fc1, out_m = fc2;
      if (one_region) in += fc1, out += fc2, in_m = out_m = WeightGemm{};
      if (sp) {
        const double ag = group_seconds(c, Collective::all_gather, bytes, grp);
        const double rs = group_seconds(c, Collective::reduce_scatter, bytes, grp);
        // The MLP's pair: the same over TP, or with the experts' TP below tp the
        // routed tokens gathered over the expert TP group after the all-to-all
        // (Megatron Core's MoEAlltoAllTokenDispatcher); none at etp = 1.
        double ag_m = one_region ? 0 : ag, rs_m = one_region ? 0 : rs;
        if (etp < t) {
          const GroupPlacement eg = placement(c, etp, 1);
          const double routed_bytes =
              2.0 * expert_n * static_cast<double>(s.top_k) * sw.moe_load_imbalance * H;
          ag_m = group_seconds(c, Collective::all_gather, routed_bytes, eg);
          rs_m = group_seconds(c, Collective::reduce_scatter, routed_bytes, eg);
          // Shared experts stay split over TP, with their own gather and scatter.
          if (s.shared_experts > 0) ag_m += ag, rs_m += rs;
        }
        // Forward: all-gather into QKV and FC1, reduce-scatter out of the
        // output projection and FC2.
        lc.fwd_tp = full_overlap ? overlapped(c, ag, in.fwd) + overlapped(c, ag_m, in_m.fwd) +
                                       overlapped(c, rs, out.fwd) + overlapped(c, rs_m, out_m.fwd)
                                 : ag + ag_m + rs + rs_m;
        // Backward: the all-gather of the output gradients (blocking), the
        // reduce-scatter of the input gradients (beside the weight-gradient
        // GEMM), and the all-gather of the inputs again for the weight gradient
        // (beside the input-gradient GEMM) unless the recomputed forward kept it
        // or the forward saved it gathered (DTensor).
        double bwd = full_overlap ? overlapped(c, ag, out.dgrad) + overlapped(c, ag_m, out_m.dgrad)
                                  : ag + ag_m;
        bwd +=
            bwd_overlap ? overlapped(c, rs, in.wgrad) + overlapped(c, rs_m, in_m.wgrad) : rs + rs_m;
        if (L.recompute != Checkpointing::full && !(re & kRecomputeOp) &&
            !sw.tp_saves_gathered_inputs)
          bwd += bwd_overlap ? overlapped(c, ag, in.dgrad) + overlapped(c, ag_m, in_m.dgrad)
                             : ag + ag_m;
        lc.bwd_tp = bwd;
        // torchtitan's op-level policy keeps the reduce-scatters' outputs but
        // not the all-gathers': its recomputed forward gathers both again.
        if (re & kRecomputeOp) lc.recompute_tp = ag + ag_m;
      } else {
        const double ar = group_seconds(c, Collective::all_reduce, bytes, grp);
        const double ar_m = one_region ? 0 : ar;
        lc.fwd_tp =
            full_overlap ? overlapped(c, ar, out.fwd) + overlapped(c, ar_m, out_m.fwd) : ar + ar_m;
        lc.bwd_tp =
            bwd_overlap ? overlapped(c, ar, in.wgrad) + overlapped(c, ar_m, in_m.wgrad) : ar + ar_m;
      }
    }

    if (fp8_amax_reductions > 0) {
      const double amax =
          fp8_amax_reductions * group_seconds(c, Collective::all_reduce, 4.0, placement(c, t, 1));
      lc.fwd_tp += amax;
      lc.bwd_tp += amax;
    }
  }

  void ep_all_to_alls() {
    // Expert all-to-alls: dispatch and combine, forward and backward.
    if (moe && L.ep > 1) {
      const double copies = nt * static_cast<double>(s.top_k) * sw.moe_load_imbalance * H;
      // The EP group's ranks sit etp apart (Megatron Core orders the expert
      // grid etp, ep, expert-DP): with etp = 1 they are neighbours.
      const GroupPlacement grp = placement(c, L.ep, etp);
      // One all-to-all of `bytes` per routed element.
      auto a2a = [&](double bytes) {
        if (sw.ep_dispatch == EpDispatch::all_to_all)
          return group_seconds(c, Collective::all_to_all, copies * bytes, grp);
        // Deduplicated: a token goes once to each rank that holds one of its
        // experts and, between nodes, once to each node, whose receiving rank
        // forwards it over NVLink; node-limited routing (M nodes) draws the
        // experts from M nodes' worth. Expected counts for balanced routing.
        const std::int64_t r_n = grp.ranks_per_node, g = grp.ranks / r_n;
        const std::int64_t per_rank = s.n_experts / L.ep;
        const std::int64_t nodes =
            sw.ep_nodes_per_token > 0 ? std::min(g, sw.ep_nodes_per_token) : g;
        const std::int64_t pool = per_rank * r_n * nodes;
        const double ranks_hit = expected_bins_hit(pool, per_rank, s.top_k);
        const double nodes_hit = expected_bins_hit(pool, per_rank * r_n, s.top_k);
        const double token = nt * sw.moe_load_imbalance * H * bytes;
        const double rn = static_cast<double>(r_n), gd = static_cast<double>(g);
        const double intra = token * ranks_hit * (rn - 1) / rn;
        const double inter = token * nodes_hit * (gd - 1) / gd;
        return (rn - 1) * c.intra.latency_seconds + (gd - 1) * c.inter.latency_seconds +
               std::max(intra / c.intra.bytes_per_s_among(r_n),
                        g > 1 ? inter / c.inter.bytes_per_s : 0.0);
      };
      // A dispatch and a combine each pass, one of them in FP8 with FP8 dispatch.
      const double a2a_pair = a2a(2.0) + a2a(sw.fp8_ep_dispatch ? 1.0 : 2.0);
      lc.fwd_ep = sw.overlap_ep_comm ? overlapped(c, a2a_pair, lc.fwd_compute) : a2a_pair;
      lc.bwd_ep = sw.overlap_ep_comm ? overlapped(c, a2a_pair, lc.bwd_compute) : a2a_pair;
    }
  }

  void context_parallel() {
    // Context parallelism's K, V exchange (parallel_cp.cpp), priced in elementwise().
    lc.fwd_cp = cp.fwd_seconds;
    lc.bwd_cp = cp.bwd_seconds;
    lc.cp_buffer_bytes = static_cast<std::int64_t>(std::ceil(cp.buffer_bytes));
  }

  void host_floor() {
    // The host: an eager framework dispatches every kernel and collective from
    // Python, so a pass over the layer takes at least its kernel count times the
    // dispatch time; short kernels leave the GPU waiting (small models, thin TP
    // slices, small micro-batches).
    if (c.dispatch_seconds > 0) {
      const bool unfused = !sw.flash_attention;
      const int biases = (s.qkv_bias ? 1 : 0) + (s.o_bias ? 1 : 0) + (s.mlp_bias ? 2 : 0);
      const int tp_calls = t > 1 ? (sp ? 4 : 2) : 0;
      // Forward: QKV, the attention core (QKᵀ, softmax, dropout, A·V and the
      // output copy unfused; one fused kernel), projection, FC1, activation,
      // FC2, two norms, two residual junctions, a QKV bias add.
      const int core_fwd = unfused ? 4 + (sw.dropout ? 1 : 0) : 1;
      int fwd = 4 + core_fwd + 1 + 4 + (s.qkv_bias ? 1 : 0) + tp_calls + (moe ? 6 : 0);
      // Backward: two GEMMs per weight, the core's gradients, the activation's,
      // the norms' input and weight gradients, the junctions, the bias gradients.
      const int core_bwd = unfused ? 5 + (sw.dropout ? 1 : 0) : 2;
      int bwd = 8 + core_bwd + 1 + 6 + biases + tp_calls + (moe ? 7 : 0);
      // Eager PyTorch runs more, smaller kernels (the byte counts in
      // elementwise() and norm_bytes): the rotary embedding's casts and
      // complex products on q and k (6 each way), GQA's K and V expanded and
      // summed back (2), the attention output made contiguous (1), SwiGLU's
      // silu and product apart (1; backward 2), the input gradients of wq, wk,
      // wv and w1, w3 added (backward 3); an eager RMSNorm 8 kernels forward
      // and 16 backward where the fused one takes 1 and 2.
      const int gqa = kv_r < heads_r ? 2 : 0, norms = sw.eager_norms ? 2 : 0;
      fwd += (eager ? 8 + gqa : 0) + 7 * norms;
      bwd += (eager ? 12 + gqa : 0) + 14 * norms;
      auto floor_to = [&](double& compute, ComputeMix& mix, double others, int kernels) {
        const double floor = kernels * c.dispatch_seconds - others;
        if (floor <= compute) return;
        mix.host_wait_seconds = floor - compute;
        compute = floor;
      };
      floor_to(lc.fwd_compute, lc.fwd_mix, lc.fwd_tp + lc.fwd_ep + lc.fwd_cp, fwd);
      floor_to(lc.bwd_compute, lc.bwd_mix, lc.bwd_tp + lc.bwd_ep + lc.bwd_cp, bwd);
    }
  }

  void recomputation() {
    // Recomputation before the backward.
    switch (L.recompute) {
      case Checkpointing::none: break;
      case Checkpointing::selective: {
        const double bytes_seconds = streaming_seconds(r, re_bytes);
        lc.recompute = core_recompute + re_gemm + bytes_seconds;
        lc.recompute_mix.attention_seconds = core_recompute;
        lc.recompute_mix.gemm_seconds = re_gemm;
        lc.recompute_mix.elementwise_seconds = bytes_seconds;
        break;
      }
      case Checkpointing::full:
        lc.recompute = lc.fwd_compute;
        lc.recompute_mix = lc.fwd_mix;
        lc.recompute_tp = lc.fwd_tp;
        lc.recompute_ep = lc.fwd_ep;
        lc.recompute_cp = lc.fwd_cp;
        break;
    }
  }

  void activations() {
    LayerActivationInputs in = activation_inputs(job, L);
    lc.activation_bytes = layer_activation_bytes(s, in, moe);
    in.recompute = Checkpointing::none;
    lc.full_activation_bytes = layer_activation_bytes(s, in, moe);
    // FP8 GEMMs keep their inputs for the weight gradient in FP8 (Transformer
    // Engine's Linear and LayerNormLinear save the quantized input, its column-
    // wise copy only): 1 byte instead of 2 for QKV's and FC1's inputs (the norm
    // outputs, the local shard with sequence parallelism) and FC2's (the
    // activation's output); the attention output is kept twice, in bf16 for the
    // attention's backward and in FP8 for the projection's. Routed experts
    // the same (TE's GroupedLinear saves its quantized inputs): the permuted
    // tokens and the activation's output at 1 byte; the norm output stays in
    // bf16 for the router, so FC1's saving there is lost.
    // With the norms recomputed their bf16 outputs are gone and the FP8 copies
    // the projections keep are all that is left (1 byte more each than the
    // bf16 count has); recomputed activations leave nothing to keep in FP8.
    // Software that keeps the bf16 inputs (torchao) saves nothing here.
    if (fp8 && sw.fp8_saves_quantized_inputs) {
      const double norm_out = sp && !sw.tp_saves_gathered_inputs ? nt * H : nd * H;
      // Bytes the FP8 copies save against the bf16 count, with `mods`
      // recomputed (negative where only the FP8 copies are left).
      auto fp8_saving = [&](std::uint32_t mods) {
        const bool norms = (mods & kRecomputeLayernorm) != 0;
        // The norms' outputs feed QKV and FC1 (a MoE's routed experts keep
        // their own permuted copy; its router keeps the bf16 output unless the
        // norm is recomputed). A recomputed MLP keeps its bf16 input as its
        // checkpoint (or nothing, its norm recomputed too) and no FP8 copy.
        const double copies = (moe || (mods & kRecomputeMlp)) ? 1.0 : 2.0;
        double saved =
            (norms ? -copies : copies) * norm_out - nd * static_cast<double>(heads_r * v_dh);
        if (!moe) {
          if (!(mods & kRecomputeMlp)) saved += nd * static_cast<double>(s.d_ff / t);
        } else {
          const double routed = expert_n * static_cast<double>(s.top_k) * sw.moe_load_imbalance;
          const double act = (mods & kRecomputeMoeAct) ? 0.0 : 1.0;
          saved += routed * (H + act * static_cast<double>(s.effective_expert_d_ff() / etp));
          if (!(mods & kRecomputeSharedExperts))
            saved += nd * static_cast<double>(s.shared_experts * s.effective_expert_d_ff() / t);
        }
        return static_cast<std::int64_t>(std::llround(norms ? saved : std::max(0.0, saved)));
      };
      if (L.recompute != Checkpointing::full)
        lc.activation_bytes = std::max<std::int64_t>(0, lc.activation_bytes - fp8_saving(re));
      lc.full_activation_bytes =
          std::max<std::int64_t>(0, lc.full_activation_bytes - fp8_saving(0));
    }
  }
};

}  // namespace

LayerCost price_layer(const JobContext& c, const Layout& L, bool moe_layer, bool bf16_gemms) {
  return LayerPricer(c, L, moe_layer, bf16_gemms).price();
}

}  // namespace parallel_detail

}  // namespace napkin
