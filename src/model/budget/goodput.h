// Goodput: the share of wall-clock a training run spends making progress
// when it crashes, restarts and checkpoints (seed Claim 13, "the number that
// matters"), with the first-order optimal checkpoint interval of Young (1974)
// and Daly (2006).
//
// Units: rates per 1,000 chip-days, times in minutes or hours as the names
// say; every result is finite (a run that can make no progress has goodput 0).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "algebra.h"

namespace napkin {

// Llama 3 (Dubey et al. 2024, "The Llama 3 Herd of Models", §3.3.4): 419
// unexpected interruptions in a 54-day snapshot of pre-training on 16,384
// H100 GPUs (466 in all, 47 of them planned maintenance).
inline constexpr double kLlama3UnexpectedInterruptions = 419;
inline constexpr double kLlama3SnapshotDays = 54;
inline constexpr double kLlama3Gpus = 16384;
// 419 / (54 × 16,384) × 1,000 ≈ 0.4736 interruptions per 1,000 chip-days.
inline constexpr double kLlama3InterruptionsPer1000ChipDays =
    kLlama3UnexpectedInterruptions / (kLlama3SnapshotDays * kLlama3Gpus) * 1000.0;
// Llama 3 §3.3.1: the Tectonic checkpoint store sustains 2 TB/s for the
// 16K-GPU cluster, ≈ 122 MB/s per GPU.
inline constexpr double kLlama3StorageBytesPerS = 2e12;
inline constexpr double kLlama3StorageBytesPerSPerChip = kLlama3StorageBytesPerS / kLlama3Gpus;

// Default restart and checkpoint cadence: the seed's hardened setup (Claim 13:
// 10-minute restarts, checkpoints every 15 minutes). With Llama 3's
// interruption rate on 16,384 GPUs it gives ~90 % goodput, as Llama 3 reports
// (">90 % effective training time"); 30–60 minutes would give 68–80 %.
inline constexpr double kDefaultRestartMinutes = 10;
inline constexpr double kDefaultCheckpointIntervalMinutes = 15;

// The seed's goodput, exactly as printed (seed Claim 13): every crash costs
// the restart plus, on average, half a checkpoint interval of redone work;
// checkpoints themselves are free. max(0, (T − n·(R + τ/2)/60) / T).
// goodput_seed(960, 200, 45, 120) = 0.635; goodput_seed(960, 200, 10, 15) = 0.939.
double goodput_seed(double total_hours, double crash_count, double restart_minutes,
                    double checkpoint_interval_minutes);

enum class CheckpointMode {
  // Training stops while the checkpoint is written: each period is τ of work
  // plus δ of writing, and a crash loses on average half a period.
  synchronous,
  // Training goes on while the checkpoint is written (the device-to-host
  // snapshot is taken as free): a crash loses the work since the last
  // checkpoint that finished, on average τ/2 + δ; needs τ ≥ δ.
  asynchronous,
};

struct GoodputInputs {
  double interruptions_per_1000_chip_days = kLlama3InterruptionsPer1000ChipDays;
  double restart_minutes = kDefaultRestartMinutes;  // detect, reschedule, reload, warm up
  double checkpoint_interval_minutes = kDefaultCheckpointIntervalMinutes;  // τ, between checkpoints
  double checkpoint_write_minutes = 0;  // δ, minutes to persist one checkpoint
  CheckpointMode mode = CheckpointMode::synchronous;
  // Throws std::invalid_argument naming the field (as the CLI flag is spelt).
  void validate() const;
  bool operator==(const GoodputInputs&) const = default;
};

struct GoodputReport {
  double crashes_per_hour = 0;       // the whole job's interruption rate
  std::optional<double> mtbf_hours;  // 1 / rate; none without interruptions
  double wall_clock_hours = 0;
  double expected_crashes = 0;        // rate × wall-clock
  double lost_per_crash_minutes = 0;  // restart + redone work
  double crash_lost_hours = 0;        // crashes × lost per crash (≤ wall-clock)
  double checkpoint_stall_hours = 0;  // synchronous writes
  double lost_hours = 0;              // wall-clock − productive
  double productive_hours = 0;
  double goodput = 1;  // productive ÷ wall-clock, in [0, 1]
  // Young/Daly: √(2·δ·MTBF) for synchronous writes; for asynchronous ones
  // as often as the store allows (δ). None without interruptions.
  std::optional<double> optimal_checkpoint_minutes;
  double goodput_at_optimum = 1;
};

// Goodput as a fraction of wall-clock for a job whose interruption rate is
// `crashes_per_hour` (first order: crashes during a restart are not counted
// twice). Clamped to [0, 1].
double goodput_fraction(double crashes_per_hour, double restart_minutes,
                        double checkpoint_interval_minutes, double checkpoint_write_minutes,
                        CheckpointMode mode);

// The job's interruptions per hour: rate per 1,000 chip-days × chips / 24,000.
double job_crashes_per_hour(double interruptions_per_1000_chip_days, std::int64_t n_chips);

// Young (1974) / Daly (2006) first-order optimum √(2·δ·MTBF), minutes; 0 when
// δ = 0; nullopt without interruptions.
// A checkpoint interval as the planner says it: "every 18 min", "every 7.5
// min"; 0, the optimum when a checkpoint costs nothing to write, "as often as
// possible (free writes)".
std::string checkpoint_interval_text(double minutes);
// The Young/Daly optimum so named: "every 33 min (Young/Daly)", or "as often
// as possible (Young/Daly, free writes)" at 0.
std::string optimal_checkpoint_text(double minutes);

std::optional<double> young_daly_interval_minutes(double checkpoint_write_minutes,
                                                  double crashes_per_hour);

// A run of `wall_clock_hours` on `n_chips` chips.
GoodputReport goodput_report(const GoodputInputs& in, std::int64_t n_chips,
                             double wall_clock_hours);
// The same from a crash count over a run (the seed's form): rate = crashes ÷ hours.
GoodputReport goodput_report_from_crashes(double total_hours, double crash_count,
                                          double restart_minutes,
                                          double checkpoint_interval_minutes,
                                          double checkpoint_write_minutes = 0,
                                          CheckpointMode mode = CheckpointMode::synchronous);

// Goodput against the checkpoint interval, for a plot: log-spaced intervals
// (from the write time or 1 minute up to 48 hours), with the optimum and the
// chosen interval marked.
struct GoodputCurve {
  std::vector<double> interval_minutes;
  std::vector<double> goodput;
  std::optional<double> optimum_minutes;
  double optimum_goodput = 1;
  double current_minutes = 0;
  double current_goodput = 1;
};
GoodputCurve goodput_curve(const GoodputInputs& in, std::int64_t n_chips, int n_points = 121);
// The same for a job interruption rate given directly (crashes per hour).
GoodputCurve goodput_curve_at_rate(double crashes_per_hour, double restart_minutes,
                                   double checkpoint_interval_minutes,
                                   double checkpoint_write_minutes, CheckpointMode mode,
                                   int n_points = 121);

// The goodput inputs as a plan carries them: the write time typed, or derived
// from the model's checkpoint bytes and the store's bandwidth per chip.
struct GoodputSetup {
  double interruptions_per_1000_chip_days = kLlama3InterruptionsPer1000ChipDays;
  double restart_minutes = kDefaultRestartMinutes;
  double checkpoint_interval_minutes = kDefaultCheckpointIntervalMinutes;
  std::optional<double> checkpoint_write_minutes;  // nullopt: bytes ÷ storage bandwidth
  double storage_bytes_per_s_per_chip = kLlama3StorageBytesPerSPerChip;
  CheckpointMode mode = CheckpointMode::synchronous;
  void validate() const;
  // GoodputInputs for a model of `n_params` trained on `n_chips`.
  GoodputInputs resolve(double n_params, std::int64_t n_chips,
                        Optimizer optimizer = Optimizer::adam,
                        Precision precision = Precision::mixed_bf16) const;
  bool operator==(const GoodputSetup&) const = default;
};

// Bytes one checkpoint persists: the weights and the optimizer states (not
// the gradients), from the Phase 00 memory algebra.
double checkpoint_bytes(double n_params, Optimizer optimizer = Optimizer::adam,
                        Precision precision = Precision::mixed_bf16);
// Minutes to write `bytes` at `storage_bytes_per_s` (the store's aggregate
// write bandwidth available to the job).
double checkpoint_write_minutes(double bytes, double storage_bytes_per_s);

}  // namespace napkin
