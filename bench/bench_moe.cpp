#include <benchmark/benchmark.h>

#include "moe.h"

// One router step of the collapse simulation (the panel's per-frame work),
// at the default 256 tokens per batch.
static void BM_CollapseStep(benchmark::State& state) {
  napkin::CollapseParams p;
  p.n_experts = state.range(0);
  napkin::CollapseSimulation sim(p);
  for (auto _ : state) {
    benchmark::DoNotOptimize(sim.step());
    if (sim.steps_done() >= 5000) sim.clear_history();
  }
  state.SetItemsProcessed(state.iterations());  // items/s = steps/s
}
BENCHMARK(BM_CollapseStep)->Arg(8)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond);

// The 600-step run the issue targets (< 100 ms for E = 64), construction included.
static void BM_Collapse600(benchmark::State& state) {
  napkin::CollapseParams p;
  p.n_experts = state.range(0);
  p.aux_weight = 0.0;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::run_collapse(p, 600));
}
BENCHMARK(BM_Collapse600)->Arg(8)->Arg(64)->Unit(benchmark::kMillisecond);

static void BM_CapacityTradeoff(benchmark::State& state) {
  std::vector<std::int64_t> counts(256);
  for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = static_cast<std::int64_t>(i % 7) * 2;
  counts[0] += 2;
  for (auto _ : state)
    benchmark::DoNotOptimize(napkin::capacity_tradeoff(counts, 2, 1.0, 2.0, 101));
}
BENCHMARK(BM_CapacityTradeoff);
