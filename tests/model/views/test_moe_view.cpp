// What the MoE panel shows (moe_view): pinned to the numbers the panel
// computed itself before they moved into the model (the buffer line as
// capacity ÷ fair share, the padding as 1 − buffer utilization, the Gantt
// hops as compute end + transfer, the chart's span as pipelined + transfer).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "moe_view.h"
#include "scenario.h"

namespace napkin {
namespace {

TEST(MoeView, StepViewIsThePanelsFormerArithmetic) {
  CollapseParams p;
  p.aux_weight = 0;
  const std::vector<StepStats> h = run_collapse(p, 60);
  const StepStats& s = h.back();
  const MoeStepView v = make_moe_step_view(&s, p);
  EXPECT_EQ(v.step, 60);
  const double fair = 256.0 * 2.0 / 8.0;
  EXPECT_DOUBLE_EQ(v.fair_share_slots, fair);
  EXPECT_DOUBLE_EQ(v.max_over_mean_ceiling, 4.0);
  EXPECT_EQ(v.capacity_per_expert, 80);  // ⌊1.25 × 256 × 2 / 8⌋
  EXPECT_DOUBLE_EQ(v.capacity_share, 80.0 / fair);
  ASSERT_EQ(v.loads.size(), 8u);
  double top = 0, top_slots = 80;
  for (std::int64_t e = 0; e < 8; ++e) {
    const auto i = static_cast<std::size_t>(e);
    EXPECT_DOUBLE_EQ(v.loads[i].relative_load, static_cast<double>(s.routed[i]) / fair);
    EXPECT_DOUBLE_EQ(v.kept_slots[i], static_cast<double>(s.kept(e)));
    EXPECT_DOUBLE_EQ(v.padded_slots[i], static_cast<double>(s.padded(e)));
    EXPECT_DOUBLE_EQ(v.dropped_slots[i], static_cast<double>(s.dropped(e)));
    top = std::max(top, v.loads[i].relative_load);
    top_slots = std::max(top_slots, static_cast<double>(s.routed[i]));
  }
  EXPECT_DOUBLE_EQ(v.largest_load, top);
  EXPECT_DOUBLE_EQ(v.largest_slots, top_slots);
  ASSERT_TRUE(v.health.has_value());
  EXPECT_EQ(v.health->verdict, moe_health(s).verdict);
  const CapacityResult now = capacity_from_counts(s.routed, 1.25, 2);
  EXPECT_DOUBLE_EQ(v.drop_rate_at_cf, now.drop_rate);
  EXPECT_DOUBLE_EQ(v.padding_fraction_at_cf, 1.0 - now.buffer_utilization);
  const auto curve = capacity_tradeoff(s.routed, 2, 1.0, 4.0, 61);
  ASSERT_EQ(v.tradeoff.size(), curve.size());
  EXPECT_DOUBLE_EQ(v.tradeoff.front().capacity_factor, 1.0);
  EXPECT_DOUBLE_EQ(v.tradeoff.back().capacity_factor, 4.0);
  for (std::size_t i = 0; i < curve.size(); ++i) {
    EXPECT_DOUBLE_EQ(v.tradeoff[i].drop_rate, curve[i].drop_rate);
    EXPECT_DOUBLE_EQ(v.tradeoff[i].wasted_fraction, curve[i].wasted_fraction);
  }
}

TEST(MoeView, AStepIsReadWithTheTopKItWasRoutedWith) {
  CollapseParams p;
  CollapseSimulation sim(p);
  sim.run(10);
  CollapseParams k3 = p;
  k3.top_k = 3;  // retuned mid-run: the recorded steps have 512 slots, not 768
  sim.retune(k3);
  const MoeStepView past = make_moe_step_view(&sim.history().back(), k3);
  EXPECT_EQ(past.top_k, 2);
  EXPECT_DOUBLE_EQ(past.fair_share_slots, 64.0);
  EXPECT_EQ(past.tradeoff.size(), 61u);
  sim.step();
  const MoeStepView now = make_moe_step_view(&sim.history().back(), k3);
  EXPECT_EQ(now.top_k, 3);
  EXPECT_DOUBLE_EQ(now.fair_share_slots, 96.0);
}

TEST(MoeView, BeforeTheFirstStepEveryBufferIsPadding) {
  CollapseParams p;
  const MoeStepView v = make_moe_step_view(nullptr, p);
  EXPECT_EQ(v.step, 0);
  EXPECT_FALSE(v.health.has_value());
  EXPECT_TRUE(v.tradeoff.empty());
  EXPECT_EQ(v.capacity_per_expert, 80);
  for (double x : v.padded_slots) EXPECT_DOUBLE_EQ(x, 80.0);
  for (const ExpertLoad& l : v.loads) EXPECT_DOUBLE_EQ(l.relative_load, 0.0);
  EXPECT_DOUBLE_EQ(v.largest_slots, 80.0);
}

TEST(MoeView, ScenarioViewPinsPipelineAndCommunication) {
  Scenario s;  // Llama-3-70B (dense), the default MoE settings
  const MoeScenarioView v = make_moe_scenario_view(s);
  EXPECT_FALSE(v.is_moe);
  EXPECT_EQ(v.comm_top_k, 2);  // a dense model costed with the run's k
  AllToAllInputs a = expert_parallel_inputs(s.shape, 8192, 2);
  a.link_gbps = 100;
  a.latency_us = 5;
  EXPECT_EQ(v.comm.bytes, expert_parallel_comm(a).bytes);
  EXPECT_DOUBLE_EQ(v.comm.seconds, expert_parallel_comm(a).seconds);
  // M = 8, S = 4, compute 50 ms, transfer 20 ms.
  EXPECT_DOUBLE_EQ(v.pipe.serial_ms, 4 * 8 * 70.0);
  EXPECT_DOUBLE_EQ(v.pipe.pipelined_ms, 11 * 50.0);
  EXPECT_DOUBLE_EQ(v.pipe.bubble_ms, 3 * 50.0);
  EXPECT_EQ(v.pipe.steps, 11);
  EXPECT_DOUBLE_EQ(v.pipe.utilization, 8.0 / 11.0);
  EXPECT_DOUBLE_EQ(v.gantt_end_ms, 570.0);
  ASSERT_EQ(v.gantt.size(), 32u);
  for (const MoeGanttBar& b : v.gantt) {
    EXPECT_EQ(b.has_hop, b.stage < 3);
    EXPECT_DOUBLE_EQ(b.compute_start_ms, static_cast<double>(b.stage + b.chunk) * 50.0);
    EXPECT_DOUBLE_EQ(b.compute_end_ms, b.compute_start_ms + 50.0);
    if (b.has_hop) {
      EXPECT_DOUBLE_EQ(b.hop_end_ms, b.compute_end_ms + 20.0);
    }
  }
  ASSERT_EQ(v.outline_ms.size(), 8u);
  EXPECT_DOUBLE_EQ(v.outline_ms.front(), 0.0);
  EXPECT_DOUBLE_EQ(v.outline_ms[3], 150.0);  // the last stage starts after the bubble
  EXPECT_DOUBLE_EQ(v.outline_ms[4], 550.0);  // and ends the prefill
}

TEST(MoeView, MixtralParametersAreTheModels) {
  Scenario s;
  for (const ModelPreset& m : model_presets())
    if (m.name == "Mixtral-8x7B") s.shape = m.shape;
  ASSERT_TRUE(s.shape.is_moe());
  const MoeScenarioView v = make_moe_scenario_view(s);
  EXPECT_TRUE(v.is_moe);
  EXPECT_EQ(v.n_experts, 8);
  EXPECT_EQ(v.top_k, 2);
  EXPECT_EQ(v.params.count.total, moe_model_params(s.shape).count.total);
  EXPECT_EQ(v.params.count.active, moe_model_params(s.shape).count.active);
}

TEST(MoeView, RunOfRecordIsTheDefaultCollapse) {
  Scenario s;  // α off: the router is left alone
  const MoeRunOfRecord r = make_moe_run_of_record(s);
  ASSERT_EQ(r.history.size(), 300u);
  EXPECT_EQ(r.last.step, 300);
  ASSERT_TRUE(r.last.health.has_value());
  EXPECT_EQ(r.last.health->verdict, MoeVerdict::collapsed);
  const MoeRunOfRecord again = make_moe_run_of_record(s);  // seeded: the same run
  EXPECT_EQ(again.history.back().routed, r.history.back().routed);
  s.moe.aux_on = true;
  const MoeRunOfRecord balanced = make_moe_run_of_record(s);
  EXPECT_EQ(balanced.last.health->verdict, MoeVerdict::healthy);
}

// The panel's one view: the scenario's read-outs and the run's shown step
// (none: the scenario's run before its first step); refused settings are the
// view's error, not an exception.
TEST(MoeView, PanelViewOfAScenarioAndItsRun) {
  Scenario s;
  const MoeView before = make_moe_view(s);
  ASSERT_TRUE(before.valid());
  EXPECT_EQ(before.step.step, 0);
  EXPECT_EQ(before.step.n_experts, s.moe.collapse_params().n_experts);
  EXPECT_EQ(before.scenario.pipe.pipelined_ms, make_moe_scenario_view(s).pipe.pipelined_ms);

  const MoeRunOfRecord r = make_moe_run_of_record(s);
  const MoeSlow run{r.params, &r.history.back()};
  const MoeView now = make_moe_view(s, &run);
  ASSERT_TRUE(now.valid());
  EXPECT_EQ(now.step.step, r.last.step);
  EXPECT_EQ(now.step.largest_load, r.last.largest_load);
  EXPECT_EQ(now.scenario.comm_top_k, r.scenario.comm_top_k);

  Scenario bad = s;
  bad.moe.top_k = bad.moe.n_experts + 1;
  const MoeView refused = make_moe_view(bad, &run);
  EXPECT_FALSE(refused.valid());
  EXPECT_NE(refused.error.find("top_k"), std::string::npos);
}

}  // namespace
}  // namespace napkin
