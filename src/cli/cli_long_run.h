// Long CLI work (fit, its bootstrap, diff's fits, moe collapse): a progress line on stderr
// when it is a terminal (never with --json), a clean stop on Ctrl+C (exit
// status 130 and one line) and an optional --max-seconds cap (exit status 124
// and one line). dispatch() turns the exceptions below into those statuses.
#pragma once

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace napkin::cli {

// Ctrl+C (SIGINT) during a long run: exit status 130.
struct Interrupted : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// --max-seconds reached: exit status 124 (as timeout(1)).
struct OutOfTime : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitInterrupted = 130;
inline constexpr int kExitOutOfTime = 124;

class LongRun {
 public:
  // `unit`: what is counted ("resamples", "router steps"); `total` of them.
  // `quiet` (--json) hides the progress line; `max_seconds` 0 means no cap.
  // A terminal on stderr shows progress; NAPKIN_PROGRESS=1 forces it (tests).
  LongRun(std::string unit, std::int64_t total, bool quiet, double max_seconds = 0);
  ~LongRun();  // restores the previous SIGINT handler, clears the line
  LongRun(const LongRun&) = delete;
  LongRun& operator=(const LongRun&) = delete;

  // Starts counting other work (a fit, then its bootstrap) on the same clock:
  // --max-seconds bounds the whole run, not one stage of it.
  void stage(std::string unit, std::int64_t total);
  // Reports `done` units; throws Interrupted or OutOfTime when the run must stop.
  void update(std::int64_t done);
  // The same for a model's progress callback: false when the run must stop
  // (the model then throws; call stop_reason() to rethrow as ours).
  bool keep_going(std::int64_t done) noexcept;
  // The same when the total is only known to the model (a fit's steps).
  bool keep_going(std::int64_t done, std::int64_t total) noexcept;
  // Throws Interrupted or OutOfTime if the run was stopped; else returns.
  void stop_reason() const;

 private:
  std::string unit_;
  std::int64_t total_;
  std::int64_t done_ = 0;
  bool show_;
  double max_seconds_;
  std::chrono::steady_clock::time_point start_, last_draw_;
  bool drawn_ = false;
  enum class Stop { none, interrupted, out_of_time } stop_ = Stop::none;
  void draw(bool force);
};

// True once Ctrl+C was pressed during the current LongRun.
bool interrupt_requested();

}  // namespace napkin::cli
