// Times "a control changes → the whole panel has replotted" over many
// changes and reports the median and p99 as benchmark counters.
#pragma once

#include <benchmark/benchmark.h>

#include <QCoreApplication>
#include <algorithm>
#include <chrono>
#include <ctime>
#include <functional>
#include <vector>

namespace napkin::bench {

// `change(i)` makes the i-th control change; the replots it queues run in
// processEvents(), so the sample ends when every plot has redrawn.
inline void time_panel_changes(benchmark::State& state, int changes,
                               const std::function<void(int)>& change) {
  std::vector<double> ms;
  std::vector<double> cpu_ms;  // the UI thread's own CPU time: what a busy machine does not inflate
  ms.reserve(static_cast<std::size_t>(changes));
  cpu_ms.reserve(static_cast<std::size_t>(changes));
  const auto thread_cpu_ms = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return 1e3 * static_cast<double>(t.tv_sec) + 1e-6 * static_cast<double>(t.tv_nsec);
  };
  for (auto _ : state) {
    ms.clear();
    cpu_ms.clear();
    for (int i = 0; i < changes; ++i) {
      const double c0 = thread_cpu_ms();
      const auto t0 = std::chrono::steady_clock::now();
      change(i);
      QCoreApplication::processEvents();
      const auto t1 = std::chrono::steady_clock::now();
      cpu_ms.push_back(thread_cpu_ms() - c0);
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    double total = 0;
    for (double v : ms) total += v;
    state.SetIterationTime(total / 1000.0);
  }
  std::sort(ms.begin(), ms.end());
  std::sort(cpu_ms.begin(), cpu_ms.end());
  state.counters["cpu_median_ms"] = cpu_ms[cpu_ms.size() / 2];
  state.counters["cpu_p99_ms"] = cpu_ms[std::min(cpu_ms.size() - 1, cpu_ms.size() * 99 / 100)];
  state.counters["median_ms"] = ms[ms.size() / 2];
  state.counters["p99_ms"] = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  state.counters["max_ms"] = ms.back();
  state.counters["changes"] = static_cast<double>(ms.size());
}

}  // namespace napkin::bench
