// The cluster flags shared by the commands that take a training job
// (parallel, calibrate): --cluster NAME|FILE, --gpus-per-node,
// --scale-up-gb-per-s and --scale-out-gb-per-s.
#pragma once

#include <optional>
#include <string>

#include "cli_common.h"
#include "hardware.h"

namespace napkin::cli {

// The cluster: --cluster NAME|FILE, or --gpus-per-node with --scale-up-gb-per-s
// and --scale-out-gb-per-s (per GPU, one direction); unset: the chip's node.
std::optional<Network> cluster_from_flags(Args& a, const std::string& chip);

}  // namespace napkin::cli
