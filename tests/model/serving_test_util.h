// Shapes the serving tests share (test_serving*.cpp).
#pragma once

#include <stdexcept>
#include <string_view>

#include "model_presets.h"

namespace napkin {

// Llama 3 70B (70,553,706,496 parameters) and Llama 2 70B, from their
// config.json: 80 layers, 64 query heads in 8 KV groups, head_dim 128.
inline const ModelShape kLlama3_70B{80, 8192, 28672, 64, 8, 128, 128256};
inline const ModelShape kLlama2_70B{80, 8192, 28672, 64, 8, 128, 32000};

// A built-in preset's shape by its exact name.
inline ModelShape preset(std::string_view name) {
  for (const ModelPreset& p : model_presets())
    if (p.name == name) return p.shape;
  throw std::logic_error("no preset");
}

}  // namespace napkin
