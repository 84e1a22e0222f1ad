// ZeRO-3's units at the ends of a step: the embedding's (FSDP2's root's)
// all-gather has no compute before it and its reduce-scatter none after it,
// so both are exposed once per micro-batch on top of the layers' prefetched
// gathers.
#include <gtest/gtest.h>

#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

TrainingJob fsdp_job(std::int64_t vocab, std::int64_t global_batch) {
  ModelShape s = testing_util::preset_shape("Llama-3-8B");
  s.vocab = vocab;
  TrainingJob j{.shape = s,
                .chip = "A100-80",
                .n_chips = 64,
                .seq_len = 8192,
                .global_batch = global_batch,
                .software = software_by_name("fsdp")};
  // torchtitan until 2025: the root held the embedding, the final norm and
  // the output layer.
  j.software.zero3_root_gathered = true;
  return j;
}

Layout zero3(int zero) {
  Layout l;
  l.tp = 1, l.pp = 1, l.dp = 64, l.zero = zero, l.micro_batch = 1;
  l.recompute = Checkpointing::none;
  return l;
}

TEST(ParallelZero3, TheRootsGatherAndReduceScatterAreExposedEveryMicroBatch) {
  using namespace parallel_detail;
  const std::int64_t v0 = 128256, v1 = v0 + 8192;
  for (std::int64_t batch : {64, 128}) {
    const TrainingJob a = fsdp_job(v0, batch), b = fsdp_job(v1, batch);
    const LayoutResult ra = evaluate_layout(a, zero3(3)), rb = evaluate_layout(b, zero3(3));
    ASSERT_TRUE(ra.valid && rb.valid) << ra.reason << rb.reason;
    // The root's parameters: the embedding and the output layer's table.
    const JobContext c = make_context(b);
    const GroupPlacement dp = placement(c, 64, 1);
    auto root_seconds = [&](std::int64_t vocab) {
      const double params = 2.0 * static_cast<double>(vocab) * 4096.0 + 4096.0;
      return group_seconds(c, Collective::all_gather, 2.0 * params, dp) +
             group_seconds(c, Collective::reduce_scatter, 4.0 * params, dp);
    };
    const double m = static_cast<double>(batch / 64);
    EXPECT_NEAR(rb.time.dp_comm_seconds - ra.time.dp_comm_seconds,
                m * (root_seconds(v1) - root_seconds(v0)), 1e-9)
        << batch;
    EXPECT_GT(root_seconds(v1), root_seconds(v0));
  }
  // ZeRO-2 gathers the weights once a step and reduce-scatters behind the
  // backward: the vocabulary moves its DP time by far less.
  const LayoutResult z2a = evaluate_layout(fsdp_job(v0, 64), zero3(2));
  const LayoutResult z2b = evaluate_layout(fsdp_job(v1, 64), zero3(2));
  const LayoutResult z3a = evaluate_layout(fsdp_job(v0, 64), zero3(3));
  const LayoutResult z3b = evaluate_layout(fsdp_job(v1, 64), zero3(3));
  EXPECT_LT(z2b.time.dp_comm_seconds - z2a.time.dp_comm_seconds,
            0.5 * (z3b.time.dp_comm_seconds - z3a.time.dp_comm_seconds));
}

TEST(ParallelZero3, OneShardHasNothingToGather) {
  TrainingJob j = fsdp_job(128256, 1);
  j.n_chips = 1;
  Layout l = zero3(3);
  l.dp = 1;
  const LayoutResult r = evaluate_layout(j, l);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(r.time.dp_comm_seconds, 0);
}

}  // namespace
}  // namespace napkin
