// The full PDF report of the default scenario, offscreen.
#include <benchmark/benchmark.h>
#include <QTemporaryDir>

#include "report/ReportWriter.h"
#include "shell/MainWindow.h"

static void BM_ExportReport(benchmark::State& state) {
  napkin::MainWindow w(napkin::MainWindow::Session::fresh);
  w.resize(1280, 800);
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("report.pdf"));
  for (auto _ : state) {
    QString error;
    if (!napkin::ReportWriter(w.reportInput()).writePdf(path, &error))
      state.SkipWithError(error.toLocal8Bit().constData());
  }
}
BENCHMARK(BM_ExportReport)->Unit(benchmark::kMillisecond)->Iterations(20);
