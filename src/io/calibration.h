// Calibrating the step-time model on measured runs, and the cluster profile
// that records the result (issue 25).
//
// The adapter between the generic fitter (robust_fit.h) and the step-time
// model (parallel.h) is small on purpose: each run is evaluated once with the
// datasheet model, its step split into what scales with kernel speed
// (compute, recompute, the pipeline bubble, the optimizer), what scales with
// the network (exposed TP, PP, DP, EP and CP communication) and the count of
// micro-batches; the named constants then act on those parts:
//   step = compute_factor · compute_parts + network_factor · comm_parts
//          + micro_batch_overhead_seconds · micro-batches + step_overhead_seconds
// compute_factor = 1 is the chip's datasheet peak at the kernel model's
// efficiencies (hardware.cpp); the achieved matmul efficiency it implies is
// efficiency.matmul / compute_factor. network_factor = 1 is the datasheet
// links at efficiency.link. The overheads (kernel launches, host work, data
// loading) are 0 in the datasheet model.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "measured_runs.h"
#include "robust_fit.h"

namespace napkin {

// The four named constants with their priors and bounds.
std::vector<FitConstant> step_time_constants();

// A run's step split into the parts the constants act on.
struct StepParts {
  double compute_seconds = 0;  // compute + recompute + bubble + optimizer
  double comm_seconds = 0;     // exposed communication (TP, PP sends, DP, EP, CP)
  double micro_batches = 0;    // per pipeline per step
};
StepParts step_parts(const TrainingJob& job, const Layout& layout);
double predict_step_seconds(const StepParts& parts, std::span<const double> constants);

struct CalibrationRun {
  std::string label;  // "line 12"
  std::string source;
  TrainingJob job;
  Layout layout;
  double measured_step_seconds = 0;
  StepParts parts;
};

struct Calibration {
  std::string chip;
  std::vector<CalibrationRun> runs;
  std::vector<FitConstant> constants;
  ConstantFit fit;
  std::vector<std::string> skipped;  // runs without a step time, with why
};

// Fits the constants to the runs' step times (a run with only tokens/s gets
// its step from them). Throws std::invalid_argument when the runs are of
// more than one chip or none has a step time. Constants named in `fixed` are
// held at their priors (throws naming the accepted names for another name).
Calibration calibrate_step_time(const std::vector<MeasuredRun>& runs,
                                const ConstantFitOptions& options = {},
                                const std::vector<std::string>& fixed = {});

// The cluster profile: the chip, its network, each fitted constant with its
// interval and prior, and the runs it came from with their residuals.
std::string profile_to_json(const Calibration& c);

struct ClusterProfile {
  std::string chip;
  std::vector<FittedConstant> constants;
  std::int64_t runs = 0;
  std::vector<double> values() const;
};
// Throws std::invalid_argument naming `source` and the key for a malformed
// profile (at most 16 MiB when read from a file).
ClusterProfile profile_from_json(std::string_view json, std::string_view source);
ClusterProfile load_profile_file(const std::string& path);

}  // namespace napkin
