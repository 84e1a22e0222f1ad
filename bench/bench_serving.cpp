// Serving layouts (issue: a search over slices up to 4,096 chips, TP/PP(/EP)
// splits and batches under 20 ms). Each iteration moves the budget so nothing
// can be reused between calls.
#include <benchmark/benchmark.h>

#include "scenario.h"
#include "serving_search.h"

namespace {

napkin::ModelShape preset(std::string_view name) {
  for (const napkin::ModelPreset& p : napkin::model_presets())
    if (p.name == name) return p.shape;
  return {};
}

napkin::SearchInputs search_inputs(const char* chip) {
  napkin::SearchInputs in;
  in.serving.chip = chip;
  in.budget.turn_seconds = 2.0;
  in.max_chips = 4096;
  in.max_batch = 1024;
  return in;
}

void run_search(benchmark::State& state, const napkin::ServingModel& model,
                napkin::SearchInputs in) {
  int i = 0;
  std::size_t layouts = 0;
  for (auto _ : state) {
    in.budget.turn_seconds = 1.0 + 0.01 * (i++ % 200);
    const napkin::SearchAnswer a = napkin::search_serving(model, in);
    layouts = a.layouts.size();
    benchmark::DoNotOptimize(a);
  }
  state.counters["layouts"] = static_cast<double>(layouts);
}

void BM_ServingSearchLlama3_70B_H100(benchmark::State& state) {
  run_search(state, napkin::serving_model(preset("Llama-3-70B")), search_inputs("H100"));
}
BENCHMARK(BM_ServingSearchLlama3_70B_H100)->Unit(benchmark::kMillisecond);

void BM_ServingSearchLlama3_70B_TpuV5e(benchmark::State& state) {
  run_search(state, napkin::serving_model(preset("Llama-3-70B")), search_inputs("TPU v5e"));
}
BENCHMARK(BM_ServingSearchLlama3_70B_TpuV5e)->Unit(benchmark::kMillisecond);

void BM_ServingSearchMixtral_H100(benchmark::State& state) {
  run_search(state, napkin::serving_model(preset("Mixtral-8x7B")), search_inputs("H100"));
}
BENCHMARK(BM_ServingSearchMixtral_H100)->Unit(benchmark::kMillisecond);

// The widest search: 256 routed experts, so every slice also splits EP ways.
void BM_ServingSearchDeepSeekV3Like_H800(benchmark::State& state) {
  run_search(state, napkin::serving_model(preset("DeepSeek-V3")), search_inputs("H800"));
}
BENCHMARK(BM_ServingSearchDeepSeekV3Like_H800)->Unit(benchmark::kMillisecond);

void BM_ServingEvaluateLayout(benchmark::State& state) {
  const napkin::ServingModel m = napkin::serving_model(preset("Llama-3-70B"));
  napkin::ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 2, 1};
  int i = 0;
  for (auto _ : state) {
    in.batch = 1 + (i++ % 256);
    benchmark::DoNotOptimize(napkin::evaluate_serving(m, in));
  }
}
BENCHMARK(BM_ServingEvaluateLayout);

// Everything the Serving-layout view draws: the chosen layout, the search,
// disaggregation (three searches) and the precision sweep (four).
void BM_ServingView(benchmark::State& state) {
  const napkin::ServingModel m = napkin::serving_model(preset("Llama-3-70B"));
  napkin::ServingViewInputs in;
  in.search = search_inputs("H100");
  in.search.serving.layout = {8, 1, 1};
  in.search.budget = {std::nullopt, 1.0, 0.05};
  int i = 0;
  for (auto _ : state) {
    in.search.budget.tpot_seconds = 0.03 + 0.001 * (i++ % 50);
    benchmark::DoNotOptimize(napkin::make_serving_view(m, in));
  }
}
BENCHMARK(BM_ServingView)->Unit(benchmark::kMillisecond);

// The memo's "largest model that meets the budget": a bisection of searches.
void BM_LargestParamsForBudget(benchmark::State& state) {
  napkin::SearchInputs in = search_inputs("H100");
  in.max_chips = 8;
  in.budget.turn_seconds = 1.0;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::largest_params_for_budget(in));
}
BENCHMARK(BM_LargestParamsForBudget)->Unit(benchmark::kMillisecond);

void BM_ServableCheck(benchmark::State& state) {
  const napkin::ServingModel m = napkin::serving_model(preset("Llama-3-70B"));
  const napkin::ServableInputs in;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::servable_check(m, in));
}
BENCHMARK(BM_ServableCheck)->Unit(benchmark::kMillisecond);

}  // namespace
