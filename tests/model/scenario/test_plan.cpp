// The resolved plan: the MFU used and its source, C, the batch as it runs and
// the scenario model's run, computed once for every panel, the report and diff.
#include <gtest/gtest.h>

#include <cmath>

#include "budget_view.h"
#include "cluster_cost.h"
#include "compare.h"
#include "hardware.h"
#include "panel_settings.h"
#include "plan.h"
#include "scenario.h"

using namespace napkin;

namespace {

Scenario predicted() {
  Scenario s;
  s.parallel.mfu_source = MfuSource::predicted;
  return s;
}

}  // namespace

TEST(ResolvedPlan, TheClusterReachesThePredictedMfu) {
  // ZeRO-sharded data parallelism over 1,000 H100: a quarter of a DGX's
  // InfiniBand per GPU cannot make the predicted plan faster.
  Scenario s = predicted();
  const double dgx = resolve_plan(s).mfu.mfu;
  s.parallel.cluster = "custom";
  s.parallel.gpus_per_node = 8;
  s.parallel.scale_up_gb_per_s = 450;
  s.parallel.scale_out_gb_per_s = 12.5;
  EXPECT_EQ(training_job(s).cluster().inter_node_bytes_per_s, 12.5e9);
  EXPECT_LE(resolve_plan(s).mfu.mfu, dgx);
  s.parallel.cluster = "gb200-nvl72";
  EXPECT_EQ(training_job(s).cluster().chips_per_node, 72);
  s.parallel.cluster.clear();
  EXPECT_FALSE(training_job(s).network.has_value());
}

TEST(ResolvedPlan, AssumedRunsAtTheSlider) {
  Scenario s;
  s.mfu = 0.37;
  const ResolvedPlan p = resolve_plan(s);
  EXPECT_EQ(p.mfu.source, MfuSource::assumed);
  EXPECT_DOUBLE_EQ(p.mfu.mfu, 0.37);
  EXPECT_DOUBLE_EQ(p.compute_flops, budget_to_flops(chip_by_name(s.chip), s.n_chips, s.days, 0.37));
  EXPECT_EQ(p.mfu_source_name(), "assumed");
  EXPECT_EQ(p.mfu_text(), "37.0 % (assumed)");
}

TEST(ResolvedPlan, PredictedRunsAtTheLayoutsMfu) {
  const Scenario s = predicted();
  const ResolvedPlan p = resolve_plan(s);
  ASSERT_EQ(p.mfu.source, MfuSource::predicted) << p.mfu.note;
  EXPECT_NE(p.mfu.mfu, s.mfu);
  EXPECT_GT(p.mfu.mfu, 0.05);
  EXPECT_LT(p.mfu.mfu, 0.9);
  EXPECT_DOUBLE_EQ(p.compute_flops,
                   budget_to_flops(chip_by_name(s.chip), s.n_chips, s.days, p.mfu.mfu));
  EXPECT_NE(p.mfu_text().find("predicted: tp="), std::string::npos) << p.mfu_text();
  EXPECT_GT(p.run_days, 0);
  EXPECT_DOUBLE_EQ(p.run_days, p.mfu.layout_days);
  // The slider does not move a predicted plan.
  Scenario moved = s;
  moved.mfu = 0.2;
  EXPECT_DOUBLE_EQ(resolve_plan(moved).compute_flops, p.compute_flops);
}

