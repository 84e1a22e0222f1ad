#include "cli_long_run.h"

#include <unistd.h>
#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>

#include "format.h"
#include "validate.h"

namespace napkin::cli {

namespace {

volatile std::sig_atomic_t g_interrupted = 0;
struct sigaction g_previous {};
int g_depth = 0;  // nested LongRuns share one handler

extern "C" void on_sigint(int) {
  if (g_interrupted) {
    // A second Ctrl+C: stop now, the usual way.
    std::signal(SIGINT, SIG_DFL);
    std::raise(SIGINT);
    return;
  }
  g_interrupted = 1;
}

std::string duration_text(double seconds) {
  if (seconds < 60) return format_grouped(seconds, 0) + " s";
  if (seconds < 3600)
    return std::to_string(static_cast<int>(seconds / 60)) + " min " +
           std::to_string(static_cast<int>(seconds) % 60) + " s";
  return format_grouped(seconds / 3600, 1) + " h";
}

}  // namespace

bool interrupt_requested() { return g_interrupted != 0; }

LongRun::LongRun(std::string unit, std::int64_t total, bool quiet, double max_seconds)
    : unit_(std::move(unit)), total_(total), max_seconds_(max_seconds) {
  const char* force = std::getenv("NAPKIN_PROGRESS");
  show_ = !quiet && ((force && force[0] == '1') || ::isatty(STDERR_FILENO) == 1);
  start_ = last_draw_ = std::chrono::steady_clock::now();
  if (g_depth++ == 0) {
    g_interrupted = 0;
    struct sigaction sa {};
    sa.sa_handler = on_sigint;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &g_previous);
  }
}

LongRun::~LongRun() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
  if (--g_depth == 0) {
    sigaction(SIGINT, &g_previous, nullptr);
    g_interrupted = 0;
  }
}

void LongRun::draw(bool force) {
  const auto now = std::chrono::steady_clock::now();
  // The first update is shown at once, then at most four times a second.
  if (!force && drawn_ && now - last_draw_ < std::chrono::milliseconds(250)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  std::string line = format_grouped(done_) + " / " + format_grouped(total_) + " " + unit_ + " (" +
                     std::to_string(total_ > 0 ? 100 * done_ / total_ : 0) + " %)";
  if (done_ > 0 && done_ < total_ && elapsed > 0.5)
    line +=
        ", about " +
        duration_text(elapsed * static_cast<double>(total_ - done_) / static_cast<double>(done_)) +
        " left";
  line += " — Ctrl+C stops";
  std::fprintf(stderr, "\r\033[K%s", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

bool LongRun::keep_going(std::int64_t done) noexcept {
  done_ = done;
  if (g_interrupted) stop_ = Stop::interrupted;
  if (stop_ == Stop::none && max_seconds_ > 0 &&
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count() >
          max_seconds_)
    stop_ = Stop::out_of_time;
  if (stop_ != Stop::none) return false;
  if (show_ && total_ > 0) draw(false);  // nothing to count yet: no line
  return true;
}

bool LongRun::keep_going(std::int64_t done, std::int64_t total) noexcept {
  total_ = total;
  return keep_going(done);
}

void LongRun::stage(std::string unit, std::int64_t total) {
  unit_ = std::move(unit);
  total_ = total;
  done_ = 0;
  last_draw_ = {};  // the new stage's first count is shown at once
}

void LongRun::update(std::int64_t done) {
  if (!keep_going(done)) stop_reason();
}

void LongRun::stop_reason() const {
  const std::string where =
      total_ > 0 ? format_grouped(done_) + " of " + format_grouped(total_) + " " + unit_ + " done"
                 : "reading the input, before any " + unit_;
  if (stop_ == Stop::interrupted) throw Interrupted("interrupted (Ctrl+C) after " + where);
  if (stop_ == Stop::out_of_time)
    throw OutOfTime("stopped at --max-seconds " + format_value(max_seconds_) + " after " + where +
                    "; raise --max-seconds or ask for less work");
}

}  // namespace napkin::cli
