// Pipeline schedules beyond 1F1B: zero bubble (ZB-H1) and DualPipe, each
// priced by its paper's bubble formula against 1F1B's; the interleaved
// schedule's sends overlapped with the compute.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "model_presets.h"
#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

TrainingJob llama70b(PipeSchedule schedule) {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-70B"),
                .chip = "H100",
                .n_chips = 256,
                .seq_len = 8192,
                .global_batch = 256};
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

// DualPipe's rank r holds stage r and stage p − 1 − r and runs half the
// micro-batches through each (the DualPipe repository's example), so work
// added to the last stage alone (a larger output head and loss) slows the
// step half as much as it slows 1F1B, where the last stage sets the pace.
TEST(ParallelSchedules, DualPipeRanksShareTheLastStagesHead) {
  auto compute = [](PipeSchedule schedule, std::int64_t vocab) {
    TrainingJob j = llama70b(schedule);
    j.shape.vocab = vocab;
    const LayoutResult r = evaluate_layout(j, pp8());
    EXPECT_TRUE(r.valid) << r.reason;
    return r.time.compute_seconds;
  };
  const double one =
      compute(PipeSchedule::one_f_one_b, 512'000) - compute(PipeSchedule::one_f_one_b, 256'000);
  const double dual =
      compute(PipeSchedule::dualpipe, 512'000) - compute(PipeSchedule::dualpipe, 256'000);
  ASSERT_GT(one, 0);
  EXPECT_NEAR(dual / one, 0.5, 0.02);
}

// The same pairing in memory: a DualPipe rank holds its own stage's weights
// and gradients and its mirror's (two copies of the model over the ranks),
// and the optimizer states of its own stage only.
TEST(ParallelSchedules, DualPipeRanksHoldTheirTwoStagesWeights) {
  TrainingJob one = llama70b(PipeSchedule::one_f_one_b);
  TrainingJob dual = llama70b(PipeSchedule::dualpipe);
  one.shape.vocab = dual.shape.vocab = 512'000;  // a head heavier than the embedding
  const std::vector<StageMemory> a = memory_by_stage(one, pp8());
  const std::vector<StageMemory> d = memory_by_stage(dual, pp8());
  ASSERT_EQ(a.size(), 8u);
  ASSERT_EQ(d.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    const std::size_t mirror = 7 - i;
    EXPECT_NEAR(static_cast<double>(d[i].weights_bytes),
                static_cast<double>(a[i].weights_bytes + a[mirror].weights_bytes), 16.0)
        << i;
    EXPECT_NEAR(static_cast<double>(d[i].grads_bytes),
                static_cast<double>(a[i].grads_bytes + a[mirror].grads_bytes), 16.0)
        << i;
    EXPECT_EQ(d[i].optimizer_bytes, a[i].optimizer_bytes) << i;
  }
  // The head's rank is no heavier than the embedding's: they are one rank pair.
  EXPECT_EQ(d[0].weights_bytes, d[7].weights_bytes);
  EXPECT_LT(d[7].weights_bytes, 2 * a[7].weights_bytes);
}