TEST(ResolvedPlan, APredictedMfuCarriesTheBandOfPublishedRunsLikeIt) {
  // On the published constants a predicted MFU is read beside how far
  // published runs of the same family of frameworks on the same generation
  // of chips landed from Napkin's prediction: its range, and the sentence.
  const Scenario s = predicted();
  const ResolvedPlan p = resolve_plan(s);
  ASSERT_EQ(p.mfu.source, MfuSource::predicted) << p.mfu.note;
  const TrackRecord expected = training_track_record(s.parallel.software, chip_by_name(s.chip));
  EXPECT_EQ(p.mfu.track_record.scope, "Megatron-family frameworks on Hopper GPUs");
  EXPECT_EQ(p.mfu.track_record.rows, expected.rows);
  EXPECT_DOUBLE_EQ(p.mfu.mfu_low, expected.measured_low(p.mfu.mfu));
  EXPECT_DOUBLE_EQ(p.mfu.mfu_high, expected.measured_high(p.mfu.mfu));
  EXPECT_LT(p.mfu.mfu_low, p.mfu.mfu);
  EXPECT_GT(p.mfu.mfu_high, p.mfu.mfu);
  EXPECT_EQ(p.mfu.range_text(), expected.text(p.mfu.mfu));
  EXPECT_NE(p.mfu.range_text().find("published runs like it"), std::string::npos);
  // Another framework on another chip reads its own runs.
  Scenario fsdp = predicted();
  fsdp.parallel.software = "fsdp";
  fsdp.chip = "A100-80";
  const ResolvedPlan f = resolve_plan(fsdp);
  ASSERT_EQ(f.mfu.source, MfuSource::predicted) << f.mfu.note;
  EXPECT_EQ(f.mfu.track_record.scope, "PyTorch FSDP frameworks on Ampere GPUs");
  // An assumed MFU has no range of its own here (the planner's spread is the user's).
  const ResolvedPlan a = resolve_plan(Scenario{});
  EXPECT_TRUE(a.mfu.track_record.empty());
  EXPECT_EQ(a.mfu.range_text(), "");
}

TEST(ResolvedPlan, EveryReaderGetsTheSameComputeAndMfu) {
  Scenario s = predicted();
  const ResolvedPlan p = resolve_plan(s);
  ASSERT_EQ(p.mfu.source, MfuSource::predicted);
  const BudgetView v = make_budget_view(s);
  EXPECT_DOUBLE_EQ(v.plan.compute_flops, p.compute_flops);
  EXPECT_DOUBLE_EQ(v.report.flops, p.compute_flops);
  EXPECT_DOUBLE_EQ(v.mfu.mfu, p.mfu.mfu);
  // The IsoFLOPs panel's target follows the plan's C, not the slider's.
  EXPECT_DOUBLE_EQ(isoflops_target_flops(s), p.compute_flops);
  // The comparison (the Compare dock and diff) shows the MFU used.
  bool found = false;
  for (const HeadlineOutput& out : headline_outputs(s)) {
    if (out.name == "MFU used") {
      found = true;
      ASSERT_TRUE(out.value.has_value());
      EXPECT_DOUBLE_EQ(*out.value, p.mfu.mfu);
      EXPECT_NE(out.display.find("predicted"), std::string::npos) << out.display;
    }
    if (out.name == "Compute C") {
      ASSERT_TRUE(out.value.has_value());
      EXPECT_DOUBLE_EQ(*out.value, p.compute_flops);
    }
  }
  EXPECT_TRUE(found);
}

