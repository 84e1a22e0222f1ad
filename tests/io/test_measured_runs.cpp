// Measured runs: a runs CSV (the vTrain rows as published, with defaults for
// the columns they lack) and the three frameworks' log lines.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "framework_config.h"
#include "io_test_util.h"
#include "measured_runs.h"

using namespace io_test;

using namespace napkin;

namespace {

// What tests/data/vtrain/SOURCE.md states for every row and the file lacks.

}  // namespace

TEST(MeasuredRuns, VtrainSingleNodeRowsAllRead) {
  const MeasuredRuns r = load_runs_file(data("vtrain/single_node_runs.csv"), vtrain_defaults());
  EXPECT_EQ(r.runs.size() + r.skipped.size(), 1440u);
  EXPECT_EQ(r.skipped.size(), 0u) << (r.skipped.empty() ? "" : r.skipped.front().reason);
  const MeasuredRun& first = r.runs.front();
  EXPECT_EQ(first.line, 2);
  EXPECT_EQ(first.job.n_chips, 2);
  EXPECT_EQ(first.job.shape.d_model, 1024);
  EXPECT_EQ(first.job.shape.d_ff, 4096);  // Megatron-LM's 4h
  EXPECT_EQ(first.job.shape.n_layers, 24);
  EXPECT_EQ(first.layout.pp, 2);
  EXPECT_EQ(first.layout.micro_batch, 8);
  EXPECT_EQ(first.layout.recompute, Checkpointing::full);
  ASSERT_TRUE(first.measured.step_seconds.has_value());
  EXPECT_NEAR(*first.measured.step_seconds, 0.372160408, 1e-12);  // "iteration time (ms)"
}

TEST(MeasuredRuns, VtrainMultiNodeRowsKeepTheParameterColumnAsANote) {
  const MeasuredRuns r =
      load_runs_file(data("vtrain/multi_node_runs_public.csv"), vtrain_defaults());
  EXPECT_EQ(r.runs.size(), 52u);
  ASSERT_FALSE(r.runs.front().notes.empty());
  EXPECT_EQ(r.runs.front().notes.front().first, "Parameters (billion)");
  EXPECT_EQ(r.runs.front().notes.front().second, "3.6");
}

TEST(MeasuredRuns, PartialRecomputationReads) {
  const std::string csv =
      "chip,chips,layers,d_model,heads,vocab,seq,global_batch,tp,pp,dp,micro_batch,recompute,"
      "framework,step_seconds\n"
      "A100-80,8,24,1024,16,50304,1024,32,2,2,2,4,full:3,megatron-deepspeed,0.22\n"
      "A100-80,8,24,1024,16,50304,1024,32,2,2,2,4,full:0,megatron-deepspeed,0.22\n"
      "A100-80,8,24,1024,16,50304,1024,32,2,2,2,4,full:12,megatron-deepspeed,0.22\n"
      "A100-80,8,24,1024,16,50304,1024,32,2,2,2,4,selective:layernorm+mlp,megatron-deepspeed,"
      "0.22\n";
  const MeasuredRuns r = read_runs_csv(csv, "runs.csv");
  ASSERT_EQ(r.runs.size(), 2u);
  EXPECT_EQ(r.runs[0].layout.recompute, Checkpointing::full);
  EXPECT_EQ(r.runs[0].layout.recompute_layers, 3);
  EXPECT_EQ(r.runs[1].layout.recompute_modules, kRecomputeLayernorm | kRecomputeMlp);
  ASSERT_EQ(r.skipped.size(), 2u);
  EXPECT_NE(r.skipped[0].reason.find("full:N"), std::string::npos) << r.skipped[0].reason;
  EXPECT_NE(r.skipped[1].reason.find("write recompute=full"), std::string::npos)
      << r.skipped[1].reason;
}

