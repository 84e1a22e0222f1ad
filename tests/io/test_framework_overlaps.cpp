// What a Megatron-LM launch line says about Megatron's own overlaps, against
// what the Megatron Core presets assume: said on import where they differ.
#include <gtest/gtest.h>

#include <string>

#include "framework_config.h"
#include "io_test_util.h"

using namespace napkin;

namespace {

TrainingConfig megatron(const std::string& flags) {
  return import_training_config(
      "torchrun --nproc-per-node 8 --nnodes 4 pretrain_gpt.py --num-layers 32 "
      "--hidden-size 4096 --num-attention-heads 32 --vocab-size 32000 --seq-length 4096 "
      "--micro-batch-size 1 --global-batch-size 256 --bf16 --tensor-model-parallel-size 2 "
      "--pipeline-model-parallel-size 4 --use-distributed-optimizer " +
          flags + "\n",
      "run.sh", TrainingFramework::megatron);
}

int notes_naming(const TrainingConfig& c, const std::string& key) {
  int n = 0;
  for (const std::string& note : c.notes) n += note.rfind(key, 0) == 0 ? 1 : 0;
  return n;
}

}  // namespace

TEST(FrameworkOverlaps, MegatronsDefaultsWithoutTheOverlapFlagsAreSaid) {
  // Megatron-LM reduces and gathers after the passes unless told otherwise.
  const TrainingConfig plain = megatron("--num-layers-per-virtual-pipeline-stage 4");
  EXPECT_EQ(notes_naming(plain, "overlap_grad_reduce off"), 1);
  EXPECT_EQ(notes_naming(plain, "overlap_param_gather off"), 1);
  // Its interleaved schedule overlaps the sends by default.
  EXPECT_EQ(notes_naming(plain, "overlap_p2p_comm off"), 0);
  const TrainingConfig tuned = megatron(
      "--overlap-grad-reduce --overlap-param-gather --num-layers-per-virtual-pipeline-stage 4 "
      "--no-overlap-p2p-communication");
  EXPECT_EQ(notes_naming(tuned, "overlap_grad_reduce off"), 0);
  EXPECT_EQ(notes_naming(tuned, "overlap_param_gather off"), 0);
  EXPECT_EQ(notes_naming(tuned, "overlap_p2p_comm off"), 1);
  // Without interleaving there is nothing to overlap; without the
  // distributed optimizer no weights to gather.
  const TrainingConfig flat = import_training_config(
      "torchrun --nproc-per-node 8 pretrain_gpt.py --micro-batch-size 1 "
      "--no-overlap-p2p-communication\n",
      "flat.sh", TrainingFramework::megatron);
  EXPECT_EQ(notes_naming(flat, "overlap_p2p_comm off"), 0);
  EXPECT_EQ(notes_naming(flat, "overlap_param_gather off"), 0);
  EXPECT_EQ(notes_naming(flat, "overlap_grad_reduce off"), 1);
  // A printed arguments block says each as a value.
  const TrainingConfig printed =
      import_training_config_file(io_test::framework_data("megatron-arguments.log"));
  EXPECT_EQ(notes_naming(printed, "overlap_grad_reduce off"), 0);
}
