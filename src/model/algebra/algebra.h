// Phase 00 — the FLOPs & memory algebra of pre-training (seed Phase 00,
// "Lab 01 — Transformer FLOPs, Memory & Budget Calculator").
//
// Counts of parameters, FLOPs of shapes and bytes of shapes are exact 64-bit
// integers (an overflow throws). Continuous quantities (seconds, dollars,
// fractions, FLOPs of a budget) are doubles. Every function validates its
// input and throws std::invalid_argument naming the parameter, its unit and
// the accepted range.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace napkin {

// ---------------------------------------------------------------- the primitive

// FLOPs of (m × k) @ (k × n): 2mkn, the 2 is multiply + add (seed Phase 00 ch. 2).
std::int64_t matmul_flops(std::int64_t m, std::int64_t k, std::int64_t n);

// FLOPs the hardware performs when every dimension is padded up to a multiple
// of `tile` (a 128×128 systolic array by default; seed Phase 00 ch. 2).
std::int64_t padded_matmul_flops(std::int64_t m, std::int64_t k, std::int64_t n,
                                 std::int64_t tile = 128);

// ------------------------------------------------------------------ parameters

// How the queries and keys are normalised before attention (none in Llama).
// per_head: one RMSNorm of head_dim on every query head and one on every key
// head, weights shared across heads (Qwen3, Gemma-3): 2·d_head parameters.
// full_width: one RMSNorm over the whole query projection and one over the
// whole key projection (OLMo-2): (n_heads + n_kv_heads)·d_head parameters.
enum class QkNorm { none, per_head, full_width };
std::string_view to_string(QkNorm q);
// "none", "per_head" or "per-head", "full_width" or "full-width"; throws naming the choices.
QkNorm parse_qk_norm(std::string_view name);

// The largest shape Napkin takes, wherever a shape comes from (a file, a
// flag, a control, an imported config): far beyond any model trained, and
// small enough that every count stays exact in 64 bits.
inline constexpr std::int64_t kMaxLayers = 100'000;
inline constexpr std::int64_t kMaxModelWidth = 1'000'000;  // d_model, latent ranks
inline constexpr std::int64_t kMaxFfnWidth = 10'000'000;   // d_ff, expert widths
inline constexpr std::int64_t kMaxHeads = 100'000;         // heads, KV heads, head widths
inline constexpr std::int64_t kMaxVocab = 100'000'000;
inline constexpr std::int64_t kMaxExperts = 100'000;
inline constexpr std::int64_t kMaxSharedExperts = 1'000;

// A decoder-only transformer's shape. n_experts == 0 means a dense MLP.
// Fields after n_dense_layers describe modern checkpoints (issue 17); their
// defaults reproduce the Llama-style block, so a shape that does not set them
// counts exactly as before.
struct ModelShape {
  std::int64_t n_layers = 32;
  std::int64_t d_model = 4096;
  std::int64_t d_ff = 11008;  // dense MLP hidden width
  std::int64_t n_heads = 32;
  std::int64_t n_kv_heads = 32;  // == n_heads: MHA; 1: MQA; in between: GQA
  std::int64_t d_head = 128;
  std::int64_t vocab = 32000;
  bool gated = true;             // SwiGLU-style MLP: three matrices instead of two
  bool tied_embeddings = false;  // unembedding shares the input embedding table
  bool qkv_bias = false;         // biases on W_q, W_k, W_v (Qwen2; Llama attention_bias)
  bool o_bias = false;           // bias on W_o (Llama attention_bias)
  bool mlp_bias = false;         // biases on the MLP matrices (Llama mlp_bias)
  // Mixture of Experts (seed Phase 00 ch. 7, Break 2).
  std::int64_t n_experts = 0;       // routed experts per MoE layer; 0 = dense
  std::int64_t top_k = 0;           // routed experts per token (MoE only)
  std::int64_t shared_experts = 0;  // always-on experts per MoE layer
  std::int64_t expert_d_ff = 0;     // each expert's hidden width; 0 = d_ff
  // Layers that keep a dense MLP of width d_ff (DeepSeek's first_k_dense_replace
  // leading layers, Qwen-MoE's mlp_only_layers); order does not change a count.
  std::int64_t n_dense_layers = 0;

