// The plan as it will really run: the Monte Carlo must follow a slider (10,000
// draws well under 20 ms), and the budget's whole chain with it.
#include <benchmark/benchmark.h>

#include "budget.h"
#include "goodput.h"
#include "serving_limit.h"
#include "uncertainty.h"

namespace {

napkin::TrainInputs plan() {
  napkin::TrainInputs t;
  t.n_params = 70e9;
  t.train_tokens = 15e12;
  return t;
}

napkin::PlanRanges ranges(const napkin::TrainInputs& t, napkin::RangeShape shape) {
  napkin::PlanRanges r = napkin::point_ranges(t);
  r.mfu = {0.30, 0.40, 0.45};
  r.interruptions_per_1000_chip_days = {0.2, 0.474, 1.5};
  r.restart_minutes = {5, 10, 60};
  r.price_per_chip_hour_dollars = {2.0, 2.5, 3.5};
  r.tokens_available = {8e12, 15e12, 20e12};
  r.shape = shape;
  return r;
}

}  // namespace

// Every input a range, 10,000 draws: percentiles, histograms and the tornado.
static void BM_PlanRanges10k(benchmark::State& state) {
  const napkin::TrainInputs t = plan();
  const napkin::PlanRanges r = ranges(t, static_cast<napkin::RangeShape>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(napkin::plan_ranges(t, r));
  state.SetItemsProcessed(state.iterations() * r.draws);
}
BENCHMARK(BM_PlanRanges10k)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

static void BM_TrainRun(benchmark::State& state) {
  const napkin::TrainInputs t = plan();
  for (auto _ : state) benchmark::DoNotOptimize(napkin::train_run(t));
}
BENCHMARK(BM_TrainRun);

static void BM_LargestServableModel(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(napkin::largest_servable_model("H100", 8, napkin::ServingLatency{}));
}
BENCHMARK(BM_LargestServableModel)->Unit(benchmark::kMicrosecond);

static void BM_GoodputCurve(benchmark::State& state) {
  napkin::GoodputInputs in;
  in.checkpoint_write_minutes = 0.2;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::goodput_curve(in, 1000));
}
BENCHMARK(BM_GoodputCurve)->Unit(benchmark::kMicrosecond);

// The budget with a tight data limit: goodput, the data-limited split, the
// inference-aware plan under the data-constrained law and the serving cap.
static void BM_BudgetReportDataLimited(benchmark::State& state) {
  napkin::BudgetInputs in;
  in.tokens_available = 5e11;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::budget_report(in));
}
BENCHMARK(BM_BudgetReportDataLimited)->Unit(benchmark::kMillisecond);
