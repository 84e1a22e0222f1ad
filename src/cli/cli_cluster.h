// The cluster flags shared by the commands that take a training job
// (parallel, calibrate): --cluster NAME|FILE, --gpus-per-node,
// --scale-up-gb-per-s and --scale-out-gb-per-s.
#pragma once

#include <QJsonObject>
#include <optional>
#include <string>

#include "calibration.h"
#include "cli_common.h"
#include "hardware.h"
#include "parallel.h"

namespace napkin::cli {

// The cluster: --cluster NAME|FILE, or --gpus-per-node with --scale-up-gb-per-s
// and --scale-out-gb-per-s (per GPU, one direction); unset: the chip's node.
std::optional<Network> cluster_from_flags(Args& a, const std::string& chip);

// The constants a job runs with and where they come from: JSON
// {"calibrated", "runs", the five constants, "profile"} and a text line
// ending "(calibrated on N runs: FILE)" or "(published constants; no cluster profile)".
// `software`: the preset the plan runs (a profile fitted under another is flagged).
QJsonObject calibration_json(const TrainingJob& job, const std::optional<std::string>& path,
                             std::string_view software);
std::string calibration_text(const TrainingJob& job, const std::optional<std::string>& path,
                             std::string_view software);

// The profile of --cluster-profile FILE, refused (UsageError naming the flag)
// when malformed or calibrated on another chip than `chip`.
ClusterProfile cluster_profile_flag(const std::string& path, const std::string& chip);

}  // namespace napkin::cli
