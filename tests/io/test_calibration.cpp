// Calibrating the step-time model on measured runs: the vTrain rows (one
// real A100 cluster), the cluster profile file, a recovered synthetic cluster.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "calibration.h"
#include "measured_runs.h"

using namespace napkin;

namespace {

std::string data(const std::string& name) { return std::string(NAPKIN_TEST_DATA) + "/" + name; }

// What tests/data/vtrain/SOURCE.md states for every row and the files lack.
RunDefaults vtrain_defaults() {
  return {{"chip", "A100-80"},
          {"vocab", "50304"},
          {"recompute", "full"},
          {"framework", "megatron-deepspeed"}};
}

// The ten calibration rows, chosen by a rule blind to the multi-node rows:
// the largest single-node model (hidden 2,048, 24 layers) on all 8 GPUs with
// a global batch of at least 16 sequences, the first ten in file order.
const std::set<std::int64_t> kCalibrationLines = {21, 59, 63, 74, 78, 103, 106, 123, 237, 242};

std::vector<MeasuredRun> calibration_rows() {
  const MeasuredRuns all = load_runs_file(data("vtrain/single_node_runs.csv"), vtrain_defaults());
  std::vector<MeasuredRun> out;
  for (const MeasuredRun& r : all.runs)
    if (kCalibrationLines.count(r.line)) out.push_back(r);
  return out;
}

}  // namespace

TEST(Calibration, TenVtrainSingleNodeRows) {
  const std::vector<MeasuredRun> rows = calibration_rows();
  ASSERT_EQ(rows.size(), 10u);
  for (const MeasuredRun& r : rows) {  // the rule, checked
    EXPECT_EQ(r.job.n_chips, 8);
    EXPECT_EQ(r.job.shape.d_model, 2048);
    EXPECT_EQ(r.job.shape.n_layers, 24);
    EXPECT_GE(r.job.global_batch, 16);
  }
  ConstantFitOptions o;
  o.bootstrap = 40;
  const Calibration c = calibrate_step_time(rows, o);
  EXPECT_EQ(c.chip, "A100-80");
  // The cluster's NVLink ran at 150 GB/s (SOURCE.md) against the DGX A100's
  // 300 GB/s in the hardware table: the fitted network factor is about 2.
  EXPECT_NEAR(c.fit.constants[1].value, 2.03, 0.1);
  EXPECT_NEAR(c.fit.constants[0].value, 0.81, 0.03);
  for (const FittedConstant& k : c.fit.constants) {
    EXPECT_LE(k.p05, k.value + 1e-9) << k.name;
    EXPECT_GE(k.p95, k.value - 1e-9) << k.name;
  }
  // In sample and left out, the calibrated model beats the datasheet model.
  EXPECT_NEAR(c.fit.prior_error.mean_abs, 0.148, 0.005);
  EXPECT_LT(c.fit.fit_error.mean_abs, 0.06);
  EXPECT_LT(c.fit.loo_error.mean_abs, 0.10);
}

TEST(Calibration, PredictingTheMultiNodeRowsIsNotImprovedYet) {
  // The target: calibrated on the ten rows, the 52 public multi-node
  // rows' mean error a third below the datasheet model's. With constants
  // that scale whole parts of the step this does not transfer: small
  // single-node GEMMs run relatively faster than the kernel model says, and
  // that does not hold for the multi-node models. Recorded, not hidden; the
  // numbers change when the adapter is pointed at a shape-dependent kernel
  // model and a cluster network input.
  const Calibration c = calibrate_step_time(calibration_rows(), ConstantFitOptions{0.05, 1.5, 0});
  const MeasuredRuns multi =
      load_runs_file(data("vtrain/multi_node_runs_public.csv"), vtrain_defaults());
  ASSERT_EQ(multi.runs.size(), 52u);
  std::vector<double> measured, prior, calibrated;
  const std::vector<double> priors = {1, 1, 0, 0};
  for (const MeasuredRun& r : multi.runs) {
    const StepParts p = step_parts(r.job, r.layout);
    measured.push_back(*r.measured.step_seconds);
    prior.push_back(predict_step_seconds(p, priors));
    calibrated.push_back(predict_step_seconds(p, c.fit.values()));
  }
  const ErrorSummary before = relative_errors(prior, measured);
  const ErrorSummary after = relative_errors(calibrated, measured);
  EXPECT_NEAR(before.mean_abs, 0.095, 0.005);
  EXPECT_NEAR(before.mean_signed, -0.061, 0.005);
  EXPECT_NEAR(after.mean_abs, 0.123, 0.005);
  EXPECT_NEAR(after.mean_signed, -0.093, 0.005);
}

TEST(Calibration, RecoversASyntheticCluster) {
  // Runs "measured" on a cluster whose kernels are 20 % slower and network
  // 1.5× slower than the datasheet, with 3 ms per micro-batch.
  const std::vector<double> truth = {1.2, 1.5, 0.003, 0.0};
  std::vector<MeasuredRun> runs = calibration_rows();
  const MeasuredRuns more = load_runs_file(data("vtrain/single_node_runs.csv"), vtrain_defaults());
  for (std::size_t i = 0; i < more.runs.size() && runs.size() < 30; i += 97)
    runs.push_back(more.runs[i]);
  for (MeasuredRun& r : runs)
    r.measured.step_seconds = predict_step_seconds(step_parts(r.job, r.layout), truth);
  const Calibration c = calibrate_step_time(runs, ConstantFitOptions{0.05, 1.5, 0});
  EXPECT_NEAR(c.fit.constants[0].value, 1.2, 0.03);
  EXPECT_NEAR(c.fit.constants[1].value, 1.5, 0.1);
  EXPECT_LT(c.fit.fit_error.mean_abs, 0.01);
}

TEST(Calibration, FixedConstantsStayAtTheirPriors) {
  const Calibration c = calibrate_step_time(calibration_rows(), ConstantFitOptions{0.05, 1.5, 0},
                                            {"compute_factor", "step_overhead_seconds"});
  EXPECT_DOUBLE_EQ(c.fit.constants[0].value, 1.0);
  EXPECT_DOUBLE_EQ(c.fit.constants[3].value, 0.0);
  EXPECT_THROW(calibrate_step_time(calibration_rows(), {}, {"mfu"}), std::invalid_argument);
}

TEST(Calibration, ProfileRoundTripAndBadProfiles) {
  const Calibration c = calibrate_step_time(calibration_rows(), ConstantFitOptions{0.05, 1.5, 10});
  const std::string json = profile_to_json(c);
  const ClusterProfile p = profile_from_json(json, "p.json");
  EXPECT_EQ(p.chip, "A100-80");
  EXPECT_EQ(p.runs, 10);
  ASSERT_EQ(p.constants.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k)
    EXPECT_NEAR(p.constants[k].value, c.fit.constants[k].value, 1e-12);
  try {
    std::string bad = json;
    bad.replace(bad.find("\"compute_factor\""), 16, "\"speed\"");
    profile_from_json(bad, "p.json");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "p.json: key \"constants[0].name\": expected \"compute_factor\"");
  }
  EXPECT_THROW(profile_from_json("{", "p.json"), std::invalid_argument);
  EXPECT_THROW(profile_from_json("{\"format\":\"x\"}", "p.json"), std::invalid_argument);
}

TEST(Calibration, MixedChipsAreRefused) {
  std::vector<MeasuredRun> rows = calibration_rows();
  rows[3].job.chip = "H100";
  try {
    calibrate_step_time(rows);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("calibrate one chip at a time"), std::string::npos);
  }
}
