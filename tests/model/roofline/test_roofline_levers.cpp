// Phase 03 — the decode wall and the co-design levers (roofline_levers.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "roofline.h"
#include "roofline_test_util.h"

namespace napkin {
namespace {

// ------------------------------------------------------------ the decode wall

DecodeShape seed_decode() { return {}; }  // 70B, 80 layers, 8 KV heads, d_h 128, 8k

TEST(RooflineDecodeWall, IntensityVsBatchMatchesTheSeed) {
  // Phase 03 ch. 8: 1.0 / 6.9 / 28.7 / 43.3 / 49.6 FLOP/byte; 0.3 / 2.3 / 9.7 /
  // 14.7 / 16.8 % of the way to the H100 ridge.
  const std::int64_t batches[] = {1, 8, 64, 256, 1024};
  const double ai[] = {1.0, 6.9, 28.7, 43.3, 49.6};
  const double frac[] = {0.003, 0.023, 0.097, 0.147, 0.168};
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(decode_batch_intensity(seed_decode(), batches[i]), ai[i], 0.05) << batches[i];
    const auto p = decode_intensity_point(h100(), seed_decode(), batches[i]);
    EXPECT_NEAR(p.fraction_of_ridge, frac[i], 0.0005) << batches[i];
    EXPECT_EQ(p.bound, Bound::memory);
  }
}

TEST(RooflineDecodeWall, NeverReachesTheRidgeAndSaturates) {
  const auto pts = decode_intensity_sweep(h100(), seed_decode(), powers_of_two(1, 1 << 30));
  ASSERT_EQ(pts.size(), 31u);
  for (std::size_t i = 1; i < pts.size(); ++i) {
    EXPECT_GT(pts[i].intensity, pts[i - 1].intensity);
    EXPECT_GT(pts[i].kv_share_of_bytes, pts[i - 1].kv_share_of_bytes);
    EXPECT_EQ(pts[i].bound, Bound::memory);
    EXPECT_LT(pts[i].intensity, ridge_point_flops_per_byte(h100()));
  }
  // The asymptote is 2N ÷ (KV bytes per request) ≈ 52 FLOP/byte.
  const double limit = 2 * 70e9 / static_cast<double>(kv_cache_bytes(80, 8, 128, 8192, 1));
  EXPECT_LT(pts.back().intensity, limit);
  EXPECT_NEAR(pts.back().intensity, limit, 0.01);
  // 256 → 1024 gives only 1.15×.
  EXPECT_NEAR(pts[10].intensity / pts[8].intensity, 1.15, 0.005);
}

TEST(RooflineDecodeWall, KvShareOfBytes) {
  const auto p1 = decode_intensity_point(h100(), seed_decode(), 1);
  EXPECT_DOUBLE_EQ(p1.weight_bytes, 140e9);
  EXPECT_EQ(p1.kv_bytes, kv_cache_bytes(80, 8, 128, 8192, 1));
  EXPECT_NEAR(p1.kv_share_of_bytes, 0.0188, 0.00005);
  EXPECT_NEAR(decode_intensity_point(h100(), seed_decode(), 1024).kv_share_of_bytes, 0.9515,
              0.00005);
}

TEST(RooflineDecodeWall, InvalidInput) {
  DecodeShape s;
  s.n_kv_heads = 0;
  EXPECT_THROW_NAMING(decode_batch_intensity(s, 1), "kv_heads");
  EXPECT_THROW_NAMING(decode_batch_intensity(seed_decode(), 0), "batch");
  EXPECT_THROW_NAMING(powers_of_two(0, 4), "lo");
  EXPECT_THROW_NAMING(powers_of_two(8, 4), "hi");
  EXPECT_EQ(powers_of_two(3, 24), (std::vector<std::int64_t>{3, 6, 12, 24}));
}

// -------------------------------------------------------- co-design levers

TEST(RooflineTile, EfficiencyMatchesTheSeed) {
  EXPECT_NEAR(tile_efficiency(11000), 0.999, 0.0005);
  EXPECT_DOUBLE_EQ(tile_efficiency(11008), 1.0);
  EXPECT_DOUBLE_EQ(tile_efficiency(8192), 1.0);
  EXPECT_NEAR(tile_efficiency(4097), 0.970, 0.0005);
  EXPECT_DOUBLE_EQ(tile_efficiency(4096), 1.0);
  EXPECT_NEAR(tile_efficiency(129, 128), 0.504, 0.0005);  // one past a boundary
  EXPECT_DOUBLE_EQ(tile_efficiency(129, 128), 129.0 / 256.0);
}

TEST(RooflineTile, CompoundsOverAMatmulsDimensions) {
  const double e = tile_efficiency(129);
  EXPECT_NEAR(matmul_tile_efficiency(129, 129, 129), e * e * e, 1e-15);
  EXPECT_DOUBLE_EQ(matmul_tile_efficiency(4096, 11008, 4096), 1.0);
}

TEST(RooflineTile, SweepAndInvalidInput) {
  const auto pts = tile_efficiency_sweep(1, 1024);
  ASSERT_EQ(pts.size(), 1024u);
  EXPECT_EQ(pts[0].dim, 1);
  for (const auto& p : pts) {
    EXPECT_GE(p.padded_dim, p.dim);
    EXPECT_EQ(p.padded_dim % 128, 0);
    EXPECT_DOUBLE_EQ(p.efficiency, static_cast<double>(p.dim) / static_cast<double>(p.padded_dim));
    EXPECT_EQ(p.efficiency == 1.0, p.dim % 128 == 0);
  }
  EXPECT_EQ(pts[127].padded_dim, 128);
  EXPECT_EQ(pts[128].padded_dim, 256);
  EXPECT_EQ(tile_efficiency_sweep(4097, 4097)[0].padded_dim, 4224);
  EXPECT_THROW_NAMING(tile_efficiency(0), "dim");
  EXPECT_THROW_NAMING(tile_efficiency(10, 0), "tile");
  EXPECT_THROW_NAMING(tile_efficiency_sweep(10, 5), "dim_hi");
  EXPECT_THROW_NAMING(tile_efficiency_sweep(1, 2'000'000), "dim_hi");
}

TEST(RooflineGqa, SavingAndConcurrentRequests) {
  // Phase 03 ch. 7: 687.2 / 85.9 / 10.7 GB at batch 32; 22 vs 182 requests on 8 × H100.
  const KvServing s;
  const GqaPoint mha = gqa_point(s, 64), gqa8 = gqa_point(s, 8), mqa = gqa_point(s, 1);
  EXPECT_NEAR(static_cast<double>(mha.kv_bytes_batch) / 1e9, 687.2, 0.05);
  EXPECT_NEAR(static_cast<double>(gqa8.kv_bytes_batch) / 1e9, 85.9, 0.05);
  EXPECT_NEAR(static_cast<double>(mqa.kv_bytes_batch) / 1e9, 10.7, 0.05);
  EXPECT_DOUBLE_EQ(mha.saving, 1.0);
  EXPECT_DOUBLE_EQ(gqa8.saving, 8.0);
  EXPECT_DOUBLE_EQ(mqa.saving, 64.0);
  EXPECT_EQ(gqa8.group_size, 8);
  EXPECT_EQ(mha.concurrent_requests, 22);
  EXPECT_EQ(gqa8.concurrent_requests, 182);
  EXPECT_EQ(mha.kv_bytes_batch, 8 * gqa8.kv_bytes_batch);
}

TEST(RooflineGqa, InvalidShapesRaise) {
  EXPECT_THROW_NAMING(gqa_saving(64, 65), "n_kv_heads");
  EXPECT_THROW_NAMING(gqa_saving(64, 6), "n_kv_heads");
  EXPECT_THROW_NAMING(gqa_saving(64, 0), "n_kv_heads");
  EXPECT_THROW_NAMING(gqa_saving(0, 1), "n_query_heads");
  EXPECT_THROW_NAMING(gqa_point(KvServing{}, 48), "n_kv_heads");
  KvServing bad;
  bad.chip = "nope";
  EXPECT_THROW_NAMING(gqa_point(bad, 8), "chip");
}

TEST(RooflineGqa, SweepCoversEveryDivisorMhaFirst) {
  const auto pts = kv_heads_sweep(KvServing{});
  ASSERT_EQ(pts.size(), 7u);
  EXPECT_EQ(pts.front().n_kv_heads, 64);
  EXPECT_EQ(pts.back().n_kv_heads, 1);
  for (std::size_t i = 1; i < pts.size(); ++i) {
    EXPECT_LT(pts[i].kv_bytes_per_request, pts[i - 1].kv_bytes_per_request);
    EXPECT_GE(pts[i].concurrent_requests, pts[i - 1].concurrent_requests);
  }
}

TEST(RooflineDepthWidth, FixedNTradesDepthForWidth) {
  DepthWidthInputs in;  // 7B on one H100
  const auto pts = depth_vs_width_sweep(in, {16, 32, 64, 128});
  ASSERT_EQ(pts.size(), 4u);
  for (std::size_t i = 0; i < pts.size(); ++i) {
    const double d = static_cast<double>(pts[i].d_model);
    // 12·L·d² ≈ N, up to rounding d to an integer.
    EXPECT_NEAR(12.0 * static_cast<double>(pts[i].n_layers) * d * d / 7e9, 1.0, 2.0 / d);
    if (i > 0) {
      EXPECT_LT(pts[i].d_model, pts[i - 1].d_model);
      EXPECT_LT(pts[i].aspect_ratio, pts[i - 1].aspect_ratio);
      // Same bytes per step at every depth: without serial cost, depth is free.
      EXPECT_DOUBLE_EQ(pts[i].decode_step_seconds, pts[0].decode_step_seconds);
    }
  }
  EXPECT_DOUBLE_EQ(pts[0].decode_step_seconds, decode_seconds(1, 7e9, h100(), 1));
  EXPECT_EQ(pts[1].d_model, 4270);  // sqrt(7e9 / 384)
  EXPECT_NEAR(pts[1].tile_efficiency, 4270.0 / 4352.0, 1e-15);
}

TEST(RooflineDepthWidth, DepthIsSerial) {
  DepthWidthInputs in;
  in.per_layer_serial_seconds = 10e-6;
  const auto shallow = depth_vs_width(in, 32), deep = depth_vs_width(in, 128);
  EXPECT_NEAR(deep.serial_seconds_per_step, 4 * shallow.serial_seconds_per_step, 1e-15);
  EXPECT_NEAR(deep.decode_step_seconds - shallow.decode_step_seconds, 96 * 10e-6, 1e-12);
  EXPECT_THROW_NAMING(depth_vs_width(in, 0), "n_layers");
  in.per_layer_serial_seconds = -1;
  EXPECT_THROW_NAMING(depth_vs_width(in, 32), "per_layer_serial_seconds");
}

}  // namespace
}  // namespace napkin
