// Goodput's numbers (goodput.*): the interruption rate, the restart time, the
// checkpoint interval and the checkpoint store's bandwidth, registered with the rest of the
// scenario's inputs (inputs.h), so that the Budget planner's controls, the scenario file and
// budget's flags take the same values. Their flag, label, unit and tooltip
// are the planner's own descriptions (plan_inputs.h), which its Monte Carlo
// and sensitivity read-outs also name them by; the interruption rate and the
// restart time can be ranges (input_range).
#include <array>
#include <string_view>

#include "goodput.h"
#include "inputs_detail.h"
#include "plan_inputs.h"
#include "scenario.h"

namespace napkin::detail {

namespace {

using S = Scenario;

constexpr double kMaxMinutes = 1e7;  // ~19 years: any longer is a typo

}  // namespace

std::span<const ScenarioInput> goodput_inputs() {
  static const InputInfo& rate = plan_input_info("interruptions_per_1000_chip_days");
  static const InputInfo& restart = plan_input_info("restart_minutes");
  static const InputInfo& interval = plan_input_info("checkpoint_interval_minutes");
  static const InputInfo& storage = plan_input_info("storage_bytes_per_s_per_chip");
  static const InputInfo& write = plan_input_info("checkpoint_write_minutes");
  static const std::array kGoodput{
      ScenarioInput{.key = "goodput.interruptions_per_1000_chip_days",
                    .section = "goodput",
                    .json_key = rate.key,
                    .flag = rate.flag,
                    .label = rate.label,
                    .unit = rate.unit,
                    .display_unit = "",
                    .default_value = kLlama3InterruptionsPer1000ChipDays,
                    .lo = 0,
                    .hi = 1e6,
                    .slider_lo = 0,
                    .slider_hi = 20,
                    .ladder = Ladder::multipleOf(0.001),
                    .decimals = 3,
                    .tooltip = rate.description,
                    .get = [](const S& s) { return s.goodput.interruptions_per_1000_chip_days; },
                    .set = [](S& s, double v) { s.goodput.interruptions_per_1000_chip_days = v; }},
      ScenarioInput{.key = "goodput.restart_minutes",
                    .section = "goodput",
                    .json_key = restart.key,
                    .flag = restart.flag,
                    .label = restart.label,
                    .unit = restart.unit,
                    .display_unit = "min",
                    .default_value = kDefaultRestartMinutes,
                    .lo = 0,
                    .hi = kMaxMinutes,
                    .slider_lo = 1,
                    .slider_hi = 600,
                    .scale = InputScale::log,
                    .ladder = Ladder::significant(2),
                    .tooltip = restart.description,
                    .get = [](const S& s) { return s.goodput.restart_minutes; },
                    .set = [](S& s, double v) { s.goodput.restart_minutes = v; }},
      ScenarioInput{.key = "goodput.checkpoint_interval_minutes",
                    .section = "goodput",
                    .json_key = interval.key,
                    .flag = interval.flag,
                    .label = interval.label,
                    .unit = interval.unit,
                    .display_unit = "min",
                    .default_value = kDefaultCheckpointIntervalMinutes,
                    .lo = 1e-3,
                    .hi = kMaxMinutes,
                    .slider_lo = 1,
                    .slider_hi = 2880,
                    .scale = InputScale::log,
                    .ladder = Ladder::significant(2),
                    .tooltip = interval.description,
                    .get = [](const S& s) { return s.goodput.checkpoint_interval_minutes; },
                    .set = [](S& s, double v) { s.goodput.checkpoint_interval_minutes = v; }},
      // Unset (the default): the checkpoint's bytes over the storage bandwidth.
      ScenarioInput{
          .key = "goodput.checkpoint_write_minutes",
          .section = "goodput",
          .json_key = write.key,
          .flag = write.flag,
          .label = write.label,
          .compare_name = "Checkpoint write time",
          .unit = write.unit,
          .display_unit = "min",
          .default_value = 0,
          .lo = 0,
          .hi = kMaxMinutes,
          .slider_lo = 0.01,
          .slider_hi = 600,
          .scale = InputScale::log,
          .ladder = Ladder::significant(2),
          .decimals = 2,
          .tooltip = write.description,
          .get = [](const S& s) { return s.goodput.checkpoint_write_minutes.value_or(0); },
          .set = [](S& s, double v) { s.goodput.checkpoint_write_minutes = v; },
          .is_set = [](const S& s) { return s.goodput.checkpoint_write_minutes.has_value(); },
          .clear = [](S& s) { s.goodput.checkpoint_write_minutes.reset(); },
          .unset_text = "from the storage bandwidth"},
      // Stored in bytes/s (the document's key says so); shown and flagged in
      // GB/s, 10^9 bytes/s.
      ScenarioInput{.key = "goodput.storage_bytes_per_s_per_chip",
                    .section = "goodput",
                    .json_key = storage.key,
                    .flag = storage.flag,
                    .label = storage.label,
                    .unit = storage.unit,
                    .display_unit = "GB/s",
                    .default_value = kLlama3StorageBytesPerSPerChip,
                    .lo = 1e6,
                    .hi = 1e13,
                    .slider_lo = 1e7,
                    .slider_hi = 1e10,
                    .scale = InputScale::log,
                    .ladder = Ladder::significant(2),
                    .decimals = 3,
                    .display_factor = 1e-9,
                    .tooltip = storage.description,
                    .get = [](const S& s) { return s.goodput.storage_bytes_per_s_per_chip; },
                    .set = [](S& s, double v) { s.goodput.storage_bytes_per_s_per_chip = v; },
                    .flag_in_shown_unit = true},
  };
  return kGoodput;
}

}  // namespace napkin::detail
