#include "algebra.h"

#include <cmath>
#include <stdexcept>

#include "validate.h"

namespace napkin {

namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }

std::int64_t round_up(std::int64_t x, std::int64_t tile) {
  return checked_mul(ceil_div(x, tile), tile, "padded dimension");
}

}  // namespace

// ---------------------------------------------------------------- the primitive

std::int64_t matmul_flops(std::int64_t m, std::int64_t k, std::int64_t n) {
  require_count(m, "m", "rows");
  require_count(k, "k", "inner dimension");
  require_count(n, "n", "columns");
  return checked_mul({2, m, k, n}, "matmul FLOPs");
}

std::int64_t padded_matmul_flops(std::int64_t m, std::int64_t k, std::int64_t n,
                                 std::int64_t tile) {
  require_count(tile, "tile", "elements per side");
  require_count(m, "m", "rows");
  require_count(k, "k", "inner dimension");
  require_count(n, "n", "columns");
  return checked_mul({2, round_up(m, tile), round_up(k, tile), round_up(n, tile)},
                     "padded matmul FLOPs");
}

// ------------------------------------------------------------------ parameters

std::string_view to_string(QkNorm q) {
  switch (q) {
    case QkNorm::none: return "none";
    case QkNorm::per_head: return "per_head";
    case QkNorm::full_width: return "full_width";
  }
  return "none";
}

QkNorm parse_qk_norm(std::string_view n) {
  if (n == "none") return QkNorm::none;
  if (n == "per_head" || n == "per-head") return QkNorm::per_head;
  if (n == "full_width" || n == "full-width") return QkNorm::full_width;
  throw std::invalid_argument("qk_norm must be one of none, per_head, full_width; got \"" +
                              std::string(n) + "\"");
}

void ModelShape::validate() const {
  require_count(n_layers, "layers", "blocks", 1, kMaxLayers);
  require_count(d_model, "d_model", "elements", 1, kMaxModelWidth);
  require_count(d_ff, "d_ff", "elements", 1, kMaxFfnWidth);
  require_count(n_heads, "heads", "attention heads", 1, kMaxHeads);
  require_count(n_kv_heads, "kv_heads", "KV heads", 1, n_heads);
  if (n_heads % n_kv_heads != 0)
    throw std::invalid_argument("kv_heads (KV heads) must divide heads = " +
                                std::to_string(n_heads) + "; got " + std::to_string(n_kv_heads));
  require_count(d_head, "head_dim", "elements", 1, kMaxHeads);
  require_count(vocab, "vocab", "tokens", 1, kMaxVocab);
  require_count(n_experts, "experts", "routed experts", 0, kMaxExperts);
  require_count(shared_experts, "shared_experts", "experts", 0, kMaxSharedExperts);
  require_count(expert_d_ff, "expert_d_ff", "elements (0 = d_ff)", 0, kMaxFfnWidth);
  require_count(shared_expert_d_ff, "shared_expert_d_ff", "elements (0 = expert width)", 0,
                kMaxFfnWidth);
  if (is_moe()) {
    require_count(top_k, "top_k", "experts per token", 1, n_experts);
    require_count(n_dense_layers, "dense_layers", "dense-MLP blocks", 0, n_layers);
  } else {
    require_count(top_k, "top_k", "experts per token (dense model: 0)", 0, 0);
    require_count(shared_experts, "shared_experts", "experts (dense model: 0)", 0, 0);
    require_count(n_dense_layers, "dense_layers", "blocks (dense model: 0)", 0, 0);
    if (router_bias) throw std::invalid_argument("router_bias needs routed experts (experts > 0)");
  }
  if (shared_experts == 0) {
    require_count(shared_expert_d_ff, "shared_expert_d_ff", "elements (no shared experts: 0)", 0,
                  0);
    if (shared_expert_gate)
      throw std::invalid_argument("shared_expert_gate needs shared experts (shared_experts > 0)");
  }
  require_count(norms_per_layer, "norms_per_layer", "norm vectors per block", 0, 8);
  require_count(mtp_modules, "mtp_modules", "multi-token-prediction modules", 0, 100);
  if (is_mla()) {
    require_count(kv_lora_rank, "kv_lora_rank", "elements", 1, kMaxModelWidth);
    require_count(q_lora_rank, "q_lora_rank", "elements (0 = no query compression)", 0,
                  kMaxModelWidth);
    require_count(qk_nope_head_dim, "qk_nope_head_dim", "elements", 1, kMaxHeads);
    require_count(qk_rope_head_dim, "qk_rope_head_dim", "elements", 1, kMaxHeads);
    require_count(v_head_dim, "v_head_dim", "elements", 1, kMaxHeads);
    if (d_head != qk_nope_head_dim + qk_rope_head_dim)
      throw std::invalid_argument(
          "head_dim (elements) must be qk_nope_head_dim + qk_rope_head_dim = " +
          std::to_string(qk_nope_head_dim + qk_rope_head_dim) + " for MLA; got " +
          std::to_string(d_head));
    // DeepSeek's MLA has no projection biases and no QK-norm beyond its latent norms.
    if (qkv_bias || o_bias)
      throw std::invalid_argument(
          "qkv_bias and o_bias are not modelled with MLA (kv_lora_rank > 0)");
    if (qk_norm != QkNorm::none)
      throw std::invalid_argument("qk_norm must be none with MLA (kv_lora_rank > 0)");
  } else {
    require_count(q_lora_rank, "q_lora_rank", "elements (only with MLA: kv_lora_rank > 0)", 0, 0);
    require_count(qk_nope_head_dim, "qk_nope_head_dim",
                  "elements (only with MLA: kv_lora_rank > 0)", 0, 0);
    require_count(qk_rope_head_dim, "qk_rope_head_dim",
                  "elements (only with MLA: kv_lora_rank > 0)", 0, 0);
    require_count(v_head_dim, "v_head_dim", "elements (only with MLA: kv_lora_rank > 0)", 0, 0);
  }
}

