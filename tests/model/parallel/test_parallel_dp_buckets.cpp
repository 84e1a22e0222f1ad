// Megatron Core's gradient buckets (TrainingSoftware::megatron_dp_buckets):
// the bucket the backward makes last (the first layers and the embedding)
// reduces after the backward and gathers before the next forward; later
// pipeline stages reduce their first model chunk as one bucket.
#include <gtest/gtest.h>

#include "kernel_time.h"
#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

using parallel_detail::JobContext;

TrainingJob job(std::string_view model, std::string_view software, std::int64_t chips) {
  return TrainingJob{.shape = testing_util::preset_shape(model),
                     .chip = "H100",
                     .n_chips = chips,
                     .seq_len = 8192,
                     .global_batch = 4 * chips,
                     .software = software_by_name(software)};
}

Layout layout(std::int64_t tp, std::int64_t pp, std::int64_t dp, std::int64_t vpp = 1) {
  Layout l;
  l.tp = tp, l.pp = pp, l.dp = dp, l.vpp = vpp, l.zero = 1;
  l.sequence_parallel = tp > 1;
  return l;
}

// The last bucket of stage `i` of a layout.
std::pair<std::int64_t, std::int64_t> last_bucket(const TrainingJob& j, const Layout& l,
                                                  std::size_t i) {
  const JobContext c = parallel_detail::make_context(j);
  const auto comps = parallel_detail::stage_compositions(c, l);
  const parallel_detail::LayerCost dense = parallel_detail::layer_cost(c, l, false);
  const parallel_detail::LayerCost moe =
      j.shape.is_moe() ? parallel_detail::layer_cost(c, l, true) : dense;
  return parallel_detail::last_grad_bucket(c, l, comps.at(i), dense, moe,
                                           parallel_detail::embedding_cost(c, l),
                                           parallel_detail::output_cost(c, l));
}

TEST(DpBuckets, EveryLlama8bMatrixClosesABucketSoTheLastHoldsTheEmbeddingAlone) {
  // Without TP each MLP matrix (58.7M, 117.4M parameters) fills a 40M bucket
  // by itself and the attention's two (16.8M, 25.2M) fill one together: the
  // embedding, 128,256 × 4,096, is the last bucket on its own.
  const TrainingJob j = job("Llama-3-8B", "modern", 8);
  EXPECT_EQ(last_bucket(j, layout(1, 1, 8), 0),
            (std::pair<std::int64_t, std::int64_t>{128256LL * 4096, 0}));
  // TP 8: the layers' 27M each fill buckets across layer boundaries; what is
  // left open joins the embedding's 1/8, less than a bucket.
  const auto [dense, experts] = last_bucket(job("Llama-3-8B", "modern", 64), layout(8, 1, 8), 0);
  EXPECT_GE(dense, 128256LL * 4096 / 8);
  EXPECT_LT(dense, 128256LL * 4096 / 8 + 40'000'000);
  EXPECT_EQ(experts, 0);
}

TEST(DpBuckets, TheBucketGrowsWithTheDataParallelGroup) {
  // max(40M, 1M × DP): at DP 64 the attention's 42M no longer closes a
  // bucket, so the open one carries on into the embedding's.
  const TrainingJob j = job("Llama-3-8B", "modern", 64);
  const auto [dense, experts] = last_bucket(j, layout(1, 1, 64), 0);
  EXPECT_GT(dense, 128256LL * 4096);
  EXPECT_LT(dense, 128256LL * 4096 + 64'000'000);
  EXPECT_EQ(experts, 0);
}

TEST(DpBuckets, ALaterStageReducesItsFirstChunkAsOneBucket) {
  const TrainingJob j = job("Llama-3-70B", "modern", 64);
  const JobContext c = parallel_detail::make_context(j);
  const Layout l = layout(8, 4, 2);
  const parallel_detail::LayerCost dense = parallel_detail::layer_cost(c, l, false);
  // 20 layers per stage; stage 1 is one bucket of all of them.
  EXPECT_EQ(last_bucket(j, l, 1).first, 20 * dense.dense_params);
  // Interleaved over 2 chunks: its first chunk, 10 layers.
  EXPECT_EQ(last_bucket(j, layout(8, 4, 2, 2), 1).first, 10 * dense.dense_params);
  // The last stage's head is in its one chunk without interleaving.
  EXPECT_EQ(last_bucket(j, l, 3).first,
            20 * dense.dense_params + parallel_detail::output_cost(c, l).params);
}

