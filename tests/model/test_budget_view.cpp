// The Budget view's verdicts that the Budget panel computed itself before:
// whether each ZeRO stage's memory fits the chip, and the lifetime-FLOPs
// ratio of the Chinchilla answer to the smaller same-loss model. Golden values
// recorded from the panel's expressions (total ≤ HBM; chinchilla ÷ small).
#include <gtest/gtest.h>

#include <cmath>

#include "budget_view.h"

namespace napkin {
namespace {

TEST(BudgetView, MemoryFitsPerZeroStage) {
  const BudgetView v = make_budget_view(Scenario{});  // Llama-3-70B shape on H100, DP 64
  EXPECT_EQ(v.chip_hbm_bytes, 80'000'000'000);
  EXPECT_EQ(v.memory_by_zero[0].total, 1180398911488);
  EXPECT_EQ(v.memory_by_zero[3].total, 69178034176);
  EXPECT_FALSE(v.memory_fits_by_zero[0]);
  EXPECT_FALSE(v.memory_fits_by_zero[1]);
  EXPECT_FALSE(v.memory_fits_by_zero[2]);
  EXPECT_TRUE(v.memory_fits_by_zero[3]);
  for (std::size_t z = 0; z < 4; ++z)
    EXPECT_EQ(v.memory_fits_by_zero[z], v.memory_by_zero[z].total <= v.chip_hbm_bytes) << z;
}

TEST(BudgetView, LifetimeFlopsRatio) {
  const BudgetView v = make_budget_view(Scenario{});
  // 2.2961050601500905 before goodput entered the plan; the plan now starts
  // from the compute left after crashes (default interruption rate).
  EXPECT_NEAR(v.lifetime_flops_ratio, 2.3014911325427221, 1e-12);
  EXPECT_NEAR(v.lifetime_flops_ratio,
              v.report.plan.lifetime_flops_chinchilla / v.report.plan.lifetime_flops_small, 0);
  EXPECT_TRUE(std::isfinite(v.lifetime_flops_ratio));
}

}  // namespace
}  // namespace napkin
