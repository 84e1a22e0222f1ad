// MoE panel: the animation's frame time (one timer tick = simulation steps +
// in-place bar / trace updates + the queued replot, offscreen at 1280×800)
// at E = 8 and E = 256, and a slider drag (capacity factor → finished replot).
#include <QSlider>
#include <QTabWidget>
#include <QTimer>

#include "MainWindow.h"
#include "MoePanel.h"
#include "SliderSpin.h"
#include "panel_timing.h"

namespace {

napkin::MoePanel* shownPanel(napkin::MainWindow& w, double experts) {
  w.resize(1280, 800);
  w.show();
  w.showPanel(QStringLiteral("moe"));
  QCoreApplication::processEvents();
  napkin::MoePanel* p = w.panel<napkin::MoePanel>();
  p->control(QStringLiteral("experts"))->slider()->setValue(0);  // restart, then set E exactly
  p->control(QStringLiteral("experts"))->spinBox()->setValue(experts);
  p->advance(50);
  QCoreApplication::processEvents();
  return p;
}

}  // namespace

// One animation frame: advance(1) (a step + redraw) and the replot it queues,
// in the playing state (plots drawn without antialiasing, as while animating).
static void BM_MoePanelFrame(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  napkin::MoePanel* p = shownPanel(w, static_cast<double>(state.range(0)));
  p->play();
  p->findChild<QTimer*>()->stop();  // the benchmark drives the ticks itself
  napkin::bench::time_panel_changes(state, 600, [&](int) { p->advance(1); });
  state.counters["experts"] = static_cast<double>(p->simulation().params().n_experts);
}
BENCHMARK(BM_MoePanelFrame)
    ->Arg(8)
    ->Arg(256)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// A capacity-factor drag: retune + redraw of the collapse tab.
static void BM_MoePanelSliderDrag(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  napkin::MoePanel* p = shownPanel(w, 64);
  QSlider* slider = p->control(QStringLiteral("capacity_factor"))->slider();
  slider->setSliderDown(true);
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    slider->setValue(slider->minimum() + (i * 37) % (slider->maximum() - slider->minimum()));
  });
  slider->setSliderDown(false);
}
BENCHMARK(BM_MoePanelSliderDrag)
    ->Arg(300)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

// A pipeline-stages drag on the communication tab (Gantt rebuild).
static void BM_MoePanelGanttDrag(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  napkin::MoePanel* p = shownPanel(w, 8);
  p->tabs()->setCurrentIndex(2);
  QCoreApplication::processEvents();
  QSlider* chunks = p->control(QStringLiteral("chunks"))->slider();
  chunks->setSliderDown(true);
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    chunks->setValue(chunks->minimum() + (i * 7) % (chunks->maximum() - chunks->minimum() + 1));
  });
  chunks->setSliderDown(false);
}
BENCHMARK(BM_MoePanelGanttDrag)
    ->Arg(200)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