namespace {

const char* const kWhat = "parameters";

std::int64_t norm_params(const ModelShape& s) {
  return s.norm_bias ? checked_mul(2, s.d_model, kWhat) : s.d_model;
}

// MLA (DeepSeek-V2 §2.1.2–2.1.3, the HF DeepseekV2Attention modules): W_q
// (or W_DQ, its RMSNorm and W_UQ), W_DKV and W_KR fused (d → kv_lora + rope),
// the latent's RMSNorm, W_UK and W_UV fused (kv_lora → H·(nope + v)), W_O.
std::int64_t mla_params(const ModelShape& s) {
  const std::int64_t h = s.n_heads;
  const std::int64_t q_out = checked_mul(h, s.qk_nope_head_dim + s.qk_rope_head_dim, kWhat);
  std::int64_t p = 0;
  if (s.q_lora_rank > 0)
    p = checked_add(checked_mul(s.d_model, s.q_lora_rank, kWhat),
                    checked_add(s.q_lora_rank, checked_mul(s.q_lora_rank, q_out, kWhat), kWhat),
                    kWhat);
  else
    p = checked_mul(s.d_model, q_out, kWhat);
  p = checked_add(p, checked_mul(s.d_model, s.kv_lora_rank + s.qk_rope_head_dim, kWhat), kWhat);
  p = checked_add(p, s.kv_lora_rank, kWhat);
  p = checked_add(p, checked_mul({s.kv_lora_rank, h, s.qk_nope_head_dim + s.v_head_dim}, kWhat),
                  kWhat);
  return checked_add(p, checked_mul({h, s.v_head_dim, s.d_model}, kWhat), kWhat);
}

std::int64_t attention_params(const ModelShape& s) {
  if (s.is_mla()) return mla_params(s);
  const std::int64_t q_dim = checked_mul(s.n_heads, s.d_head, "q width");
  const std::int64_t kv_dim = checked_mul(s.n_kv_heads, s.d_head, "kv width");
  std::int64_t attn = checked_mul(
      s.d_model, checked_add(checked_mul(2, q_dim, "attn"), checked_mul(2, kv_dim, "attn"), "attn"),
      "attention parameters");
  if (s.qkv_bias) attn = checked_add(attn, q_dim + 2 * kv_dim, "attention parameters");
  if (s.o_bias) attn = checked_add(attn, s.d_model, "attention parameters");
  switch (s.qk_norm) {
    case QkNorm::none: break;
    case QkNorm::per_head: attn = checked_add(attn, 2 * s.d_head, "attention parameters"); break;
    case QkNorm::full_width:
      attn = checked_add(attn, q_dim + kv_dim, "attention parameters");
      break;
  }
  return attn;
}

// One MLP (dense or one expert) of hidden width `ff`.
std::int64_t mlp_params(const ModelShape& s, std::int64_t ff) {
  const std::int64_t mats = s.gated ? 3 : 2;
  std::int64_t p = checked_mul({mats, s.d_model, ff}, "MLP parameters");
  if (s.mlp_bias) p = checked_add(p, (mats - 1) * ff + s.d_model, "MLP parameters");
  return p;
}

// The always-on part of an MoE layer's MLP: shared experts and their gate.
std::int64_t shared_mlp_params(const ModelShape& s) {
  std::int64_t p = checked_mul(s.shared_experts, mlp_params(s, s.effective_shared_expert_d_ff()),
                               "shared expert parameters");
  if (s.shared_expert_gate) p = checked_add(p, s.d_model, "shared expert parameters");
  return p;
}

// Layers with routed experts.
std::int64_t moe_layer_count(const ModelShape& s) {
  return s.is_moe() ? s.n_layers - s.n_dense_layers : 0;
}

}  // namespace

