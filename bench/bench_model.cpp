#include <benchmark/benchmark.h>

#include "budget.h"

static void BM_BudgetReport(benchmark::State& state) {
  napkin::BudgetInputs in;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::budget_report(in));
}
BENCHMARK(BM_BudgetReport);
