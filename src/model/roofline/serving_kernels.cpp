// Per-kernel engines (serving_engine.h): the kernels a step runs besides
// attention — each layer's GEMMs on their TP-split shapes, timed by the
// training side's kernel model, and the element-wise work (norms, residuals,
// a gated MLP's activation, a MoE layer's token copies, the sampler's pass
// over the logits).
#include <algorithm>
#include <cmath>

#include "kernel_time.h"
#include "serving_eval.h"

namespace napkin::detail {

void LayoutEval::setup_kernels(const KernelRates& rates) {
  const ServingModel& m = m_;
  const ServingAssumptions& a = in_.assume;
  const Chip& chip = *chip_;
  // A dense layer's GEMMs on one TP rank (Megatron split): QKV and the MLP's
  // first matrix column-parallel, the output projection and the MLP's last
  // row-parallel. Each is timed by kernel_time.h's gemm_seconds, the same
  // model the training side prices its matmuls with: the engine's GEMM rate
  // × the wave efficiency of its tiles, plus the epilogue, against its
  // operands at the chip's kernel HBM rate (efficiency.hbm). That rate is
  // what thin GEMMs reach: DeepGEMM's README (H800, 3.35 TB/s HBM) measures
  // its FP8 GEMMs at M = 64-128 rows moving 1.5-2.6 TB/s, 0.45-0.78 of the
  // datasheet, not the ~0.9 of a large copy; efficiency.hbm (0.75 on H100)
  // sits at the top of that range.
  // A MoE model's experts are split TP ways like a dense MLP (each chip holds
  // its EP share of the experts, every one cut TP ways).
  const bool dense_shapes = !m.is_moe() && m.d_ff > 0;
  const bool moe_shapes = m.is_moe() && m.expert_d_ff > 0;
  if (per_kernel_ && (dense_shapes || moe_shapes)) {
    gemm_rates_ = rates;
    gemm_rates_.matmul_flops_per_s = gemm_peak_;
    if (a.hbm_efficiency) gemm_rates_.hbm_bytes_per_s = chip.hbm_bytes_per_s * *a.hbm_efficiency;
    const std::int64_t q = m.n_heads * m.d_head / tp_;
    const std::int64_t kv = 2 * ceil_div(m.n_kv_heads, tp_) * m.d_head;
    auto mlp = [&](std::int64_t width) -> std::vector<Gemm> {
      if (width <= 0) return {};
      const std::int64_t ff = ceil_div(width, tp_);
      return {{1, (m.gated ? 2 : 1) * ff, m.d_model, 1}, {1, m.d_model, ff, 1}};
    };
    attn_gemms_ = {{1, q + kv, m.d_model, 1}, {1, m.d_model, q, 1}};
    dense_mlp_gemms_ = mlp(dense_shapes ? m.d_ff : m.dense_layer_d_ff);
    shared_gemms_ = mlp(moe_shapes ? m.shared_d_ff : 0);
    expert_gemms_ = mlp(moe_shapes ? m.expert_d_ff : 0);
  }

  // Norms and residual adds: about ten d_model-wide activation reads and
  // writes per token per layer in bf16, on every TP rank (not split).
  elementwise_bytes_token_ =
      per_kernel_ ? 10.0 * static_cast<double>(m.d_model) * kActivationBytes * stage_layers_ : 0.0;
  if (per_kernel_) {
    // A gated MLP's activation runs as its own kernel after the fused
    // gate/up GEMM (TensorRT-LLM's performance overview, "Fused Matmul +
    // Gated-SiLU": "one Matmul followed by a separate SwiGLU kernel"; vLLM's
    // SiluAndMul): it reads 2f and writes f per token on each TP rank.
    auto swiglu = [&](std::int64_t width) {
      return m.gated && width > 0
                 ? 3.0 * static_cast<double>(ceil_div(width, tp_)) * kActivationBytes
                 : 0.0;
    };
    const double dense_layers = stage_layers_ - stage_moe_layers_;
    elementwise_bytes_token_ += dense_layers * swiglu(m.is_moe() ? m.dense_layer_d_ff : m.d_ff);
    if (m.is_moe() && m.expert_d_ff > 0) {
      // A MoE layer copies each token's activations into expert order, k
      // times, and sums the k expert outputs back (TensorRT-LLM's
      // moe_kernels.cu: expandInputRows, finalizeMoeRouting; vLLM's
      // fused_moe moe_sum): read d, write k·d, read k·d, write d, on every
      // TP rank; then each routed copy's and the shared experts' activation.
      const double d = static_cast<double>(m.d_model), k = static_cast<double>(m.top_k);
      elementwise_bytes_token_ +=
          stage_moe_layers_ * ((2.0 + 2.0 * k) * d * kActivationBytes + k * swiglu(m.expert_d_ff) +
                               swiglu(m.shared_d_ff));
    }
  }

  // The sampler's pass over the logits (per-kernel engines): each TP rank
  // writes its vocabulary slice in 16 bits, the slices are gathered over the
  // TP group, and the gathered row is cast to fp32 (read 2 bytes, write 4)
  // and read by the sampler (4): vLLM's sampler (v1/sample/sampler.py)
  // starts with logits.to(torch.float32), SGLang's logits processor
  // all-gathers over TP, TensorRT-LLM engines write fp32 logits
  // (logits_dtype float32).
  if (per_kernel_ && m.d_model > 0) {
    const double vocab = m.output_embedding_params / static_cast<double>(m.d_model);
    logits_bytes_token_ = vocab * (kActivationBytes / static_cast<double>(tp_) + 10.0);
    logits_gather_bytes_token_ = tp_ > 1 ? vocab * kActivationBytes : 0.0;
  }
}

double LayoutEval::stage_gemm_seconds(double tokens, double routed_tokens, double touched) const {
  if (attn_gemms_.empty()) return -1;
  auto rows_of = [](double n) {
    return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(n)));
  };
  auto sum = [&](const std::vector<Gemm>& gemms, std::int64_t rows, std::int64_t batch) {
    double t = 0;
    for (Gemm g : gemms) {
      g.m = rows;
      g.batch = batch;
      t += gemm_seconds(gemm_rates_, g, 0, weight_bytes_);
    }
    return t;
  };
  const std::int64_t rows = rows_of(tokens);
  const double attention = sum(attn_gemms_, rows, 1);
  const double dense_mlp = sum(dense_mlp_gemms_, rows, 1);
  double moe = 0;
  if (!expert_gemms_.empty()) {
    // The grouped GEMM: the chip's touched experts, each with its share of
    // the routed rows. Uniform routing is uniform in expectation only: each
    // of the routed tokens picks a given expert with probability p = k/E, so
    // an expert's rows are Binomial(tokens, p) (grouped_gemm_seconds).
    const double experts_chip = static_cast<double>(m_.n_experts) / static_cast<double>(ep_);
    const double busy = std::max(1.0, experts_chip * touched);
    const double p = static_cast<double>(m_.top_k) / static_cast<double>(m_.n_experts);
    const double routed_rows = routed_tokens * p * experts_chip;
    const double spread = std::sqrt(routed_tokens * p * (1 - p));
    for (Gemm g : expert_gemms_) {
      g.m = rows_of(routed_rows / busy);
      g.batch = std::llround(busy);
      moe += grouped_gemm_seconds(gemm_rates_, g, spread, weight_bytes_);
    }
    moe += sum(shared_gemms_, rows, 1);
  }
  return stage_layers_ * attention + (stage_layers_ - stage_moe_layers_) * dense_mlp +
         stage_moe_layers_ * moe;
}

}  // namespace napkin::detail