  // Multi-head latent attention, MLA (DeepSeek-V2 §2.1, DeepSeek-V3 §2.1.1):
  // kv_lora_rank > 0 selects it. Keys and values are rebuilt per head from a
  // cached latent of kv_lora_rank elements plus one RoPE key of
  // qk_rope_head_dim shared by all heads; d_head must be qk_nope_head_dim +
  // qk_rope_head_dim (the query/key width) and n_kv_heads is not used.
  std::int64_t q_lora_rank = 0;  // query latent width; 0: W_q straight from d_model
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  // Shared experts' own width (Qwen2-MoE's shared_expert_intermediate_size);
  // 0 = the routed experts' width.
  std::int64_t shared_expert_d_ff = 0;
  bool shared_expert_gate = false;  // Qwen2-MoE: a sigmoid gate d_model → 1 on the shared expert
  bool router_bias = false;         // DeepSeek-V3: a score-correction bias per routed expert
  QkNorm qk_norm = QkNorm::none;
  // Norm vectors per block: 2 (before attention, before MLP); 4 in Gemma-2/3
  // (also after each); 1 in a parallel block that shares one norm (Falcon-7B).
  std::int64_t norms_per_layer = 2;
  bool norm_bias = false;        // LayerNorm (weight and bias) instead of RMSNorm, all norms
  bool parallel_blocks = false;  // attention and MLP read the same input (GPT-J, Falcon)
  // Multi-token-prediction modules (DeepSeek-V3 §2.2): trained and shipped,
  // counted apart from `total` as DeepSeek reports them (671B + 14B).
  std::int64_t mtp_modules = 0;

  bool is_moe() const { return n_experts > 0; }
  bool is_mla() const { return kv_lora_rank > 0; }
  // The width per head that sets the attention core's FLOPs: the mean of the
  // query-key width (QKᵀ) and the value width (A·V); d_head unless MLA's
  // values are narrower than its queries and keys.
  double attention_head_dim() const {
    return is_mla() ? 0.5 * static_cast<double>(d_head + v_head_dim) : static_cast<double>(d_head);
  }
  std::int64_t effective_expert_d_ff() const { return expert_d_ff > 0 ? expert_d_ff : d_ff; }
  std::int64_t effective_shared_expert_d_ff() const {
    return shared_expert_d_ff > 0 ? shared_expert_d_ff : effective_expert_d_ff();
  }
  // Throws std::invalid_argument naming the first violated constraint.
  void validate() const;
  bool operator==(const ModelShape&) const = default;
};

struct LayerParams {
  std::int64_t attn =
      0;  // W_q, W_k, W_v, W_o (+ biases, QK-norms; MLA: its down/up projections and latent norms)
  std::int64_t mlp = 0;     // dense MLP, or every expert of an MoE layer (total, shared experts and
                            // their gate included)
  std::int64_t router = 0;  // d_model × n_experts (+ a bias per expert) (MoE layers only)
  std::int64_t norms = 0;   // the block's norm vectors (norms_per_layer of them)
  std::int64_t total = 0;
};

// One block's parameters (seed Phase 00 ch. 4). For an MoE shape, `moe_layer`
// selects a routed layer (all experts counted) or a dense layer.
LayerParams params_per_layer(const ModelShape& shape, bool moe_layer);

struct ParamCount {
  std::int64_t total = 0;   // what you store (memory); MTP modules not included
  std::int64_t active = 0;  // what one token computes through (FLOPs), input embedding included
  std::int64_t non_embedding_total = 0;   // total − embedding
  std::int64_t non_embedding_active = 0;  // active − embedding
  std::int64_t embedding = 0;             // input table + untied unembedding
  std::int64_t body = 0;                  // all blocks (total)
  std::int64_t final_norm = 0;
  LayerParams per_layer;  // a routed layer for an MoE shape, else a dense layer
  // Issue 17 additions.
  LayerParams dense_layer;           // a dense-MLP layer (== per_layer for a dense shape)
  std::int64_t n_moe_layers = 0;     // layers with routed experts
  std::int64_t input_embedding = 0;  // vocab × d_model, the lookup table
  // active − the input embedding lookup: DeepSeek's "activated parameters"
  // convention (37B for V3: the output head counts, the lookup does not). A
  // tied table is the output head too, so nothing is subtracted for it.
  std::int64_t active_without_input_embedding = 0;
  std::int64_t mtp = 0;         // MTP modules' own parameters (embedding and head are shared)
  std::int64_t mtp_active = 0;  // per token through the MTP modules (shared head excluded)
  double sparsity_ratio() const { return static_cast<double>(total) / active; }
};

