#include "moe_view.h"

#include <algorithm>
#include <stdexcept>

#include "scenario.h"

namespace napkin {

MoeStepView make_moe_step_view(const StepStats* s, const CollapseParams& run) {
  run.validate();
  // A step is judged with the k it was routed with (T·k slots): k may have
  // changed since, mid-run, and the shown step may be a past one.
  CollapseParams p = run;
  if (s && s->routed_slots() > 0 && s->routed_slots() % p.tokens_per_batch == 0)
    p.top_k = s->routed_slots() / p.tokens_per_batch;
  MoeStepView v;
  v.n_experts = p.n_experts;
  v.top_k = p.top_k;
  v.tokens_per_batch = p.tokens_per_batch;
  v.fair_share_slots = fair_share_slots(p);
  v.max_over_mean_ceiling = max_over_mean_ceiling(p);
  const auto n = static_cast<std::size_t>(p.n_experts);
  v.kept_slots.assign(n, 0.0);
  v.padded_slots.assign(n, 0.0);
  v.dropped_slots.assign(n, 0.0);
  if (!s) {
    // Before the first step: every buffer empty, all of it padding.
    v.capacity_per_expert =
        expert_capacity(p.tokens_per_batch, p.top_k, p.n_experts, p.capacity_factor);
    v.loads.assign(n, ExpertLoad{});
    std::fill(v.padded_slots.begin(), v.padded_slots.end(),
              static_cast<double>(v.capacity_per_expert));
    v.capacity_share = static_cast<double>(v.capacity_per_expert) / v.fair_share_slots;
    v.largest_slots = static_cast<double>(v.capacity_per_expert);
    return v;
  }
  v.step = s->step;
  v.capacity_per_expert = s->capacity_per_expert;
  v.capacity_share = static_cast<double>(v.capacity_per_expert) / v.fair_share_slots;
  v.loads = expert_loads(*s, p);
  v.largest_slots = static_cast<double>(v.capacity_per_expert);
  for (std::size_t i = 0; i < n && i < s->routed.size(); ++i) {
    const auto e = static_cast<std::int64_t>(i);
    v.kept_slots[i] = static_cast<double>(s->kept(e));
    v.padded_slots[i] = static_cast<double>(s->padded(e));
    v.dropped_slots[i] = static_cast<double>(s->dropped(e));
    v.largest_slots = std::max(v.largest_slots, static_cast<double>(s->routed[i]));
    v.largest_load = std::max(v.largest_load, v.loads[i].relative_load);
  }
  v.health = moe_health(*s);
  v.tradeoff = capacity_tradeoff(s->routed, p.top_k, kMoeTradeoffMinCf, kMoeTradeoffMaxCf,
                                 kMoeTradeoffPoints);
  const CapacityResult now = capacity_from_counts(s->routed, p.capacity_factor, p.top_k);
  v.drop_rate_at_cf = now.drop_rate;
  v.padding_fraction_at_cf = 1.0 - now.buffer_utilization;
  return v;
}

MoeScenarioView make_moe_scenario_view(const Scenario& s) {
  s.moe.validate();
  MoeScenarioView v;
  v.is_moe = s.shape.is_moe();
  if (v.is_moe) {
    v.n_experts = s.shape.n_experts;
    v.top_k = s.shape.top_k;
  }
  v.params = moe_model_params(s.shape);
  // A dense model's layers are costed as MoE with the run's k.
  v.comm_inputs = expert_parallel_inputs(s.shape, s.moe.prefill_tokens, s.moe.top_k);
  v.comm_inputs.link_gbps = s.moe.link_gbps;
  v.comm_inputs.latency_us = s.moe.latency_us;
  v.comm_top_k = v.comm_inputs.top_k;
  v.comm = expert_parallel_comm(v.comm_inputs);
  v.pipe_inputs = s.moe.pipeline_inputs();
  v.pipe = pipelined_prefill(v.pipe_inputs);
  const std::vector<PipelineSlot> sched = pipeline_schedule(v.pipe_inputs);
  const double hop = v.pipe_inputs.transfer_ms;
  v.gantt.reserve(sched.size());
  for (const PipelineSlot& sl : sched) {
    MoeGanttBar b;
    b.stage = sl.stage;
    b.chunk = sl.chunk;
    b.compute_start_ms = sl.start_ms;
    b.compute_end_ms = sl.compute_end_ms;
    b.has_hop = sl.stage + 1 < v.pipe_inputs.stages;
    if (b.has_hop) {
      b.hop_start_ms = sl.compute_end_ms;
      b.hop_end_ms = sl.compute_end_ms + hop;
    }
    v.gantt.push_back(b);
  }
  v.gantt_end_ms = v.pipe.pipelined_ms + hop;
  // Outline: each stage's first start going down, its last end coming back up.
  const std::int64_t S = v.pipe_inputs.stages, M = v.pipe_inputs.chunks;
  for (std::int64_t st = 0; st < S; ++st) {
    v.outline_ms.push_back(sched[static_cast<std::size_t>(st * M)].start_ms);
    v.outline_stage.push_back(static_cast<double>(st));
  }
  for (std::int64_t st = S - 1; st >= 0; --st) {
    v.outline_ms.push_back(sched[static_cast<std::size_t>(st * M + M - 1)].end_ms);
    v.outline_stage.push_back(static_cast<double>(st));
  }
  return v;
}

MoeView make_moe_view(const Scenario& s, const MoeSlow* run) {
  MoeView v;
  try {
    v.scenario = make_moe_scenario_view(s);
    if (run)
      v.step = make_moe_step_view(run->step, run->params);
    else
      v.step = make_moe_step_view(nullptr, s.moe.collapse_params());
  } catch (const std::invalid_argument& e) {
    v.error = e.what();
  }
  return v;
}

MoeRunOfRecord make_moe_run_of_record(const Scenario& s) {
  MoeRunOfRecord r;
  r.params = s.moe.collapse_params();
  r.history = run_collapse(r.params, s.moe.steps);
  r.last = make_moe_step_view(r.history.empty() ? nullptr : &r.history.back(), r.params);
  r.scenario = make_moe_scenario_view(s);
  return r;
}

}  // namespace napkin
