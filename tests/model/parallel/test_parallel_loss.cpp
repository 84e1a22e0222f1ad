// The cross-entropy as each framework's kernels run it (LossKernel): the
// passes over the logits priced byte by byte at the chip's streaming rate,
// and what the backward keeps.
#include <gtest/gtest.h>

#include <cstdint>

#include "hardware.h"
#include "parallel.h"
#include "parallel_internal.h"
#include "single_chip_layout.h"

namespace napkin {
namespace {

// One layer of a small model on one A100, so the output layer and its loss
// weigh in the step.
TrainingJob job_with(LossKernel kernel) {
  TrainingJob j{.shape = ModelShape{1, 1024, 4096, 8, 8, 128, 128000},
                .chip = "A100-80",
                .n_chips = 1,
                .seq_len = 2048,
                .global_batch = 1,
                .software = software_by_name("modern")};
  j.software.loss_kernel = kernel;
  return j;
}

using testing_util::single_chip;

parallel_detail::EdgeCost output(const TrainingJob& j) {
  const parallel_detail::JobContext c = parallel_detail::make_context(j);
  return parallel_detail::output_cost(c, single_chip());
}

constexpr double kLogits = 2048.0 * 128000;

double hbm_rate() {
  const Chip& c = chip_by_name("A100-80");
  return c.hbm_bytes_per_s * c.efficiency.hbm;
}

TEST(ParallelLoss, EachKernelStreamsItsBytesPerLogit) {
  EXPECT_EQ(loss_bytes(LossKernel::megatron).forward_per_logit, 38);
  EXPECT_EQ(loss_bytes(LossKernel::megatron).backward_per_logit, 14);
  EXPECT_EQ(loss_bytes(LossKernel::megatron_fused).forward_per_logit, 22);
  EXPECT_EQ(loss_bytes(LossKernel::megatron_fused).backward_per_logit, 6);
  EXPECT_EQ(loss_bytes(LossKernel::te).forward_per_logit, 6);
  EXPECT_EQ(loss_bytes(LossKernel::te).backward_per_logit, 4);
  EXPECT_EQ(loss_bytes(LossKernel::compiled).forward_per_logit, 10);
  // Megatron's unfused loss against Transformer Engine's: 32 bytes more per
  // logit forward, 10 backward, and nothing else in the step changes.
  const parallel_detail::EdgeCost unfused = output(job_with(LossKernel::megatron));
  const parallel_detail::EdgeCost te = output(job_with(LossKernel::te));
  EXPECT_NEAR(unfused.fwd_compute - te.fwd_compute, 32 * kLogits / hbm_rate(), 1e-12);
  EXPECT_NEAR(unfused.bwd_compute - te.bwd_compute, 10 * kLogits / hbm_rate(), 1e-12);
  EXPECT_DOUBLE_EQ(unfused.gemm, te.gemm);
  const LayoutResult slow = evaluate_layout(job_with(LossKernel::megatron), single_chip());
  const LayoutResult fast = evaluate_layout(job_with(LossKernel::te), single_chip());
  ASSERT_TRUE(slow.valid && fast.valid) << slow.reason << fast.reason;
  EXPECT_NEAR(slow.step_seconds - fast.step_seconds, 42 * kLogits / hbm_rate(), 1e-9);
}

// Transformer Engine writes the gradient over the bf16 logits: 2 bytes per
// logit kept for the backward, where the fp32 softmax keeps 4.
TEST(ParallelLoss, TransformerEngineKeepsTheGradientInTheLogits) {
  const parallel_detail::EdgeCost unfused = output(job_with(LossKernel::megatron));
  const parallel_detail::EdgeCost fused = output(job_with(LossKernel::megatron_fused));
  const parallel_detail::EdgeCost te = output(job_with(LossKernel::te));
  EXPECT_EQ(unfused.activation_bytes, fused.activation_bytes);
  EXPECT_EQ(unfused.activation_bytes - te.activation_bytes, static_cast<std::int64_t>(2 * kLogits));
}

// The presets' loss as their code runs it.
TEST(ParallelLoss, PresetsRunTheirFrameworksLoss) {
  for (const char* name : {"modern", "megatron-2022", "megatron-2021", "megatron-deepspeed",
                           "megatron-deepspeed-bf16", "nemo-1.0"})
    EXPECT_EQ(software_by_name(name).loss_kernel, LossKernel::megatron) << name;
  EXPECT_EQ(software_by_name("megatron-core-fp8").loss_kernel, LossKernel::te);
  EXPECT_EQ(software_by_name("fsdp-compile").loss_kernel, LossKernel::compiled);
  TrainingSoftware run = software_by_name("nemo-1.0");
  run.loss_kernel = LossKernel::megatron_fused;
  EXPECT_EQ(software_changes(software_by_name("nemo-1.0"), run),
            std::vector<std::string>{"megatron-fused cross-entropy"});
}

}  // namespace
}  // namespace napkin
