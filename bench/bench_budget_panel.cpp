// Budget panel: chip-count slider change → finished replot of the whole panel
// at 1280×800, offscreen, over 1,000 changes.
#include <QSlider>

#include "MainWindow.h"
#include "SliderSpin.h"
#include "budget/BudgetPanel.h"
#include "panel_timing.h"

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