LayerParams params_per_layer(const ModelShape& s, bool moe_layer) {
  s.validate();
  LayerParams p;
  p.attn = attention_params(s);
  p.norms = checked_mul(s.norms_per_layer, norm_params(s), "norm parameters");
  if (moe_layer && s.is_moe()) {
    const std::int64_t one = mlp_params(s, s.effective_expert_d_ff());
    p.mlp = checked_add(checked_mul(s.n_experts, one, "expert parameters"), shared_mlp_params(s),
                        "expert parameters");
    p.router = checked_mul(s.d_model, s.n_experts, "router parameters");
    if (s.router_bias) p.router = checked_add(p.router, s.n_experts, "router parameters");
  } else {
    p.mlp = mlp_params(s, s.d_ff);
  }
  p.total = checked_add(checked_add(p.attn, p.mlp, "layer parameters"),
                        checked_add(p.router, p.norms, "layer parameters"), "layer parameters");
  return p;
}

ParamCount count_params(const ModelShape& s) {
  s.validate();
  ParamCount c;
  const LayerParams dense = params_per_layer(s, false);
  const std::int64_t n_moe = moe_layer_count(s);
  const std::int64_t n_dense = s.n_layers - n_moe;
  std::int64_t body = checked_mul(n_dense, dense.total, "body parameters");
  std::int64_t body_active = body;
  // A token's pass through one routed layer: attention, router, norms, its
  // top-k routed experts and every shared expert.
  std::int64_t moe_active_layer = 0;
  if (n_moe > 0 || (s.is_moe() && s.mtp_modules > 0)) {
    const LayerParams moe = params_per_layer(s, true);
    const std::int64_t one = mlp_params(s, s.effective_expert_d_ff());
    moe_active_layer =
        checked_add(checked_add(checked_add(moe.attn, moe.router, "active parameters"), moe.norms,
                                "active parameters"),
                    checked_add(checked_mul(s.top_k, one, "active expert parameters"),
                                shared_mlp_params(s), "active expert parameters"),
                    "active parameters");
    body = checked_add(body, checked_mul(n_moe, moe.total, "body parameters"), "body parameters");
    body_active =
        checked_add(body_active, checked_mul(n_moe, moe_active_layer, "active parameters"),
                    "active parameters");
    c.per_layer = moe;
  } else {
    c.per_layer = dense;
  }
  c.dense_layer = dense;
  c.n_moe_layers = n_moe;
  const std::int64_t table = checked_mul(s.vocab, s.d_model, "embedding parameters");
  c.input_embedding = table;
  c.embedding = s.tied_embeddings ? table : checked_mul(2, table, "embedding parameters");
  c.final_norm = norm_params(s);
  c.body = body;
  c.non_embedding_total = checked_add(body, c.final_norm, "parameters");
  c.non_embedding_active = checked_add(body_active, c.final_norm, "parameters");
  c.total = checked_add(c.non_embedding_total, c.embedding, "parameters");
  c.active = checked_add(c.non_embedding_active, c.embedding, "parameters");
  c.active_without_input_embedding = s.tied_embeddings ? c.active : c.active - table;
  if (s.mtp_modules > 0) {
    // One DeepSeek-V3 MTP module (§2.2, Figure 3): a full block (routed when
    // the model is an MoE), RMSNorms of the hidden state and of the embedding,
    // the projection M (2d → d) and the output head's RMSNorm; the embedding
    // and the output head are the main model's.
    const std::int64_t extra =
        checked_add(checked_mul({2, s.d_model, s.d_model}, "MTP parameters"),
                    checked_mul(3, norm_params(s), "MTP parameters"), "MTP parameters");
    const bool routed = s.is_moe();
    const std::int64_t block = routed ? c.per_layer.total : dense.total;
    const std::int64_t block_active = routed ? moe_active_layer : dense.total;
    c.mtp =
        checked_mul(s.mtp_modules, checked_add(block, extra, "MTP parameters"), "MTP parameters");
    c.mtp_active = checked_mul(s.mtp_modules, checked_add(block_active, extra, "MTP parameters"),
                               "MTP parameters");
  }
  return c;
}

