// Calibrating the step-time model on measured runs, and the cluster profile
// that records the result (issue 25).
//
// The fitted constants are the model's own (CalibratedConstants in
// parallel.h): the achieved GEMM efficiency, the element-wise kernels' share
// of HBM bandwidth, the collective efficiency inside a node (scale-up) and
// across nodes (scale-out), and the host time per kernel. Every run is
// evaluated by the full step-time model on the cluster given as an input (GPUs
// per node, scale-up and scale-out bandwidth), with the constants in place of
// the datasheet values; the priors are the datasheet values (the chip's row of
// the hardware table, the framework preset's host dispatch), so a constant the
// runs do not constrain (scale-out on single-node runs) stays there.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "measured_runs.h"
#include "robust_fit.h"

namespace napkin {

// The five named constants, priors at `job`'s datasheet values.
std::vector<FitConstant> step_time_constants(const TrainingJob& job);
// The names, in fit order.
std::vector<std::string> step_time_constant_names();

// Fit-order values as the model's constants (runs 0).
CalibratedConstants constants_from_values(std::span<const double> values);
std::vector<double> values_of(const CalibratedConstants& k);

// The step of `job` on `layout` with `constants` in place of the datasheet
// values. Throws std::invalid_argument when the layout cannot run.
double predict_step_seconds(TrainingJob job, const Layout& layout,
                            std::span<const double> constants);

struct CalibrationRun {
  std::string label;  // "line 12"
  std::string source;
  TrainingJob job;
  Layout layout;
  double measured_step_seconds = 0;
};

struct Calibration {
  std::string chip;
  // The runs' framework as written ("megatron-deepspeed"; several joined by
  // ", ") and the software preset it maps to ("mixed" for runs of several).
  std::string framework;
  std::string software;
  std::optional<Network> network;  // the cluster input; unset: the chip's node
  std::vector<CalibrationRun> runs;
  std::vector<FitConstant> constants;
  ConstantFit fit;
  std::vector<std::string> skipped;  // runs without a step time, with why
};

// Fits the constants to the runs' step times (a run with only tokens/s gets
// its step from them), every run on `network` (the cluster input; unset: the
// chip's node). Throws std::invalid_argument when the runs are of more than
// one chip, a layout cannot run, or none has a step time. Constants named in
// `fixed` are held at their priors (throws naming the accepted names for
// another name). `keep_going`, when set, is asked before every model
// evaluation (from the calling thread); false stops the fit with Cancelled
// (parallel_for.h).
Calibration calibrate_step_time(const std::vector<MeasuredRun>& runs,
                                const ConstantFitOptions& options = {},
                                const std::vector<std::string>& fixed = {},
                                const std::optional<Network>& network = std::nullopt,
                                const std::function<bool()>& keep_going = {});

// The cluster profile: the chip, the cluster network the runs ran on, each
// fitted constant with its interval and prior, and the runs it came from with
// their residuals.
std::string profile_to_json(const Calibration& c);

struct ClusterProfile {
  std::string chip;
  std::string framework;  // what the runs ran under; "" in a profile that does not say
  std::string software;
  Network network;  // the cluster the runs ran on
  std::vector<FittedConstant> constants;
  std::int64_t runs = 0;
  std::vector<double> values() const;
  // The fitted values as the model's constants, with the count of runs.
  CalibratedConstants calibrated() const;
  // The slow and fast corners of the constants' bootstrap 90 % intervals
  // (p05 / p95; the host time the other way round).
  CalibratedInterval interval() const;
};
// Throws std::invalid_argument naming `source` and the key for a malformed
// profile (at most 16 MiB when read from a file).
ClusterProfile profile_from_json(std::string_view json, std::string_view source);
ClusterProfile load_profile_file(const std::string& path);

}  // namespace napkin