TEST(DpBuckets, RoutedExpertsFillTheirOwnBuffer) {
  // Mixtral 8x7B, EP 8: each rank holds one expert per layer, its matrices
  // in the expert buffer: the down projection (58.7M) leaves a 64M bucket
  // open, the gate and up projections (117.4M) close it, so the last bucket
  // is the first layer's expert, whole.
  const TrainingJob j = job("Mixtral-8x7B", "modern", 64);
  Layout l = layout(1, 1, 64);
  l.ep = 8;
  const auto [dense, experts] = last_bucket(j, l, 0);
  EXPECT_EQ(experts, 3LL * 4096 * 14336);
  EXPECT_GE(dense, 32000LL * 4096);
  EXPECT_LT(dense, 32000LL * 4096 + 64'000'000);
}

TEST(DpBuckets, SoftwareWithoutThemReducesEveryGradientAsItIsMade) {
  for (std::string_view name : {"fsdp", "nemo-1.0", "megatron-2022", "deepseek-v3"})
    EXPECT_EQ(last_bucket(job("Llama-3-8B", name, 8), layout(1, 1, 8), 0),
              (std::pair<std::int64_t, std::int64_t>{0, 0}))
        << name;
}

TEST(DpBuckets, TheLastBucketsReduceAndGatherAreExposed) {
  // Llama 3 8B on 8 nodes, DP 64: one micro-batch's backward hides the
  // step's reduce-scatter, but not the embedding's after it, nor its
  // all-gather before the next forward.
  TrainingJob bucketed = job("Llama-3-8B", "modern", 64);
  TrainingJob ideal = bucketed;
  ideal.software.megatron_dp_buckets = false;
  const Layout l = layout(1, 1, 64);
  const LayoutResult b = evaluate_layout(bucketed, l), i = evaluate_layout(ideal, l);
  ASSERT_TRUE(b.valid && i.valid);
  const JobContext c = parallel_detail::make_context(bucketed);
  const auto [dense, experts] = last_bucket(bucketed, l, 0);
  const parallel_detail::DpStep tail = parallel_detail::dp_step(c, l, dense, experts);
  const double added = b.time.dp_comm_seconds - i.time.dp_comm_seconds;
  EXPECT_GT(added, 0.5 * (tail.grads + tail.params));
  EXPECT_LE(added, tail.grads + tail.params + 1e-12);
  EXPECT_NEAR(b.step_seconds - i.step_seconds, added, 1e-12);
  // On one node (no data parallelism) nothing changes.
  const Layout one = layout(8, 1, 1);
  EXPECT_DOUBLE_EQ(evaluate_layout(job("Llama-3-8B", "modern", 8), one).step_seconds, [&] {
    TrainingJob j = job("Llama-3-8B", "modern", 8);
    j.software.megatron_dp_buckets = false;
    return evaluate_layout(j, one).step_seconds;
  }());
}

// Megatron's gradient buffer is passed over each step outside the update:
// Megatron Core zeroes it and takes its norm for the NaN check (2 passes) and,
// with more than one data-parallel rank, scales it by 1/DP (2 more); Megatron
// Bridge's performance recipes only zero it; FSDP has no such buffer. Each
// pass moves every local gradient once at the element-wise HBM rate, and is
// charged to the step's optimizer time.
TEST(DpBuckets, TheGradientBufferPassesAreChargedToTheStep) {
  auto added = [](std::string_view software, std::int64_t chips, const Layout& l) {
    TrainingJob with = job("Llama-3-8B", software, chips);
    TrainingJob without = with;
    without.software.grad_buffer_passes = without.software.grad_scaling_passes = 0;
    const LayoutResult a = evaluate_layout(with, l), b = evaluate_layout(without, l);
    EXPECT_TRUE(a.valid && b.valid);
    EXPECT_NEAR(a.step_seconds - b.step_seconds,
                a.time.optimizer_seconds - b.time.optimizer_seconds, 1e-12);
    return a.time.optimizer_seconds - b.time.optimizer_seconds;
  };
  // Llama 3 8B without TP: every one of its 8,030,261,248 gradients, in fp32.
  const double hbm = kernel_rates(chip_by_name("H100")).hbm_bytes_per_s;
  const double bytes = 4.0 * 8'030'261'248.0;
  EXPECT_NEAR(added("modern", 8, layout(1, 1, 8)), 4 * bytes / hbm, 1e-9);
  // TP 8 with and without data parallelism: the same local gradients, the
  // scaling only when there is more than one data-parallel rank.
  const double one = added("modern", 8, layout(8, 1, 1)),
               two = added("modern", 16, layout(8, 1, 2));
  EXPECT_GT(one, 0);
  EXPECT_NEAR(two, 2 * one, 1e-12);
  // Megatron Bridge's zeroing alone; FSDP's none.
  EXPECT_NEAR(added("megatron-core-fp8", 8, layout(1, 1, 8)), bytes / hbm, 1e-9);
  EXPECT_EQ(
      software_by_name("fsdp").grad_buffer_passes + software_by_name("fsdp").grad_scaling_passes,
      0);
  EXPECT_EQ(software_by_name("megatron-2022").grad_buffer_passes, 3);
}

}  // namespace
}  // namespace napkin