// ------------------------------------------------------------------- KV cache

std::int64_t kv_cache_elements_per_token_per_layer(const ModelShape& s) {
  s.validate();
  if (s.is_mla()) return checked_add(s.kv_lora_rank, s.qk_rope_head_dim, "KV cache elements");
  return checked_mul({2, s.n_kv_heads, s.d_head}, "KV cache elements");
}

std::int64_t kv_cache_bytes_per_token(const ModelShape& s, std::int64_t bytes_per_elem) {
  require_count(bytes_per_elem, "bytes_per_elem", "bytes", 1, 8);
  return checked_mul({kv_cache_elements_per_token_per_layer(s), s.n_layers, bytes_per_elem},
                     "KV cache bytes per token");
}

std::int64_t kv_cache_bytes(const ModelShape& s, std::int64_t seq_len, std::int64_t batch,
                            std::int64_t bytes_per_elem) {
  require_count(seq_len, "seq_len", "tokens");
  require_count(batch, "batch", "requests");
  return checked_mul({kv_cache_bytes_per_token(s, bytes_per_elem), seq_len, batch},
                     "KV cache bytes");
}

// ------------------------------------------------------------------------ FLOPs

double training_flops(double n_params, double n_tokens) {
  require_positive(n_params, "n_params", "parameters");
  require_positive(n_tokens, "n_tokens", "tokens");
  return 6.0 * n_params * n_tokens;
}

double inference_flops(double n_params, double n_tokens) {
  require_positive(n_params, "n_params", "parameters");
  require_positive(n_tokens, "n_tokens", "tokens");
  return 2.0 * n_params * n_tokens;
}

StepFlops training_flops_exact(const StepShape& s) {
  require_count(s.batch, "batch", "sequences");
  require_count(s.seq, "seq", "tokens");
  require_count(s.d_model, "d_model", "elements");
  require_count(s.d_ff, "d_ff", "elements");
  require_count(s.n_heads, "heads", "attention heads");
  require_count(s.d_head, "head_dim", "elements");
  require_count(s.n_layers, "layers", "blocks");
  const std::int64_t kv = s.n_kv_heads == 0 ? s.n_heads : s.n_kv_heads;
  require_count(kv, "kv_heads", "KV heads", 1, s.n_heads);
  if (s.n_heads % kv != 0)
    throw std::invalid_argument("kv_heads (KV heads) must divide heads = " +
                                std::to_string(s.n_heads) + "; got " + std::to_string(kv));
  const char* what = "training FLOPs per step";
  const std::int64_t tokens = checked_mul(s.batch, s.seq, what);
  const std::int64_t mats = s.gated ? 3 : 2;
  StepFlops f;
  // Each weight costs 6 FLOPs per token (2 forward + 4 backward).
  f.mlp = checked_mul({6, mats, tokens, s.d_model, s.d_ff, s.n_layers}, what);
  // W_q and W_o scale with heads; W_k and W_v with kv heads.
  const std::int64_t proj_width = checked_add(checked_mul({2, s.n_heads, s.d_head}, what),
                                              checked_mul({2, kv, s.d_head}, what), what);
  f.attn_proj = checked_mul({6, tokens, s.d_model, proj_width, s.n_layers}, what);
  if (s.include_attention_matmuls) {
    // QKᵀ and A·V forward: 2·(2·B·H·T²·d_h); backward doubles twice more → ×3.
    f.attn_seq = checked_mul({6, 2, s.batch, s.n_heads, s.seq, s.seq, s.d_head, s.n_layers}, what);
    if (s.mask == CausalMask::causal_half) f.attn_seq /= 2;
  }
  f.total = checked_add(checked_add(f.mlp, f.attn_proj, what), f.attn_seq, what);
  return f;
}

std::int64_t unembedding_flops_per_token(std::int64_t d_model, std::int64_t vocab) {
  require_count(d_model, "d_model", "elements");
  require_count(vocab, "vocab", "tokens");
  return checked_mul({6, d_model, vocab}, "unembedding FLOPs");
}

