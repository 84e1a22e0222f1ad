// Phase 00 algebra: every number the seed prints (seed Phase 00 ch. 2–9),
// the lab's invariants, boundaries and invalid input.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "algebra.h"
#include "expect_throw.h"
#include "gpt_shape.h"
#include "hardware.h"

using namespace napkin;

namespace {

// Expects `f` to throw std::invalid_argument whose message mentions `needle`.
ModelShape dense(std::int64_t layers, std::int64_t d, std::int64_t ff, std::int64_t heads,
                 std::int64_t kv, std::int64_t hd, std::int64_t vocab) {
  ModelShape s;
  s.n_layers = layers;
  s.d_model = d;
  s.d_ff = ff;
  s.n_heads = heads;
  s.n_kv_heads = kv;
  s.d_head = hd;
  s.vocab = vocab;
  return s;
}

}  // namespace

// ---- ch. 2: the primitive

TEST(Matmul, OneTokenThroughAProjectionIsTwiceTheWeights) {
  EXPECT_EQ(matmul_flops(1, 4096, 16384), 134'217'728);
  EXPECT_EQ(matmul_flops(1, 4096, 16384), 2 * 4096 * 16384);
}

TEST(Matmul, TilePaddingOf4000Costs4Point6Percent) {
  const std::int64_t useful = matmul_flops(1024, 4000, 4000);
  const std::int64_t actual = padded_matmul_flops(1024, 4000, 4000);
  EXPECT_EQ(useful, 32'768'000'000);
  EXPECT_EQ(actual, 34'359'738'368);
  EXPECT_NEAR(static_cast<double>(useful) / static_cast<double>(actual), 0.954, 0.0005);
}

TEST(Matmul, AlignedDimensionsNeedNoPadding) {
  EXPECT_EQ(padded_matmul_flops(128, 4096, 256), matmul_flops(128, 4096, 256));
  EXPECT_EQ(padded_matmul_flops(1, 1, 1, 1), 2);
}

TEST(Matmul, InvalidDimensionsThrowNamingTheParameter) {
  expect_invalid([] { matmul_flops(0, 1, 1); }, "m (rows)");
  expect_invalid([] { matmul_flops(1, -3, 1); }, "k (inner dimension)");
  expect_invalid([] { padded_matmul_flops(1, 1, 1, 0); }, "tile");
  expect_invalid([] { matmul_flops(1LL << 40, 1LL << 20, 1LL << 10); }, "overflows");
}

// ---- ch. 5: backward is exactly twice forward

TEST(SixND, BackwardIsExactlyTwiceForward) {
  const std::int64_t fwd = matmul_flops(1024, 4096, 11008);
  const std::int64_t dx = matmul_flops(1024, 11008, 4096);  // dY @ Wᵀ
  const std::int64_t dw = matmul_flops(4096, 1024, 11008);  // Xᵀ @ dY
  EXPECT_EQ(fwd, 92'341'796'864);
  EXPECT_EQ(dx + dw, 184'683'593'728);
  EXPECT_EQ(dx + dw, 2 * fwd);
}

TEST(SixND, TwoNPlusFourNIsSixN) {
  const double n = 7e9, d = 1e12;
  EXPECT_DOUBLE_EQ(inference_flops(n, d) + 2.0 * inference_flops(n, d), training_flops(n, d));
}

TEST(SixND, PublishedRunsOrderOfMagnitude) {
  EXPECT_NEAR(training_flops(175e9, 300e9), 3.15e23, 0.005e23);
  EXPECT_NEAR(training_flops(70e9, 1.4e12), 5.88e23, 0.005e23);
  EXPECT_NEAR(training_flops(70e9, 15e12), 6.30e24, 0.005e24);
  EXPECT_NEAR(training_flops(8e9, 15e12), 7.20e23, 0.005e23);
}

TEST(SixND, DoublingNDoublesFlops) {
  EXPECT_DOUBLE_EQ(training_flops(2 * 3e9, 1e12), 2 * training_flops(3e9, 1e12));
  EXPECT_DOUBLE_EQ(inference_flops(2 * 3e9, 1e12), 2 * inference_flops(3e9, 1e12));
}

TEST(SixND, RejectsNonPositiveAndNonFinite) {
  expect_invalid([] { training_flops(0, 1); }, "n_params (parameters)");
  expect_invalid([] { training_flops(1, -1); }, "n_tokens (tokens)");
  expect_invalid([] { training_flops(NAN, 1); }, "nan");
  expect_invalid([] { inference_flops(INFINITY, 1); }, "inf");
}

// ---- ch. 4: parameters

TEST(Params, PerLayerOfALlamaStyleGqaBlock) {
  const LayerParams p = params_per_layer(dense(32, 4096, 11008, 32, 8, 128, 32000), false);
  EXPECT_EQ(p.attn, 41'943'040);
  EXPECT_EQ(p.mlp, 135'266'304);
  EXPECT_EQ(p.norms, 8'192);
  EXPECT_EQ(p.total, 177'217'536);
  EXPECT_NEAR(static_cast<double>(p.mlp) / static_cast<double>(p.total), 0.76, 0.005);
}

TEST(Params, Llama2SevenBIs6Point74B) {
  const ParamCount c = count_params(dense(32, 4096, 11008, 32, 32, 128, 32000));
  EXPECT_EQ(c.total, 6'738'415'616);  // the published checkpoint's count
  EXPECT_NEAR(c.total / 1e9, 6.74, 0.005);
  EXPECT_NEAR(c.body / 1e9, 6.48, 0.005);
  EXPECT_NEAR(c.embedding / 1e9, 0.26, 0.005);
  EXPECT_EQ(c.total, c.active);
  EXPECT_EQ(c.non_embedding_total, c.total - c.embedding);
}

TEST(Params, TheEmbeddingTrapTable) {
  struct Row {
    std::int64_t d, layers;
    double total_b, frac;
  };
  const Row rows[] = {{512, 8, 0.30, 0.886},
                      {1024, 12, 0.73, 0.723},
                      {4096, 32, 10.69, 0.196},
                      {8192, 80, 90.09, 0.047}};
  for (const Row& r : rows) {
    const ParamCount c =
        count_params(dense(r.layers, r.d, 4 * r.d, r.d / 128, r.d / 128, 128, 256000));
    EXPECT_NEAR(c.total / 1e9, r.total_b, 0.005) << r.d;
    EXPECT_NEAR(static_cast<double>(c.embedding) / static_cast<double>(c.total), r.frac, 0.0005)
        << r.d;
  }
}

TEST(Params, GqaShrinksOnlyTheKvProjections) {
  ModelShape mha = dense(32, 4096, 11008, 32, 32, 128, 32000);
  ModelShape gqa = mha;
  gqa.n_kv_heads = 8;
  const LayerParams a = params_per_layer(mha, false), b = params_per_layer(gqa, false);
  EXPECT_EQ(a.mlp, b.mlp);
  EXPECT_EQ(a.norms, b.norms);
  // W_q and W_o unchanged; W_k and W_v shrink by the group factor 4.
  const std::int64_t wq_wo = 2 * 4096 * 32 * 128;
  EXPECT_EQ(a.attn - wq_wo, 2 * 4096 * 32 * 128);
  EXPECT_EQ(b.attn - wq_wo, 2 * 4096 * 8 * 128);
}

TEST(Params, UngatedMlpHasTwoMatrices) {
  ModelShape s = dense(1, 64, 256, 4, 4, 16, 100);
  s.gated = false;
  EXPECT_EQ(params_per_layer(s, false).mlp, 2 * 64 * 256);
  s.gated = true;
  EXPECT_EQ(params_per_layer(s, false).mlp, 3 * 64 * 256);
}

TEST(Params, TiedEmbeddingsCountTheTableOnce) {
  ModelShape s = dense(2, 64, 256, 4, 4, 16, 1000);
  const ParamCount untied = count_params(s);
  s.tied_embeddings = true;
  const ParamCount tied = count_params(s);
  EXPECT_EQ(untied.total - tied.total, 1000 * 64);
  EXPECT_EQ(tied.embedding, 1000 * 64);
}

TEST(Params, MoeTotalVsActiveDeepSeekV3Like) {
  ModelShape s = dense(60, 7168, 2048, 128, 128, 128, 129280);
  s.n_experts = 256;
  s.top_k = 8;
  s.shared_experts = 1;
  const ParamCount c = count_params(s);
  // The seed counts blocks only (no embeddings): 707.4B total, 52.1B active, 13.6x.
  const double body_active = static_cast<double>(c.non_embedding_active - c.final_norm);
  EXPECT_NEAR(c.body / 1e9, 707.4, 0.05);
  EXPECT_NEAR(body_active / 1e9, 52.1, 0.05);
  EXPECT_NEAR(static_cast<double>(c.body) / body_active, 13.6, 0.05);
  EXPECT_EQ(c.per_layer.router, 7168 * 256);
  EXPECT_GT(c.total, c.active);
}

TEST(Params, MoeWithKEqualToEIsDenseInFlops) {
  ModelShape s = dense(4, 256, 1024, 8, 8, 32, 1000);
  s.n_experts = 4;
  s.top_k = 4;
  const ParamCount c = count_params(s);
  EXPECT_EQ(c.total, c.active);
  EXPECT_DOUBLE_EQ(c.sparsity_ratio(), 1.0);
}

TEST(Params, OneExpertBoundary) {
  ModelShape s = dense(2, 64, 256, 4, 4, 16, 100);
  s.n_experts = 1;
  s.top_k = 1;
  const ParamCount c = count_params(s);
  const ParamCount d = count_params(dense(2, 64, 256, 4, 4, 16, 100));
  EXPECT_EQ(c.total - d.total, 2 * 64);  // one router column per layer
}

TEST(Params, InvalidShapesThrowNamingTheParameter) {
  ModelShape s = dense(32, 4096, 11008, 32, 64, 128, 32000);
  expect_invalid([&] { count_params(s); }, "kv_heads");
  s.n_kv_heads = 5;
  expect_invalid([&] { count_params(s); }, "must divide heads = 32");
  s = dense(0, 4096, 11008, 32, 8, 128, 32000);
  expect_invalid([&] { count_params(s); }, "layers (blocks)");
  s = dense(32, 4096, 11008, 32, 8, 128, -1);
  expect_invalid([&] { count_params(s); }, "vocab (tokens)");
  s = dense(32, 4096, 11008, 32, 8, 128, 32000);
  s.n_experts = 8;
  s.top_k = 9;
  expect_invalid([&] { count_params(s); }, "top_k (experts per token)");
  s.top_k = 0;
  expect_invalid([&] { count_params(s); }, "top_k");
}

// ---- ch. 6: the exact per-step count

TEST(ExactStep, ReproducesTheSlideIdentityToTheLastDigit) {
  const StepFlops f = training_flops_exact(StepShape{});  // B=8 T=8192 D=8192 F=28672 64×128 L=80
  EXPECT_EQ(f.mlp, 22'166'154'415'964'160);
  EXPECT_EQ(f.attn_proj, 8'444'249'301'319'680);
  EXPECT_EQ(f.attn_seq, 4'222'124'650'659'840);
  EXPECT_EQ(f.total, 34'832'528'367'943'680);
  const double t = static_cast<double>(f.total);
  EXPECT_NEAR(f.mlp / t, 0.636, 0.0005);
  EXPECT_NEAR(f.attn_proj / t, 0.242, 0.0005);
  EXPECT_NEAR(f.attn_seq / t, 0.121, 0.0005);
}

TEST(ExactStep, EighteenBTDFPlusTwentyFourBTDNHIsSixBTTimesLayerParams) {
  StepShape s;
  s.include_attention_matmuls = false;
  const StepFlops f = training_flops_exact(s);
  const std::int64_t B = 8, T = 8192, D = 8192, F = 28672, N = 64, H = 128, L = 80;
  EXPECT_EQ(f.mlp, 18 * B * T * D * F * L);
  EXPECT_EQ(f.attn_proj, 24 * B * T * D * N * H * L);
  EXPECT_EQ(f.total, 6 * B * T * (3 * D * F + 4 * D * N * H) * L);
  EXPECT_EQ(f.attn_seq, 0);
}

TEST(ExactStep, CausalHalfConventionHalvesOnlyTheSequenceTerm) {
  StepShape s;
  s.mask = CausalMask::causal_half;
  const StepFlops half = training_flops_exact(s);
  const StepFlops full = training_flops_exact(StepShape{});
  EXPECT_EQ(half.attn_seq * 2, full.attn_seq);
  EXPECT_EQ(half.mlp, full.mlp);
}

TEST(ExactStep, GqaShrinksTheProjectionTerm) {
  StepShape s;
  s.n_kv_heads = 8;
  const StepFlops g = training_flops_exact(s);
  const StepFlops m = training_flops_exact(StepShape{});
  EXPECT_LT(g.attn_proj, m.attn_proj);
  EXPECT_EQ(g.mlp, m.mlp);
  EXPECT_EQ(g.attn_seq, m.attn_seq);
}

TEST(ExactStep, OneTokenBoundaryAndInvalid) {
  StepShape s;
  s.batch = 1;
  s.seq = 1;
  EXPECT_GT(training_flops_exact(s).total, 0);
  s.n_kv_heads = 7;
  expect_invalid([&] { training_flops_exact(s); }, "kv_heads");
  s.n_kv_heads = 0;
  s.seq = 0;
  expect_invalid([&] { training_flops_exact(s); }, "seq (tokens)");
  s.seq = 1LL << 31;
  expect_invalid([&] { training_flops_exact(s); }, "overflows");
}

// ---- ch. 7: where 6ND breaks

TEST(Breaks, AttentionFractionTable) {
  struct Row {
    std::int64_t t;
    double frac, err;
  };
  const Row rows[] = {{2048, 0.037, 0.038},
                      {8192, 0.133, 0.153},
                      {32768, 0.380, 0.614},
                      {131072, 0.711, 2.454},
                      {1048576, 0.952, 19.634}};
  for (const Row& r : rows) {
    const double f = attention_flop_fraction(70e9, 80, 8192, r.t);
    EXPECT_NEAR(f, r.frac, 0.0005) << r.t;
    EXPECT_NEAR(six_nd_error(f), r.err, 0.0005) << r.t;
  }
}

TEST(Breaks, UnembeddingIsSixDV) {
  EXPECT_EQ(unembedding_flops_per_token(4096, 32000), 6LL * 4096 * 32000);
}

TEST(Breaks, RecomputeMakesHfuExceedMfu) {
  EXPECT_DOUBLE_EQ(recompute_factor(Checkpointing::none), 1.0);
  EXPECT_DOUBLE_EQ(recompute_factor(Checkpointing::full), 8.0 / 6.0);
  EXPECT_GT(recompute_factor(Checkpointing::selective), 1.0);
  EXPECT_LT(recompute_factor(Checkpointing::selective), recompute_factor(Checkpointing::full));
}

// ---- ch. 8: training memory

TEST(Memory, ZeroTableFor70B) {
  struct Row {
    int stage;
    std::int64_t dp;
    double total, w, g, o;
  };
  const Row rows[] = {{0, 1, 1120.0, 140.0, 140.0, 840.0},
                      {1, 64, 293.1, 140.0, 140.0, 13.1},
                      {2, 64, 155.3, 140.0, 2.2, 13.1},
                      {3, 64, 17.5, 2.2, 2.2, 13.1}};
  for (const Row& r : rows) {
    const TrainingMemory m =
        training_memory(70'000'000'000, 0, Optimizer::adam, Precision::mixed_bf16, r.stage, r.dp);
    EXPECT_NEAR(m.total / 1e9, r.total, 0.05) << r.stage;
    EXPECT_NEAR(m.weights / 1e9, r.w, 0.05) << r.stage;
    EXPECT_NEAR(m.grads / 1e9, r.g, 0.05) << r.stage;
    EXPECT_NEAR(m.optimizer / 1e9, r.o, 0.05) << r.stage;
    EXPECT_EQ(m.total, m.weights + m.grads + m.optimizer + m.activations);
  }
}

TEST(Memory, AdamMixedPrecisionIsSixteenBytesPerParam) {
  EXPECT_EQ(training_memory(1000, 0).total, 16000);
  EXPECT_EQ(training_memory(1000, 0, Optimizer::sgd_momentum).total, 12000);
  EXPECT_EQ(training_memory(1000, 0, Optimizer::adafactor).total, 8000);
  EXPECT_EQ(training_memory(1000, 0, Optimizer::adam, Precision::fp32).total, 16000);
  // FP8 GEMMs keep mixed bf16's states: bf16 weights and grads, fp32 master + m + v.
  EXPECT_EQ(training_memory(1000, 0, Optimizer::adam, Precision::mixed_fp8).total, 16000);
  EXPECT_EQ(parse_precision(to_string(Precision::mixed_fp8)), Precision::mixed_fp8);
  // The names are the serving precisions' (bf16, fp8, fp32); files written
  // before 2026-12 say mixed_bf16 and mixed_fp8, still read.
  EXPECT_EQ(to_string(Precision::mixed_fp8), "fp8");
  EXPECT_EQ(parse_precision("mixed_fp8"), Precision::mixed_fp8);
  EXPECT_EQ(parse_precision("mixed_bf16"), Precision::mixed_bf16);
  EXPECT_THROW(parse_precision("fp16"), std::invalid_argument);
}

TEST(Memory, ZeroNeverIncreasesPerDeviceMemory) {
  for (std::int64_t dp : {1, 2, 3, 64, 1000})
    for (int stage = 1; stage <= 3; ++stage)
      EXPECT_LE(
          training_memory(70'000'000'001, 5, Optimizer::adam, Precision::mixed_bf16, stage, dp)
              .total,
          training_memory(70'000'000'001, 5, Optimizer::adam, Precision::mixed_bf16, stage - 1, dp)
              .total);
}

TEST(Memory, ShardsRoundUp) {
  const TrainingMemory m = training_memory(10, 0, Optimizer::adam, Precision::mixed_bf16, 3, 3);
  EXPECT_EQ(m.optimizer, 40);  // ceil(120 / 3)
  EXPECT_EQ(m.weights, 7);     // ceil(20 / 3)
}

TEST(Memory, ActivationTable) {
  ActivationShape s;  // B=8 T=8192 d=8192 L=80, c=16, bf16
  EXPECT_NEAR(activation_bytes(s, Checkpointing::none) / 1e9, 1374.4, 0.05);
  EXPECT_NEAR(activation_bytes(s, Checkpointing::selective) / 1e9, 412.3, 0.05);
  EXPECT_NEAR(activation_bytes(s, Checkpointing::full) / 1e9, 85.9, 0.05);
}

TEST(Memory, InvalidInputThrows) {
  expect_invalid([] { training_memory(0, 0); }, "n_params (parameters)");
  expect_invalid([] { training_memory(10, -1); }, "activation_bytes (bytes)");
  expect_invalid([] { training_memory(10, 0, Optimizer::adam, Precision::mixed_bf16, 4, 8); },
                 "zero_stage (ZeRO stage) must be an integer in [0, 3]");
  expect_invalid([] { training_memory(10, 0, Optimizer::adam, Precision::mixed_bf16, 1, 0); },
                 "dp_degree");
  expect_invalid([] { parse_optimizer("lion"); }, "optimizer must be one of adam");
  expect_invalid([] { parse_checkpointing("some"); }, "checkpointing must be one of");
}

// ---- ch. 9: the KV cache

TEST(KvCache, Table) {
  struct Row {
    std::int64_t kv, batch;
    double gb;
  };
  const Row rows[] = {{64, 1, 21.5}, {64, 32, 687.2}, {8, 1, 2.7},
                      {8, 32, 85.9}, {1, 1, 0.3},     {1, 32, 10.7}};
  for (const Row& r : rows)
    EXPECT_NEAR(kv_cache_bytes(80, r.kv, 128, 8192, r.batch) / 1e9, r.gb, 0.05) << r.kv;
}

TEST(KvCache, GqaDividesByTheGroupFactor) {
  EXPECT_EQ(kv_cache_bytes(80, 64, 128, 8192, 1), 8 * kv_cache_bytes(80, 8, 128, 8192, 1));
}

TEST(KvCache, ConcurrentRequestsMhaVsGqa) {
  const std::int64_t hbm = 640'000'000'000;
  EXPECT_EQ(max_concurrent_requests(hbm, 70e9, kv_cache_bytes(80, 64, 128, 8192, 1)), 22);
  EXPECT_EQ(max_concurrent_requests(hbm, 70e9, kv_cache_bytes(80, 8, 128, 8192, 1)), 182);
  // Weights that do not fit leave no room at all.
  EXPECT_EQ(max_concurrent_requests(80'000'000'000, 70e9, 1), 0);
}

TEST(KvCache, DecodeIntensityStaysFarBelowTheRidge) {
  struct Row {
    std::int64_t batch;
    double ai;
  };
  const Row rows[] = {{1, 1.0}, {8, 6.9}, {64, 28.7}, {256, 43.3}};
  for (const Row& r : rows)
    EXPECT_NEAR(
        decode_arithmetic_intensity(70e9, kv_cache_bytes(80, 8, 128, 8192, r.batch), r.batch), r.ai,
        0.05)
        << r.batch;
  EXPECT_LT(decode_arithmetic_intensity(70e9, kv_cache_bytes(80, 8, 128, 8192, 256), 256),
            ridge_point_flops_per_byte(chip_by_name("H100")));
}

TEST(KvCache, InvalidInputThrows) {
  expect_invalid([] { kv_cache_bytes(80, 0, 128, 8192, 1); }, "kv_heads (KV heads)");
  expect_invalid([] { kv_cache_bytes(80, 8, 128, 8192, 1, 0); }, "bytes_per_elem");
  expect_invalid([] { decode_arithmetic_intensity(70e9, 0, 0); }, "batch (requests)");
}

// The one GPT shape of Megatron-LM's papers (gpt_shape.h), which the training
// validation and the parallel tests both use: per layer 12h² + 13h parameters
// (QKV, output and MLP weights with their biases, two LayerNorms with bias),
// tied embeddings V·h and a final LayerNorm (Narayanan et al. 2021, eq. 2,
// without the learned position embeddings).
TEST(Algebra, GptShapeIsMegatronsLayer) {
  const ModelShape s = gpt_shape(96, 12288, 96);
  EXPECT_EQ(s.d_ff, 4 * 12288);
  EXPECT_EQ(s.vocab, 51200);
  EXPECT_TRUE(s.tied_embeddings);
  EXPECT_FALSE(s.gated);
  const std::int64_t l = 2, h = 64, v = 100;
  EXPECT_EQ(count_params(gpt_shape(l, h, 4, v)).total, l * (12 * h * h + 13 * h) + v * h + 2 * h);
}
