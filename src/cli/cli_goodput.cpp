// napkin-cli goodput: the share of a run's wall-clock that trains, from its
// interruptions, restarts and checkpoints.
#include "cli_plan.h"

#include <QJsonArray>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "format.h"
#include "goodput.h"
#include "inputs.h"
#include "validate.h"

namespace napkin::cli {

namespace {

// --------------------------------------------------------------- goodput

int run_goodput(Args& a) {
  const bool json = a.flag("--json");
  const double hours = a.required_real("--hours", 1e-3, 1e7, "hours of wall-clock");
  const auto crashes = a.optional_real("--crashes", 0, 1e9, "interruptions");
  const auto rate = a.optional_real("--interruptions-per-1000-chip-days", 0, 1e6,
                                    "interruptions per 1,000 chip-days");
  if (crashes && rate)
    throw UsageError(
        "give --crashes (a count) or --interruptions-per-1000-chip-days (a rate), "
        "not both");
  std::int64_t chips = 0;
  if (!crashes) chips = a.required_count_input("hardware.chips");
  const double restart = a.real("--restart-min", kDefaultRestartMinutes, 0, 1e7, "minutes");
  const double interval =
      a.real("--checkpoint-min", kDefaultCheckpointIntervalMinutes, 1e-3, 1e7, "minutes");
  // Without a model there are no checkpoint bytes to derive it from: 0.
  const double write = a.optional_input("goodput.checkpoint_write_minutes").value_or(0);
  const CheckpointMode mode = a.switch_input("goodput.checkpoint_mode")
                                  ? CheckpointMode::asynchronous
                                  : CheckpointMode::synchronous;
  const bool curve = a.flag("--curve");
  a.finish();

  GoodputReport g;
  double crashes_per_hour = 0;
  if (crashes) {
    g = goodput_report_from_crashes(hours, *crashes, restart, interval, write, mode);
    crashes_per_hour = *crashes / hours;
  } else {
    GoodputInputs in;
    in.interruptions_per_1000_chip_days = rate.value_or(kLlama3InterruptionsPer1000ChipDays);
    in.restart_minutes = restart;
    in.checkpoint_interval_minutes = interval;
    in.checkpoint_write_minutes = write;
    in.mode = mode;
    g = goodput_report(in, chips, hours);
    crashes_per_hour = g.crashes_per_hour;
  }
  const double seed = goodput_seed(hours, g.expected_crashes, restart, interval);

  if (json) {
    QJsonObject o{
        {"goodput", g.goodput},
        {"goodput_seed", seed},
        {"lost_hours", g.lost_hours},
        {"optimal_checkpoint_min", optional_json(g.optimal_checkpoint_minutes)},
        {"goodput_at_optimum", g.goodput_at_optimum},
        {"hours", hours},
        {"expected_crashes", g.expected_crashes},
        {"mtbf_hours", optional_json(g.mtbf_hours)},
        {"lost_per_crash_min", g.lost_per_crash_minutes},
        {"crash_lost_hours", g.crash_lost_hours},
        {"checkpoint_stall_hours", g.checkpoint_stall_hours},
        {"productive_hours", g.productive_hours},
        {"checkpoint_write_min", write},
        {"checkpoint_mode", mode == CheckpointMode::synchronous ? QStringLiteral("synchronous")
                                                                : QStringLiteral("asynchronous")}};
    if (curve) {
      const GoodputCurve c =
          goodput_curve_at_rate(crashes_per_hour, restart, interval, write, mode);
      QJsonArray xs, ys;
      for (double x : c.interval_minutes) xs.append(x);
      for (double y : c.goodput) ys.append(y);
      o["curve"] = QJsonObject{{"interval_min", xs}, {"goodput", ys}};
    }
    print_json(o);
    return 0;
  }
  std::printf("Goodput: %s hours of wall-clock, %s interruptions\n",
              format_grouped(hours, 1).c_str(), format_grouped(g.expected_crashes, 1).c_str());
  row("goodput", format_percent(g.goodput, 1));
  row("seed formula (Claim 13)",
      format_grouped(seed, 3) + " (restart + half an interval per crash, free checkpoints)");
  row("lost hours", format_grouped(g.lost_hours, 1) + " (" + format_grouped(g.crash_lost_hours, 1) +
                        " to crashes, " + format_grouped(g.checkpoint_stall_hours, 1) +
                        " to checkpoint writes)");
  row("lost per crash", format_grouped(g.lost_per_crash_minutes, 1) + " min");
  if (g.mtbf_hours) row("MTBF (whole job)", format_grouped(*g.mtbf_hours, 2) + " h");
  if (g.optimal_checkpoint_minutes) {
    row("optimal checkpoint",
        checkpoint_interval_text(*g.optimal_checkpoint_minutes) + " -> " +
            format_percent(g.goodput_at_optimum, 1) +
            (mode == CheckpointMode::synchronous
                 ? std::string(" (Young/Daly sqrt(2 x write x MTBF))")
                 : std::string(" (asynchronous: as soon as the last one is written)")));
    if (write == 0)
      row("", "checkpoint writes are free (--checkpoint-write-min 0): checkpoint continuously");
  }
  return 0;
}

// ------------------------------------------------------- train this model

}  // namespace

std::vector<Command> plan_commands() {
  return {
      {"goodput",
       "goodput --hours H (--crashes N | --chips C [--interruptions-per-1000-chip-days 0.474]) "
       "[--restart-min 10] [--checkpoint-min 15] [--checkpoint-write-min 0] "
       "[--checkpoint-async] [--curve]",
       run_goodput},
  };
}

}  // namespace napkin::cli
