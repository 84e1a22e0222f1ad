// parallel_for: every index exactly once, results independent of the thread
// count, progress on the calling thread, cancellation and errors that stop the
// loop and surface on the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

#include "parallel_for.h"

namespace napkin {
namespace {

TEST(ParallelFor, ResolvesThreadCounts) {
  EXPECT_EQ(resolve_threads(4, 100), 4);
  EXPECT_EQ(resolve_threads(4, 2), 2);  // never more threads than items
  EXPECT_EQ(resolve_threads(1000, 1000), kMaxParallelThreads);
  EXPECT_GE(resolve_threads(0, 100), 1);  // 0: the hardware's
  EXPECT_LE(resolve_threads(0, 100), kMaxParallelThreads);
  EXPECT_EQ(resolve_threads(-3, 0), 1);
}

TEST(ParallelFor, VisitsEveryIndexOnceAtAnyThreadCount) {
  for (int threads : {1, 2, 3, 8, 0}) {
    const int n = 1000;
    std::vector<std::atomic<int>> visits(n);
    parallel_for(n, threads, [&](int i) { visits[static_cast<std::size_t>(i)].fetch_add(1); });
    for (int i = 0; i < n; ++i) EXPECT_EQ(visits[static_cast<std::size_t>(i)].load(), 1) << i;
  }
}

TEST(ParallelFor, ResultsWrittenByIndexDoNotDependOnThreads) {
  auto run = [](int threads) {
    std::vector<double> out(257);
    parallel_for(257, threads, [&](int i) {
      double x = 0;
      for (int k = 1; k <= 200 + i; ++k) x += std::sin(k * 0.001 * i);
      out[static_cast<std::size_t>(i)] = x;
    });
    return out;
  };
  const auto one = run(1);
  EXPECT_EQ(run(2), one);
  EXPECT_EQ(run(7), one);
}

TEST(ParallelFor, NothingToDoIsANoOp) {
  int calls = 0;
  parallel_for(
      0, 4, [&](int) { ++calls; }, [&](int, int) { return ++calls > 0; });
  parallel_for(-5, 4, [&](int) { ++calls; });
  EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, ProgressRunsOnTheCallerAndNeverGoesBack) {
  for (int threads : {1, 4}) {
    const auto caller = std::this_thread::get_id();
    int last = 0, calls = 0;
    bool on_caller = true, in_range = true;
    parallel_for(
        300, threads, [](int) {},
        [&](int done, int total) {
          on_caller &= std::this_thread::get_id() == caller;
          in_range &= total == 300 && done >= 1 && done <= 300;
          EXPECT_GE(done, last);
          last = done;
          ++calls;
          return true;
        });
    EXPECT_TRUE(on_caller) << threads;
    EXPECT_TRUE(in_range) << threads;
    EXPECT_GE(calls, 1) << threads;
    EXPECT_EQ(last, 300) << threads;  // the final count is always reported
  }
}

// Items that take a little while, so a stop has work left to skip.
void busy_item() { std::this_thread::sleep_for(std::chrono::microseconds(200)); }

TEST(ParallelFor, CancelStopsTheRestAndThrows) {
  for (int threads : {1, 4}) {
    std::atomic<int> ran{0};
    EXPECT_THROW(parallel_for(
                     20'000, threads,
                     [&](int) {
                       ran.fetch_add(1);
                       busy_item();
                     },
                     [](int done, int) { return done < 10; }),
                 Cancelled)
        << threads;
    EXPECT_LT(ran.load(), 20'000) << threads;
    EXPECT_GE(ran.load(), 10) << threads;
  }
}

TEST(ParallelFor, FirstErrorSurfacesOnTheCaller) {
  for (int threads : {1, 4}) {
    std::atomic<int> ran{0};
    try {
      parallel_for(20'000, threads, [&](int i) {
        ran.fetch_add(1);
        if (i == 5) throw std::invalid_argument("item 5 is bad");
        busy_item();
      });
      ADD_FAILURE() << "no exception at " << threads << " threads";
    } catch (const std::invalid_argument& e) {
      EXPECT_STREQ(e.what(), "item 5 is bad");
    }
    EXPECT_LT(ran.load(), 20'000) << threads;  // the loop stopped early
  }
}

}  // namespace
}  // namespace napkin
