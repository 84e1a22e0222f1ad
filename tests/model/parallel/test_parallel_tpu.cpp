// MaxText's software preset on a TPU slice (TrainingSoftware for JAX/XLA):
// one compiled program over GSPMD's FSDP.
#include <gtest/gtest.h>

#include "parallel.h"
#include "parallel_settings.h"
#include "parallel_test_util.h"
#include "single_chip_layout.h"

namespace napkin {
namespace {

TrainingJob v5e_slice() {
  return TrainingJob{.shape = testing_util::preset_shape("Llama-3-8B"),
                     .chip = "TPU v5e",
                     .n_chips = 256,
                     .seq_len = 2048,
                     .global_batch = 512,
                     .software = software_by_name("maxtext")};
}

TEST(ParallelTpu, MaxTextIsOneCompiledProgramOverFsdp) {
  // FSDP over the slice's 256 chips: no host time per kernel, no bf16 weight
  // shard at rest (the fp32 shard is the parameter), the recomputed forward
  // gathering the weights again; ZeRO 0 or 3 only.
  const TrainingJob j = v5e_slice();
  Layout l = testing_util::single_chip();
  l.dp = 256, l.zero = 3, l.micro_batch = 2, l.recompute = Checkpointing::full;
  const LayoutResult r = evaluate_layout(j, l);
  ASSERT_TRUE(r.valid) << r.reason;
  EXPECT_EQ(r.time.kernels.host_wait_seconds, 0.0);
  EXPECT_EQ(r.memory.weights_bytes, 0);
  TrainingJob once = j;
  once.software.zero3_regather_for_recompute = false;
  const LayoutResult o = evaluate_layout(once, l);
  EXPECT_GE(r.time.dp_comm_seconds, o.time.dp_comm_seconds);
  EXPECT_GE(r.step_seconds, o.step_seconds);
  l.zero = 1;
  const LayoutResult z1 = evaluate_layout(j, l);
  EXPECT_FALSE(z1.valid);
  EXPECT_NE(z1.reason.find("MaxText (JAX/XLA) runs ZeRO 0 and 3 only"), std::string::npos)
      << z1.reason;
  l.zero = 3, l.vpp = 2, l.pp = 2, l.dp = 128;
  EXPECT_NE(evaluate_layout(j, l).reason.find("has no interleaved pipeline"), std::string::npos);
}

// A GPU's usual system is its node, a TPU's its pod (the cluster read-out).
TEST(ParallelTpu, ATpusUsualSystemIsItsPod) {
  ParallelSettings s;
  EXPECT_EQ(s.cluster_text(chip_by_name("H100")).rfind("H100's usual node: 8 GPUs per node", 0),
            0u);
  EXPECT_EQ(s.cluster_text(chip_by_name("TPU v5p"))
                .rfind("TPU v5p's usual pod: 8960 chips per ICI slice", 0),
            0u)
      << s.cluster_text(chip_by_name("TPU v5p"));
}

}  // namespace
}  // namespace napkin
