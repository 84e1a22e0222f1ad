#include "goodput.h"

#include <algorithm>
#include <cmath>

#include "format.h"
#include "validate.h"

namespace napkin {

namespace {

constexpr double kMaxMinutes = 1e7;  // ~19 years: any longer is a typo
constexpr double kMaxRate = 1e6;     // interruptions per 1,000 chip-days

void require_interval(double interval_minutes) {
  require_real(interval_minutes, "checkpoint-min", "minutes", 0.0, kMaxMinutes, true);
}

void require_timing(double restart_minutes, double interval_minutes, double write_minutes,
                    CheckpointMode mode) {
  require_real(restart_minutes, "restart-min", "minutes", 0.0, kMaxMinutes);
  require_interval(interval_minutes);
  require_real(write_minutes, "checkpoint-write-min", "minutes", 0.0, kMaxMinutes);
  if (mode == CheckpointMode::asynchronous && interval_minutes < write_minutes)
    throw_out_of_range("checkpoint-min", "minutes",
                       "at least the checkpoint write time (" + format_value(write_minutes) +
                           " min) with asynchronous checkpoints: a new checkpoint cannot start "
                           "before the last one is written",
                       format_value(interval_minutes));
}

// Hours a crash costs: the restart plus the redone work.
double lost_per_crash_hours(double restart_minutes, double interval_minutes, double write_minutes,
                            CheckpointMode mode) {
  const double r = restart_minutes / 60.0, tau = interval_minutes / 60.0,
               delta = write_minutes / 60.0;
  return mode == CheckpointMode::synchronous ? r + 0.5 * (tau + delta) : r + 0.5 * tau + delta;
}

double clamp01(double x) { return std::clamp(x, 0.0, 1.0); }

// Goodput in the limit of continuous checkpointing (τ → δ or 0): the optimum
// when writing is free.
double goodput_at_interval(double rate, double restart, double interval, double write,
                           CheckpointMode mode) {
  if (interval <= 0.0) return clamp01(1.0 - rate * restart / 60.0);
  return goodput_fraction(rate, restart, interval, write, mode);
}

GoodputReport report_at_rate(double rate, double hours, double restart, double interval,
                             double write, CheckpointMode mode) {
  GoodputReport r;
  r.crashes_per_hour = rate;
  if (rate > 0.0) r.mtbf_hours = 1.0 / rate;
  r.wall_clock_hours = hours;
  r.expected_crashes = rate * hours;
  r.lost_per_crash_minutes = 60.0 * lost_per_crash_hours(restart, interval, write, mode);
  r.goodput = goodput_fraction(rate, restart, interval, write, mode);
  r.crash_lost_hours = std::min(hours, r.expected_crashes * r.lost_per_crash_minutes / 60.0);
  r.checkpoint_stall_hours = mode == CheckpointMode::synchronous
                                 ? (hours - r.crash_lost_hours) * write / (interval + write)
                                 : 0.0;
  r.productive_hours = hours * r.goodput;
  r.lost_hours = hours - r.productive_hours;
  if (mode == CheckpointMode::synchronous) {
    r.optimal_checkpoint_minutes = young_daly_interval_minutes(write, rate);
  } else if (rate > 0.0) {
    r.optimal_checkpoint_minutes = write;
  }
  r.goodput_at_optimum =
      r.optimal_checkpoint_minutes
          ? goodput_at_interval(rate, restart, *r.optimal_checkpoint_minutes, write, mode)
          : r.goodput;
  return r;
}

}  // namespace

double goodput_seed(double total_hours, double crash_count, double restart_minutes,
                    double checkpoint_interval_minutes) {
  require_real(total_hours, "hours", "hours", 0.0, 1e7, true);
  require_real(crash_count, "crashes", "interruptions", 0.0, 1e9);
  require_real(restart_minutes, "restart-min", "minutes", 0.0, kMaxMinutes);
  require_real(checkpoint_interval_minutes, "checkpoint-min", "minutes", 0.0, kMaxMinutes);
  const double lost_per_crash_h = (restart_minutes + checkpoint_interval_minutes / 2.0) / 60.0;
  const double lost = crash_count * lost_per_crash_h;
  return std::max(0.0, (total_hours - lost) / total_hours);
}

void GoodputInputs::validate() const {
  require_real(interruptions_per_1000_chip_days, "interruptions-per-1000-chip-days",
               "interruptions per 1,000 chip-days", 0.0, kMaxRate);
  require_timing(restart_minutes, checkpoint_interval_minutes, checkpoint_write_minutes, mode);
}

double goodput_fraction(double crashes_per_hour, double restart_minutes,
                        double checkpoint_interval_minutes, double checkpoint_write_minutes,
                        CheckpointMode mode) {
  require_real(crashes_per_hour, "crashes_per_hour", "interruptions per hour", 0.0, 1e9);
  require_timing(restart_minutes, checkpoint_interval_minutes, checkpoint_write_minutes, mode);
  const double lost = lost_per_crash_hours(restart_minutes, checkpoint_interval_minutes,
                                           checkpoint_write_minutes, mode);
  const double running = 1.0 - crashes_per_hour * lost;
  if (mode == CheckpointMode::asynchronous) return clamp01(running);
  const double work_share =
      checkpoint_interval_minutes / (checkpoint_interval_minutes + checkpoint_write_minutes);
  return clamp01(running * work_share);
}

double job_crashes_per_hour(double interruptions_per_1000_chip_days, std::int64_t n_chips) {
  require_real(interruptions_per_1000_chip_days, "interruptions-per-1000-chip-days",
               "interruptions per 1,000 chip-days", 0.0, kMaxRate);
  require_count(n_chips, "chips", "chips", 1, 10'000'000);
  return interruptions_per_1000_chip_days / 1000.0 * static_cast<double>(n_chips) / 24.0;
}

std::string checkpoint_interval_text(double minutes) {
  if (minutes <= 0) return "as often as possible (free writes)";
  return "every " + format_grouped(minutes, minutes < 10 ? 1 : 0) + " min";
}

std::string optimal_checkpoint_text(double minutes) {
  if (minutes <= 0) return "as often as possible (Young/Daly, free writes)";
  return checkpoint_interval_text(minutes) + " (Young/Daly)";
}

std::optional<double> young_daly_interval_minutes(double checkpoint_write_minutes,
                                                  double crashes_per_hour) {
  require_real(checkpoint_write_minutes, "checkpoint-write-min", "minutes", 0.0, kMaxMinutes);
  require_real(crashes_per_hour, "crashes_per_hour", "interruptions per hour", 0.0, 1e9);
  if (crashes_per_hour <= 0.0) return std::nullopt;
  const double mtbf_minutes = 60.0 / crashes_per_hour;
  return std::sqrt(2.0 * checkpoint_write_minutes * mtbf_minutes);
}

GoodputReport goodput_report(const GoodputInputs& in, std::int64_t n_chips,
                             double wall_clock_hours) {
  in.validate();
  require_real(wall_clock_hours, "hours", "hours", 0.0, 1e7);
  return report_at_rate(job_crashes_per_hour(in.interruptions_per_1000_chip_days, n_chips),
                        wall_clock_hours, in.restart_minutes, in.checkpoint_interval_minutes,
                        in.checkpoint_write_minutes, in.mode);
}

GoodputReport goodput_report_from_crashes(double total_hours, double crash_count,
                                          double restart_minutes,
                                          double checkpoint_interval_minutes,
                                          double checkpoint_write_minutes, CheckpointMode mode) {
  require_real(total_hours, "hours", "hours", 0.0, 1e7, true);
  require_real(crash_count, "crashes", "interruptions", 0.0, 1e9);
  require_timing(restart_minutes, checkpoint_interval_minutes, checkpoint_write_minutes, mode);
  return report_at_rate(crash_count / total_hours, total_hours, restart_minutes,
                        checkpoint_interval_minutes, checkpoint_write_minutes, mode);
}

GoodputCurve goodput_curve(const GoodputInputs& in, std::int64_t n_chips, int n_points) {
  in.validate();
  return goodput_curve_at_rate(job_crashes_per_hour(in.interruptions_per_1000_chip_days, n_chips),
                               in.restart_minutes, in.checkpoint_interval_minutes,
                               in.checkpoint_write_minutes, in.mode, n_points);
}

GoodputCurve goodput_curve_at_rate(double rate, double restart, double interval, double write,
                                   CheckpointMode mode, int n_points) {
  require_real(rate, "crashes_per_hour", "interruptions per hour", 0.0, 1e9);
  require_timing(restart, interval, write, mode);
  require_count(n_points, "n_points", "points", 2, 100'000);
  const double lo = mode == CheckpointMode::asynchronous ? std::max(write, 1.0) : 1.0;
  const double hi = std::max(48.0 * 60.0, 4.0 * lo);
  std::vector<double> xs;
  xs.reserve(static_cast<std::size_t>(n_points) + 2);
  const double a = std::log(lo), b = std::log(hi);
  for (int i = 0; i < n_points; ++i)
    xs.push_back(std::clamp(std::exp(a + (b - a) * i / (n_points - 1)), lo, hi));
  xs.front() = lo;  // exactly: exp(log(δ)) may round below δ

  GoodputCurve c;
  c.optimum_minutes = mode == CheckpointMode::synchronous
                          ? young_daly_interval_minutes(write, rate)
                          : (rate > 0.0 ? std::optional<double>(write) : std::nullopt);
  if (c.optimum_minutes) {
    c.optimum_goodput = goodput_at_interval(rate, restart, *c.optimum_minutes, write, mode);
    if (*c.optimum_minutes >= lo && *c.optimum_minutes <= hi) xs.push_back(*c.optimum_minutes);
  }
  c.current_minutes = interval;
  c.current_goodput = goodput_fraction(rate, restart, interval, write, mode);
  if (interval >= lo && interval <= hi) xs.push_back(interval);
  std::sort(xs.begin(), xs.end());
  xs.erase(std::unique(xs.begin(), xs.end()), xs.end());
  c.interval_minutes = xs;
  c.goodput.reserve(xs.size());
  for (double x : xs) c.goodput.push_back(goodput_fraction(rate, restart, x, write, mode));
  return c;
}

void GoodputSetup::validate() const {
  require_real(interruptions_per_1000_chip_days, "interruptions-per-1000-chip-days",
               "interruptions per 1,000 chip-days", 0.0, kMaxRate);
  require_real(restart_minutes, "restart-min", "minutes", 0.0, kMaxMinutes);
  require_interval(checkpoint_interval_minutes);
  if (checkpoint_write_minutes)
    require_real(*checkpoint_write_minutes, "checkpoint-write-min", "minutes", 0.0, kMaxMinutes);
  require_real(storage_bytes_per_s_per_chip, "storage-bytes-per-s-per-chip", "bytes/s per chip",
               0.0, 1e13, true);
}

GoodputInputs GoodputSetup::resolve(double n_params, std::int64_t n_chips, Optimizer optimizer,
                                    Precision precision) const {
  validate();
  require_count(n_chips, "chips", "chips", 1, 10'000'000);
  GoodputInputs in;
  in.interruptions_per_1000_chip_days = interruptions_per_1000_chip_days;
  in.restart_minutes = restart_minutes;
  in.checkpoint_interval_minutes = checkpoint_interval_minutes;
  in.mode = mode;
  in.checkpoint_write_minutes =
      checkpoint_write_minutes ? *checkpoint_write_minutes
                               : napkin::checkpoint_write_minutes(
                                     checkpoint_bytes(n_params, optimizer, precision),
                                     storage_bytes_per_s_per_chip * static_cast<double>(n_chips));
  in.validate();
  return in;
}

double checkpoint_bytes(double n_params, Optimizer optimizer, Precision precision) {
  require_real(n_params, "params", "parameters", 1.0, 1e15);
  const TrainingMemory m = training_memory(std::llround(n_params), 0, optimizer, precision, 0, 1);
  return static_cast<double>(m.weights) + static_cast<double>(m.optimizer);
}

double checkpoint_write_minutes(double bytes, double storage_bytes_per_s) {
  require_real(bytes, "checkpoint_bytes", "bytes", 0.0, 1e20);
  require_real(storage_bytes_per_s, "storage-bandwidth", "bytes/s", 0.0, 1e16, true);
  return bytes / storage_bytes_per_s / 60.0;
}

}  // namespace napkin
