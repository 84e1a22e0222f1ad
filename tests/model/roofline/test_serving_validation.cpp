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

std::string csv_text() {
  std::ifstream f(std::string(NAPKIN_TEST_DATA) + "/serving/published_serving.csv");
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
  ASSERT_EQ(sets().size(), 2u);
  EXPECT_EQ(set("serving-trtllm-throughput").rows.size(), 29u);
  EXPECT_EQ(set("serving-trtllm-first-token").rows.size(), 16u);
  for (const ValidationSet& s : sets())
    for (const ValidationRow& r : s.rows) {
      EXPECT_EQ(r.setting, "tensorrt-llm-0.6") << r.label;  // v0.5 and v0.6.1: before XQA
      EXPECT_GT(r.predicted, 0) << r.label;
    }
}

// The target: mean error ≤ 20 %, mean signed within ±10 %, GQA and
// MHA alike. Today: 7.2 % mean, -1.7 % signed; MHA 4.7 % / +0.3 %, GQA
// 10.3 % / -4.1 % (Llama-2-70B's A100 rows on the early XQA kernel, which
// takes head-size-128 layers with a 16-bit cache; its H100 rows, with an FP8
// cache, and Falcon-180B's, head size 64, on the per-query-head reads).
// Before the early XQA rule: 8.4 % / -5.0 %, GQA 12.9 % / -11.5 %. Worst
// +26.5 % (Llama-2-70B on A100 at batch 240, 128/2048: most likely the early
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

// The target is ≤ 25 %. Today 12.9 % mean, -11.5 % signed (13 of 16
// rows under the measurement, optimistic for a latency): the GEMMs of a
// 128-token or 2,048-token context phase priced by the shared kernel model
// (waves, epilogue, operands at the kernel HBM rate) instead of one roofline
// over the phase. The runtime's per-call host work around the context phase
// (buffer reshapes, sampling set-up, the final output copy of
// GptSession::generate) has no published microbenchmark and is left out
// rather than fitted.
TEST(ServingValidation, FirstToken) {
  const ValidationSet& set_ = set("serving-trtllm-first-token");
  const ValidationSummary s = print(set_);
  EXPECT_LE(s.mean_abs_error, 0.15);
  EXPECT_LE(std::fabs(s.mean_signed_error), 0.15);
  EXPECT_LE(std::fabs(s.worst_error), 0.30);
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

}  // namespace
}  // namespace napkin
