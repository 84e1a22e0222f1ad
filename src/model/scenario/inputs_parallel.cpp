// The Parallelism panel's registered inputs: the global batch and a custom
// cluster's node size, links and measured non-tensor memory (inputs.h).
#include <array>
#include <cmath>

#include "inputs_detail.h"
#include "scenario.h"

namespace napkin::detail {

namespace {
using S = Scenario;
}  // namespace

std::span<const ScenarioInput> parallel_inputs() {
  static const std::array kParallel{
      ScenarioInput{
          .key = "parallel.global_batch_tokens",
          .section = "parallel",
          .json_key = "global_batch_tokens",
          .flag = "",
          .label = "Global batch",
          .compare_name = "Parallelism: global batch",
          .unit = "tokens per step",
          .display_unit = "tokens",
          .type = InputType::count,
          .default_value = 4'194'304,
          .lo = 1,
          .hi = 1'000'000'000,
          .slider_lo = 65'536,
          .slider_hi = 268'435'456,
          .scale = InputScale::log,
          .ladder = Ladder::powersOfTwo(),
          .tooltip =
              "Tokens per optimizer step (tokens); sequences per step = this ÷ the training "
              "sequence length (Budget panel). More sequences mean more micro-batches per "
              "pipeline and a smaller bubble. Default 4 Mi tokens, Llama-3-70B's early batch.",
          .get = [](const S& s) { return static_cast<double>(s.parallel.global_batch_tokens); },
          .set = [](S& s, double v) { s.parallel.global_batch_tokens = std::llround(v); }},
      ScenarioInput{
          .key = "parallel.gpus_per_node",
          .section = "parallel",
          .json_key = "gpus_per_node",
          .flag = "--gpus-per-node",
          .label = "GPUs per node",
          .compare_name = "Parallelism: custom cluster's GPUs per node",
          .unit = "GPUs",
          .display_unit = "",
          .type = InputType::count,
          .default_value = 8,
          .lo = 1,
          .hi = 100'000,
          .slider_lo = 1,
          .slider_hi = 1'024,
          .scale = InputScale::log,
          .ladder = Ladder::powersOfTwo(),
          .tooltip = "Chips in one fast (NVLink / ICI) domain (GPUs) of a custom cluster: 8 in a "
                     "DGX, 72 in a GB200 NVL72 rack, a pod's chips on TPU. Collectives inside it "
                     "run at the scale-up bandwidth, across it at the scale-out bandwidth.",
          .get = [](const S& s) { return static_cast<double>(s.parallel.gpus_per_node); },
          .set = [](S& s, double v) { s.parallel.gpus_per_node = std::llround(v); }},
      ScenarioInput{
          .key = "parallel.scale_up_gb_per_s",
          .section = "parallel",
          .json_key = "scale_up_gb_per_s",
          .flag = "--scale-up-gb-per-s",
          .label = "Scale-up bandwidth",
          .compare_name = "Parallelism: custom scale-up bandwidth",
          .unit = "GB/s per GPU",
          .display_unit = "GB/s",
          .default_value = 450,
          .lo = 0.1,
          .hi = 100'000,
          .slider_lo = 10,
          .slider_hi = 2'000,
          .scale = InputScale::log,
          .ladder = Ladder::oneTwoFive(),
          .decimals = 1,
          .tooltip = "A custom cluster's NVLink / ICI bandwidth per GPU and direction (GB/s, "
                     "10^9 bytes/s): half a datasheet's bidirectional figure (DGX H100: 900 GB/s "
                     "bidirectional, 450 here). Napkin applies the chip's measured link "
                     "efficiency on top.",
          .get = [](const S& s) { return s.parallel.scale_up_gb_per_s; },
          .set = [](S& s, double v) { s.parallel.scale_up_gb_per_s = v; }},
      ScenarioInput{
          .key = "parallel.scale_out_gb_per_s",
          .section = "parallel",
          .json_key = "scale_out_gb_per_s",
          .flag = "--scale-out-gb-per-s",
          .label = "Scale-out bandwidth",
          .compare_name = "Parallelism: custom scale-out bandwidth",
          .unit = "GB/s per GPU",
          .display_unit = "GB/s",
          .default_value = 50,
          .lo = 0.1,
          .hi = 100'000,
          .slider_lo = 1,
          .slider_hi = 200,
          .scale = InputScale::log,
          .ladder = Ladder::oneTwoFive(),
          .decimals = 2,
          .tooltip = "A custom cluster's InfiniBand / RoCE / DCN bandwidth per GPU and direction "
                     "(GB/s): the node's NICs divided by its GPUs (8 x 400 Gb/s over 8 GPUs: 50; "
                     "4 x 200 Gb/s over 8 GPUs: 12.5).",
          .get = [](const S& s) { return s.parallel.scale_out_gb_per_s; },
          .set = [](S& s, double v) { s.parallel.scale_out_gb_per_s = v; }},
      ScenarioInput{.key = "parallel.non_tensor_gb",
                    .section = "parallel",
                    .json_key = "non_tensor_gb",
                    .flag = "--non-tensor-gb",
                    .label = "Non-tensor memory",
                    .compare_name = "Parallelism: measured non-tensor memory",
                    .unit = "GB per GPU",
                    .display_unit = "GB",
                    .default_value = 0,
                    .lo = 0,
                    .hi = 1'000,
                    .slider_lo = 0,
                    .slider_hi = 20,
                    .decimals = 2,
                    .tooltip =
                        "Device memory your cluster uses outside the tensors (GB per GPU): the "
                        "driver's used memory at the peak less PyTorch's "
                        "max_memory_allocated. 0: Napkin's estimate (the CUDA context and "
                        "kernels, NCCL's buffers per communicator, allocator fragmentation; none "
                        "on TPUs, whose XLA program plans every buffer).",
                    .special_text = "estimated",
                    .get = [](const S& s) { return s.parallel.non_tensor_gb; },
                    .set = [](S& s, double v) { s.parallel.non_tensor_gb = v; }},
  };
  return kParallel;
}

}  // namespace napkin::detail