// Whole-model count (seed Phase 00 ch. 4 and ch. 7 Break 2): embeddings, all
// blocks, the final norm; total vs active for an MoE. Reproduces published
// checkpoints to the parameter (tests/data/configs/SOURCE.md).
ParamCount count_params(const ModelShape& shape);

// ------------------------------------------------------------------- KV cache

// Elements one token adds to one layer's KV cache. MLA caches only the latent
// (kv_lora_rank) and the shared RoPE key (qk_rope_head_dim) — DeepSeek-V2
// §2.1.2 and Table 1; other attention caches a key and a value per KV head,
// 2·n_kv_heads·d_head (seed Phase 00 ch. 9).
std::int64_t kv_cache_elements_per_token_per_layer(const ModelShape& shape);
// KV cache bytes one token adds over all layers (MTP modules not included).
std::int64_t kv_cache_bytes_per_token(const ModelShape& shape, std::int64_t bytes_per_elem = 2);
// KV cache bytes of `batch` requests of `seq_len` tokens each.
std::int64_t kv_cache_bytes(const ModelShape& shape, std::int64_t seq_len, std::int64_t batch,
                            std::int64_t bytes_per_elem = 2);

// ------------------------------------------------------------------------ FLOPs

// C = 6ND (seed Phase 00 ch. 5): forward 2N + backward 4N per token.
double training_flops(double n_params, double n_tokens);
// 2N per token, forward only.
double inference_flops(double n_params, double n_tokens);

// How the sequence-dependent attention matmuls (QKᵀ and A·V) count a causal
// mask (seed Phase 00 ch. 6 note). `full_matrix` is Kaplan's and the seed's
// convention: the dense kernel computes the whole T×T matrix and masks it.
// `causal_half` counts only the unmasked half, as FlashAttention executes it.
enum class CausalMask { full_matrix, causal_half };

struct StepShape {
  std::int64_t batch = 8;   // sequences per optimizer step
  std::int64_t seq = 8192;  // tokens per sequence
  std::int64_t d_model = 8192;
  std::int64_t d_ff = 28672;
  std::int64_t n_heads = 64;
  std::int64_t d_head = 128;
  std::int64_t n_layers = 80;
  std::int64_t n_kv_heads = 0;  // 0 = n_heads (MHA, the slide's 24BTDNH form)
  bool gated = true;
  bool include_attention_matmuls = true;
  CausalMask mask = CausalMask::full_matrix;
};

struct StepFlops {
  std::int64_t mlp = 0;        // 18BTDF for a gated MLP (6·3·B·T·D·F per layer)
  std::int64_t attn_proj = 0;  // 24BTDNH for MHA (W_q, W_k, W_v, W_o)
  std::int64_t attn_seq = 0;   // QKᵀ and A·V, forward + backward: 12·B·H·T²·d_h per layer
  std::int64_t total = 0;
};

// Exact training FLOPs of one optimizer step (seed Phase 00 ch. 6):
// 18BTDF + 24BTDNH = 6·BT·(3DF + 4DNH), plus the sequence-dependent term.
StepFlops training_flops_exact(const StepShape& shape);

// Training FLOPs per token of the output unembedding (d_model → vocab): 6·d·V
// (seed Phase 00 ch. 7, Break 3).
std::int64_t unembedding_flops_per_token(std::int64_t d_model, std::int64_t vocab);

