// One parallel loop for the model library: work(i) for i in [0, n) on a
// small pool of std::threads, with progress reported on the calling thread
// and cancellation. The bootstrap and the fitter's grid of starts run on it.
//
// Determinism is the caller's half of the contract: work(i) must write its
// result by index (never append, never share a random stream), which is what
// makes the outcome independent of the thread count.
#pragma once

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace napkin {

// Thrown when a progress callback asks to stop.
struct Cancelled : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Called with (done, total) as the work progresses, from the calling thread;
// return false to cancel (the call then throws Cancelled).
using ProgressFn = std::function<bool(int done, int total)>;

// The most threads parallel_for starts, whatever is asked: past a handful the
// model's loops are memory-bound and a desktop has other work to do.
inline constexpr int kMaxParallelThreads = 16;

// The threads parallel_for(n, requested, …) runs on: requested (0 or less
// means the hardware's), clamped to [1, kMaxParallelThreads] and to n.
inline int resolve_threads(int requested, int work_items) {
  int t = requested;
  if (t <= 0) t = static_cast<int>(std::thread::hardware_concurrency());
  t = std::clamp(t, 1, kMaxParallelThreads);
  return std::max(1, std::min(t, work_items));
}

// Runs work(i) for every i in [0, n) on resolve_threads(threads, n) threads
// (the calling thread only waits, so one thread means a plain loop on the
// caller). `progress` is called from the calling thread with the number of
// items done, never decreasing, and last with (n, n) when every item ran;
// returning false stops the remaining items (those running finish) and
// throws Cancelled. The first exception thrown by work stops the
// remaining items and is rethrown here once every thread has joined.
template <class Work>
void parallel_for(int n, int threads, Work&& work, const ProgressFn& progress = {}) {
  if (n <= 0) return;
  threads = resolve_threads(threads, n);
  if (threads == 1) {
    for (int i = 0; i < n; ++i) {
      work(i);
      if (progress && !progress(i + 1, n)) throw Cancelled("cancelled by the caller");
    }
    return;
  }
  std::atomic<int> next{0};
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable cv;
  int done = 0;
  int running = threads;
  std::exception_ptr error;
  auto worker = [&] {
    for (;;) {
      if (stop.load()) break;
      const int i = next.fetch_add(1);
      if (i >= n) break;
      try {
        work(i);
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        stop.store(true);
      }
      {
        std::lock_guard lock(mutex);
        ++done;
      }
      cv.notify_one();
    }
    {
      std::lock_guard lock(mutex);
      --running;
    }
    cv.notify_one();
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (int t = 0; t < threads; ++t) pool.emplace_back(worker);
  bool cancelled = false;
  int reported = 0;
  {
    std::unique_lock lock(mutex);
    while (running > 0) {
      cv.wait(lock, [&] { return done != reported || running == 0; });
      if (done != reported && progress && !cancelled) {
        reported = done;
        const int now = done;
        lock.unlock();
        const bool go_on = progress(now, n);
        lock.lock();
        if (!go_on) {
          cancelled = true;
          stop.store(true);
        }
      } else {
        reported = done;
      }
    }
  }
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  // Items can all finish before the caller wakes: the last count is always
  // reported, as the one-thread loop does.
  if (!cancelled && progress && reported != n && !progress(n, n)) cancelled = true;
  if (cancelled) throw Cancelled("cancelled by the caller");
}

}  // namespace napkin
