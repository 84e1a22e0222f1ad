// Predicts the published TensorRT-LLM measurements of
// tests/data/serving/published_serving.csv (NVIDIA TensorRT-LLM
// docs/source/performance.md: v0.6.1 peak throughput, v0.5 first-token
// latency; see SOURCE.md) with the serving model, prints predicted vs
// measured, and asserts the error bounds the model meets today. The chips'
// numbers come from the hardware table (datasheets and microbenchmarks:
// the matmul MAMF fraction, the HBM streaming-read fraction), not from these
// rows.
//
// The benchmark (gptSessionBenchmark) runs a static batch: one context phase
// for the whole batch, which also yields the first output token, then
// output − 1 generation steps; throughput = batch × output ÷ the whole time,
// divided here by the TP ranks for "per GPU".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "parallel_test_util.h"
#include "serving.h"

namespace napkin {
namespace {

using testing_util::read_csv;
using Row = std::map<std::string, std::string>;

const testing_util::CsvTable& rows() {
  static const testing_util::CsvTable t =
      read_csv(std::string(NAPKIN_TEST_DATA) + "/serving/published_serving.csv");
  return t;
}

// The shapes the benchmark built (performance.md's build.py flags), with the
// rest from the checkpoints' Hugging Face configs (SOURCE.md).
ModelShape shape_for(const std::string& name) {
  if (name == "llama-2-7b") return ModelShape{};  // the defaults are Llama-2-7B's shape
  if (name == "llama-2-70b") {
    ModelShape s;
    s.n_layers = 80;
    s.d_model = 8192;
    s.d_ff = 28672;
    s.n_heads = 64;
    s.n_kv_heads = 8;
    s.d_head = 128;
    s.vocab = 32000;
    return s;
  }
  if (name == "gpt-j-6b") {
    // EleutherAI/gpt-j-6b: 28 layers, 4096 wide, 16 heads of 256, a 4h GeLU
    // MLP with biases, one LayerNorm per parallel block, vocabulary 50,400.
    ModelShape s;
    s.n_layers = 28;
    s.d_model = 4096;
    s.d_ff = 16384;
    s.n_heads = 16;
    s.n_kv_heads = 16;
    s.d_head = 256;
    s.vocab = 50400;
    s.gated = false;
    s.mlp_bias = true;
    s.norms_per_layer = 1;
    s.norm_bias = true;
    s.parallel_blocks = true;
    return s;
  }
  if (name == "falcon-180b") {
    // tiiuae/falcon-180B: 80 layers, 14,848 wide, 232 query heads of 64, 8 KV
    // heads, a 4h GeLU MLP, two LayerNorms per parallel block, tied
    // embeddings, vocabulary 65,024.
    ModelShape s;
    s.n_layers = 80;
    s.d_model = 14848;
    s.d_ff = 4 * 14848;
    s.n_heads = 232;
    s.n_kv_heads = 8;
    s.d_head = 64;
    s.vocab = 65024;
    s.gated = false;
    s.tied_embeddings = true;
    s.norm_bias = true;
    s.parallel_blocks = true;
    return s;
  }
  throw std::runtime_error("no shape for " + name);
}

std::int64_t to_int(const std::string& s) { return std::stoll(s); }

// The benchmark's setting: no serving overhead (the timer wraps generate()
// only); fp16 has bf16's bytes and matmul peak.
ServingInputs inputs_for(const Row& row) {
  ServingInputs in;
  in.chip = row.at("chip");
  in.layout.tp = to_int(row.at("tp"));
  in.prompt_tokens = to_int(row.at("input_tokens"));
  in.decode_tokens = to_int(row.at("output_tokens"));
  in.overhead_seconds = 0;
  const Dtype d = row.at("precision") == "fp8" ? Dtype::fp8 : Dtype::bf16;
  in.weights = d;
  in.kv = d;
  return in;
}

// The benchmark's static batch (evaluate_static_batch): one context phase of
// the whole batch, then output − 1 generation steps.
StaticBatchResult static_batch(const ServingModel& m, ServingInputs in, std::int64_t batch) {
  in.batch = batch;
  return evaluate_static_batch(m, in);
}

const char* bound_name(Bound b) { return b == Bound::compute ? "compute" : "memory"; }

struct Errors {
  double sum = 0, worst = 0;
  int n = 0;
  void add(double e) {
    sum += std::fabs(e);
    worst = std::max(worst, std::fabs(e));
    ++n;
  }
  double mean() const { return n ? sum / n : 0; }
};

// GQA shapes (fewer KV heads than query heads): Llama-2-70B, Falcon-180B.
bool is_gqa(const ModelShape& s) { return s.n_kv_heads < s.n_heads; }

struct ThroughputErrors {
  Errors mha, gqa;                  // the default model (asserted)
  Errors mha_pre_xqa, gqa_pre_xqa;  // with the KV cache read once per query head (printed)
};

// Throughput rows of one chip: prints the table, returns the errors of the
// MHA and the GQA models apart. Three evaluations per row: the default model
// (the chip's streaming-read HBM fraction, one KV read per KV head: the
// physical minimum) is asserted; the same with the pre-XQA generation kernel
// (the cache read once per query head) is printed beside it; the datasheet
// roofline (100 % HBM bandwidth) must never be beaten by a real run.
ThroughputErrors throughput_table(const std::string& chip, const std::string& title) {
  ThroughputErrors out;
  std::printf("\n%s\n", title.c_str());
  std::printf(
      "| model | chip | TP | batch | in/out | measured tok/s/GPU | predicted tok/s/GPU | error | "
      "pre-XQA KV reads | error | prefill ms | step ms | bound (prefill/step) | fits |\n");
  std::printf("|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
  for (const Row& row : rows().rows) {
    if (row.at("metric") != "throughput_out_tok_per_s_per_gpu" || row.at("chip") != chip ||
        row.at("trtllm_version") != "v0.6.1")
      continue;
    const ModelShape shape = shape_for(row.at("model"));
    const ServingModel m = serving_model(shape);
    const ServingInputs in = inputs_for(row);
    const std::int64_t batch = to_int(row.at("batch"));
    const StaticBatchResult s = static_batch(m, in, batch);
    ServingInputs pre_xqa = in;
    pre_xqa.assume.kv_reads_per_query_head = true;
    const StaticBatchResult x = static_batch(m, pre_xqa, batch);
    ServingInputs datasheet = in;
    datasheet.assume.hbm_efficiency = 1.0;
    const StaticBatchResult roof = static_batch(m, datasheet, batch);
    const double measured = std::stod(row.at("value"));
    const double err = s.tokens_per_second_per_chip / measured - 1;
    const double err_x = x.tokens_per_second_per_chip / measured - 1;
    (is_gqa(shape) ? out.gqa : out.mha).add(err);
    (is_gqa(shape) ? out.gqa_pre_xqa : out.mha_pre_xqa).add(err_x);
    // At the datasheet HBM bandwidth the model is a roofline: no run beats it.
    EXPECT_GE(roof.tokens_per_second_per_chip, measured)
        << row.at("model") << " batch " << batch << " " << row.at("input_tokens") << "/"
        << row.at("output_tokens");
    std::printf(
        "| %s | %s %s | %s | %lld | %s/%s | %.0f | %.0f | %+.0f %% | %.0f | %+.0f %% | %.1f | %.2f "
        "| %s/%s | %s |\n",
        row.at("model").c_str(), chip.c_str(), row.at("precision").c_str(), row.at("tp").c_str(),
        static_cast<long long>(batch), row.at("input_tokens").c_str(),
        row.at("output_tokens").c_str(), measured, s.tokens_per_second_per_chip, 100 * err,
        x.tokens_per_second_per_chip, 100 * err_x, 1e3 * s.prefill_seconds,
        1e3 * s.decode_step_seconds, bound_name(s.prefill.bound), bound_name(s.decode_step.bound),
        s.fits ? "yes" : "no");
  }
  std::printf(
      "mean absolute error: MHA models (GPT-J 6B, Llama-2-7B) %.1f %% (max %.1f %%, %d rows); "
      "GQA models (Llama-2-70B, Falcon-180B) %.1f %% (max %.1f %%, %d rows)\n",
      100 * out.mha.mean(), 100 * out.mha.worst, out.mha.n, 100 * out.gqa.mean(),
      100 * out.gqa.worst, out.gqa.n);
  std::printf("with pre-XQA KV reads: MHA %.1f %% (max %.1f %%); GQA %.1f %% (max %.1f %%)\n",
              100 * out.mha_pre_xqa.mean(), 100 * out.mha_pre_xqa.worst,
              100 * out.gqa_pre_xqa.mean(), 100 * out.gqa_pre_xqa.worst);
  return out;
}

// Mean and worst absolute error the default model may make on one group.
struct Bound2 {
  double mean = 0, worst = 0;
};

// Bounds the default model meets (README), per chip: before the chip's
// streaming-read HBM fraction and the static-batch evaluation they were 50 %
// / 100 % (MHA) and 150 % / 300 % (GQA) for both chips. The MHA gap left is
// the large-batch 128/128 rows, whose ~100k-token context phases and
// M ≈ 1,000 decode GEMMs run below the large-GEMM efficiency. The GQA gap is
// TensorRT-LLM v0.6.1's generation attention (before its XQA kernel, v0.8),
// which moves far more KV-cache bytes than one read per KV head, the
// physical minimum the default model assumes (kv_reads_per_query_head, printed
// beside it, closes most of it).
void expect_throughput_bounds(const ThroughputErrors& e, Bound2 mha, Bound2 gqa) {
  EXPECT_LE(e.mha.mean(), mha.mean);
  EXPECT_LE(e.mha.worst, mha.worst);
  EXPECT_LE(e.gqa.mean(), gqa.mean);
  EXPECT_LE(e.gqa.worst, gqa.worst);
}

TEST(ServingPublished, TensorRtLlmH100Fp8Throughput) {
  const ThroughputErrors e = throughput_table(
      "H100", "TensorRT-LLM v0.6.1, H100 SXM FP8 (weights and KV cache), static batch");
  ASSERT_EQ(e.mha.n + e.gqa.n, 16);
  // Today: MHA 33.6 % (max 84.0 %), GQA 130.0 % (max 264.9 %).
  expect_throughput_bounds(e, {0.35, 0.90}, {1.35, 2.70});
}

TEST(ServingPublished, TensorRtLlmA100Fp16Throughput) {
  const ThroughputErrors e =
      throughput_table("A100-80", "TensorRT-LLM v0.6.1, A100 SXM 80GB FP16, static batch");
  ASSERT_EQ(e.mha.n + e.gqa.n, 13);
  // Today: MHA 21.4 % (max 46.7 %), GQA 72.8 % (max 169.6 %).
  expect_throughput_bounds(e, {0.25, 0.50}, {0.75, 1.75});
}

TEST(ServingPublished, TensorRtLlmFirstTokenLatency) {
  Errors short_prompt, long_prompt;
  std::printf("\nTensorRT-LLM v0.5, first-token latency at batch 1 (context phase only)\n");
  std::printf(
      "| model | chip | TP | batch | in/out | measured ms | predicted ms | error | bound |\n");
  std::printf("|---|---|---:|---:|---|---:|---:|---:|---|\n");
  for (const Row& row : rows().rows) {
    // The Low Latency table's batch-1 rows (the blog's batch-64 context
    // phases are on the scoreboard, test_serving_validation.cpp).
    if (row.at("metric") != "first_token_latency_ms" || row.at("batch") != "1") continue;
    const ServingModel m = serving_model(shape_for(row.at("model")));
    ServingInputs in = inputs_for(row);
    in.pool = ServingPool::prefill;
    in.batch = 1;
    const ServingResult r = evaluate_serving(m, in);
    const double predicted_ms = 1e3 * r.ttft_seconds;
    const double measured = std::stod(row.at("value"));
    const double err = predicted_ms / measured - 1;
    if (in.prompt_tokens <= 128) {
      short_prompt.add(err);
      // A 128-token prompt takes a few ms of GPU work; the measured time adds
      // the runtime's per-call host work and kernel launches, which the model
      // leaves out: it must come out below.
      EXPECT_LT(predicted_ms, measured) << row.at("model") << " " << row.at("chip");
    } else {
      long_prompt.add(err);
    }
    std::printf("| %s | %s %s | %s | 1 | %s/1 | %.0f | %.1f | %+.0f %% | %s |\n",
                row.at("model").c_str(), row.at("chip").c_str(), row.at("precision").c_str(),
                row.at("tp").c_str(), row.at("input_tokens").c_str(), measured, predicted_ms,
                100 * err, bound_name(r.prefill.bound));
  }
  std::printf(
      "mean absolute error: 2,048-token prompts %.1f %% (max %.1f %%, %d rows); 128-token "
      "prompts %.1f %% (max %.1f %%, %d rows)\n",
      100 * long_prompt.mean(), 100 * long_prompt.worst, long_prompt.n, 100 * short_prompt.mean(),
      100 * short_prompt.worst, short_prompt.n);
  ASSERT_EQ(long_prompt.n + short_prompt.n, 16);
  // Compute-bound prefills: the matmul efficiency from the MAMF sweeps holds.
  EXPECT_LE(long_prompt.mean(), 0.25);
  EXPECT_LE(long_prompt.worst, 0.50);
  // Launch-bound prefills: the missing fixed cost is 3-30 ms (today 47.3 %,
  // max 66.7 %; 51.0 % / 68.9 % at the datasheet bandwidth).
  EXPECT_LE(short_prompt.mean(), 0.50);
  EXPECT_LE(short_prompt.worst, 0.70);
}

}  // namespace
}  // namespace napkin
