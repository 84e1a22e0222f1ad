// The Roofline panel's recompute on a slider change: every sweep it plots.
// Goal (issue 6): p99 of a whole-panel replot under 8 ms; the model's share is
// measured here.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "roofline_view.h"
#include "scenario.h"

namespace {

napkin::ModelShape llama3_70b() {
  napkin::ModelShape s;
  s.n_layers = 80;
  s.d_model = 8192;
  s.d_ff = 28672;
  s.n_heads = 64;
  s.n_kv_heads = 8;
  s.d_head = 128;
  s.vocab = 128256;
  return s;
}

napkin::RooflineScenario seventy_b_scenario() {
  napkin::RooflineScenario sc;
  sc.shape = llama3_70b();
  sc.overlay_chips = {"H100", "A100-80", "TPU v5p"};
  return sc;
}

// Sorted per-call latencies → p50 / p99 counters, in microseconds.
void report_percentiles(benchmark::State& state, std::vector<double>& us) {
  if (us.empty()) return;
  std::sort(us.begin(), us.end());
  auto at = [&](double q) { return us[static_cast<std::size_t>(q * (us.size() - 1))]; };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  state.counters["max_us"] = us.back();
}

// One slider change → the whole panel: each iteration moves the budget slider
// (0.3 … 2 s) so nothing can be reused between calls.
void BM_RooflinePanelSliderChange(benchmark::State& state) {
  napkin::RooflineScenario sc = seventy_b_scenario();
  std::vector<double> us;
  us.reserve(1 << 16);
  int i = 0;
  for (auto _ : state) {
    sc.turn.budget_seconds = 0.3 + 0.01 * (i++ % 170);
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(napkin::roofline_panel(sc));
    const auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  report_percentiles(state, us);
}
BENCHMARK(BM_RooflinePanelSliderChange);

void BM_RooflinePanelDefault(benchmark::State& state) {
  const napkin::RooflineScenario sc;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::roofline_panel(sc));
}
BENCHMARK(BM_RooflinePanelDefault);

// The Roofline panel's "Serving layout" view for the default scenario (a
// 70B model on H100: the search over slices up to 4,096 chips, disaggregation
// and four precisions): the panel runs it off the UI thread when it is over
// a frame's budget.
void BM_RooflineServingView(benchmark::State& state) {
  napkin::Scenario s;
  std::vector<double> us;
  int i = 0;
  for (auto _ : state) {
    s.serving.batch = 1 << (i++ % 8);
    const auto t0 = std::chrono::steady_clock::now();
    benchmark::DoNotOptimize(napkin::scenario_serving_view(napkin::scenario_serving(s)));
    const auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
  }
  report_percentiles(state, us);
}
BENCHMARK(BM_RooflineServingView)->Unit(benchmark::kMillisecond);

void BM_PlaceOperations(benchmark::State& state) {
  const auto& chip = napkin::chip_by_name("H100");
  const auto shape = llama3_70b();
  for (auto _ : state) benchmark::DoNotOptimize(napkin::place_operations(chip, shape));
}
BENCHMARK(BM_PlaceOperations);

void BM_DecodeIntensitySweep(benchmark::State& state) {
  const auto& chip = napkin::chip_by_name("H100");
  const napkin::DecodeShape shape;
  const auto batches = napkin::powers_of_two(1, 1024);
  for (auto _ : state)
    benchmark::DoNotOptimize(napkin::decode_intensity_sweep(chip, shape, batches));
}
BENCHMARK(BM_DecodeIntensitySweep);

void BM_LatencyVsChips(benchmark::State& state) {
  const napkin::TurnInputs in;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::latency_vs_chips(in, 1024));
}
BENCHMARK(BM_LatencyVsChips);

void BM_ChipsForLatencyBudgetUnreachable(benchmark::State& state) {
  napkin::TurnInputs in;
  in.budget_seconds = 0.25 + 1e-15;
  in.max_chips = std::int64_t{1} << 40;  // the longest search: 41 trials
  for (auto _ : state) benchmark::DoNotOptimize(napkin::chips_for_latency_budget(in));
}
BENCHMARK(BM_ChipsForLatencyBudgetUnreachable);

void BM_ModelSizeSweep(benchmark::State& state) {
  const napkin::TurnInputs in;
  std::vector<double> sizes;
  for (int i = 0; i <= 30; ++i) sizes.push_back(std::pow(10.0, 9.0 + 0.1 * i));
  for (auto _ : state) benchmark::DoNotOptimize(napkin::model_size_sweep(in, sizes));
}
BENCHMARK(BM_ModelSizeSweep);

void BM_TileSweep(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(napkin::tile_efficiency_sweep(64, 1024));
}
BENCHMARK(BM_TileSweep);

void BM_KvHeadsSweep(benchmark::State& state) {
  const napkin::KvServing serving;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::kv_heads_sweep(serving));
}
BENCHMARK(BM_KvHeadsSweep);

}  // namespace