double attention_flop_fraction(double n_params, std::int64_t n_layers, std::int64_t d_model,
                               std::int64_t seq_len) {
  require_positive(n_params, "n_params", "parameters");
  require_count(n_layers, "layers", "blocks");
  require_count(d_model, "d_model", "elements");
  require_count(seq_len, "seq_len", "tokens");
  const double body = 6.0 * n_params;
  const double attn = 6.0 * 2.0 * static_cast<double>(n_layers) * static_cast<double>(seq_len) *
                      static_cast<double>(d_model);
  return attn / (body + attn);
}

double six_nd_error(double f) {
  require_real(f, "attention_fraction", "fraction", 0.0, 1.0);
  if (f >= 1.0) throw std::invalid_argument("attention_fraction (fraction) must be < 1; got 1");
  return f / (1.0 - f);
}

double recompute_factor(Checkpointing c) {
  switch (c) {
    case Checkpointing::none: return 1.0;
    case Checkpointing::selective: return 6.5 / 6.0;
    case Checkpointing::full: return 8.0 / 6.0;
  }
  return 1.0;
}

// ---------------------------------------------------------------------- memory

std::string_view to_string(Optimizer o) {
  switch (o) {
    case Optimizer::adam: return "adam";
    case Optimizer::sgd_momentum: return "sgd_momentum";
    case Optimizer::adafactor: return "adafactor";
  }
  return "adam";
}

std::string_view to_string(Checkpointing c) {
  switch (c) {
    case Checkpointing::none: return "none";
    case Checkpointing::selective: return "selective";
    case Checkpointing::full: return "full";
  }
  return "none";
}

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::mixed_bf16: return "bf16";
    case Precision::fp32: return "fp32";
    case Precision::mixed_fp8: return "fp8";
  }
  return "bf16";
}

Optimizer parse_optimizer(std::string_view n) {
  if (n == "adam") return Optimizer::adam;
  if (n == "sgd_momentum") return Optimizer::sgd_momentum;
  if (n == "adafactor") return Optimizer::adafactor;
  throw std::invalid_argument("optimizer must be one of adam, sgd_momentum, adafactor; got \"" +
                              std::string(n) + "\"");
}

Checkpointing parse_checkpointing(std::string_view n) {
  if (n == "none") return Checkpointing::none;
  if (n == "selective") return Checkpointing::selective;
  if (n == "full") return Checkpointing::full;
  throw std::invalid_argument("checkpointing must be one of none, selective, full; got \"" +
                              std::string(n) + "\"");
}

Precision parse_precision(std::string_view n) {
  // mixed_bf16 and mixed_fp8: the names files written before 2026-12 hold.
  if (n == "bf16" || n == "mixed_bf16") return Precision::mixed_bf16;
  if (n == "fp8" || n == "mixed_fp8") return Precision::mixed_fp8;
  if (n == "fp32") return Precision::fp32;
  throw std::invalid_argument("precision must be one of bf16, fp8, fp32; got \"" + std::string(n) +
                              "\"");
}

std::int64_t activation_bytes(const ActivationShape& s, Checkpointing c) {
  require_count(s.batch, "batch", "sequences per device");
  require_count(s.seq, "seq", "tokens");
  require_count(s.d_model, "d_model", "elements");
  require_count(s.n_layers, "layers", "blocks");
  require_count(s.values_per_token_layer, "activation_factor", "values per token per layer", 1,
                1000);
  require_count(s.bytes_per_value, "bytes_per_value", "bytes", 1, 8);
  const char* what = "activation bytes";
  const std::int64_t boundary = checked_mul({s.batch, s.seq, s.d_model, s.n_layers}, what);
  switch (c) {
    case Checkpointing::full: return checked_mul(boundary, s.bytes_per_value, what);
    case Checkpointing::selective: {
      const std::int64_t raw =
          checked_mul({boundary, s.values_per_token_layer, s.bytes_per_value}, what);
      // 30 % of the raw bytes (seed: raw * 0.3), rounded up; computed as
      // 3·(raw/10) + ceil(3·(raw%10)/10) so that it cannot overflow.
      return 3 * (raw / 10) + ceil_div(3 * (raw % 10), 10);
    }
    case Checkpointing::none:
      return checked_mul({boundary, s.values_per_token_layer, s.bytes_per_value}, what);
  }
  return 0;
}

