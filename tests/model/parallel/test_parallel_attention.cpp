// Multi-head latent attention in the training step: MLA's down- and
// up-projections priced as the GEMMs they are (not as full multi-head
// attention of the same head width), its attention core at the mean of the
// query-key and value widths, its activations with its latents.
#include <gtest/gtest.h>

#include "model_presets.h"
#include "parallel.h"
#include "parallel_internal.h"
#include "parallel_test_util.h"

namespace napkin {
namespace {

using parallel_detail::JobContext;
using parallel_detail::LayerCost;

TrainingJob deepseek_v3_job() {
  TrainingJob j{.shape = testing_util::preset_shape("DeepSeek-V3"),
                .chip = "H800",
                .n_chips = 16,
                .seq_len = 4096,
                .global_batch = 16,
                .software = software_by_name("modern")};
  return j;
}

TEST(ParallelAttention, MlaProjectionsAreTheGemmsTheModelRuns) {
  TrainingJob j = deepseek_v3_job();
  Layout l;
  l.tp = 2, l.dp = 8, l.zero = 1, l.recompute = Checkpointing::none;
  const JobContext c = parallel_detail::make_context(j);
  const LayerCost dense = parallel_detail::layer_cost(c, l, false);
  // A dense layer on one of two TP ranks, 4,096 tokens: q down 7,168 → 1,536
  // and kv down 7,168 → 576 on both ranks; q up 1,536 → 64 heads × 192, kv up
  // 512 → 64 × (128 + 128), the output 64 × 128 → 7,168; the MLP's gate/up
  // and down at 18,432 / 2.
  const KernelRates& r = c.bf16_rates;
  const std::int64_t n = 4096;
  double gemm = 0;
  for (const auto& [out, in] : {std::pair<std::int64_t, std::int64_t>{1536, 7168},
                                {64 * 192, 1536},
                                {576, 7168},
                                {64 * 256, 512},
                                {7168, 64 * 128},
                                {2 * 9216, 7168},
                                {7168, 9216}})
    gemm += parallel_detail::weight_gemm(r, n, out, in).fwd;
  EXPECT_NEAR(dense.fwd_mix.gemm_seconds, gemm, 1e-12);
  // Full multi-head attention of the same 192-wide heads would cost about
  // 3.8 times the projections' FLOPs: the MLA layer is well below it.
  TrainingJob mha = j;
  mha.shape.q_lora_rank = mha.shape.kv_lora_rank = 0;
  mha.shape.qk_nope_head_dim = mha.shape.qk_rope_head_dim = mha.shape.v_head_dim = 0;
  const JobContext cm = parallel_detail::make_context(mha);
  EXPECT_LT(dense.fwd_mix.gemm_seconds,
            0.8 * parallel_detail::layer_cost(cm, l, false).fwd_mix.gemm_seconds);
}

TEST(ParallelAttention, MlaCoreAndActivationsUseItsWidths) {
  const ModelShape s = testing_util::preset_shape("DeepSeek-V3");
  EXPECT_DOUBLE_EQ(s.attention_head_dim(), (192 + 128) / 2.0);
  ModelShape mha = s;
  mha.q_lora_rank = mha.kv_lora_rank = 0;
  mha.qk_nope_head_dim = mha.qk_rope_head_dim = mha.v_head_dim = 0;
  EXPECT_DOUBLE_EQ(mha.attention_head_dim(), 192.0);
  // Activations of a dense layer, no recomputation, TP 1, 4,096 tokens: the
  // MHA form keeps Q, K, V and the output at 128 heads × 192 each; MLA keeps
  // its latents (1,536 + 512 + 64) and Q, K at 192, V and the output at 128.
  LayerActivationInputs in;
  in.seq_len = 4096;
  in.micro_batch = 1;
  in.tp = 1;
  in.recompute = Checkpointing::none;
  in.flash_attention = true;
  const double n = 4096;
  const double mla_qkvo = 2 * n * (1536 + 512 + 64 + 128 * (2 * 192 + 2 * 128));
  const double mha_qkvo = 2 * n * (4 * 128) * 192;
  EXPECT_NEAR(static_cast<double>(layer_activation_bytes(mha, in, false) -
                                  layer_activation_bytes(s, in, false)),
              mha_qkvo - mla_qkvo, 1.0);
}

}  // namespace
}  // namespace napkin
