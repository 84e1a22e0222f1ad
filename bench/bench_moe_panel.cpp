// MoE panel: the animation's frame time (one timer tick = simulation steps +
// in-place bar / trace / read-out updates + the queued replots, offscreen at
// 1280×800) at E = 8 and E = 256, and slider drags → finished replot: the
// capacity factor (the run continues, every run plot redraws), with and
// without a pinned baseline, and the pipeline stages (the Gantt chart).
#include <QSlider>
#include <QTimer>

#include "ScenarioModel.h"
#include "SliderSpin.h"
#include "moe/MoePanel.h"
#include "moe/MoeRun.h"
#include "panel_timing.h"
#include "shell/MainWindow.h"

namespace {

napkin::MoePanel* shownPanel(napkin::MainWindow& w, double experts) {
  w.resize(1280, 800);
  w.show();
  w.showPanel(QStringLiteral("moe"));
  QCoreApplication::processEvents();
  napkin::MoePanel* p = w.panel<napkin::MoePanel>();
  napkin::Scenario s = w.model()->scenario();
  s.moe.n_experts = static_cast<std::int64_t>(experts);
  w.model()->replace(s, QStringLiteral("E"));
  p->run()->advance(50);
  QCoreApplication::processEvents();
  return p;
}

void dragSlider(benchmark::State& state, QSlider* slider, int stride) {
  slider->setSliderDown(true);  // a drag: press, move many times, release
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    const int n = slider->maximum() - slider->minimum() + 1;
    slider->setValue(slider->minimum() + (i * stride) % n);
  });
  slider->setSliderDown(false);
}

}  // namespace

// One animation frame: advance(1) (a step + redraw) and the replots it
// queues, in the playing state (plots drawn without antialiasing).
static void BM_MoePanelFrame(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  napkin::MoePanel* p = shownPanel(w, static_cast<double>(state.range(0)));
  p->run()->play();
  p->run()->findChild<QTimer*>()->stop();  // the benchmark drives the ticks itself
  napkin::bench::time_panel_changes(state, 600, [&](int) { p->run()->advance(1); });
  p->run()->pause();
  state.counters["experts"] = static_cast<double>(p->run()->params().n_experts);
}
BENCHMARK(BM_MoePanelFrame)
    ->Arg(8)
    ->Arg(256)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// A capacity-factor drag: an undoable scenario edit, a retune, the redraw.
static void BM_MoePanelSliderToReplot(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  napkin::MoePanel* p = shownPanel(w, 64);
  dragSlider(state, p->controls().capacity_factor->slider(), 37);
}
BENCHMARK(BM_MoePanelSliderToReplot)
    ->Arg(300)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// The same with a baseline pinned: its run is computed once, when pinned.
static void BM_MoePanelSliderToReplotWithBaseline(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  napkin::MoePanel* p = shownPanel(w, 64);
  const napkin::Scenario a = w.model()->scenario();
  p->setBaseline(&a);
  p->waitForBaseline();
  dragSlider(state, p->controls().capacity_factor->slider(), 37);
}
BENCHMARK(BM_MoePanelSliderToReplotWithBaseline)
    ->Arg(300)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// A pipeline-chunks drag (Gantt rebuild).
static void BM_MoePanelGanttDrag(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  napkin::MoePanel* p = shownPanel(w, 8);
  dragSlider(state, p->controls().chunks->slider(), 7);
}
BENCHMARK(BM_MoePanelGanttDrag)
    ->Arg(200)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
