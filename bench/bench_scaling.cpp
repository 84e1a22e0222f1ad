// Phase 01: one parametric fit and the bootstrap forecast. The goal is a
// 1,000-resample bootstrap on a 30-point ladder under 250 ms on the 2-core
// machine (the seed's pure-Python 200-resample coordinate descent takes ~1.5 s).
#include <benchmark/benchmark.h>

#include "scaling.h"

namespace {

std::vector<napkin::LadderPoint> ladder30() {
  napkin::SyntheticLadderSpec s;  // 5 budgets × 6 sizes, 0.5 % noise
  s.seed = 1;
  return napkin::synthetic_ladder(s);
}

}  // namespace

// Grid of 4,500 starts scored, the best 12 polished by L-BFGS.
static void BM_ParametricFit30(benchmark::State& state) {
  const auto pts = ladder30();
  napkin::FitOptions o;
  o.threads = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(napkin::fit_parametric(pts, o));
}
BENCHMARK(BM_ParametricFit30)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);

static void BM_Bootstrap1000x30(benchmark::State& state) {
  const auto pts = ladder30();
  napkin::BootstrapOptions o;
  o.resamples = 1000;
  o.fit.threads = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(napkin::bootstrap_forecast(pts, 1e24, o));
}
BENCHMARK(BM_Bootstrap1000x30)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The seed's reference estimator, for the comparison in the README.
static void BM_SeedCoordinateDescent30(benchmark::State& state) {
  const auto pts = ladder30();
  napkin::FitOptions o;
  o.estimator = napkin::Estimator::seed_cd;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::fit_parametric(pts, o));
}
BENCHMARK(BM_SeedCoordinateDescent30)->Unit(benchmark::kMillisecond);
