// The GPT layer of Megatron-LM's papers (Shoeybi et al. 2019; Narayanan et
// al. 2021, Table 1; Korthikanti et al. 2022, Table 3) and of vTrain:
// multi-head attention, a 4h GeLU MLP, biases on every linear layer,
// LayerNorm with a bias, tied input and output embeddings. The papers'
// vocabulary is 51,200.
#pragma once

#include <cstdint>

#include "algebra.h"

namespace napkin {

inline ModelShape gpt_shape(std::int64_t layers, std::int64_t hidden, std::int64_t heads,
                            std::int64_t vocab = 51200) {
  ModelShape s{layers, hidden, 4 * hidden, heads, heads, hidden / heads, vocab};
  s.gated = false;
  s.tied_embeddings = true;
  s.qkv_bias = s.o_bias = s.mlp_bias = true;
  s.norm_bias = true;
  return s;
}

}  // namespace napkin
