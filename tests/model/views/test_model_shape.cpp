// The shape fields of modern checkpoints (issue 17): MLA, shared experts of
// their own width and gate, router biases, QK-norm, extra norms, LayerNorm
// biases, multi-token prediction; their KV cache. Golden values are the
// published checkpoints' (tests/data/configs/SOURCE.md), checked by hand
// component by component.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "algebra.h"
#include "budget_view.h"
#include "expect_throw.h"
#include "format.h"
#include "hardware.h"
#include "roofline.h"
#include "roofline_view.h"
#include "scenario.h"

using namespace napkin;

namespace {

// deepseek-ai/DeepSeek-V3 config.json.
ModelShape deepseek_v3() {
  ModelShape s{61, 7168, 18432, 128, 128, 192, 129280};
  s.n_experts = 256;
  s.top_k = 8;
  s.shared_experts = 1;
  s.expert_d_ff = 2048;
  s.n_dense_layers = 3;
  s.q_lora_rank = 1536;
  s.kv_lora_rank = 512;
  s.qk_nope_head_dim = 128;
  s.qk_rope_head_dim = 64;
  s.v_head_dim = 128;
  s.router_bias = true;
  s.mtp_modules = 1;
  return s;
}

// Qwen/Qwen1.5-MoE-A2.7B config.json.
ModelShape qwen15_moe() {
  ModelShape s{24, 2048, 5632, 16, 16, 128, 151936};
  s.qkv_bias = true;
  s.n_experts = 60;
  s.top_k = 4;
  s.expert_d_ff = 1408;
  s.shared_experts = 1;
  s.shared_expert_d_ff = 5632;
  s.shared_expert_gate = true;
  return s;
}

}  // namespace

