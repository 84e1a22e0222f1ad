// Published training runs the parallelism tests evaluate in more than one
// place.
#pragma once

#include "parallel.h"
#include "parallel_test_util.h"

namespace napkin::testing_util {

// DeepSeek-V3 as its report trained it (DeepSeek-AI 2024, §3.1-3.2): 2,048
// H800, 4,096-token sequences, 15,360 per step, its own stack; PP 16 (DualPipe),
// EP 64, DP 128, ZeRO-1, no activation recomputation in the layout.
inline TrainingJob deepseek_v3_paper_job() {
  TrainingJob j{.shape = preset_shape("DeepSeek-V3"),
                .chip = "H800",
                .n_chips = 2048,
                .seq_len = 4096,
                .global_batch = 15360,
                .software = software_by_name("deepseek-v3")};
  return j;
}
inline Layout deepseek_v3_paper_layout() {
  Layout l;
  l.tp = 1, l.pp = 16, l.dp = 128, l.ep = 64, l.zero = 1, l.recompute = Checkpointing::none;
  return l;
}

}  // namespace napkin::testing_util
