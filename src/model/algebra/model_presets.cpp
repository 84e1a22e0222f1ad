#include "model_presets.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>
#include <string>

#include "validate.h"

namespace napkin {

namespace {

ModelShape moe(ModelShape s, std::int64_t experts, std::int64_t k, std::int64_t shared,
               std::int64_t expert_ff, std::int64_t dense_layers) {
  s.n_experts = experts;
  s.top_k = k;
  s.shared_experts = shared;
  s.expert_d_ff = expert_ff;
  s.n_dense_layers = dense_layers;
  return s;
}

// deepseek-ai/DeepSeek-V3 config.json (tests/data/configs/deepseek-v3.json):
// MLA with q_lora_rank 1536, kv_lora_rank 512, head dims 128 + 64 (RoPE) and
// values of 128; 3 dense layers then 58 MoE layers of 256 routed experts
// (top 8) and 1 shared, each 2048 wide; sigmoid routing with a bias per
// expert; one MTP module.
ModelShape deepseek_v3() {
  ModelShape s = moe(ModelShape{61, 7168, 18432, 128, 128, 192, 129280}, 256, 8, 1, 2048, 3);
  s.q_lora_rank = 1536;
  s.kv_lora_rank = 512;
  s.qk_nope_head_dim = 128;
  s.qk_rope_head_dim = 64;
  s.v_head_dim = 128;
  s.router_bias = true;
  s.mtp_modules = 1;
  return s;
}

// Qwen/Qwen3-30B-A3B config.json (tests/data/configs/qwen3-30b-a3b.json):
// GQA 32/4 heads of 128 with per-head QK-norm, 48 MoE layers of 128 experts
// (top 8), each 768 wide, no shared expert.
ModelShape qwen3_30b_a3b() {
  ModelShape s = moe(ModelShape{48, 2048, 6144, 32, 4, 128, 151936}, 128, 8, 0, 768, 0);
  s.qk_norm = QkNorm::per_head;
  return s;
}

// Qwen/Qwen3-235B-A22B config.json (tests/data/configs/qwen3-235b-a22b.json):
// GQA 64/4 heads of 128 with per-head QK-norm, 94 MoE layers of 128 experts
// (top 8), each 1,536 wide, no shared expert.
ModelShape qwen3_235b_a22b() {
  ModelShape s = moe(ModelShape{94, 4096, 12288, 64, 4, 128, 151936}, 128, 8, 0, 1536, 0);
  s.qk_norm = QkNorm::per_head;
  return s;
}

const std::array kPresets{
    // layers, d_model, d_ff, heads, kv heads, head dim, vocab
    ModelPreset{"Llama-2-7B", ModelShape{32, 4096, 11008, 32, 32, 128, 32000},
                "meta-llama/Llama-2-7b-hf config.json (6,738,415,616 parameters)"},
    ModelPreset{"Llama-3-8B", ModelShape{32, 4096, 14336, 32, 8, 128, 128256},
                "meta-llama/Meta-Llama-3-8B config.json (8,030,261,248 parameters)"},
    ModelPreset{"Llama-3-70B", ModelShape{80, 8192, 28672, 64, 8, 128, 128256},
                "meta-llama/Meta-Llama-3-70B config.json (70,553,706,496 parameters)"},
    ModelPreset{"Llama-3.1-405B", ModelShape{126, 16384, 53248, 128, 8, 128, 128256},
                "meta-llama/Llama-3.1-405B config.json (405,853,388,800 parameters)"},
    ModelPreset{"Mixtral-8x7B", moe(ModelShape{32, 4096, 14336, 32, 8, 128, 32000}, 8, 2, 0, 0, 0),
                "mistralai/Mixtral-8x7B-v0.1 config.json (46,702,792,704 parameters)"},
    ModelPreset{"Qwen3-30B-A3B", qwen3_30b_a3b(),
                "Qwen/Qwen3-30B-A3B config.json (30,532,122,624 parameters, 3.35B active)"},
    ModelPreset{"Qwen3-235B-A22B", qwen3_235b_a22b(),
                "Qwen/Qwen3-235B-A22B config.json (235,093,634,560 parameters, 22.2B active)"},
    ModelPreset{"DeepSeek-V3", deepseek_v3(),
                "deepseek-ai/DeepSeek-V3 config.json (671,026,419,200 parameters, 37.6B active; "
                "its MTP module adds 11.6B, counted apart)"},
};

}  // namespace

std::span<const ModelPreset> model_presets() { return kPresets; }

const ModelShape& model_preset_shape(std::string_view name) {
  for (const ModelPreset& p : kPresets)
    if (p.name == name) return p.shape;
  std::string names;
  for (const ModelPreset& p : kPresets) names += (names.empty() ? "" : ", ") + std::string(p.name);
  throw std::invalid_argument("model preset must be one of " + names + "; got \"" +
                              std::string(name) + "\"");
}

ModelShape dense_shape_for_params(double n_params, std::int64_t vocab) {
  require_real(n_params, "n_params", "parameters", 1e6, 1e14);
  require_count(vocab, "vocab", "tokens", 1, 100'000'000);
  // Per layer ≈ 2·d² (GQA-8 attention, roughly) + 3·d·3.5d = 12.5 d²; with
  // L = d/100: N ≈ 0.125 d³.
  const double body =
      std::max(n_params - 2.0 * static_cast<double>(vocab) * 1024.0, n_params * 0.5);
  double d = std::cbrt(body / 0.125);
  std::int64_t d_model = std::max<std::int64_t>(256, std::llround(d / 128.0) * 128);
  ModelShape s;
  s.d_model = d_model;
  s.d_head = 128;
  s.n_heads = d_model / 128;
  s.n_kv_heads = s.n_heads % 8 == 0 ? 8 : (s.n_heads % 4 == 0 ? 4 : 1);
  s.d_ff =
      std::max<std::int64_t>(256, std::llround(3.5 * static_cast<double>(d_model) / 256.0) * 256);
  s.vocab = vocab;
  s.n_layers = 1;
  const std::int64_t per_layer = params_per_layer(s, false).total;
  const std::int64_t fixed = count_params(s).total - per_layer;
  const double layers = (n_params - static_cast<double>(fixed)) / static_cast<double>(per_layer);
  s.n_layers = std::clamp<std::int64_t>(std::llround(layers), 1, 100'000);
  return s;
}

}  // namespace napkin
