// Budget panel: chip-count slider change → finished replot of the whole panel
// at 1280×800, offscreen, over 1,000 changes.
#include <QSlider>
#include <array>
#include <cstdint>

#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "budget/BudgetPanel.h"
#include "budget_view.h"
#include "panel_timing.h"
#include "shell/MainWindow.h"

static void BM_BudgetPanelSliderToReplot(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  QCoreApplication::processEvents();
  QSlider* slider = w.panel<napkin::BudgetPanel>()->controls().chips->slider();
  slider->setSliderDown(true);  // a drag: press, move 1,000 times, release
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    // Spread over the ladder of chip counts (1, 2, 5 … 100,000), never the same twice running.
    const int n = slider->maximum() + 1;
    slider->setValue((i * 7) % n);
  });
  slider->setSliderDown(false);
}
BENCHMARK(BM_BudgetPanelSliderToReplot)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BudgetPanelSliderToReplot)->Name("profile")->Arg(40)->UseManualTime()->Iterations(1);

// The same drag with an MFU range switched on: the Monte Carlo (10,000 draws)
// follows off the UI thread, so the replot stays within a frame.
static void BM_BudgetPanelSliderToReplotWithRanges(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  napkin::Scenario s = w.model()->scenario();
  s.ranges.mfu = napkin::default_spread(napkin::RangeInput::mfu, s.mfu);
  s.ranges.interruptions_per_1000_chip_days = napkin::default_spread(
      napkin::RangeInput::interruptions, s.goodput.interruptions_per_1000_chip_days);
  w.model()->replace(s, QStringLiteral("ranges"));
  QCoreApplication::processEvents();
  QSlider* slider = w.panel<napkin::BudgetPanel>()->controls().chips->slider();
  slider->setSliderDown(true);
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    const int n = slider->maximum() + 1;
    slider->setValue((i * 7) % n);
  });
  slider->setSliderDown(false);
}
BENCHMARK(BM_BudgetPanelSliderToReplotWithRanges)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// What a release (or a typed value) costs with a range on: the whole view,
// Monte Carlo included, on the UI thread.
static void BM_BudgetViewWithRanges(benchmark::State& state) {
  napkin::Scenario s;
  s.ranges.mfu = napkin::default_spread(napkin::RangeInput::mfu, s.mfu);
  const napkin::BudgetView first = napkin::make_budget_view(s);
  for (auto _ : state)
    benchmark::DoNotOptimize(
        napkin::make_budget_view(s, nullptr, {.ranges = state.range(0) != 0, .previous = &first}));
}
BENCHMARK(BM_BudgetViewWithRanges)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// What a chip-count drag tick with ranges on asks of the model (the view
// without its Monte Carlo, which follows off the UI thread): at chip counts
// never planned before (0: every serving rate is searched) and over the
// slider's 16 positions again (1: the serving rates are remembered).
static void BM_BudgetViewChipDrag(benchmark::State& state) {
  static constexpr std::array<std::int64_t, 16> kPositions{
      1, 2, 5, 10, 20, 50, 100, 200, 500, 1'000, 2'000, 5'000, 10'000, 20'000, 50'000, 100'000};
  napkin::Scenario s;
  s.ranges.mfu = napkin::default_spread(napkin::RangeInput::mfu, s.mfu);
  napkin::BudgetView previous = napkin::make_budget_view(s);
  std::int64_t i = 0;
  for (auto _ : state) {
    s.n_chips = state.range(0) != 0 ? kPositions[static_cast<std::size_t>(i % 16)] : 1'001 + i;
    ++i;
    previous = napkin::make_budget_view(s, nullptr, {.ranges = false, .previous = &previous});
    benchmark::DoNotOptimize(previous);
  }
}
BENCHMARK(BM_BudgetViewChipDrag)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
