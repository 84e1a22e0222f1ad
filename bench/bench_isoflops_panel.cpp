// IsoFLOPs panel: (1) a drag of the noise slider — the cheap path (ladder,
// parabolas, vertices, exponents, every plot) to a finished replot, the fit
// deferred; (2) one settled refit — a seed change to the fit and to the
// bootstrap interval on screen (this includes the 150 ms debounce).
#include <QElapsedTimer>
#include <QSlider>
#include <chrono>

#include "SliderSpin.h"
#include "isoflops/IsoflopsPanel.h"
#include "panel_timing.h"
#include "shell/MainWindow.h"

namespace {

void showIsoflops(napkin::MainWindow& w) {
  w.resize(1280, 800);
  w.showPanel(QStringLiteral("isoflops"));
  w.show();
  QCoreApplication::processEvents();
}

}  // namespace

static void BM_IsoflopsPanelNoiseDrag(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  showIsoflops(w);
  QSlider* slider = w.panel<napkin::IsoflopsPanel>()->controls().noise->slider();
  slider->setSliderDown(true);  // a drag: press, move, release
  napkin::bench::time_panel_changes(state, static_cast<int>(state.range(0)), [&](int i) {
    slider->setValue(20 + (i * 37) % 300);  // noise 0.2 % … 3 %
  });
  slider->setSliderDown(false);
}
BENCHMARK(BM_IsoflopsPanelNoiseDrag)
    ->Arg(500)
    ->UseManualTime()
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

static void BM_IsoflopsPanelSettledRefit(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  showIsoflops(w);
  napkin::IsoflopsPanel* p = w.panel<napkin::IsoflopsPanel>();
  p->controls().resamples->spinBox()->setValue(static_cast<double>(state.range(0)));
  while (p->isBusy()) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
  std::vector<double> fit_ms, boot_ms;
  int seed = 1;
  for (auto _ : state) {
    QElapsedTimer t;
    double fit_at = -1;
    auto c = QObject::connect(p, &napkin::IsoflopsPanel::fitUpdated, [&] {
      if (fit_at < 0) fit_at = static_cast<double>(t.nsecsElapsed()) / 1e6;
    });
    t.start();
    p->controls().seed->spinBox()->setValue(seed++);
    while (p->isBusy()) QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    QCoreApplication::processEvents();  // the replots the result queued
    const double total = static_cast<double>(t.nsecsElapsed()) / 1e6;
    QObject::disconnect(c);
    fit_ms.push_back(fit_at);
    boot_ms.push_back(total);
    state.SetIterationTime(total / 1000.0);
  }
  std::sort(fit_ms.begin(), fit_ms.end());
  std::sort(boot_ms.begin(), boot_ms.end());
  state.counters["fit_shown_median_ms"] = fit_ms[fit_ms.size() / 2];
  state.counters["interval_shown_median_ms"] = boot_ms[boot_ms.size() / 2];
  state.counters["debounce_ms"] = 150;
}
BENCHMARK(BM_IsoflopsPanelSettledRefit)
    ->Arg(500)
    ->Arg(1000)
    ->UseManualTime()
    ->Iterations(8)
    ->Unit(benchmark::kMillisecond);