TEST(ResolvedPlan, TheBatchAsItRunsAndAsAsked) {
  Scenario s;
  s.n_chips = 3000;  // odd part 375: 65,536 tokens of 8,192 cannot split evenly
  s.parallel.global_batch_tokens = 65'536;
  const ResolvedPlan p = resolve_plan(s);
  EXPECT_EQ(p.requested_batch_tokens, 65'536);
  EXPECT_EQ(p.batch_tokens, p.batch_sequences * s.training.seq_len);
  EXPECT_TRUE(p.batch_adjusted);
  s.n_chips = 1024;
  s.parallel.global_batch_tokens = 4'194'304;
  const ResolvedPlan q = resolve_plan(s);
  EXPECT_FALSE(q.batch_adjusted);
  EXPECT_EQ(q.batch_tokens, 4'194'304);
}

TEST(ResolvedPlan, APredictionThatCannotBeMadeSaysWhyAndFollowsTheSlider) {
  Scenario s = predicted();
  s.n_chips = 7;  // no layout of 7 chips fits a 70B model
  s.mfu = 0.33;
  const ResolvedPlan p = resolve_plan(s);
  EXPECT_EQ(p.mfu.source, MfuSource::assumed);
  EXPECT_DOUBLE_EQ(p.mfu.mfu, 0.33);
  EXPECT_FALSE(p.mfu.note.empty());
}

// Issue 27: with TP 8 and PP 4 locked on 3,000 chips no layout exists; the
// Budget planner's note says the prediction is unavailable and why.
TEST(ResolvedPlan, LocksThatLeaveNoLayoutMakeTheNoteSayWhy) {
  Scenario s = predicted();
  s.n_chips = 3000;
  s.parallel.tp = 8;
  s.parallel.pp = 4;
  const ResolvedPlan p = resolve_plan(s);
  EXPECT_EQ(p.mfu.source, MfuSource::assumed);
  EXPECT_NE(p.mfu.note.find("prediction is unavailable"), std::string::npos) << p.mfu.note;
  EXPECT_NE(p.mfu.note.find("3,000 chips is not divisible by TP × PP = 32"), std::string::npos)
      << p.mfu.note;
  EXPECT_EQ(budget_mfu(s, scenario_layouts(s)).note, p.mfu.note);
}

TEST(ResolvedPlan, Fp8TrainingRunsTheParallelismModelsFp8Gemms) {
  // training.precision fp8 turns the software's GEMMs to FP8: the
  // Parallelism model's step is faster on an H100 (FP8 peak 2x bf16's), so
  // the predicted MFU (model FLOPs over the bf16 peak) and C rise.
  Scenario bf16 = predicted();
  Scenario fp8 = bf16;
  fp8.training.precision = Precision::mixed_fp8;
  EXPECT_FALSE(training_job(bf16).software.fp8_matmuls);
  EXPECT_TRUE(training_job(fp8).software.fp8_matmuls);
  const ResolvedPlan a = resolve_plan(bf16);
  const ResolvedPlan b = resolve_plan(fp8);
  ASSERT_EQ(a.mfu.source, MfuSource::predicted) << a.mfu.note;
  ASSERT_EQ(b.mfu.source, MfuSource::predicted) << b.mfu.note;
  EXPECT_GT(b.mfu.mfu, a.mfu.mfu);
  EXPECT_GT(b.compute_flops, a.compute_flops);
  // Not beyond the ratio of the peaks times the ratio of the GEMM efficiencies.
  const Chip& h100 = chip_by_name("H100");
  EXPECT_LT(b.mfu.mfu / a.mfu.mfu, h100.fp8_peak_flops_per_s * h100.efficiency.matmul_fp8 /
                                       (h100.peak_flops_per_s * h100.efficiency.matmul));
  // An assumed MFU is the user's: FP8 does not multiply it.
  Scenario assumed = fp8;
  assumed.parallel.mfu_source = MfuSource::assumed;
  EXPECT_DOUBLE_EQ(resolve_plan(assumed).mfu.mfu, assumed.mfu);
}

// What a panel's command would not read of a value given beside --scenario.
TEST(CommandInputUnused, NamesWhyAValueWouldChangeNothingShown) {
  Scenario s;
  EXPECT_EQ(command_input_unused(s, "budget", "budget.mfu"), "");
  s.parallel.mfu_source = MfuSource::predicted;
  ASSERT_EQ(budget_mfu(s).source, MfuSource::predicted);
  EXPECT_NE(command_input_unused(s, "budget", "budget.mfu").find("predicted for its layout"),
            std::string::npos);
  EXPECT_EQ(command_input_unused(s, "budget", "hardware.chips"), "");
  Scenario own;
  own.isoflops.target_follows_budget = false;
  EXPECT_NE(command_input_unused(own, "isoflops", "hardware.chips").find("the panel's own"),
            std::string::npos);
  EXPECT_NE(command_input_unused(own, "isoflops", "hardware.chip"), "");
  EXPECT_EQ(command_input_unused(own, "budget", "hardware.chips"), "");
}
