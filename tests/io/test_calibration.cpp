// Calibrating the step-time model on measured runs: the vTrain rows (one
// real A100 cluster), the cluster profile file, a recovered synthetic cluster.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>
#include <stdexcept>
#include <string>

#include <QTemporaryDir>

#include "atomic_writer.h"
#include "calibration.h"
#include "format.h"
#include "hardware.h"
#include "io_test_util.h"
#include "measured_runs.h"
#include "plan.h"
#include "scenario_json.h"

using namespace io_test;

using namespace napkin;

namespace {

// What tests/data/vtrain/SOURCE.md states for every row and the files lack.

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

// The vTrain cluster as the scoreboard states it (training_validation.cpp):
// 8 A100s per node, NVLink as in a DGX A100, 800 Gb/s InfiniBand per node
// (12.5 GB/s per GPU).
Network vtrain_cluster() {
  const Network& dgx = cluster_by_name("dgx-a100").network;
  return custom_network(8, dgx.intra_node_bytes_per_s / 1e9, 12.5, dgx);
}

ErrorSummary predict_rows(const std::vector<MeasuredRun>& rows, std::span<const double> k) {
  std::vector<double> measured, predicted;
  for (const MeasuredRun& r : rows) {
    TrainingJob job = r.job;
    job.network = vtrain_cluster();
    measured.push_back(*r.measured.step_seconds);
    predicted.push_back(predict_step_seconds(job, r.layout, k));
  }
  return relative_errors(predicted, measured);
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
  o.bootstrap = 20;
  const Calibration c = calibrate_step_time(rows, o, {}, vtrain_cluster());
  EXPECT_EQ(c.chip, "A100-80");
  ASSERT_EQ(c.fit.constants.size(), 5u);
  // Priors at the datasheet values: the A100 row of hardware.cpp and the
  // megatron-deepspeed preset's host time per kernel.
  EXPECT_DOUBLE_EQ(c.constants[0].prior, 0.80);
  EXPECT_DOUBLE_EQ(c.constants[1].prior, 0.70);
  EXPECT_DOUBLE_EQ(c.constants[2].prior, 0.78);
  EXPECT_DOUBLE_EQ(c.constants[4].prior, 60e-6);
  for (const FittedConstant& k : c.fit.constants) {
    EXPECT_LE(k.p05, k.value + 1e-9) << k.name;
    EXPECT_GE(k.p95, k.value - 1e-9) << k.name;
  }
  // What the ten rows identify (the Laplace posterior's standard deviation
  // over the prior's): the GEMM efficiency and the host time per kernel.
  // The element-wise efficiency acts on the same compute-bound rows as the
  // GEMMs (their effects correlate -0.9), NVLink collectives are a few per
  // cent of any row, and no row crosses a node: the three stay at their priors.
  EXPECT_FALSE(c.fit.constants[0].held);
  EXPECT_LT(c.fit.constants[0].sd_ratio, 0.5);
  EXPECT_FALSE(c.fit.constants[4].held);
  EXPECT_LT(c.fit.constants[4].sd_ratio, 0.1);
  for (std::size_t k : {1, 2, 3}) {
    EXPECT_TRUE(c.fit.constants[k].held) << c.fit.constants[k].name;
    EXPECT_GT(c.fit.constants[k].sd_ratio, 0.8) << c.fit.constants[k].name;
    EXPECT_DOUBLE_EQ(c.fit.constants[k].value, c.constants[k].prior);
    // Its interval is the prior's 90 % range, not a point.
    EXPECT_LT(c.fit.constants[k].p05, c.fit.constants[k].value);
    EXPECT_GT(c.fit.constants[k].p95, c.fit.constants[k].value);
    EXPECT_EQ(c.constants[k].source.rfind("held at its published value", 0), 0u);
  }
  // Ceilings: the A100's best published GEMM (MAMF 267.9 of 312 TFLOP/s) and
  // a plain copy's share of HBM bandwidth.
  EXPECT_DOUBLE_EQ(c.constants[0].hi, 0.859);
  EXPECT_DOUBLE_EQ(c.constants[1].hi, 0.88);
  // The compute-bound rows ask for faster GEMMs than any measured on an
  // A100: the fit stops at the ceiling, and what is left is the model's miss
  // at this shape (README, "Calibration on one real cluster"). Host-bound
  // small models: the host time per kernel rises to about 85 µs.
  EXPECT_NEAR(c.fit.constants[0].value, 0.859, 1e-6);
  EXPECT_NEAR(c.fit.constants[4].value, 85.0e-6, 3e-6);
  // In sample and left out, the calibrated model beats the datasheet model.
  std::printf(
      "ten rows: datasheet %.1f %% / %+.1f %%, calibrated %.1f %% / %+.1f %%, "
      "left out %.1f %% / %+.1f %%\n",
      100 * c.fit.prior_error.mean_abs, 100 * c.fit.prior_error.mean_signed,
      100 * c.fit.fit_error.mean_abs, 100 * c.fit.fit_error.mean_signed,
      100 * c.fit.loo_error.mean_abs, 100 * c.fit.loo_error.mean_signed);
  EXPECT_NEAR(c.fit.prior_error.mean_abs, 0.148, 0.005);
  EXPECT_NEAR(c.fit.prior_error.mean_signed, -0.019, 0.005);
  EXPECT_NEAR(c.fit.fit_error.mean_abs, 0.094, 0.005);
  EXPECT_NEAR(c.fit.loo_error.mean_abs, 0.114, 0.005);
}

TEST(Calibration, PredictingTheMultiNodeRowsFallsShortOfTheTarget) {
  // The target: calibrated on the ten rows, the 52 public multi-node
  // rows' mean error a third below the datasheet model's (8.2 % to 5.5 %).
  // Not met (8.1 %). Before the pipeline sends were partitioned both ways
  // (DeepSpeed's is_grad_partitioned) the datasheet model gave 9.6 % and the
  // calibrated one 8.9 %, and fitted to the 52 rows themselves, with no
  // ceiling and every constant free, the five constants reached 8.1 %. At
  // hidden 2,048 and TP 1 the datasheet model's time per layer is
  // 27-35 % above the measured one at micro-batches of 2 and more: its GEMMs
  // of 2,048 x 2,048 outputs fill 128 of 216 slots of two waves of 256 x 128
  // tiles on 108 SMs, a loss the measured steps do not show. A fit to those
  // rows speeds up every GEMM (to the ceiling), and the multi-node models
  // (hidden 3,072 to 12,288, nearly whole waves) come out optimistic. Their
  // largest misses (TP 2 with 8-16 stages across nodes, TP 8 at
  // micro-batch 64) are the datasheet model's too. Recorded, not hidden.
  const Calibration c = calibrate_step_time(calibration_rows(), ConstantFitOptions{0.05, 1.5, 0},
                                            {}, vtrain_cluster());
  const MeasuredRuns multi =
      load_runs_file(data("vtrain/multi_node_runs_public.csv"), vtrain_defaults());
  ASSERT_EQ(multi.runs.size(), 52u);
  std::vector<double> priors;
  for (const FitConstant& k : c.constants) priors.push_back(k.prior);
  const ErrorSummary before = predict_rows(multi.runs, priors);
  const ErrorSummary after = predict_rows(multi.runs, c.fit.values());
  std::printf("multi-node rows: datasheet %.1f %% / %+.1f %%, calibrated %.1f %% / %+.1f %%\n",
              100 * before.mean_abs, 100 * before.mean_signed, 100 * after.mean_abs,
              100 * after.mean_signed);
  EXPECT_NEAR(before.mean_abs, 0.082, 0.003);
  EXPECT_NEAR(before.mean_signed, -0.030, 0.003);
  EXPECT_NEAR(after.mean_abs, 0.081, 0.003);
  EXPECT_NEAR(after.mean_signed, -0.072, 0.003);
  EXPECT_GT(after.mean_abs, before.mean_abs * 2 / 3);  // the target, not met
}

TEST(Calibration, DatasheetConstantsReproduceTheUncalibratedStep) {
  const MeasuredRun r = calibration_rows().front();
  TrainingJob job = r.job;
  job.network = vtrain_cluster();
  const double datasheet = evaluate_layout(job, r.layout).step_seconds;
  EXPECT_NEAR(predict_step_seconds(job, r.layout, values_of(job.constants())), datasheet,
              1e-12 * datasheet);
  // Slower GEMMs, a longer host wait: a longer step; the count of runs is kept.
  std::vector<double> slower = values_of(job.constants());
  slower[0] /= 2;
  EXPECT_GT(predict_step_seconds(job, r.layout, slower), 1.2 * datasheet);
  job.calibrated = CalibratedConstants{0.5, 0.7, 0.78, 0.78, 2e-3, 3, {}, {}};
  EXPECT_GT(evaluate_layout(job, r.layout).step_seconds, 2 * datasheet);
  job.calibrated->matmul_efficiency = 1.5;
  EXPECT_THROW(job.validate(), std::invalid_argument);
}

TEST(Calibration, RecoversASyntheticCluster) {
  // Runs "measured" on a cluster with slower GEMMs, element-wise kernels and
  // NVLink than the datasheet and 40 µs per kernel on the host.
  const std::vector<double> truth = {0.65, 0.55, 0.6, 0.78, 40e-6};
  std::vector<MeasuredRun> runs = calibration_rows();
  const MeasuredRuns more = load_runs_file(data("vtrain/single_node_runs.csv"), vtrain_defaults());
  for (std::size_t i = 0; i < more.runs.size() && runs.size() < 30; i += 97)
    runs.push_back(more.runs[i]);
  for (MeasuredRun& r : runs) {
    TrainingJob job = r.job;
    job.network = vtrain_cluster();
    r.measured.step_seconds = predict_step_seconds(job, r.layout, truth);
  }
  const Calibration c =
      calibrate_step_time(runs, ConstantFitOptions{0.05, 1.5, 0}, {}, vtrain_cluster());
  EXPECT_NEAR(c.fit.constants[0].value, 0.65, 0.03);
  EXPECT_NEAR(c.fit.constants[4].value, 40e-6, 4e-6);
  EXPECT_LT(c.fit.fit_error.mean_abs, 0.01);
}

TEST(Calibration, FixedConstantsStayAtTheirPriors) {
  const Calibration c = calibrate_step_time(calibration_rows(), ConstantFitOptions{0.05, 1.5, 0},
                                            {"matmul_efficiency", "host_dispatch_seconds"});
  EXPECT_DOUBLE_EQ(c.fit.constants[0].value, 0.8);
  EXPECT_DOUBLE_EQ(c.fit.constants[4].value, 60e-6);
  EXPECT_THROW(calibrate_step_time(calibration_rows(), {}, {"mfu"}), std::invalid_argument);
}

TEST(Calibration, ProfileRoundTripAndBadProfiles) {
  const Calibration c = calibrate_step_time(calibration_rows(), ConstantFitOptions{0.05, 1.5, 10},
                                            {}, vtrain_cluster());
  const std::string json = profile_to_json(c);
  const ClusterProfile p = profile_from_json(json, "p.json");
  EXPECT_EQ(p.chip, "A100-80");
  EXPECT_EQ(p.runs, 10);
  EXPECT_EQ(p.network.chips_per_node, 8);
  EXPECT_NEAR(p.network.inter_node_bytes_per_s, 12.5e9, 1);
  // The node's topology round-trips; a profile from before it was written
  // takes the chip's (an A100's NVSwitch), and a bad one is refused.
  EXPECT_FALSE(p.network.full_mesh);
  EXPECT_NE(json.find("\"scale_up_topology\": \"switch\""), std::string::npos) << json;
  {
    std::string mesh = json;
    mesh.replace(mesh.find("\"switch\""), 8, "\"full_mesh\"");
    EXPECT_TRUE(profile_from_json(mesh, "p.json").network.full_mesh);
    std::string old = json;
    old.erase(old.find("\"scale_up_topology\": \"switch\","),
              std::string("\"scale_up_topology\": \"switch\",").size());
    EXPECT_FALSE(profile_from_json(old, "p.json").network.full_mesh);
    std::string ring = json;
    ring.replace(ring.find("\"switch\""), 8, "\"ring\"");
    EXPECT_THROW(profile_from_json(ring, "p.json"), std::invalid_argument);
  }
  ASSERT_EQ(p.constants.size(), 5u);
  for (std::size_t k = 0; k < 5; ++k)
    EXPECT_NEAR(p.constants[k].value, c.fit.constants[k].value, 1e-12);
  EXPECT_EQ(p.calibrated().runs, 10);
  EXPECT_DOUBLE_EQ(p.calibrated().host_dispatch_seconds, c.fit.constants[4].value);
  auto message = [](std::string text) {
    try {
      profile_from_json(text, "p.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  std::string bad = json;
  bad.replace(bad.find("\"matmul_efficiency\""), 19, "\"speed\"");
  EXPECT_EQ(message(bad), "p.json: key \"constants[0].name\": expected \"matmul_efficiency\"");
  bad = json;
  bad.replace(bad.find("\"version\": 2"), 12, "\"version\": 1");
  EXPECT_NE(message(bad).find("key \"version\""), std::string::npos);
  bad = json;
  bad.replace(bad.find("\"gpus_per_node\": 8"), 18, "\"gpus_per_node\": 0");
  EXPECT_NE(message(bad).find("key \"network.gpus_per_node\""), std::string::npos);
  EXPECT_NE(message("{").find("not a JSON object"), std::string::npos);
  EXPECT_NE(message("{\"format\":\"x\"}").find("key \"format\""), std::string::npos);
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

TEST(Calibration, AProfileInTheScenarioDrivesThePlan) {
  const Calibration c = calibrate_step_time(calibration_rows(), ConstantFitOptions{0.05, 1.5, 0},
                                            {}, vtrain_cluster());
  QTemporaryDir dir;
  const std::string path = dir.filePath("a100.profile.json").toStdString();
  QString error;
  ASSERT_TRUE(write_file_atomically(QString::fromStdString(path),
                                    QByteArray::fromStdString(profile_to_json(c)), &error));
  Scenario s;
  s.chip = "A100-80";
  s.parallel.cluster_profile = path;
  // The document keeps the path; reading it loads the constants.
  const Scenario back = scenario_from_json(scenario_to_json(s), "doc");
  EXPECT_EQ(back.parallel.cluster_profile, path);
  ASSERT_TRUE(back.parallel.calibrated.has_value());
  EXPECT_EQ(back.parallel.calibrated->runs, 10);
  EXPECT_DOUBLE_EQ(back.parallel.calibrated->host_dispatch_seconds, c.fit.constants[4].value);
  const TrainingJob job = training_job(back);
  ASSERT_TRUE(job.calibrated.has_value());
  EXPECT_NE(back.parallel.cluster_text(chip_by_name("A100-80")).find("calibrated on 10 runs"),
            std::string::npos);
}

TEST(Calibration, TheFitsIntervalsBracketThePlannedMfu) {
  ConstantFitOptions o;
  o.bootstrap = 30;
  const Calibration c = calibrate_step_time(calibration_rows(), o, {}, vtrain_cluster());
  const ClusterProfile profile = profile_from_json(profile_to_json(c), "profile");
  // The corners: efficiencies low and host time high is the slow one.
  const CalibratedInterval k = profile.interval();
  const CalibratedConstants mid = profile.calibrated();
  EXPECT_LE(k.slow.matmul_efficiency, mid.matmul_efficiency);
  EXPECT_GE(k.fast.matmul_efficiency, mid.matmul_efficiency);
  EXPECT_GE(k.slow.host_dispatch_seconds, mid.host_dispatch_seconds);
  EXPECT_LE(k.fast.host_dispatch_seconds, mid.host_dispatch_seconds);
  EXPECT_EQ(k.slow.runs, 10);

  Scenario s;
  s.chip = "A100-80";
  s.n_chips = 64;
  s.shape = ModelShape{24, 2048, 8192, 16, 16, 128, 50304};
  s.training.seq_len = 2048;
  s.parallel.global_batch_tokens = 512 * 2048;
  s.parallel.mfu_source = MfuSource::predicted;
  const ResolvedPlan datasheet = resolve_plan(s);
  s.parallel.cluster_profile = "a100.profile.json";
  s.parallel.calibrated = mid;
  s.parallel.calibrated_interval = k;
  const ResolvedPlan p = resolve_plan(s);
  ASSERT_EQ(p.mfu.source, MfuSource::predicted) << p.mfu.note;
  EXPECT_EQ(p.mfu.calibrated_runs, 10);
  EXPECT_NE(p.mfu.mfu, datasheet.mfu.mfu);
  EXPECT_EQ(datasheet.mfu.calibrated_runs, 0);
  EXPECT_LT(p.mfu.mfu_low, p.mfu.mfu);
  EXPECT_GT(p.mfu.mfu_high, p.mfu.mfu);
  EXPECT_NE(p.mfu_text().find("predicted, calibrated on 10 runs"), std::string::npos)
      << p.mfu_text();
  EXPECT_EQ(datasheet.mfu_text().find("calibrated"), std::string::npos);
  // The range says where it comes from: the fit's corners with the profile,
  // the published runs like it without.
  EXPECT_TRUE(p.mfu.track_record.empty());
  EXPECT_EQ(p.mfu.range_text(),
            "calibrated on 10 runs (the fit's 90 % corners: " + format_percent(p.mfu.mfu_low, 1) +
                " – " + format_percent(p.mfu.mfu_high, 1) + ")");
  EXPECT_EQ(datasheet.mfu.track_record.scope, "Megatron-family frameworks on Ampere GPUs");
  EXPECT_EQ(datasheet.mfu.range_text().rfind("published runs like it (", 0), 0u)
      << datasheet.mfu.range_text();
}

TEST(Calibration, AnIntervalOutsideTheConstantsBoundsIsRefused) {
  const Calibration c = calibrate_step_time(calibration_rows(), ConstantFitOptions{0.05, 1.5, 0},
                                            {}, vtrain_cluster());
  std::string json = profile_to_json(c);
  const std::size_t at = json.find("\"p05\"");
  ASSERT_NE(at, std::string::npos);
  json.replace(at, json.find(',', at) - at, "\"p05\": 7");
  try {
    (void)profile_from_json(json, "bad.json");
    FAIL() << "accepted a p05 of 7";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("constants[0].p05"), std::string::npos) << e.what();
  }
}

// Task (issue 25): a profile records the framework its runs ran under (the
// runs file's framework column) and the software preset that maps to; used
// with another preset, the plan says so.
TEST(Calibration, AProfileRecordsItsFrameworkAndWarnsUnderAnother) {
  const Calibration c = calibrate_step_time(calibration_rows(), ConstantFitOptions{0.05, 1.5, 0},
                                            {}, vtrain_cluster());
  EXPECT_EQ(c.framework, "megatron-deepspeed");
  EXPECT_EQ(c.software, software_for_framework("megatron-deepspeed"));
  const std::string json = profile_to_json(c);
  EXPECT_NE(json.find("\"framework\": \"megatron-deepspeed\""), std::string::npos) << json;
  const ClusterProfile p = profile_from_json(json, "p.json");
  EXPECT_EQ(p.framework, "megatron-deepspeed");
  EXPECT_EQ(p.software, c.software);
  EXPECT_EQ(p.calibrated().framework, "megatron-deepspeed");
  EXPECT_EQ(p.interval().slow.software, c.software);

  ParallelSettings s;
  s.calibrated = p.calibrated();
  s.software = c.software;
  EXPECT_EQ(s.calibration_warning(), "");
  EXPECT_NE(s.cluster_text(chip_by_name("A100-80"))
                .find("calibrated on 10 runs under "
                      "megatron-deepspeed"),
            std::string::npos);
  s.software = "modern";
  const std::string w = s.calibration_warning();
  EXPECT_NE(w.find("fitted under megatron-deepspeed, software " + c.software), std::string::npos)
      << w;
  EXPECT_NE(w.find("used with software modern"), std::string::npos) << w;
  EXPECT_NE(s.cluster_text(chip_by_name("A100-80")).find(w), std::string::npos);

  // Runs of two frameworks: both named, the preset "mixed" (always flagged).
  std::vector<MeasuredRun> rows = calibration_rows();
  rows[0].framework = "megatron";
  const Calibration both =
      calibrate_step_time(rows, ConstantFitOptions{0.05, 1.5, 0}, {}, vtrain_cluster());
  EXPECT_EQ(both.framework, "megatron, megatron-deepspeed");
  EXPECT_EQ(both.software, "mixed");

  // A profile written before the framework was recorded still reads; a bad
  // value is refused naming the key.
  std::string old = json;
  for (const char* key : {"\"framework\"", "\"software\""}) {
    const std::size_t at = old.rfind('\n', old.find(key));
    old.erase(at, old.find('\n', at + 1) - at);
  }
  ASSERT_EQ(old.find("\"framework\""), std::string::npos) << old;
  const ClusterProfile o = profile_from_json(old, "old.json");
  EXPECT_EQ(o.framework, "");
  EXPECT_EQ(calibration_warning(o.calibrated(), "modern"), "");
  std::string bad = json;
  bad.replace(bad.find("\"software\": \""), 13, "\"software\": 3, \"x\": \"");
  try {
    profile_from_json(bad, "bad.json");
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bad.json: key \"software\""), std::string::npos)
        << e.what();
  }
}
