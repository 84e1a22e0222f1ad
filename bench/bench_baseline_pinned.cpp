// Budget panel with a baseline pinned and the Compare dock shown: chip-count
// slider change → finished replot, over 1,000 changes. The baseline's views
// are computed once, when pinned; the dock's headline outputs run off the UI
// thread after the drag settles, so the figure should match the plain panel's.
#include <QSlider>

#include "SliderSpin.h"
#include "budget/BudgetPanel.h"
#include "panel_timing.h"
#include "shell/MainWindow.h"

static void BM_BudgetPanelSliderToReplotWithBaseline(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  w.pinBaseline();
  w.showCompare();
  QCoreApplication::processEvents();
  QSlider* slider = w.panel<napkin::BudgetPanel>()->controls().chips->slider();
  slider->setSliderDown(true);
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    const int n = slider->maximum() + 1;
    slider->setValue((i * 7) % n);
  });
  slider->setSliderDown(false);
}
BENCHMARK(BM_BudgetPanelSliderToReplotWithBaseline)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