TEST(ModelShape, DefaultsOfTheNewFieldsLeaveTheLlamaCountUnchanged) {
  const ModelShape s{32, 4096, 11008, 32, 32, 128, 32000};
  EXPECT_EQ(count_params(s).total, 6'738'415'616);  // meta-llama/Llama-2-7b-hf
  EXPECT_EQ(count_params(s).mtp, 0);
  EXPECT_EQ(count_params(s).active_without_input_embedding, 6'738'415'616 - 32000 * 4096);
  EXPECT_EQ(s.norms_per_layer, 2);
  EXPECT_EQ(s.qk_norm, QkNorm::none);
}

TEST(ModelShape, MlaAttentionOfDeepSeekV3ComponentByComponent) {
  const ModelShape s = deepseek_v3();
  const std::int64_t q = 7168 * 1536 + 1536 + 1536 * 128 * 192;  // W_DQ, its norm, W_UQ (+RoPE)
  const std::int64_t kv =
      7168 * (512 + 64) + 512 + 512 * 128 * (128 + 128);  // W_DKV+W_KR, norm, W_UK+W_UV
  const std::int64_t o = 128 * 128 * 7168;
  EXPECT_EQ(params_per_layer(s, true).attn, q + kv + o);
  EXPECT_EQ(q + kv + o, 187'107'328);
}

TEST(ModelShape, DeepSeekV3MatchesItsPublishedCounts) {
  const ParamCount c = count_params(deepseek_v3());
  // Main model 671,026,419,200 (README_WEIGHTS.md: "671B"; an exact header
  // audit of the checkpoint gives this number).
  EXPECT_EQ(c.total, 671'026'419'200);
  EXPECT_EQ(c.n_moe_layers, 58);
  EXPECT_EQ(c.dense_layer.total, 583'483'392);
  EXPECT_EQ(c.per_layer.router, 256 * 7168 + 256);  // gate + e_score_correction_bias
  // "Activation parameters: 36.6B (including 0.9B for the output Head)": the
  // input embedding lookup is not counted; the technical report rounds to 37B.
  EXPECT_EQ(c.active_without_input_embedding, 36'625'618'432);
  EXPECT_EQ(c.active - c.active_without_input_embedding, 129280LL * 7168);
  EXPECT_NEAR(c.active_without_input_embedding / 1e9, 36.6, 0.05);
  // The MTP module: a routed block, two RMSNorms, the 2d → d projection and
  // the head's RMSNorm; 11.5B "unique" in README_WEIGHTS.md.
  EXPECT_EQ(c.mtp, 11'507'286'272 + 2LL * 7168 * 7168 + 3 * 7168);
  EXPECT_NEAR(c.mtp / 1e9, 11.5, 0.15);
  // The Hugging Face checkpoint stores the module with its own copies of the
  // embedding and head: 684,489,845,504 tensors elements beside FP8 scales.
  EXPECT_EQ(c.total + c.mtp + 2LL * 129280 * 7168, 684'489'845'504);
}

TEST(ModelShape, MlaWithoutQueryCompressionDeepSeekV2Lite) {
  ModelShape s{27, 2048, 10944, 16, 16, 192, 102400};
  s.kv_lora_rank = 512;
  s.qk_nope_head_dim = 128;
  s.qk_rope_head_dim = 64;
  s.v_head_dim = 128;
  s.n_experts = 64;
  s.top_k = 6;
  s.shared_experts = 2;
  s.expert_d_ff = 1408;
  s.n_dense_layers = 1;
  EXPECT_EQ(params_per_layer(s, true).attn,
            2048 * 16 * 192 + 2048 * 576 + 512 + 512 * 16 * 256 + 16 * 128 * 2048);
  const ParamCount c = count_params(s);
  EXPECT_EQ(c.total, 15'706'484'224);  // model.safetensors.index.json total_size / 2
  // DeepSeek's "2.4B active" leaves the input embedding out.
  EXPECT_NEAR(c.active_without_input_embedding / 1e9, 2.4, 0.06);
}

TEST(ModelShape, SharedExpertOfItsOwnWidthWithAGate) {
  const ModelShape s = qwen15_moe();
  const LayerParams l = params_per_layer(s, true);
  EXPECT_EQ(l.mlp, 60LL * 3 * 2048 * 1408 + 3LL * 2048 * 5632 + 2048);
  EXPECT_EQ(l.router, 60 * 2048);
  const ParamCount c = count_params(s);
  EXPECT_EQ(c.total, 14'315'784'192);  // Qwen/Qwen1.5-MoE-A2.7B safetensors total
  // "A2.7B": Qwen counts the embeddings in its activated parameters.
  EXPECT_EQ(c.active, 2'689'173'504);
  // Without a width of its own, a shared expert is as wide as a routed one.
  ModelShape t = s;
  t.shared_expert_d_ff = 0;
  EXPECT_EQ(params_per_layer(t, true).mlp, 61LL * 3 * 2048 * 1408 + 2048);
}

TEST(ModelShape, QkNormPerHeadAndFullWidth) {
  ModelShape s{36, 4096, 12288, 32, 8, 128, 151936};  // Qwen/Qwen3-8B
  const std::int64_t plain = params_per_layer(s, false).attn;
  s.qk_norm = QkNorm::per_head;
  EXPECT_EQ(params_per_layer(s, false).attn - plain, 2 * 128);
  EXPECT_EQ(count_params(s).total, 8'190'735'360);
  s.qk_norm = QkNorm::full_width;  // OLMo-2 style: (H + K) · d_head
  EXPECT_EQ(params_per_layer(s, false).attn - plain, (32 + 8) * 128);
}

TEST(ModelShape, NormsPerLayerAndLayerNormBias) {
  ModelShape s{42, 3584, 14336, 16, 8, 256, 256000};  // google/gemma-2-9b
  s.tied_embeddings = true;
  s.norms_per_layer = 4;
  EXPECT_EQ(params_per_layer(s, false).norms, 4 * 3584);
  EXPECT_EQ(count_params(s).total, 9'241'705'984);
  // tiiuae/falcon-7b: MQA, a parallel block sharing one LayerNorm, GELU MLP.
  ModelShape f{32, 4544, 4 * 4544, 71, 1, 64, 65024};
  f.gated = false;
  f.tied_embeddings = true;
  f.norm_bias = true;
  f.norms_per_layer = 1;
  f.parallel_blocks = true;
  const LayerParams l = params_per_layer(f, false);
  EXPECT_EQ(l.attn, 4544LL * (71 + 2) * 64 + 4544LL * 4544);
  EXPECT_EQ(l.norms, 2 * 4544);
  EXPECT_EQ(count_params(f).final_norm, 2 * 4544);
  EXPECT_EQ(count_params(f).total, 6'921'720'704);
  f.norms_per_layer = 0;
  EXPECT_EQ(params_per_layer(f, false).norms, 0);
}

TEST(ModelShape, TiedTableIsTheOutputHeadSoNothingIsSubtracted) {
  ModelShape s{28, 1024, 3072, 16, 8, 128, 151936};  // Qwen/Qwen3-0.6B
  s.tied_embeddings = true;
  s.qk_norm = QkNorm::per_head;
  const ParamCount c = count_params(s);
  EXPECT_EQ(c.total, 596'049'920);
  EXPECT_EQ(c.active_without_input_embedding, c.active);
  EXPECT_EQ(c.input_embedding, 151936 * 1024);
}

TEST(ModelShape, MtpModuleOfADenseModelIsADenseBlock) {
  ModelShape s{4, 64, 256, 4, 4, 16, 100};
  const std::int64_t block = params_per_layer(s, false).total;
  s.mtp_modules = 2;
  const ParamCount c = count_params(s);
  EXPECT_EQ(c.mtp, 2 * (block + 2 * 64 * 64 + 3 * 64));
  EXPECT_EQ(c.mtp_active, c.mtp);
  EXPECT_EQ(c.total, count_params(ModelShape{4, 64, 256, 4, 4, 16, 100}).total);
}

TEST(ModelShape, KvCacheOfMlaIsTheLatentPlusTheRopeKey) {
  const ModelShape v3 = deepseek_v3();
  EXPECT_EQ(kv_cache_elements_per_token_per_layer(v3), 512 + 64);
  EXPECT_EQ(kv_cache_bytes_per_token(v3), 576 * 61 * 2);  // 70,272 B: DeepSeek's ~70 KB
  EXPECT_EQ(kv_cache_bytes(v3, 32768, 4), 576LL * 61 * 2 * 32768 * 4);
  // DeepSeek-V2 Table 1: MLA caches (d_c + d_h^R)·l = 4.5·d_h·l elements
  // against MHA's 2·n_h·d_h·l; with 128 heads of d_h = 128, 56.9x less.
  EXPECT_EQ(kv_cache_elements_per_token_per_layer(v3), 9 * 128 / 2);
  const ModelShape mha{61, 7168, 18432, 128, 128, 128, 129280};
  EXPECT_NEAR(static_cast<double>(kv_cache_bytes_per_token(mha)) /
                  static_cast<double>(kv_cache_bytes_per_token(v3)),
              56.9, 0.05);
  // Without MLA the shape function is the seed's 2·L·n_kv·d_h·T·B·b.
  const ModelShape llama{80, 8192, 28672, 64, 8, 128, 128256};
  EXPECT_EQ(kv_cache_bytes(llama, 8192, 1), kv_cache_bytes(80, 8, 128, 8192, 1));
  EXPECT_EQ(kv_cache_bytes(llama, 8192, 1), 2'684'354'560);
  EXPECT_EQ(kv_cache_bytes_per_token(llama, 1), 2 * 80 * 8 * 128);
  expect_invalid([&] { (void)kv_cache_bytes(llama, 0, 1); }, "seq_len");
  expect_invalid([&] { (void)kv_cache_bytes_per_token(llama, 9); }, "bytes_per_elem");
}

TEST(ModelShape, MlaFlowsIntoTheBudgetViewAndTheRoofline) {
  Scenario sc;
  sc.shape = deepseek_v3();
  sc.serving.context_len = 32768;
  const BudgetView v = make_budget_view(sc);
  EXPECT_EQ(v.kv_bytes_at_context, kv_cache_bytes(sc.shape, 32768, 1));
  EXPECT_EQ(v.kv_scenario.y.back(), static_cast<double>(kv_cache_bytes(sc.shape, 1 << 20, 1)));

  RooflineScenario r;
  r.chip = "H100";
  r.shape = deepseek_v3();
  r.turn.budget_seconds = 100;
  const RooflinePanelData d = roofline_panel(r);
  const std::int64_t kv_token = kv_cache_bytes_per_token(r.shape, r.operations.bytes_per_elem);
  ASSERT_FALSE(d.decode_wall.empty());
  EXPECT_EQ(d.decode_wall.front().kv_bytes,
            kv_token * r.operations.context_tokens * d.decode_wall.front().batch);
  // The decode operation reads the weights once and the batch's latent cache.
  for (const PlacedOperation& op : d.operations)
    if (op.name == "decode") {
      const double weights =
          static_cast<double>(count_params(r.shape).active) * r.operations.bytes_per_param;
      const double kv =
          static_cast<double>(kv_token) *
          static_cast<double>(r.operations.context_tokens * r.operations.decode_batch);
      EXPECT_NEAR(op.bytes, weights + kv, 1.0);
    }
}

TEST(ModelShape, DecodeShapeTakesTheLatentBytesPerToken) {
  DecodeShape d;
  d.kv_bytes_per_token = 70'272;
  d.seq_len = 1000;
  const DecodeIntensityPoint p = decode_intensity_point(chip_by_name("H100"), d, 4);
  EXPECT_EQ(p.kv_bytes, 70'272LL * 1000 * 4);
  d.kv_bytes_per_token = -1;
  expect_invalid([&] { (void)decode_batch_intensity(d, 1); }, "kv_bytes_per_token");
}

TEST(ModelShape, PresetsFromRealConfigs) {
  bool v3 = false, qwen = false, qwen235 = false;
  for (const ModelPreset& p : model_presets()) {
    if (p.name == "DeepSeek-V3") {
      v3 = true;
      EXPECT_EQ(count_params(p.shape).total, 671'026'419'200);
      EXPECT_TRUE(p.shape.is_mla());
    }
    if (p.name == "Qwen3-30B-A3B") {
      qwen = true;
      EXPECT_EQ(count_params(p.shape).total, 30'532'122'624);
      EXPECT_EQ(count_params(p.shape).active, 3'353'032'704);  // "3.3B activated"
    }
    if (p.name == "Qwen3-235B-A22B") {
      qwen235 = true;
      EXPECT_EQ(count_params(p.shape).total, 235'093'634'560);
      EXPECT_EQ(count_params(p.shape).active, 22'190'763'520);  // "22B activated"
    }
  }
  EXPECT_TRUE(v3);
  EXPECT_TRUE(qwen);
  EXPECT_TRUE(qwen235);
  // meta-llama/Llama-3.1-405B: 126 layers, untied embeddings.
  EXPECT_EQ(count_params(model_preset_shape("Llama-3.1-405B")).total, 405'853'388'800);
  // Every preset's source names its published count, and the shape gives it.
  for (const ModelPreset& p : model_presets()) {
    const std::string count = format_grouped(count_params(p.shape).total);
    EXPECT_NE(p.source.find("(" + count + " parameters"), std::string_view::npos) << p.name;
    EXPECT_EQ(&model_preset_shape(p.name), &p.shape);
  }
  expect_invalid([] { model_preset_shape("Llama-4-Behemoth"); },
                 "model preset must be one of Llama-2-7B, Llama-3-8B");
}

TEST(ModelShape, InvalidCombinationsNameTheField) {
  ModelShape s = deepseek_v3();
  s.d_head = 128;
  expect_invalid([&] { s.validate(); }, "qk_nope_head_dim + qk_rope_head_dim = 192");
  s = deepseek_v3();
  s.qk_norm = QkNorm::per_head;
  expect_invalid([&] { s.validate(); }, "qk_norm");
  s = deepseek_v3();
  s.qkv_bias = true;
  expect_invalid([&] { s.validate(); }, "MLA");
  s = deepseek_v3();
  s.v_head_dim = 0;
  expect_invalid([&] { s.validate(); }, "v_head_dim");
  ModelShape d{2, 64, 256, 4, 4, 16, 100};
  d.q_lora_rank = 8;
  expect_invalid([&] { d.validate(); }, "q_lora_rank");
  d = ModelShape{2, 64, 256, 4, 4, 16, 100};
  d.router_bias = true;
  expect_invalid([&] { d.validate(); }, "router_bias");
  d = ModelShape{2, 64, 256, 4, 4, 16, 100};
  d.shared_expert_gate = true;
  expect_invalid([&] { d.validate(); }, "shared_expert_gate");
  d = ModelShape{2, 64, 256, 4, 4, 16, 100};
  d.norms_per_layer = 9;
  expect_invalid([&] { d.validate(); }, "norms_per_layer");
  d = ModelShape{2, 64, 256, 4, 4, 16, 100};
  d.mtp_modules = -1;
  expect_invalid([&] { d.validate(); }, "mtp_modules");
  expect_invalid([] { (void)parse_qk_norm("both"); }, "qk_norm must be one of");
  EXPECT_EQ(parse_qk_norm("per-head"), QkNorm::per_head);
  EXPECT_EQ(to_string(QkNorm::full_width), "full_width");
}

TEST(ModelShape, HugeMlaShapesThrowInsteadOfWrapping) {
  ModelShape s = deepseek_v3();
  s.n_layers = 100'000;
  s.n_dense_layers = 0;
  s.n_heads = 100'000;
  s.n_kv_heads = 100'000;
  s.kv_lora_rank = 1'000'000;
  s.q_lora_rank = 1'000'000;
  s.d_model = 1'000'000;
  s.n_experts = 100'000;
  s.expert_d_ff = 10'000'000;
  EXPECT_THROW((void)count_params(s), std::invalid_argument);
}
