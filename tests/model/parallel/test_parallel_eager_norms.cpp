// RMSNorm as eager PyTorch ops (torchtitan's own RMSNorm of 2024,
// nn.RMSNorm before PyTorch 2.9): every op a pass over an fp32 copy of the
// activations, priced byte by byte, and every op a kernel the host dispatches.
#include <gtest/gtest.h>

#include "hardware.h"
#include "parallel.h"
#include "parallel_software.h"
#include "single_chip_layout.h"

namespace napkin {
namespace {

using testing_util::single_chip;

// Four layers of width 1,024 on one A100, 2,048 tokens: nothing but the
// norms differs between the two runs.
TrainingJob job(bool eager_norms) {
  TrainingJob j{.shape = ModelShape{4, 1024, 4096, 8, 2, 128, 32000},
                .chip = "A100-80",
                .n_chips = 1,
                .seq_len = 2048,
                .global_batch = 1,
                .software = software_by_name("fsdp")};
  j.software.eager_norms = eager_norms;
  return j;
}

double hbm_rate() {
  const Chip& c = chip_by_name("A100-80");
  return c.hbm_bytes_per_s * c.efficiency.hbm;
}

TEST(EagerNorms, TheFusedAndEagerByteCounts) {
  TrainingSoftware sw = software_by_name("fsdp");
  EXPECT_DOUBLE_EQ(norm_bytes(sw).forward, 4);
  EXPECT_DOUBLE_EQ(norm_bytes(sw).backward, 6);
  sw.eager_norms = true;
  // Forward: cast 6, pow 8, mean 4, x·r 8, cast 6, ·weight 4.
  EXPECT_DOUBLE_EQ(norm_bytes(sw).forward, 6 + 8 + 4 + 8 + 6 + 4);
  // Backward: ·weight 12, cast 6, x·r 24, mean 4, pow 28, the two uses 12, cast 6.
  EXPECT_DOUBLE_EQ(norm_bytes(sw).backward, 12 + 6 + 24 + 4 + 28 + 12 + 6);
}

TEST(EagerNorms, NoPresetRunsThemAndTheChangeIsNamed) {
  for (const SoftwarePreset& p : software_presets()) EXPECT_FALSE(p.software.eager_norms) << p.name;
  const TrainingSoftware& base = software_by_name("fsdp");
  TrainingSoftware run = base;
  run.eager_norms = true;
  EXPECT_EQ(software_changes(base, run), std::vector<std::string>{"eager RMSNorm"});
}

TEST(EagerNorms, EachNormPaysItsOpsByteForByte) {
  const LayoutResult eager = evaluate_layout(job(true), single_chip());
  const LayoutResult fused = evaluate_layout(job(false), single_chip());
  ASSERT_TRUE(eager.valid && fused.valid) << eager.reason << fused.reason;
  // Two norms per layer and the final one, 32 bytes more per element forward
  // and 86 backward, over 2,048 tokens × 1,024.
  const double elements = 2048.0 * 1024, extra = 32 + 86;
  EXPECT_NEAR(eager.time.kernels.elementwise_seconds - fused.time.kernels.elementwise_seconds,
              (4 * 2 + 1) * extra * elements / hbm_rate(), 1e-9);
  EXPECT_DOUBLE_EQ(eager.time.kernels.gemm_seconds, fused.time.kernels.gemm_seconds);
  EXPECT_DOUBLE_EQ(eager.time.kernels.attention_seconds, fused.time.kernels.attention_seconds);
  EXPECT_GT(eager.step_seconds, fused.step_seconds);
  EXPECT_LT(eager.mfu, fused.mfu);
}

TEST(EagerNorms, TheOpPolicyRecomputesThemEager) {
  // torchtitan's op-level checkpointing keeps no norm output: both norms run
  // their forward again before the backward.
  Layout l = single_chip();
  l.recompute = Checkpointing::selective;
  l.recompute_modules = kRecomputeOp;
  const LayoutResult eager = evaluate_layout(job(true), l);
  const LayoutResult fused = evaluate_layout(job(false), l);
  ASSERT_TRUE(eager.valid && fused.valid) << eager.reason << fused.reason;
  const double elements = 2048.0 * 1024;
  EXPECT_NEAR(eager.time.kernels.elementwise_seconds - fused.time.kernels.elementwise_seconds,
              ((4 * 2 + 1) * (32 + 86) + 4 * 2 * 32) * elements / hbm_rate(), 1e-9);
}

TEST(EagerNorms, EachNormKeepsItsFp32CopyForTheBackward) {
  // Without recomputation each norm keeps its input's fp32 copy and its
  // output before the weight (6 bytes an element) where a fused norm keeps
  // its bf16 input (2): 8 more per element of every layer and the final
  // norm. Recomputed norms keep nothing of their own.
  auto activations = [](bool eager, Checkpointing recompute) {
    Layout l = single_chip();
    l.recompute = recompute;
    return memory_by_stage(job(eager), l)[0].activations_bytes;
  };
  const std::int64_t elements = 2048LL * 1024;
  EXPECT_EQ(activations(true, Checkpointing::none) - activations(false, Checkpointing::none),
            (4 + 1) * 8 * elements);
  EXPECT_EQ(activations(true, Checkpointing::full) - activations(false, Checkpointing::full),
            8 * elements);  // the final norm, outside the checkpointed layers
}

TEST(EagerNorms, TheHostDispatchesEveryOp) {
  // A layer so small that the host sets the pace: each eager norm adds 7
  // kernels forward and 14 backward, 10 µs each; the final norm (outside the
  // layers, not host-bound) its bytes.
  auto tiny = [](bool eager_norms) {
    TrainingJob j = job(eager_norms);
    j.shape = ModelShape{4, 64, 256, 4, 4, 16, 1000};
    j.seq_len = 16;
    return evaluate_layout(j, single_chip());
  };
  const LayoutResult eager = tiny(true), fused = tiny(false);
  ASSERT_TRUE(eager.valid && fused.valid) << eager.reason << fused.reason;
  ASSERT_GT(fused.time.kernels.host_wait_seconds, 0.0);
  const double dispatch = software_by_name("fsdp").host_dispatch_seconds;
  EXPECT_NEAR(eager.time.kernels.total_seconds() - fused.time.kernels.total_seconds(),
              4 * 2 * (7 + 14) * dispatch + (32 + 86) * 16.0 * 64 / hbm_rate(), 1e-12);
}

}  // namespace
}  // namespace napkin
