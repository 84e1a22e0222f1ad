// Parallel blocks (GPT-J; PaLM §2; Falcon; MaxText's 2023 decoder): attention
// and the MLP read one normed input and add into the residual together, so a
// TP block gathers and reduces once per pass, and the block runs its own
// number of norms (ModelShape::norms_per_layer) and one junction.
#include <gtest/gtest.h>

#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

using parallel_detail::JobContext;
using parallel_detail::LayerCost;

TrainingJob job(bool parallel, std::int64_t norms) {
  TrainingJob j{.shape = testing_util::preset_shape("Llama-3-8B"),
                .chip = "H100",
                .n_chips = 8,
                .seq_len = 4096,
                .global_batch = 8,
                .software = software_by_name("modern")};
  j.shape.parallel_blocks = parallel;
  j.shape.norms_per_layer = norms;
  j.software.tp_overlap = TpOverlap::none;  // every collective exposed: exact sums
  return j;
}

LayerCost cost(const TrainingJob& j, bool sequence_parallel) {
  Layout l;
  l.tp = 8, l.dp = 1, l.micro_batch = 1, l.zero = 1;
  l.sequence_parallel = sequence_parallel;
  const JobContext c = parallel_detail::make_context(j);
  return parallel_detail::layer_cost(c, l, false);
}

TEST(ParallelBlocks, GatherAndReduceOncePerPassInsteadOfTwice) {
  for (const bool sp : {true, false}) {
    SCOPED_TRACE(sp ? "sequence parallel" : "all-reduce");
    const LayerCost seq = cost(job(false, 2), sp);
    const LayerCost par = cost(job(true, 2), sp);
    ASSERT_GT(seq.fwd_tp, 0);
    EXPECT_NEAR(par.fwd_tp, 0.5 * seq.fwd_tp, 1e-12);
    EXPECT_NEAR(par.bwd_tp, 0.5 * seq.bwd_tp, 1e-12);
    // The GEMMs are the same matrices either way.
    EXPECT_DOUBLE_EQ(par.fwd_mix.gemm_seconds, seq.fwd_mix.gemm_seconds);
  }
}

TEST(ParallelBlocks, OneNormAndOneJunctionStreamFewerBytes) {
  // Sequential, two norms: 2 × 4 + 2 × 6 = 20 bytes per element of d_model
  // forward. Parallel with one norm: 4 + 8 (x + attention + MLP) = 12.
  // Parallel with two norms on the same input (Falcon-40B): 16.
  const double seq = cost(job(false, 2), true).fwd_mix.elementwise_seconds;
  const double one = cost(job(true, 1), true).fwd_mix.elementwise_seconds;
  const double two = cost(job(true, 2), true).fwd_mix.elementwise_seconds;
  EXPECT_LT(one, two);
  EXPECT_LT(two, seq);
  // The junction and norm bytes are a share of the layer's element-wise
  // bytes (the MLP's activation and the rest stay): the differences are
  // exactly one norm (4 bytes) and then one junction's 4 bytes more.
  EXPECT_NEAR(two - one, seq - two, 1e-12);
}

TEST(ParallelBlocks, GemmaRunsFourNorms) {
  const double two = cost(job(false, 2), true).bwd_mix.elementwise_seconds;
  const double four = cost(job(false, 4), true).bwd_mix.elementwise_seconds;
  const double six = cost(job(false, 6), true).bwd_mix.elementwise_seconds;
  EXPECT_GT(four, two);
  EXPECT_NEAR(six - four, four - two, 1e-12);
}

TEST(ParallelBlocks, KeepTheirInputAndNormOutputOnce) {
  // A sequential block keeps two norm inputs and two norm outputs (8 bytes
  // per element of d_model, sharded over TP with SP); a parallel block with
  // one norm keeps x and its normed copy (4), with two norms (Falcon-40B) 6.
  ModelShape seq = testing_util::preset_shape("Llama-3-8B");
  ModelShape one = seq, two = seq;
  one.parallel_blocks = two.parallel_blocks = true;
  one.norms_per_layer = 1;
  LayerActivationInputs in;
  in.seq_len = 4096, in.micro_batch = 2, in.tp = 8, in.sequence_parallel = true;
  in.flash_attention = true, in.dropout = false;
  const std::int64_t nh_shard = 2 * 4096 * seq.d_model / 8;
  EXPECT_EQ(layer_activation_bytes(seq, in) - layer_activation_bytes(one, in), 4 * nh_shard);
  EXPECT_EQ(layer_activation_bytes(seq, in) - layer_activation_bytes(two, in), 2 * nh_shard);
  // Recomputed norms keep only the inputs: two against one.
  in.recompute = Checkpointing::selective;
  in.recompute_modules = kRecomputeLayernorm;
  EXPECT_EQ(layer_activation_bytes(seq, in) - layer_activation_bytes(one, in), 2 * nh_shard);
}

}  // namespace
}  // namespace napkin