TEST(ParallelSchedules, InterleavedSendsRunBesideTheOtherPassExceptInTheFillAndDrain) {
  // Llama 3 70B, TP 8 (one node per stage), PP 8 interleaved over 5 chunks:
  // every send crosses nodes.
  TrainingJob overlapped = llama70b(PipeSchedule::one_f_one_b);
  TrainingJob blocking = overlapped;
  blocking.software.overlap_p2p_comm = false;
  Layout l = pp8();
  l.vpp = 5;
  const LayoutResult o = evaluate_layout(overlapped, l), b = evaluate_layout(blocking, l);
  ASSERT_TRUE(o.valid && b.valid) << o.reason << b.reason;
  // One send each way per micro-batch and chunk when blocking.
  const parallel_detail::JobContext c = parallel_detail::make_context(blocking);
  const auto comps = parallel_detail::stage_compositions(c, l);
  const parallel_detail::LayerCost dense = parallel_detail::layer_cost(c, l, false);
  std::vector<parallel_detail::StageTime> st;
  double one = 0;
  parallel_detail::stage_times(c, l, comps, dense, dense, parallel_detail::embedding_cost(c, l),
                               parallel_detail::output_cost(c, l), st, &one);
  ASSERT_GT(one, 0);
  const double m = static_cast<double>(b.micro_batches);
  EXPECT_NEAR(b.time.pp_comm_seconds, m * 5 * 2 * one, 1e-9);
  // Overlapped: a chunk's pass (milliseconds) hides a send (under one), so
  // what is left is the fill's and the drain's seven hops each way and the
  // kernels' slowdown beside the transfers.
  EXPECT_GE(o.time.pp_comm_seconds, 7 * 2 * one);
  EXPECT_LT(o.time.pp_comm_seconds, 7 * 2 * one + 0.25 * m * 5 * 2 * one);
  EXPECT_LT(o.step_seconds, b.step_seconds);
  // Without interleaving Megatron's sends block.
  l.vpp = 1;
  EXPECT_DOUBLE_EQ(evaluate_layout(overlapped, l).step_seconds,
                   evaluate_layout(blocking, l).step_seconds);
  // The 2021-2022 Megatron-LM had no overlapped sends.
  EXPECT_FALSE(software_by_name("megatron-2022").overlap_p2p_comm);
  EXPECT_TRUE(software_by_name("tp-overlap").overlap_p2p_comm);
  // DualPipe hides them without interleaving: the fill's and the drain's
  // seven hops each way are what it leaves.
  TrainingJob dual = llama70b(PipeSchedule::dualpipe), dual_blocking = dual;
  dual_blocking.software.overlap_p2p_comm = false;
  const LayoutResult d = evaluate_layout(dual, l), db = evaluate_layout(dual_blocking, l);
  ASSERT_TRUE(d.valid && db.valid) << d.reason << db.reason;
  EXPECT_NEAR(db.time.pp_comm_seconds, m * 2 * one, 1e-9);
  EXPECT_GE(d.time.pp_comm_seconds, 7 * 2 * one);
  EXPECT_LT(d.time.pp_comm_seconds, 7 * 2 * one + 0.25 * m * 2 * one);
}

}  // namespace
// zb-h1 (Qi et al. 2024, §3.1): with F = B = W and no sends, the bubble is
// (p − 1)(F + B − W) against 1F1B's (p − 1)(F + B + W).
TEST(ParallelSchedules, ZeroBubbleH1FillsTheDrainWithWeightGradients) {
  const std::vector<double> f(4, 1.0), b(4, 2.0), w(4, 1.0);
  const PipelineSchedule one = simulate_pipeline(f, b, 8, 1, 0.0);
  const PipelineSchedule zb = simulate_pipeline(f, b, 8, 1, 0.0, w);
  EXPECT_EQ(one.order, PipeSchedule::one_f_one_b);
  EXPECT_EQ(zb.order, PipeSchedule::zb_h1);
  EXPECT_EQ(zb.ops.size(), 3u * 8 * 4);
  EXPECT_DOUBLE_EQ(one.makespan_seconds, (8 + 4 - 1) * 3.0);
  EXPECT_DOUBLE_EQ(zb.makespan_seconds, 8 * 3.0 + 3 * (1.0 + 1.0 - 1.0));
  EXPECT_LT(zb.bubble_fraction, one.bubble_fraction);
  // Every micro-batch's W once per stage, after its B; bars never overlap;
  // no stage has more than p micro-batches in flight (F to W).
  std::map<std::pair<std::int64_t, std::int64_t>, double> b_end;
  std::map<std::int64_t, int> forwards, weights;
  for (const ScheduleOp& op : zb.ops) {
    if (!op.forward && !op.weight) b_end[{op.stage, op.micro_batch}] = op.end_seconds;
  }
  for (std::size_t i = 0; i < zb.ops.size(); ++i) {
    const ScheduleOp& op = zb.ops[i];
    if (i > 0 && zb.ops[i - 1].stage == op.stage) {
      EXPECT_GE(op.start_seconds, zb.ops[i - 1].end_seconds - 1e-12);
    }
    if (op.weight) {
      EXPECT_FALSE(op.forward);
      EXPECT_GE(op.start_seconds, b_end.at({op.stage, op.micro_batch}) - 1e-12);
      EXPECT_DOUBLE_EQ(op.end_seconds - op.start_seconds, 1.0);
      ++weights[op.stage];
    } else if (op.forward) {
      EXPECT_LT(forwards[op.stage] - weights[op.stage], 4) << "stage " << op.stage;
      ++forwards[op.stage];
    } else {
      EXPECT_DOUBLE_EQ(op.end_seconds - op.start_seconds, 1.0);  // B = backward − W
    }
  }
  for (std::int64_t st = 0; st < 4; ++st) EXPECT_EQ(weights[st], 8);
  // Bad input is named.
  EXPECT_THROW_NAMING(simulate_pipeline(f, b, 8, 2, 0.0, w), "chunks must be 1");
  EXPECT_THROW_NAMING(simulate_pipeline(f, b, 8, 1, 0.0, std::vector<double>(4, 3.0)),
                      "weight-gradient time");
  EXPECT_THROW_NAMING(simulate_pipeline(f, b, 8, 1, 0.0, std::vector<double>(3, 1.0)),
                      "weight-gradient times");
}

// A zb-h1 job draws zb-h1's order, with less bubble than the same job in
// 1F1B; DualPipe's is not drawn (1F1B's order, said so).
TEST(ParallelSchedules, JobScheduleDrawsTheJobsOrder) {
  TrainingJob j = llama70b(PipeSchedule::one_f_one_b);
  const Layout l = pp8();
  const PipelineSchedule one = pipeline_schedule(j, l);
  j.software.pipe_schedule = PipeSchedule::zb_h1;
  const PipelineSchedule zb = pipeline_schedule(j, l);
  EXPECT_EQ(zb.order, PipeSchedule::zb_h1);
  EXPECT_LT(zb.bubble_fraction, one.bubble_fraction);
  EXPECT_LT(zb.makespan_seconds, one.makespan_seconds);
  EXPECT_TRUE(
      std::any_of(zb.ops.begin(), zb.ops.end(), [](const ScheduleOp& o) { return o.weight; }));
  j.software.pipe_schedule = PipeSchedule::dualpipe;
  EXPECT_EQ(pipeline_schedule(j, l).order, PipeSchedule::one_f_one_b);
}

}  // namespace napkin