// Fraction of training FLOPs in the sequence-dependent attention matmuls:
// 12·L·T·d / (6N + 12·L·T·d) (seed Phase 00 ch. 7, Break 1).
double attention_flop_fraction(double n_params, std::int64_t n_layers, std::int64_t d_model,
                               std::int64_t seq_len);
// How much 6ND undercounts given that fraction: f / (1 − f).
double six_nd_error(double attention_fraction);

// Hardware FLOPs per model FLOP with activation recompute (seed ch. 7 Break 4):
// 8N/6N with full recompute, ~6.5N/6N selective, 1 without.
enum class Checkpointing { none, selective, full };
double recompute_factor(Checkpointing checkpointing);

// ---------------------------------------------------------------------- memory

enum class Optimizer { adam, sgd_momentum, adafactor };
// How the training run stores and multiplies: mixed bf16 (bf16 weights and
// gradients, fp32 master copy and moments), fp32, or mixed bf16 with FP8
// GEMMs (Transformer Engine / Megatron --fp8: the model states stay those of
// mixed bf16; the GEMMs run at the chip's FP8 rate and keep their saved
// inputs in FP8, which the Parallelism model prices).
enum class Precision { mixed_bf16, fp32, mixed_fp8 };

std::string_view to_string(Optimizer o);
std::string_view to_string(Checkpointing c);
std::string_view to_string(Precision p);
// Parse names as the CLI and scenario files spell them; throw naming the choices.
Optimizer parse_optimizer(std::string_view name);
Checkpointing parse_checkpointing(std::string_view name);
Precision parse_precision(std::string_view name);

struct ActivationShape {
  std::int64_t batch = 8;  // micro-batch per device, sequences
  std::int64_t seq = 8192;
  std::int64_t d_model = 8192;
  std::int64_t n_layers = 80;
  std::int64_t values_per_token_layer = 16;  // c: tensors kept per token per layer (10–30)
  std::int64_t bytes_per_value = 2;
};

// Activation bytes kept for the backward pass (seed Phase 00 ch. 8):
// none: B·T·d·L·c·b; selective: 30 % of that (rounded up); full: only the
// layer boundaries, B·T·d·L·b.
std::int64_t activation_bytes(const ActivationShape& shape, Checkpointing checkpointing);

struct TrainingMemory {
  std::int64_t weights = 0;
  std::int64_t grads = 0;
  std::int64_t optimizer = 0;
  std::int64_t activations = 0;
  std::int64_t total = 0;
};

// Bytes per device for a training step (seed Phase 00 ch. 8). Mixed-precision
// Adam: bf16 weights 2 + bf16 grads 2 + fp32 master, m, v 12 = 16 bytes/param.
// ZeRO stage 1 shards the optimizer states, 2 also the gradients, 3 also the
// weights, over `dp_degree` replicas; a shard is rounded up to whole bytes.
TrainingMemory training_memory(std::int64_t n_params, std::int64_t activation_bytes,
                               Optimizer optimizer = Optimizer::adam,
                               Precision precision = Precision::mixed_bf16, int zero_stage = 0,
                               std::int64_t dp_degree = 1);

// KV cache bytes: 2·L·n_kv·d_h·T·B·b (seed Phase 00 ch. 9).
std::int64_t kv_cache_bytes(std::int64_t n_layers, std::int64_t n_kv_heads, std::int64_t d_head,
                            std::int64_t seq_len, std::int64_t batch,
                            std::int64_t bytes_per_elem = 2);

// Requests whose KV cache fits in the HBM left after the weights and a
// workspace (seed Phase 00 ch. 9); 0 when the weights do not fit.
std::int64_t max_concurrent_requests(std::int64_t total_hbm_bytes, double n_params,
                                     std::int64_t kv_bytes_per_request,
                                     double bytes_per_param = 2.0,
                                     std::int64_t workspace_bytes = 10'000'000'000);

// Decode FLOP per byte: 2·N·B / (N·b + KV bytes of the batch); the weights are
// read once per step and shared by the batch (seed Phase 00 ch. 9).
double decode_arithmetic_intensity(double n_params, std::int64_t kv_bytes, std::int64_t batch,
                                   double bytes_per_param = 2.0);

}  // namespace napkin