TEST(MeasuredRuns, BadRowsAreSkippedWithLineAndReason) {
  const std::string csv =
      "chip,chips,layers,d_model,heads,vocab,seq,global_batch,tp,pp,dp,micro_batch,recompute,"
      "framework,step_seconds,team\n"
      "A100-80,8,24,1024,16,50304,1024,32,2,2,2,4,full,megatron-deepspeed,0.22,infra\n"
      "A100-80,8,24,1024,16,50304,1024,32,2,2,4,4,full,megatron-deepspeed,0.22,infra\n"
      "A100-80,8,24,abc,16,50304,1024,32,2,2,2,4,full,megatron-deepspeed,0.22,infra\n"
      "A100-80,8,24,1024,16,50304,1024,32,2,2,2,4,full,megatron-deepspeed,,infra\n"
      "A100-80,8,24,1024,16,50304,1024,32,2,2,2,4,full,jax,0.3,infra\n"
      "A100-80,8,24,1024\n";
  const MeasuredRuns r = read_runs_csv(csv, "runs.csv");
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_EQ(r.runs[0].notes.at(0).second, "infra");
  ASSERT_EQ(r.skipped.size(), 5u);
  EXPECT_EQ(r.skipped[0].line, 3);
  EXPECT_NE(r.skipped[0].reason.find("is not the 8 chips"), std::string::npos);
  EXPECT_NE(r.skipped[1].reason.find("column \"d_model\": not a number"), std::string::npos)
      << r.skipped[1].reason;
  EXPECT_NE(r.skipped[2].reason.find("no measurement"), std::string::npos);
  EXPECT_NE(r.skipped[3].reason.find("framework \"jax\""), std::string::npos);
  EXPECT_NE(r.skipped[4].reason.find("ragged"), std::string::npos);
}

TEST(MeasuredRuns, AMissingColumnIsOneMessageNamingIt) {
  try {
    read_runs_csv("chip,chips\nA100-80,8\n", "runs.csv");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "runs.csv: line 1: no column for layers (and no default given: --set "
              "layers=VALUE); the header has \"chip\", \"chips\"");
  }
}

TEST(MeasuredRuns, MegatronLogWithItsPrintedArguments) {
  const MeasuredRuns r = load_runs_file(data("frameworks/megatron-train.log"), {{"chip", "H100"}});
  ASSERT_EQ(r.runs.size(), 1u);
  const MeasuredRun& run = r.runs[0];
  EXPECT_EQ(run.layout.tp, 2);
  EXPECT_EQ(run.layout.dp, 16);
  EXPECT_EQ(run.job.global_batch, 512);
  // Median of the steps after the first (warm-up) line.
  EXPECT_NEAR(*run.measured.step_seconds, 5.1452, 1e-9);
  EXPECT_NEAR(*run.measured.tflops_per_gpu, 407.1, 1e-9);
  EXPECT_NEAR(*run.measured.peak_memory_bytes, 52345.5 * 1048576.0, 1e-3);
}

TEST(MeasuredRuns, TorchtitanLogWithItsConfig) {
  const TrainingConfig c =
      import_training_config_file(data("frameworks/torchtitan-llama3-70b.toml"));
  const MeasuredRuns r =
      load_runs_file(data("frameworks/torchtitan-train.log"), {{"chip", "H100"}}, c);
  ASSERT_EQ(r.runs.size(), 1u);
  const Measurement& m = r.runs[0].measured;
  EXPECT_NEAR(*m.tokens_per_second_per_chip, 862, 1e-9);
  EXPECT_NEAR(*m.tflops_per_gpu, 371.89, 1e-9);
  EXPECT_NEAR(*m.peak_memory_bytes, 61.26 * 1073741824.0, 1e-3);
  // Step from tokens/s: 256 sequences × 8192 tokens / (862 × 256 GPUs).
  EXPECT_NEAR(*m.step_seconds, 256.0 * 8192 / (862.0 * 256), 1e-9);
}

TEST(MeasuredRuns, DeepSpeedLogNeedsTheRunsSettings) {
  EXPECT_THROW(load_runs_file(data("frameworks/deepspeed-train.log"), {{"chip", "A100-80"}}),
               std::invalid_argument);
  const TrainingConfig c = import_training_config_file(data("frameworks/megatron-arguments.log"));
  const MeasuredRuns r =
      load_runs_file(data("frameworks/deepspeed-train.log"), {{"chip", "A100-80"}}, c);
  ASSERT_EQ(r.runs.size(), 1u);
  EXPECT_NEAR(*r.runs[0].measured.step_seconds, 512.0 / 61.5, 1e-9);
  EXPECT_NEAR(*r.runs[0].measured.peak_memory_bytes, 38.2 * 1073741824.0, 1e-3);
}

TEST(MeasuredRuns, ALogWithoutMeasurementsSaysWhatItLooksFor) {
  try {
    read_training_log("hello\n", "x.log", {{"chip", "H100"}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("no measurement line"), std::string::npos);
  }
}
