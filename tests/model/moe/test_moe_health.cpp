// The one MoE health rule (moe_health) and the per-expert numbers the MoE
// panel draws (expert_loads, buffer_utilization, fair share, ceiling), plus
// the all-to-all inputs of a model shape.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "moe.h"
#include "moe_health.h"

namespace napkin {
namespace {

// A step as the simulation would report it, with `dead` experts whose
// smoothed gate share is zero.
StepStats make_step(double drop_rate, double step_max_over_mean, double recent_max_over_mean,
                    std::int64_t dead) {
  StepStats s;
  s.step = 100;
  s.routed = {140, 120, 90, 70, 60, 32, 0, 0};  // 512 slots: T = 256, k = 2
  s.capacity_per_expert = 80;
  s.drop_rate = drop_rate;
  s.dropped_slots = static_cast<std::int64_t>(drop_rate * 512);
  s.max_over_mean = step_max_over_mean;
  s.recent_max_over_mean = recent_max_over_mean;
  s.recent_gate_share.assign(8, 1.0 / 6.0);
  for (std::int64_t e = 0; e < dead; ++e) s.recent_gate_share[static_cast<std::size_t>(7 - e)] = 0;
  for (std::int64_t e = 0; e < 8; ++e) s.dead_experts += s.dead(e) ? 1 : 0;
  return s;
}

bool mentions(const MoeHealth& h, const std::string& text) {
  for (const std::string& r : h.reasons)
    if (r.find(text) != std::string::npos) return true;
  return false;
}

TEST(MoeHealth, ThirtyPercentDroppedThreeTimesAndTwoDeadIsNotHealthy) {  // issue: "healthy"
  const MoeHealth h = moe_health(make_step(0.30, 3.0, 2.4, 2));
  EXPECT_EQ(h.verdict, MoeVerdict::collapsed);
  EXPECT_EQ(h.dead_experts, 2);
  EXPECT_TRUE(mentions(h, "2 dead experts")) << h.reasons.front();
  EXPECT_TRUE(mentions(h, "30.0 % of slots dropped"));
  EXPECT_TRUE(mentions(h, "max/mean 2.40 ×"));
  // Even while the smoothed numbers lag (no expert dead yet, max/mean calm),
  // 30 % of the slots dropped is a collapse in progress.
  const MoeHealth lagging = moe_health(make_step(0.30, 3.0, 1.2, 0));
  EXPECT_EQ(lagging.verdict, MoeVerdict::collapsed);
  ASSERT_EQ(lagging.reasons.size(), 1u);
  EXPECT_EQ(lagging.reasons[0], "30.0 % of slots dropped (collapsed at ≥ 25.0 %)");
}

TEST(MoeHealth, ThresholdsAreInclusiveAndOrdered) {
  EXPECT_EQ(moe_health(make_step(0.0, 1.2, 1.1, 0)).verdict, MoeVerdict::healthy);
  EXPECT_TRUE(moe_health(make_step(0.0, 1.2, 1.1, 0)).reasons.empty());
  EXPECT_EQ(moe_health(make_step(0.0999, 1.2, 1.1, 0)).verdict, MoeVerdict::healthy);
  EXPECT_EQ(moe_health(make_step(0.10, 1.2, 1.1, 0)).verdict, MoeVerdict::strained);
  EXPECT_EQ(moe_health(make_step(0.2499, 1.2, 1.1, 0)).verdict, MoeVerdict::strained);
  EXPECT_EQ(moe_health(make_step(0.25, 1.2, 1.1, 0)).verdict, MoeVerdict::collapsed);
  EXPECT_EQ(moe_health(make_step(0.0, 1.2, 1.4999, 0)).verdict, MoeVerdict::healthy);
  EXPECT_EQ(moe_health(make_step(0.0, 1.2, 1.5, 0)).verdict, MoeVerdict::strained);
  EXPECT_EQ(moe_health(make_step(0.0, 1.2, 2.0, 0)).verdict, MoeVerdict::collapsed);
  EXPECT_EQ(moe_health(make_step(0.0, 1.2, 1.1, 1)).verdict, MoeVerdict::collapsed);
  // One step's max/mean is sampling noise: it alone never decides.
  EXPECT_EQ(moe_health(make_step(0.0, 4.0, 1.1, 0)).verdict, MoeVerdict::healthy);
  // Collapsed reasons come before strained ones.
  const MoeHealth both = moe_health(make_step(0.12, 1.2, 2.2, 0));
  EXPECT_EQ(both.verdict, MoeVerdict::collapsed);
  ASSERT_EQ(both.reasons.size(), 2u);
  EXPECT_NE(both.reasons[0].find("collapsed at"), std::string::npos);
  EXPECT_NE(both.reasons[1].find("strained at"), std::string::npos);
}

TEST(MoeHealth, CustomThresholdsAndTheirDescription) {
  MoeHealthThresholds t;
  t.strained_drop_fraction = 0.01;
  t.collapsed_drop_fraction = 0.02;
  EXPECT_EQ(moe_health(make_step(0.015, 1.0, 1.0, 0), t).verdict, MoeVerdict::strained);
  EXPECT_EQ(moe_health(make_step(0.015, 1.0, 1.0, 0), t).thresholds.strained_drop_fraction, 0.01);
  const std::string d = describe(MoeHealthThresholds{});
  for (const char* part : {"25.0 %", "10.0 %", "2.00 ×", "1.50 ×", "1 or more dead experts"})
    EXPECT_NE(d.find(part), std::string::npos) << part << " in " << d;
  t = {};
  t.collapsed_drop_fraction = 0.05;  // below the strained threshold
  EXPECT_THROW(moe_health(make_step(0, 1, 1, 0), t), std::invalid_argument);
  t = {};
  t.strained_max_over_mean = 0.5;
  EXPECT_THROW(moe_health(make_step(0, 1, 1, 0), t), std::invalid_argument);
  t = {};
  t.collapsed_dead_experts = 0;
  EXPECT_THROW(moe_health(make_step(0, 1, 1, 0), t), std::invalid_argument);
  EXPECT_EQ(to_string(MoeVerdict::strained), "strained");
}

TEST(MoeHealth, EverythingTheOldRuleCalledCollapsedStaysCollapsed) {
  // The rule before: COLLAPSED when the smoothed max/mean > 3 or any expert is
  // dead. The new rule only adds the drop rate and a strained middle.
  for (double aux : {0.0, 0.002, 0.01})
    for (std::uint64_t seed : {0u, 1u}) {
      CollapseParams p;
      p.aux_weight = aux;
      p.seed = seed;
      for (const StepStats& s : run_collapse(p, 400)) {
        const bool old_collapsed = s.recent_max_over_mean > 3 || s.dead_experts > 0;
        if (old_collapsed) {
          ASSERT_EQ(moe_health(s).verdict, MoeVerdict::collapsed) << s.step;
        }
      }
    }
}

TEST(MoeHealth, SimulationVerdicts) {  // seed ch. 5: α = 0 collapses, α = 0.01 holds
  for (std::uint64_t seed : {0u, 1u, 2u, 3u, 4u}) {
    CollapseParams p;
    p.seed = seed;
    p.aux_weight = 0.0;
    EXPECT_EQ(moe_health(run_collapse(p, 600).back()).verdict, MoeVerdict::collapsed) << seed;
    p.aux_weight = 0.01;
    const std::vector<StepStats> h = run_collapse(p, 600);
    // Past the random router's start, the balanced run is healthy at every step.
    for (std::size_t i = 100; i < h.size(); ++i)
      ASSERT_EQ(moe_health(h[i]).verdict, MoeVerdict::healthy)
          << "seed " << seed << " step " << h[i].step << ": " << moe_health(h[i]).reasons.front();
  }
}

TEST(MoeExpertLoads, StatesAndLoadsAgainstTheFairShare) {
  CollapseParams p;  // E = 8, k = 2, T = 256: fair share 64 slots
  EXPECT_EQ(fair_share_slots(p), 64.0);
  EXPECT_EQ(max_over_mean_ceiling(p), 4.0);
  StepStats s = make_step(0.2, 2.2, 2.0, 2);
  const std::vector<ExpertLoad> l = expert_loads(s, p);
  ASSERT_EQ(l.size(), 8u);
  EXPECT_DOUBLE_EQ(l[0].relative_load, 140.0 / 64.0);
  EXPECT_EQ(l[0].state, ExpertState::over_capacity);  // 140 > 80
  EXPECT_EQ(l[2].state, ExpertState::over_capacity);  // 90 > 80
  EXPECT_EQ(l[3].state, ExpertState::healthy);        // 70 ≤ 80
  EXPECT_EQ(l[6].state, ExpertState::dead);
  EXPECT_EQ(l[7].state, ExpertState::dead);
  EXPECT_EQ(l[7].relative_load, 0.0);
  // Dead wins over over-capacity: a dead expert is dead whatever its slots.
  s.recent_gate_share[0] = 0;
  EXPECT_EQ(expert_loads(s, p)[0].state, ExpertState::dead);
}

TEST(MoeExpertLoads, BufferUtilizationMatchesTheCapacityAccounting) {
  CollapseParams p;
  CollapseSimulation sim(p);
  for (int i = 0; i < 25; ++i) {
    const StepStats& s = sim.step();
    const CapacityResult c = capacity_from_counts(s.routed, p.capacity_factor, p.top_k);
    EXPECT_NEAR(s.buffer_utilization(), c.buffer_utilization, 1e-15);
    EXPECT_EQ(s.routed_slots(), 512);
    // The MoE panel's formula before the move: kept ÷ max(1, capacity × E).
    const double kept = 512.0 - static_cast<double>(s.dropped_slots);
    EXPECT_DOUBLE_EQ(s.buffer_utilization(), kept / static_cast<double>(s.capacity_per_expert * 8));
  }
  StepStats empty;
  EXPECT_EQ(empty.buffer_utilization(), 0.0);
}

TEST(MoeComm, AllToAllInputsOfAModelShape) {
  ModelShape moe{32, 4096, 14336, 32, 8, 128, 32000};  // Mixtral-8x7B-like
  moe.n_experts = 8;
  moe.top_k = 2;
  moe.n_dense_layers = 1;
  const AllToAllInputs a = expert_parallel_inputs(moe, 8192, 4);
  EXPECT_EQ(a.n_layers, 31);  // the MoE layers only
  EXPECT_EQ(a.top_k, 2);
  EXPECT_EQ(a.d_model, 4096);
  EXPECT_EQ(a.tokens, 8192);
  ModelShape dense = moe;
  dense.n_experts = 0;
  dense.top_k = 0;
  const AllToAllInputs d = expert_parallel_inputs(dense, 8192, 4);
  EXPECT_EQ(d.n_layers, 32);  // costed as if every layer were MoE
  EXPECT_EQ(d.top_k, 4);
  moe.n_dense_layers = 32;
  EXPECT_EQ(expert_parallel_inputs(moe, 8192, 4).n_layers, 1);  // at least one
  EXPECT_THROW(expert_parallel_inputs(moe, 0, 2), std::invalid_argument);
  EXPECT_EQ(pipelined_prefill({8, 4, 50, 20}).steps, 11);  // M + S − 1 (Claim 12: 8/11)
}

}  // namespace
}  // namespace napkin
