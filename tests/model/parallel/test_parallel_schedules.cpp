// Pipeline schedules beyond 1F1B: zero bubble (ZB-H1) and DualPipe, each
// priced by its paper's bubble formula against 1F1B's.
#include <gtest/gtest.h>

#include <string>

#include "model_presets.h"
#include "parallel.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

TrainingJob llama70b(PipeSchedule schedule) {
  TrainingJob j;
  j.shape = testing_util::preset_shape("Llama-3-70B");
  j.chip = "H100";
  j.n_chips = 256;
  j.seq_len = 8192;
  j.global_batch = 256;
  j.software.pipe_schedule = schedule;
  return j;
}

Layout pp8() {
  Layout l;
  l.tp = 8, l.pp = 8, l.dp = 4, l.micro_batch = 1, l.zero = 1;
  l.recompute = Checkpointing::selective;
  return l;
}

TEST(ParallelSchedules, NamedAsTheirPapersNameThem) {
  for (PipeSchedule s : {PipeSchedule::one_f_one_b, PipeSchedule::zb_h1, PipeSchedule::dualpipe})
    EXPECT_EQ(pipe_schedule_by_name(to_string(s)), s);
  EXPECT_THROW_NAMING(pipe_schedule_by_name("gpipe"), "pipeline-schedule");
  EXPECT_EQ(software_by_name("deepseek-v3").pipe_schedule, PipeSchedule::dualpipe);
  EXPECT_EQ(software_by_name("modern").pipe_schedule, PipeSchedule::one_f_one_b);
}

TEST(ParallelSchedules, ZeroBubbleFillsTheDrainWithWeightGradients) {
  const LayoutResult a = evaluate_layout(llama70b(PipeSchedule::one_f_one_b), pp8());
  const LayoutResult z = evaluate_layout(llama70b(PipeSchedule::zb_h1), pp8());
  ASSERT_TRUE(a.valid && z.valid) << a.reason << z.reason;
  ASSERT_GT(a.time.pp_bubble_seconds, 0);
  // (F + B − W) / (F + B + W): with W about a third of a stage's time (half
  // of a backward that is two thirds of it), about a third of 1F1B's bubble.
  const double ratio = z.time.pp_bubble_seconds / a.time.pp_bubble_seconds;
  EXPECT_GT(ratio, 0.2);
  EXPECT_LT(ratio, 0.65);
  EXPECT_LT(z.step_seconds, a.step_seconds);
  EXPECT_DOUBLE_EQ(z.time.compute_seconds, a.time.compute_seconds);
  // ZB-H1 keeps 1F1B's memory.
  EXPECT_EQ(z.memory.total_bytes, a.memory.total_bytes);
  // One stage: no bubble to fill.
  Layout one = pp8();
  one.pp = 1, one.dp = 32;
  EXPECT_DOUBLE_EQ(evaluate_layout(llama70b(PipeSchedule::zb_h1), one).step_seconds,
                   evaluate_layout(llama70b(PipeSchedule::one_f_one_b), one).step_seconds);
}

TEST(ParallelSchedules, DualPipeHalvesTheStagesAndDoublesTheParameters) {
  const LayoutResult a = evaluate_layout(llama70b(PipeSchedule::one_f_one_b), pp8());
  const LayoutResult z = evaluate_layout(llama70b(PipeSchedule::zb_h1), pp8());
  const LayoutResult d = evaluate_layout(llama70b(PipeSchedule::dualpipe), pp8());
  ASSERT_TRUE(d.valid) << d.reason;
  // (p/2 − 1)(F + 2B − 2W) against (p − 1)(F + B + W): below ZB-H1's.
  EXPECT_LT(d.time.pp_bubble_seconds, z.time.pp_bubble_seconds);
  EXPECT_GT(d.time.pp_bubble_seconds, 0);
  // Two copies of the weights and gradients; p + 1 micro-batches in flight.
  // (Both copies of a stage count whole bytes: equal to a part in 10⁴.)
  EXPECT_NEAR(static_cast<double>(d.memory.weights_bytes),
              2.0 * static_cast<double>(a.memory.weights_bytes),
              1e-4 * static_cast<double>(a.memory.weights_bytes));
  EXPECT_NEAR(static_cast<double>(d.memory.grads_bytes),
              2.0 * static_cast<double>(a.memory.grads_bytes),
              1e-4 * static_cast<double>(a.memory.grads_bytes));
  EXPECT_EQ(d.memory.in_flight, 9);

  Layout interleaved = pp8();
  interleaved.vpp = 2;
  const LayoutResult bad = evaluate_layout(llama70b(PipeSchedule::dualpipe), interleaved);
  EXPECT_FALSE(bad.valid);
  EXPECT_NE(bad.reason.find("dualpipe"), std::string::npos) << bad.reason;
  Layout odd = pp8();
  odd.pp = 5, odd.tp = 8, odd.dp = 4;
  TrainingJob j = llama70b(PipeSchedule::dualpipe);
  j.n_chips = 160;
  const LayoutResult odd_r = evaluate_layout(j, odd);
  EXPECT_FALSE(odd_r.valid);
  EXPECT_NE(odd_r.reason.find("even pp"), std::string::npos) << odd_r.reason;
}

}  // namespace
}  // namespace napkin
