// Times "a control changes → the whole panel has replotted" over many
// changes and reports the median and p99 as benchmark counters.
#pragma once

#include <benchmark/benchmark.h>

#include <QCoreApplication>
#include <algorithm>
#include <chrono>
#include <functional>
#include <vector>

namespace napkin::bench {

// `change(i)` makes the i-th control change; the replots it queues run in
// processEvents(), so the sample ends when every plot has redrawn.
inline void time_panel_changes(benchmark::State& state, int changes,
                               const std::function<void(int)>& change) {
  std::vector<double> ms;
  ms.reserve(static_cast<std::size_t>(changes));
  for (auto _ : state) {
    ms.clear();
    for (int i = 0; i < changes; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      change(i);
      QCoreApplication::processEvents();
      const auto t1 = std::chrono::steady_clock::now();
      ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
    double total = 0;
    for (double v : ms) total += v;
    state.SetIterationTime(total / 1000.0);
  }
  std::sort(ms.begin(), ms.end());
  state.counters["median_ms"] = ms[ms.size() / 2];
  state.counters["p99_ms"] = ms[std::min(ms.size() - 1, ms.size() * 99 / 100)];
  state.counters["max_ms"] = ms.back();
  state.counters["changes"] = static_cast<double>(ms.size());
}

}  // namespace napkin::bench
