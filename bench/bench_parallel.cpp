#include <benchmark/benchmark.h>

#include "parallel.h"
#include "scenario.h"

// The full layout search the Parallelism panel runs on every change (issue 14:
// each under 50 ms on one core).
namespace {

// A Llama-3-405B-shaped dense model (126 layers, d_model 16,384, GQA-8) on
// 16,384 H100, 16M tokens per step of 8K sequences.
napkin::TrainingJob dense_405b() {
  napkin::TrainingJob j;
  j.shape = napkin::ModelShape{126, 16384, 53248, 128, 8, 128, 128256};
  j.chip = "H100";
  j.n_chips = 16384;
  j.seq_len = 8192;
  j.global_batch = 2048;
  return j;
}

// Mixtral-8x7B (the preset) on 1,024 H100, 4M tokens per step of 4K sequences.
napkin::TrainingJob mixtral() {
  napkin::TrainingJob j;
  for (const napkin::ModelPreset& p : napkin::model_presets())
    if (p.name == "Mixtral-8x7B") j.shape = p.shape;
  j.chip = "H100";
  j.n_chips = 1024;
  j.seq_len = 4096;
  j.global_batch = 1024;
  return j;
}

void run_search(benchmark::State& state, const napkin::TrainingJob& job,
                const napkin::SearchOptions& options) {
  std::size_t layouts = 0;
  for (auto _ : state) {
    const napkin::SearchResult r = napkin::search_layouts(job, options);
    layouts = r.layouts.size();
    benchmark::DoNotOptimize(r.layouts.data());
  }
  state.counters["layouts"] = static_cast<double>(layouts);
}

void BM_Search405BDenseOn16384H100(benchmark::State& state) { run_search(state, dense_405b(), {}); }
BENCHMARK(BM_Search405BDenseOn16384H100)->Unit(benchmark::kMillisecond);

// PP need not divide the 126 layers (Llama 3's own 16-stage split): 3x the layouts.
void BM_Search405BDenseOn16384H100UnevenStages(benchmark::State& state) {
  napkin::SearchOptions o;
  o.even_stages = false;
  run_search(state, dense_405b(), o);
}
BENCHMARK(BM_Search405BDenseOn16384H100UnevenStages)->Unit(benchmark::kMillisecond);

void BM_SearchMixtralOn1024H100(benchmark::State& state) { run_search(state, mixtral(), {}); }
BENCHMARK(BM_SearchMixtralOn1024H100)->Unit(benchmark::kMillisecond);

// One layout, as the panel re-evaluates the chosen row.
void BM_EvaluateOneLayout(benchmark::State& state) {
  const napkin::TrainingJob j = dense_405b();
  napkin::Layout l;
  l.tp = 8, l.pp = 2, l.vpp = 7, l.dp = 1024;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::evaluate_layout(j, l));
}
BENCHMARK(BM_EvaluateOneLayout)->Unit(benchmark::kMicrosecond);

// The Gantt chart of a 16-stage interleaved schedule.
void BM_PipelineSchedule(benchmark::State& state) {
  napkin::TrainingJob j = dense_405b();
  j.shape.n_layers = 128;
  napkin::Layout l;
  l.tp = 8, l.pp = 16, l.vpp = 2, l.dp = 128;
  for (auto _ : state) benchmark::DoNotOptimize(napkin::pipeline_schedule(j, l));
}
BENCHMARK(BM_PipelineSchedule)->Unit(benchmark::kMicrosecond);

}  // namespace
