// Comparing plans: what the headline outputs of one scenario cost (the
// baseline's are computed once, when pinned; the current plan's on change).
#include <benchmark/benchmark.h>

#include "compare.h"

static void BM_HeadlineOutputsDefault(benchmark::State& state) {
  const napkin::Scenario s;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::headline_outputs(s));
}
BENCHMARK(BM_HeadlineOutputsDefault)->Unit(benchmark::kMillisecond);

static void BM_DifferingInputs(benchmark::State& state) {
  const napkin::Scenario a;
  napkin::Scenario b = a;
  b.chip = "TPU v5p";
  b.days = 45;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::differing_inputs(a, b));
}
BENCHMARK(BM_DifferingInputs)->Unit(benchmark::kMicrosecond);