TrainingMemory training_memory(std::int64_t n_params, std::int64_t act_bytes, Optimizer optimizer,
                               Precision precision, int zero_stage, std::int64_t dp_degree) {
  require_count(n_params, "n_params", "parameters");
  require_count(act_bytes, "activation_bytes", "bytes", 0);
  require_count(zero_stage, "zero_stage", "ZeRO stage", 0, 3);
  require_count(dp_degree, "dp_degree", "data-parallel replicas");
  const char* what = "training memory bytes";
  const bool mixed = precision != Precision::fp32;
  // Mixed precision keeps bf16 weights and grads plus an fp32 master copy in
  // the optimizer state; fp32 training has no master copy. FP8 GEMMs cast
  // their operands per GEMM and keep the same states (Transformer Engine's
  // recipes; the Parallelism model counts no extra state bytes either).
  const std::int64_t weight_bytes = mixed ? 2 : 4;
  std::int64_t opt_per_param = 0;
  switch (optimizer) {
    case Optimizer::adam: opt_per_param = mixed ? 12 : 8; break;  // (master +) m + v
    case Optimizer::sgd_momentum:
      opt_per_param = mixed ? 8 : 4;
      break;  // (master +) momentum
    // Adafactor's factored second moment is O(rows + cols): only the fp32
    // master copy counts per parameter.
    case Optimizer::adafactor: opt_per_param = mixed ? 4 : 0; break;
  }
  TrainingMemory m;
  m.weights = checked_mul(weight_bytes, n_params, what);
  m.grads = checked_mul(weight_bytes, n_params, what);
  m.optimizer = checked_mul(opt_per_param, n_params, what);
  if (zero_stage >= 1) m.optimizer = ceil_div(m.optimizer, dp_degree);
  if (zero_stage >= 2) m.grads = ceil_div(m.grads, dp_degree);
  if (zero_stage >= 3) m.weights = ceil_div(m.weights, dp_degree);
  m.activations = act_bytes;
  m.total = checked_add(checked_add(m.weights, m.grads, what),
                        checked_add(m.optimizer, act_bytes, what), what);
  return m;
}

std::int64_t kv_cache_bytes(std::int64_t n_layers, std::int64_t n_kv_heads, std::int64_t d_head,
                            std::int64_t seq_len, std::int64_t batch, std::int64_t bytes_per_elem) {
  require_count(n_layers, "layers", "blocks");
  require_count(n_kv_heads, "kv_heads", "KV heads");
  require_count(d_head, "head_dim", "elements");
  require_count(seq_len, "seq_len", "tokens");
  require_count(batch, "batch", "requests");
  require_count(bytes_per_elem, "bytes_per_elem", "bytes", 1, 8);
  return checked_mul({2, n_layers, n_kv_heads, d_head, seq_len, batch, bytes_per_elem},
                     "KV cache bytes");
}

std::int64_t max_concurrent_requests(std::int64_t total_hbm_bytes, double n_params,
                                     std::int64_t kv_bytes_per_request, double bytes_per_param,
                                     std::int64_t workspace_bytes) {
  require_count(total_hbm_bytes, "hbm", "bytes");
  require_positive(n_params, "n_params", "parameters");
  require_count(kv_bytes_per_request, "kv_bytes_per_request", "bytes");
  require_real(bytes_per_param, "bytes_per_param", "bytes", 0.0, 8.0, true);
  require_count(workspace_bytes, "workspace", "bytes", 0);
  const double free_bytes = static_cast<double>(total_hbm_bytes) - n_params * bytes_per_param -
                            static_cast<double>(workspace_bytes);
  if (free_bytes <= 0) return 0;
  return static_cast<std::int64_t>(
      std::floor(free_bytes / static_cast<double>(kv_bytes_per_request)));
}

double decode_arithmetic_intensity(double n_params, std::int64_t kv_bytes, std::int64_t batch,
                                   double bytes_per_param) {
  require_positive(n_params, "n_params", "parameters");
  require_count(kv_bytes, "kv_bytes", "bytes", 0);
  require_count(batch, "batch", "requests");
  require_real(bytes_per_param, "bytes_per_param", "bytes", 0.0, 8.0, true);
  const double flops = 2.0 * n_params * static_cast<double>(batch);
  const double bytes = n_params * bytes_per_param + static_cast<double>(kv_bytes);
  return flops / bytes;
}

}  // namespace napkin
