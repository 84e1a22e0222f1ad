// Roofline panel: slider change → finished replot of the whole panel at
// 1280×800, offscreen, over 1,000 changes. Three drags: the latency budget
// (shared scenario → the latency napkin), the decode batch (shared →
// roofline points, decode wall, latency, KV heads), each on its own sub-tab,
// and the batch on the "Serving layout" sub-tab, whose search runs off the UI
// thread (the UI-thread cost is what is timed).
#include <QSlider>
#include <QTabWidget>

#include "SliderSpin.h"
#include "panel_timing.h"
#include "roofline/RooflinePanel.h"
#include "shell/MainWindow.h"

namespace {

void dragSlider(benchmark::State& state, const char* control, int tab) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  w.resize(1280, 800);
  w.show();
  w.showPanel(QStringLiteral("roofline"));
  napkin::RooflinePanel* p = w.panel<napkin::RooflinePanel>();
  p->subTabs()->setCurrentIndex(tab);
  QCoreApplication::processEvents();
  QSlider* slider = p->control(QString::fromLatin1(control))->slider();
  slider->setSliderDown(true);  // a drag: press, move 1,000 times, release
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    // Spread over the slider's positions (a ladder may have only a few).
    const int span = slider->maximum() - slider->minimum() + 1;
    slider->setValue(slider->minimum() + (i * 37) % span);
  });
  slider->setSliderDown(false);
}

}  // namespace

static void BM_RooflinePanelBudgetSliderToReplot(benchmark::State& state) {
  dragSlider(state, "budget", 2);  // the "Latency napkin" sub-tab
}
static void BM_RooflinePanelBatchSliderToReplot(benchmark::State& state) {
  dragSlider(state, "batch", 0);  // the "Roofline & decode" sub-tab
}
static void BM_RooflinePanelServingBatchSliderToReplot(benchmark::State& state) {
  dragSlider(state, "batch", 4);  // the "Serving layout" sub-tab
}
BENCHMARK(BM_RooflinePanelServingBatchSliderToReplot)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RooflinePanelBudgetSliderToReplot)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RooflinePanelBatchSliderToReplot)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);
