// Parallelism panel: global-batch slider change → finished replot of the
// whole panel at 1280×800, offscreen, over 1,000 changes. The layout search
// runs off the UI thread, so the sample is what the UI thread does per change
// (the shown layout re-evaluated for the new batch, read-outs, four plots);
// BM_ParallelPanelSearchToTable times a change until the new search's table
// is shown, and BM_ParallelScenarioLayouts the search itself (70B on 1,000 H100).
#include <QSlider>

#include "SliderSpin.h"
#include "panel_timing.h"
#include "parallel/ParallelPanel.h"
#include "parallel_view.h"
#include "shell/MainWindow.h"

static void BM_ParallelPanelSliderToReplot(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  auto* panel = w.panel<napkin::ParallelPanel>();
  w.showPanel(panel->panelKey());
  QCoreApplication::processEvents();
  QSlider* slider = panel->controls().global_batch->slider();
  slider->setSliderDown(true);  // a drag: press, move 1,000 times, release
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    // Over the ladder of batch sizes (64 Ki … 256 Mi tokens), never the same twice running.
    const int n = slider->maximum() + 1;
    slider->setValue((i * 7) % n);
  });
  slider->setSliderDown(false);
  panel->waitForSearch();
}
BENCHMARK(BM_ParallelPanelSliderToReplot)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

static void BM_ParallelPanelSearchToTable(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  auto* panel = w.panel<napkin::ParallelPanel>();
  w.showPanel(panel->panelKey());
  QCoreApplication::processEvents();
  QSlider* slider = panel->controls().global_batch->slider();
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    slider->setValue(slider->minimum() + 4 + (i % 2));  // 1 Mi / 2 Mi tokens, alternating
    panel->waitForSearch();
  });
}
BENCHMARK(BM_ParallelPanelSearchToTable)
    ->Arg(100)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

static void BM_ParallelScenarioLayouts(benchmark::State& state) {
  const napkin::Scenario s;
  std::size_t layouts = 0;
  for (auto _ : state) {
    const napkin::SearchResult r = napkin::scenario_layouts(s);
    layouts = r.layouts.size();
    benchmark::DoNotOptimize(r.layouts.data());
  }
  state.counters["layouts"] = static_cast<double>(layouts);
}
BENCHMARK(BM_ParallelScenarioLayouts)->Unit(benchmark::kMillisecond);
