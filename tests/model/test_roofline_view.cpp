// The Roofline view (roofline_view.h): every plot of the panel from one
// scenario, and the verdicts the panel, the report and the CLI share.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "roofline_view.h"

namespace napkin {
namespace {

// Expects std::invalid_argument whose message names `param`.
#define EXPECT_THROW_NAMING(stmt, param)                                           \
  do {                                                                             \
    try {                                                                          \
      stmt;                                                                        \
      ADD_FAILURE() << "no exception from " #stmt;                                 \
    } catch (const std::invalid_argument& e) {                                     \
      EXPECT_NE(std::string(e.what()).find(param), std::string::npos) << e.what(); \
    }                                                                              \
  } while (0)

const Chip& v5e() { return chip_by_name("TPU v5e"); }

// Llama3-70B's shape (80 layers, 64 query heads, 8 KV heads, head_dim 128).
ModelShape llama3_70b() {
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

TEST(RooflinePanel, DefaultScenarioFillsEveryPlot) {
  const RooflinePanelData d = roofline_panel({});
  EXPECT_NEAR(d.ridge_flops_per_byte, 241, 0.5);
  EXPECT_EQ(d.roofline.size(), 65u);
  EXPECT_EQ(d.operations.size(), 5u);
  EXPECT_EQ(d.decode_wall.size(), 11u);
  EXPECT_NEAR(d.mfu_budget.mfu, 0.357, 0.0005);
  EXPECT_NEAR(d.hfu_over_mfu, 8.0 / 6.0, 1e-15);
  EXPECT_EQ(d.latency.size(), 11u);
  EXPECT_EQ(d.model_sizes.size(), 31u);
  EXPECT_EQ(d.tiles.size(), 1024u - 64u + 1u);
  EXPECT_EQ(d.kv_heads.size(), 6u);  // divisors of 32
  EXPECT_EQ(d.depth_width.size(), 8u);
  ASSERT_TRUE(d.chips_for_budget.has_value());
  // The default 7B model with its KV cache on v5e.
  const double n = static_cast<double>(count_params(ModelShape{}).total);
  EXPECT_EQ(d.chips_to_hold_weights, chips_to_hold_weights(n, v5e()));
}

TEST(RooflinePanel, SeventyBOnV5eMatchesTheNapkinPlusItsKvCache) {
  RooflineScenario sc;
  sc.shape = llama3_70b();
  sc.overlay_chips = {"H100", "A100-80"};
  const RooflinePanelData d = roofline_panel(sc);
  EXPECT_EQ(d.overlays.size(), 2u);
  // Llama3-70B is 70.6B parameters and its 8k KV cache adds ~2 % per step:
  // still 64 chips for the 1 s turn.
  EXPECT_EQ(d.chips_for_budget, 64);
  EXPECT_EQ(d.chips_to_hold_weights, 9);
  EXPECT_EQ(d.operations[2].name, "decode");
  EXPECT_EQ(d.operations[2].bound, Bound::memory);
}

TEST(RooflinePanel, IsDeterministicAndRejectsAnImpossibleBudget) {
  RooflineScenario sc;
  sc.shape = llama3_70b();
  const RooflinePanelData a = roofline_panel(sc), b = roofline_panel(sc);
  ASSERT_EQ(a.latency.size(), b.latency.size());
  for (std::size_t i = 0; i < a.latency.size(); ++i)
    EXPECT_EQ(a.latency[i].total_seconds, b.latency[i].total_seconds);
  for (std::size_t i = 0; i < a.decode_wall.size(); ++i)
    EXPECT_EQ(a.decode_wall[i].intensity, b.decode_wall[i].intensity);
  sc.turn.budget_seconds = 0.1;
  EXPECT_THROW_NAMING(roofline_panel(sc), "budget_seconds");
  sc = {};
  sc.overlay_chips = {"Z80"};
  EXPECT_THROW_NAMING(roofline_panel(sc), "chip");
}

}  // namespace
}  // namespace napkin
