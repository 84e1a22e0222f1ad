// Helpers of the roofline tests (test_roofline.cpp, test_roofline_levers.cpp).
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "expect_throw.h"
#include "hardware.h"
#include "roofline.h"

namespace napkin {

inline const Chip& h100() { return chip_by_name("H100"); }
inline const Chip& v5e() { return chip_by_name("TPU v5e"); }

// Llama3-70B's shape (the seed's 70B-class model: 80 layers, 64 query heads,
// 8 KV heads, head_dim 128).
inline ModelShape llama3_70b() {
  ModelShape s;
  s.n_layers = 80;
  s.d_model = 8192;
  s.d_ff = 28672;
  s.n_heads = 64;
  s.n_kv_heads = 8;
  s.d_head = 128;
  s.vocab = 128256;
  return s;
}

inline const PlacedOperation& op(const std::vector<PlacedOperation>& ops, const std::string& name) {
  for (const auto& o : ops)
    if (o.name == name) return o;
  throw std::runtime_error("no operation " + name);
}

}  // namespace napkin
