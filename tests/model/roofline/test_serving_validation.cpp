// The scoreboard's serving sets (serving_validation.h) built from
// tests/data/serving/published_serving.csv: every row predicted with its
// engine generation's preset as its only setting, the table printed, and the
// errors the model reaches today asserted (README, "Serving validation").
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "serving_validation.h"

namespace napkin {
namespace {

std::string csv_text(const char* name = "published_serving.csv") {
  std::ifstream f(std::string(NAPKIN_TEST_DATA) + "/serving/" + name);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

const std::vector<ValidationSet>& sets() {
  static const std::vector<ValidationSet> s = serving_validation_sets(csv_text());
  return s;
}

const ValidationSet& set(const std::string& key) {
  for (const ValidationSet& s : sets())
    if (s.key == key) return s;
  throw std::runtime_error("no set " + key);
}

ValidationSummary print(const ValidationSet& s) {
  std::printf(
      "\n%s (%s, %s)\n| row | engine | measured | predicted | error |\n|---|---|---:|---:|---:|\n",
      s.title.c_str(), s.quantity.c_str(), s.unit.c_str());
  for (const ValidationRow& r : s.rows)
    std::printf("| %s | %s | %.1f | %.1f | %+.0f %% |\n", r.label.c_str(), r.setting.c_str(),
                r.measured, r.predicted, 100 * (r.predicted / r.measured - 1));
  const ValidationSummary sum = summarize(s);
  std::printf(
      "rows %zu, mean absolute error %.1f %%, mean signed error %+.1f %%, worst %+.1f %% (%s)\n",
      sum.rows, 100 * sum.mean_abs_error, 100 * sum.mean_signed_error, 100 * sum.worst_error,
      s.rows[sum.worst_row].label.c_str());
  return sum;
}

TEST(ServingValidation, OneSetPerMeasuredQuantity) {
  ASSERT_EQ(sets().size(), 3u);
  EXPECT_EQ(set("serving-trtllm-throughput").rows.size(), 29u);
  EXPECT_EQ(set("serving-trtllm-throughput-v0.5").rows.size(), 16u);
  EXPECT_EQ(set("serving-trtllm-first-token").rows.size(), 18u);
  for (const ValidationSet& s : sets())
    for (const ValidationRow& r : s.rows) {
      EXPECT_EQ(r.setting, "tensorrt-llm-0.6") << r.label;  // v0.5 and v0.6.1: before XQA
      EXPECT_GT(r.predicted, 0) << r.label;
    }
}

// The target: mean error ≤ 20 %, mean signed within ±10 %, GQA and
// MHA alike. Today: 7.2 % mean, -2.7 % signed; MHA 4.8 % / -0.8 %, GQA
// 10.2 % / -5.1 % (Llama-2-70B's A100 rows on the early XQA kernel, which
// takes head-size-128 layers with a 16-bit cache; its H100 rows, with an FP8
// cache, and Falcon-180B's, head size 64, on the per-query-head reads).
// Before the early XQA rule: 8.4 % / -5.0 %, GQA 12.9 % / -11.5 %. Worst
// +25.5 % (Llama-2-70B on A100 at batch 240, 128/2048: most likely the early
// kernel ran below one read per KV head at the streaming rate).
TEST(ServingValidation, Throughput) {
  const ValidationSet& set_ = set("serving-trtllm-throughput");
  const ValidationSummary s = print(set_);
  EXPECT_LE(s.mean_abs_error, 0.10);
  EXPECT_LE(std::fabs(s.mean_signed_error), 0.10);
  EXPECT_LE(std::fabs(s.worst_error), 0.30);
  ValidationSet gqa = set_, mha = set_;
  gqa.rows.clear();
  mha.rows.clear();
  for (const ValidationRow& r : set_.rows)
    (r.label.find("70b") != std::string::npos || r.label.find("180b") != std::string::npos ? gqa
                                                                                           : mha)
        .rows.push_back(r);
  EXPECT_LE(summarize(gqa).mean_abs_error, 0.12);
  EXPECT_LE(summarize(mha).mean_abs_error, 0.10);
  EXPECT_LE(std::fabs(summarize(mha).mean_signed_error), 0.10);
  EXPECT_LE(std::fabs(summarize(gqa).mean_signed_error), 0.10);
}

// TensorRT-LLM v0.5's High Throughput tables at TP 1 (GPT-J 6B and
// Llama-2-7B, H100 FP8 and A100 FP16, batch 16-64), held out: 4.3 % mean,
// +2.8 % signed, 12 of 16 rows above; the worst +13.8 % (GPT-J on A100 at
// 2048/128, a context-heavy row: v0.5's context phase ran slower than
// v0.6.1's, as the first-token rows say).
TEST(ServingValidation, ThroughputV05HeldOut) {
  const ValidationSummary s = print(set("serving-trtllm-throughput-v0.5"));
  EXPECT_NEAR(s.mean_abs_error, 0.043, 0.01);
  EXPECT_NEAR(s.mean_signed_error, 0.028, 0.01);
  EXPECT_LE(std::fabs(s.worst_error), 0.20);
}

// The target is ≤ 25 %. Today 12.0 % mean, -9.9 % signed (13 of 18
// rows under the measurement, optimistic for a latency): the GEMMs of a
// 128-token or 2,048-token context phase priced by the shared kernel model
// (waves, epilogue, operands at the kernel HBM rate) instead of one roofline
// over the phase. The runtime's per-call host work around the context phase
// (buffer reshapes, sampling set-up, the final output copy of
// GptSession::generate) has no published microbenchmark and is left out
// rather than fitted; the A100 GPT-J 128-token row bounds it at ~0.35 ms.
// What is missing is mostly on H100 FP8 (FirstTokenBreakdown below; README,
// "What remains"): the 2,048-token rows imply v0.5's FP8 GEMMs at 0.44-0.62
// of the FP8 peak, a rate no published figure gives. The H100-vs-A100 blog's
// two batch-64 context phases (8,192 tokens) are under on both chips (H100
// -18 %, A100 -15 %): v0.5's large context phases ran slower than v0.6.1's.
TEST(ServingValidation, FirstToken) {
  const ValidationSet& set_ = set("serving-trtllm-first-token");
  const ValidationSummary s = print(set_);
  EXPECT_LE(s.mean_abs_error, 0.15);
  EXPECT_LE(std::fabs(s.mean_signed_error), 0.15);
  EXPECT_LE(std::fabs(s.worst_error), 0.30);
}

// Every first-token row with what the prediction is made of: the context
// phase's GEMMs, attention, element-wise kernels, launch gaps, TP
// all-reduces and the per-call cost, in ms, and what is left to the
// measurement (in total and per layer). The parts add up to the prediction,
// and no generation step is in it (GptSession::generate with one output
// token runs only the context engine).
TEST(ServingValidation, FirstTokenBreakdown) {
  std::printf(
      "\nFirst-token rows, predicted breakdown (ms)\n| row | measured | predicted | GEMMs | "
      "attention | element-wise | launches | TP all-reduce | per call | missing | missing per "
      "layer (us) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  std::size_t n = 0;
  for (const PublishedServingRow& r : published_serving_rows(csv_text())) {
    if (r.metric != "first_token_latency_ms") continue;
    ++n;
    const StaticBatchResult s = evaluate_static_batch(serving_model(r.shape), r.inputs);
    const PhaseTime& p = s.prefill;
    EXPECT_EQ(s.decode_steps, 0) << r.label;
    EXPECT_EQ(s.prefill_chunks, 1) << r.label;
    const double parts = p.gemm_seconds + p.attention_seconds + p.elementwise_seconds +
                         p.launch_seconds + p.tp_comm_seconds + s.overhead_seconds;
    EXPECT_NEAR(parts, s.total_seconds, 1e-9 * s.total_seconds) << r.label;
    const double missing_ms = r.measured - 1e3 * s.total_seconds;
    std::printf("| %s | %.0f | %.1f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %+.1f | %+.0f |\n",
                r.label.c_str(), r.measured, 1e3 * s.total_seconds, 1e3 * p.gemm_seconds,
                1e3 * p.attention_seconds, 1e3 * p.elementwise_seconds, 1e3 * p.launch_seconds,
                1e3 * p.tp_comm_seconds, 1e3 * s.overhead_seconds, missing_ms,
                1e3 * missing_ms / static_cast<double>(r.shape.n_layers));
    if (r.label == "llama-2-70b H100 fp8 TP4 batch 1 128/1") {
      // The worst row: GEMMs 11.2 ms (already above the 17.5 GB of FP8
      // weights per GPU read at 3.35 TB/s, 5.2 ms), launch gaps 80 layers x
      // 12 kernels x 4 us, 160 one-shot all-reduces of 2 MB at 23.5 us each
      // (vLLM's published H100 benchmark: 22 us at 2 MB over 4 GPUs).
      EXPECT_NEAR(1e3 * p.gemm_seconds, 11.23, 0.05);
      EXPECT_NEAR(1e3 * p.launch_seconds, 3.84, 0.01);
      EXPECT_NEAR(1e3 * p.tp_comm_seconds, 3.76, 0.02);
      EXPECT_NEAR(missing_ms, 6.3, 0.1);
    }
  }
  EXPECT_EQ(n, 18u);
}

TEST(ServingValidation, EngineGenerationFromVersion) {
  EXPECT_EQ(engine_for_trtllm_version("v0.5"), "tensorrt-llm-0.6");
  EXPECT_EQ(engine_for_trtllm_version("v0.6.1"), "tensorrt-llm-0.6");
  EXPECT_EQ(engine_for_trtllm_version("v0.8.0"), "tensorrt-llm");
  EXPECT_EQ(engine_for_trtllm_version("v1.0"), "tensorrt-llm");
  EXPECT_THROW(engine_for_trtllm_version("0.6"), std::invalid_argument);
  EXPECT_THROW(engine_for_trtllm_version("vX"), std::invalid_argument);
}

TEST(ServingValidation, BadCsvThrowsNamingTheLine) {
  const std::string header =
      "model,chip,precision,tp,batch,input_tokens,output_tokens,metric,value,trtllm_version\n";
  EXPECT_THROW(serving_validation_sets("model,chip\n"), std::invalid_argument);
  try {
    serving_validation_sets(header +
                            "llama-2-7b,H100,fp8,1,1,128,1,first_token_latency_ms,x,v0.5\n");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(
      serving_validation_sets(header + "gpt-9,H100,fp8,1,1,128,1,first_token_latency_ms,7,v0.5\n"),
      std::invalid_argument);
  EXPECT_THROW(serving_validation_sets(header + "llama-2-7b,H100,fp8,1,1,128,1,watts,7,v0.5\n"),
               std::invalid_argument);
  EXPECT_TRUE(serving_validation_sets(header).empty());
}

// TensorRT-LLM v1.0's offline throughput tables (trtllm_offline_v1.csv),
// held out: no constant was set from them. Every row is the offline mode
// with the tensorrt-llm preset (90 % of the free memory for an FP8 KV cache)
// at the max batch size and token budget trtllm-bench derives from the
// dataset, the decode tokens spending the budget first. Today 4.8 % mean,
// +0.1 % signed, 30 of 60 rows above the measurement (first seen at 8.2 % /
// +6.5 %, 48 of 60, before the 16-bit tables of quantized checkpoints, the
// sampler's pass over the logits, the gated MLP's activation kernel and
// trtllm-bench's settings: 5.2 % / +1.3 % with the preset's 2,048 and 8,192).
// The bounds hold the scoreboard line the README prints.
TEST(ServingValidation, OfflineV1HeldOut) {
  const std::vector<ValidationSet> sets =
      trtllm_offline_validation_sets(csv_text("trtllm_offline_v1.csv"));
  ASSERT_EQ(sets.size(), 2u);  // FP8 on Hopper; NVFP4 on Blackwell (below)
  const ValidationSet& s = sets.front();
  EXPECT_EQ(s.key, "serving-trtllm-offline-v1.0");
  ASSERT_EQ(s.rows.size(), 60u);
  for (const ValidationRow& r : s.rows) {
    EXPECT_EQ(r.setting, "tensorrt-llm") << r.label;
    EXPECT_GT(r.predicted, 0) << r.label;
  }
  const ValidationSummary sum = print(s);
  EXPECT_NEAR(sum.mean_abs_error, 0.048, 0.01);
  EXPECT_NEAR(sum.mean_signed_error, 0.001, 0.01);
  EXPECT_LE(std::fabs(sum.worst_error), 0.35);
}

// The same page's NVFP4 runs on B200 and GB200 (Llama 3.3 70B at TP 1, Llama
// 3.1 405B at TP 4; 40 rows), held out and read at the engines' NVFP4 GEMM
// fraction from a cuBLASLt sweep: every row above the measurement, 34 % on
// average (+15 % to +52 %), decode-heavy and prefill-heavy rows alike, where
// the page's Hopper FP8 rows are on it. No B200 memory-copy or in-engine FP4
// kernel timing is published to say which term is missing (README); the
// Blackwell track record carries the gap to every Blackwell serving plan.
TEST(ServingValidation, OfflineV1Fp4HeldOutAndAboveTheMeasurement) {
  const std::vector<ValidationSet> sets =
      trtllm_offline_validation_sets(csv_text("trtllm_offline_v1.csv"));
  ASSERT_EQ(sets.size(), 2u);
  const ValidationSet& s = sets[1];
  EXPECT_EQ(s.key, "serving-trtllm-offline-v1.0-fp4");
  ASSERT_EQ(s.rows.size(), 40u);
  for (const ValidationRow& r : s.rows) {
    EXPECT_TRUE(r.chip == "B200" || r.chip == "GB200") << r.label;
    EXPECT_GT(r.predicted, r.measured) << r.label;
  }
  const ValidationSummary sum = print(s);
  EXPECT_NEAR(sum.mean_signed_error, 0.34, 0.05);
  EXPECT_LE(std::fabs(sum.worst_error), 0.60);
}

// TensorRT-LLM v0.17's table (trtllm_offline_v0_17.csv), held out: the
// TensorRT-engine flow on H200 and H100 in FP8 and A100 in FP16. Dense
// (Llama 3.1 8B, 70B at TP 1-8, 405B; 131 rows): 5.9 % mean, −0.2 % signed.
// MoE (Mixtral 8x7B at TP 1-8, 8x22B at TP 8; 126 rows): 12.6 % / +11.2 %
// with the experts' rows spread by random routing and the plugin's routing
// kernels launched, 111 rows above on every chip and TP, FP16 as FP8: the
// experts' grouped GEMMs run below what the shared kernel model gives a
// dense GEMM of the same shape (README, "What remains"). Each row runs at
// trtllm-bench's settings for its dataset (with the page's example 4,096 and
// 8,192 for every row: 5.9 % / +1.1 % and 15.7 % / +14.4 %).
TEST(ServingValidation, OfflineV017HeldOut) {
  const std::vector<ValidationSet> sets =
      trtllm_offline_validation_sets(csv_text("trtllm_offline_v0_17.csv"));
  ASSERT_EQ(sets.size(), 2u);
  const ValidationSet& dense = sets[0];
  const ValidationSet& moe = sets[1];
  EXPECT_EQ(dense.key, "serving-trtllm-offline-v0.17");
  EXPECT_EQ(moe.key, "serving-trtllm-offline-v0.17-moe");
  ASSERT_EQ(dense.rows.size(), 131u);
  ASSERT_EQ(moe.rows.size(), 126u);
  for (const ValidationSet* s : {&dense, &moe})
    for (const ValidationRow& r : s->rows) EXPECT_EQ(r.setting, "tensorrt-llm") << r.label;
  const ValidationSummary d = print(dense);
  EXPECT_NEAR(d.mean_abs_error, 0.059, 0.01);
  EXPECT_NEAR(d.mean_signed_error, -0.002, 0.01);
  EXPECT_LE(std::fabs(d.worst_error), 0.35);
  const ValidationSummary m = print(moe);
  EXPECT_NEAR(m.mean_abs_error, 0.126, 0.015);
  EXPECT_NEAR(m.mean_signed_error, 0.112, 0.015);
}

// trtllm-bench's settings from the dataset (tuning.py). The page's own example
// (Llama 3.1 8B, FP8, one H200, 128/128) prints "Max Runtime Batch Size: 4096"
// and "Max Runtime Tokens: 8192"; Llama 3.1 70B in FP8 on one H100 leaves
// 79.19 GiB − 70.55 "GB" of weights, 95 % of it at 160 KiB a token of an FP8
// cache over 256-token sequences: 210 requests, rounded up to 224 (a multiple
// of 32) with the 2,048-token floor.
TEST(ServingValidation, TrtllmBenchSettingsFollowTheTool) {
  const ServingModel small = serving_model(published_serving_shape("llama-3.1-8b"));
  const ServingModel big = serving_model(published_serving_shape("llama-3.1-70b"));
  struct Case {
    const ServingModel* model;
    const char* chip;
    std::int64_t tp, input, output, batch, tokens;
  };
  for (const Case& c : {
           Case{&small, "H200", 1, 128, 128, 4096, 8192},
           // Longer sequences: 943 of 2,176 tokens fit (up to 1,024), with a
           // budget of 943 × 1.0625, up to the 2,048 floor; at 20,000/2,000, 93
           // requests (up to 96) and the floor again, below the prompt: the
           // engine must chunk it.
           Case{&small, "H200", 1, 128, 2048, 1024, 2048},
           Case{&small, "H200", 1, 20000, 2000, 96, 2048},
           // 70B on eight H200 at 2,048/128: 2,998 requests (up to 3,072) × 17
           // tokens, capped at 32,768.
           Case{&big, "H200", 8, 2048, 128, 3072, 32768},
           Case{&big, "H100", 1, 128, 128, 224, 2048},
       }) {
    const TrtllmBenchSettings s = trtllm_bench_settings(*c.model, chip_by_name(c.chip), c.tp, 1,
                                                        c.input, c.output, Dtype::fp8);
    EXPECT_EQ(s.max_batch_size, c.batch) << c.chip << " " << c.input << "/" << c.output;
    EXPECT_EQ(s.max_num_tokens, c.tokens) << c.chip << " " << c.input << "/" << c.output;
  }
  // FP16 weights (141 GB) do not fit one 80 GB device: refused.
  EXPECT_THROW(trtllm_bench_settings(big, chip_by_name("H100"), 1, 1, 128, 128, Dtype::bf16),
               std::invalid_argument);
  EXPECT_THROW(trtllm_bench_settings(big, chip_by_name("H100"), 0, 1, 128, 128, Dtype::fp8),
               std::invalid_argument);
}

TEST(ServingValidation, OfflineCsvErrorsNameTheLine) {
  const std::string header =
      "model,chip,precision,tp,input_tokens,output_tokens,requests,metric,value,trtllm_version,"
      "max_batch_size\n";
  const auto message = [&](const std::string& row) {
    try {
      trtllm_offline_validation_sets(header + row);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const auto has = [&](const std::string& row, const std::string& part) {
    return message(row).find(part) != std::string::npos;
  };
  EXPECT_TRUE(has("llama-3.1-8b,H100,fp8,1,128,128,100,total_output_tokens_per_s,x,v1.0,\n",
                  "line 2, column value"));
  EXPECT_TRUE(has("llama-3.1-8b,H100,bf16,1,128,128,100,total_output_tokens_per_s,9,v1.0,\n",
                  "column precision"));
  EXPECT_TRUE(has("llama-3.1-8b,H100,fp8,1,128,128,100,watts,9,v1.0,\n", "column metric"));
  EXPECT_TRUE(has("llama-3.1-8b,H100,fp8,1,128,128,0.5,total_output_tokens_per_s,9,v1.0,\n",
                  "column requests"));
  EXPECT_TRUE(has("llama-3.1-8b,H100,fp8,1,128,128,9,total_output_tokens_per_s,9,v1.0,-4\n",
                  "column max_batch_size"));
  EXPECT_TRUE(has("llama-9,H100,fp8,1,128,128,100,total_output_tokens_per_s,9,v1.0,\n", "llama-9"));
  // No stated batch and no room for trtllm-bench's: 70B in FP16 on one H100.
  EXPECT_TRUE(has("llama-3.1-70b,H100,fp16,1,128,128,9,total_output_tokens_per_s,9,v1.0,\n",
                  "line 2: trtllm-bench settings: not one request"));
  EXPECT_TRUE(
      has("llama-3.1-8b,H100,fp8,1,128,128,9,total_output_tokens_per_s,9,v1.0\n", "fields"));
  EXPECT_THROW(trtllm_offline_validation_sets("model,chip\n"), std::invalid_argument);
  EXPECT_TRUE(trtllm_offline_validation_sets(header).empty());
  // One set per version, in file order; a stated max batch size caps the run.
  const std::string two =
      header + "llama-3.1-8b,H100,fp8,1,128,128,300,total_output_tokens_per_s,9,v1.0,\n" +
      "llama-3.1-8b,H100,fp8,1,128,128,300,total_output_tokens_per_s,9,v0.17,8\n";
  const std::vector<ValidationSet> sets = trtllm_offline_validation_sets(two);
  ASSERT_EQ(sets.size(), 2u);
  EXPECT_EQ(sets[0].key, "serving-trtllm-offline-v1.0");
  EXPECT_EQ(sets[1].key, "serving-trtllm-offline-v0.17");
  EXPECT_LT(sets[1].rows[0].predicted, sets[0].rows[0].predicted);
}

}  // namespace
}  // namespace napkin
