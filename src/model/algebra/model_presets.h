// Published model shapes (from their config.json) and a dense Llama-style
// shape of a given size: the models a scenario starts from.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "algebra.h"

namespace napkin {

struct ModelPreset {
  std::string_view name;
  ModelShape shape;
  std::string_view source;
};

// Llama-2-7B, Llama-3-8B, Llama-3-70B, Llama-3.1-405B, Mixtral-8x7B,
// Qwen3-30B-A3B, Qwen3-235B-A22B and DeepSeek-V3 (MLA, shared experts, dense
// first layers), from their config.json.
std::span<const ModelPreset> model_presets();

// The shape of the preset called `name`; throws std::invalid_argument naming
// the presets when there is none.
const ModelShape& model_preset_shape(std::string_view name);

// A dense, Llama-style shape with about `n_params` parameters: d_model ≈ 100
// × layers (the aspect of Llama-3-70B), d_model a multiple of 128, GQA-8,
// SwiGLU with d_ff ≈ 3.5 d_model, then the layer count tuned to the target.
ModelShape dense_shape_for_params(double n_params, std::int64_t vocab = 128256);

}  // namespace napkin
