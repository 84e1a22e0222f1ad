// Batching modes (serving_modes.h): static batch, offline and server.
#include <gtest/gtest.h>

#include <cstdio>

#include "serving_modes.h"
#include "serving_test_util.h"

namespace napkin {
namespace {

ModeInputs h100_tp4(BatchingMode mode, const char* engine = "tensorrt-llm") {
  ModeInputs in;
  in.mode = mode;
  in.serving.chip = "H100";
  in.serving.layout = {4, 1, 1};
  in.serving.weights = in.serving.kv = Dtype::fp8;
  in.serving.prompt_tokens = 1024;
  in.serving.decode_tokens = 128;
  in.serving.overhead_seconds = 0;
  in.serving.engine = engine;
  in.requests = 400;
  return in;
}

TEST(ServingModes, StaticEqualsTheStaticBatch) {
  const ServingModel m = serving_model(kLlama2_70B);
  ModeInputs in = h100_tp4(BatchingMode::static_batch);
  in.serving.batch = 64;
  const ModeResult r = evaluate_mode(m, in);
  const StaticBatchResult s = evaluate_static_batch(m, in.serving);
  EXPECT_DOUBLE_EQ(r.output_tokens_per_second_per_chip, s.tokens_per_second_per_chip);
  EXPECT_DOUBLE_EQ(r.output_tokens_per_second, 4 * s.tokens_per_second_per_chip);
  EXPECT_DOUBLE_EQ(r.ttft_seconds.p99, s.prefill_seconds);
  EXPECT_DOUBLE_EQ(r.tpot_seconds.p50, s.decode_step_seconds);
  EXPECT_EQ(r.concurrency, 64);
  EXPECT_GT(r.max_concurrency, 64);
  in.serving.batch = r.max_concurrency + 1;
  EXPECT_THROW(evaluate_mode(m, in), std::invalid_argument);
}

TEST(ServingModes, OfflineFillsMemoryAndBeatsASmallCap) {
  const ServingModel m = serving_model(kLlama2_70B);
  ModeInputs in = h100_tp4(BatchingMode::offline);
  const ModeResult all = evaluate_mode(m, in);
  EXPECT_EQ(all.concurrency, all.max_concurrency);
  in.concurrency = 8;
  const ModeResult few = evaluate_mode(m, in);
  EXPECT_EQ(few.concurrency, 8);
  EXPECT_GT(all.output_tokens_per_second, 3 * few.output_tokens_per_second);
  EXPECT_LT(few.tpot_seconds.p50, all.tpot_seconds.p50);
  // Every request's tokens are counted: 400 × 128 over the makespan.
  EXPECT_NEAR(few.output_tokens_per_second * few.makespan_seconds, 400.0 * 128, 1e-6);
  EXPECT_LE(few.ttft_seconds.p50, few.ttft_seconds.p90);
  EXPECT_LE(few.ttft_seconds.p90, few.ttft_seconds.p99);
}

TEST(ServingModes, ServerLatencyGrowsWithRateAndSaturates) {
  const ServingModel m = serving_model(kLlama2_70B);
  ModeInputs in = h100_tp4(BatchingMode::server);
  in.prompt_spread = 512;
  in.output_spread = 64;
  in.request_rate_per_second = 1;
  const ModeResult light = evaluate_mode(m, in);
  EXPECT_FALSE(light.saturated);
  // At a light load the slice keeps up: throughput ≈ rate × mean output.
  EXPECT_NEAR(light.output_tokens_per_second, 128.0, 0.2 * 128.0);
  in.request_rate_per_second = 1000;
  const ModeResult heavy = evaluate_mode(m, in);
  EXPECT_TRUE(heavy.saturated);
  EXPECT_GT(heavy.ttft_seconds.p99, 10 * light.ttft_seconds.p99);
  EXPECT_GT(heavy.tpot_seconds.p50, light.tpot_seconds.p50);
  // Seeded: the same inputs give the same numbers.
  const ModeResult again = evaluate_mode(m, in);
  EXPECT_DOUBLE_EQ(again.ttft_seconds.p99, heavy.ttft_seconds.p99);
  std::printf(
      "server 1 req/s: TTFT p50 %.3f p99 %.3f s, TPOT p50 %.4f s; 1000 req/s: TTFT p99 %.1f s\n",
      light.ttft_seconds.p50, light.ttft_seconds.p99, light.tpot_seconds.p50,
      heavy.ttft_seconds.p99);
}

TEST(ServingModes, BadInputNamesTheParameter) {
  const ServingModel m = serving_model(kLlama2_70B);
  ModeInputs in = h100_tp4(BatchingMode::offline);
  in.prompt_spread = 1024;  // would allow 0-token prompts
  EXPECT_THROW(evaluate_mode(m, in), std::invalid_argument);
  in = h100_tp4(BatchingMode::server);
  in.request_rate_per_second = 0;
  EXPECT_THROW(evaluate_mode(m, in), std::invalid_argument);
  in = h100_tp4(BatchingMode::offline);
  in.requests = 100'000;
  in.serving.decode_tokens = 1000;
  try {
    evaluate_mode(m, in);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("requests"), std::string::npos);
  }
  EXPECT_EQ(parse_batching_mode("server"), BatchingMode::server);
  EXPECT_THROW(parse_batching_mode("online", "--mode"), std::invalid_argument);
}

// The frontier every serving team draws: more concurrency, more throughput
// per chip and a slower TPOT, up to what memory holds.
TEST(ServingModes, FrontierAndTheRateThatBreaksTtft) {
  const ServingModel m = serving_model(kLlama2_70B);
  ModeInputs in = h100_tp4(BatchingMode::offline);
  in.requests = 200;
  const std::vector<FrontierPoint> f = serving_frontier(m, in);
  ASSERT_GE(f.size(), 5u);
  EXPECT_EQ(f.front().concurrency, 1);
  EXPECT_EQ(f.back().concurrency, max_concurrency(m, in));
  for (std::size_t i = 1; i < f.size(); ++i) {
    EXPECT_GT(f[i].concurrency, f[i - 1].concurrency);
    EXPECT_GE(f[i].tpot_p50_seconds, f[i - 1].tpot_p50_seconds);
  }
  EXPECT_GT(f[f.size() / 2].output_tokens_per_second_per_chip,
            10 * f.front().output_tokens_per_second_per_chip);
  // A P99 TTFT of 150 ms binds well below the rate the slice sustains.
  const double rate = max_request_rate_for_ttft(m, in, 0.15);
  EXPECT_GT(rate, 0);
  ModeInputs s = in;
  s.mode = BatchingMode::server;
  s.request_rate_per_second = rate;
  EXPECT_LE(evaluate_mode(m, s).ttft_seconds.p99, 0.15);
  s.request_rate_per_second = 1.1 * rate;
  EXPECT_GT(evaluate_mode(m, s).ttft_seconds.p99, 0.15);
  std::printf("P99 TTFT <= 150 ms up to %.2f requests/s\n", rate);
  EXPECT_THROW(max_request_rate_for_ttft(m, in, 0), std::invalid_argument);
}

}  // namespace
}  // namespace napkin

namespace napkin {
namespace {

// The engine's max batch size bounds the requests in flight when the run sets
// no concurrency of its own (TensorRT-LLM's default 2,048, docs "Tuning Max
// Batch Size and Max Num Tokens"); a run's own concurrency overrides it, and
// memory bounds both. Short requests on a large slice: memory holds more.
TEST(ServingModes, TheEnginesMaxBatchCapsOffline) {
  const ServingModel m = serving_model(kLlama2_70B);
  ModeInputs in = h100_tp4(BatchingMode::offline);
  in.serving.prompt_tokens = 128;
  in.serving.decode_tokens = 16;
  in.requests = 5000;
  const ModeResult capped = evaluate_mode(m, in);
  ASSERT_GT(capped.max_concurrency, 2048);
  EXPECT_EQ(capped.concurrency, 2048);
  EXPECT_EQ(engine_by_name("tensorrt-llm").max_batch_size, 2048);
  in.concurrency = 4096;
  EXPECT_EQ(evaluate_mode(m, in).concurrency, std::min<std::int64_t>(4096, capped.max_concurrency));
  // SGLang sizes its request pool from memory, within 2,048-4,096 requests:
  // short requests fill memory up to the pool's ceiling.
  ModeInputs ideal = h100_tp4(BatchingMode::offline, "sglang");
  ideal.serving.prompt_tokens = 128;
  ideal.serving.decode_tokens = 16;
  ideal.requests = 5000;
  const ModeResult all = evaluate_mode(m, ideal);
  ASSERT_GT(all.max_concurrency, 4096);  // memory holds more than the pool
  EXPECT_EQ(all.concurrency, 4096);
  EXPECT_EQ(engine_by_name("sglang").max_batch_size, 4096);
  // An engine without a cap (the ideal roofline) fills memory.
  ideal.serving.engine = "ideal";
  const ModeResult free = evaluate_mode(m, ideal);
  EXPECT_EQ(free.concurrency, free.max_concurrency);
}

// vLLM sizes its scheduler by device and entry point (EngineArgs.
// get_batch_defaults): 1,024 sequences and 8,192 tokens online on a device of
// at least 70 GiB that is not an A100 (16,384 offline), 256 and 2,048 (8,192
// offline) elsewhere. TensorRT-LLM's defaults hold everywhere.
TEST(ServingModes, VllmsSchedulerLimitsFollowTheDeviceAndTheEntryPoint) {
  const ServingEngine& vllm = engine_by_name("vllm");
  auto limits = [&](const char* chip, bool offline) {
    const SchedulerLimits l = scheduler_limits(vllm, chip_by_name(chip), offline);
    return std::pair{l.max_batch_size, l.tokens_per_step};
  };
  EXPECT_EQ(limits("H100", false), (std::pair<std::int64_t, std::int64_t>{1024, 8192}));
  EXPECT_EQ(limits("H100", true), (std::pair<std::int64_t, std::int64_t>{1024, 16384}));
  EXPECT_EQ(limits("MI300X", true), (std::pair<std::int64_t, std::int64_t>{1024, 16384}));
  EXPECT_EQ(limits("A100-80", false), (std::pair<std::int64_t, std::int64_t>{256, 2048}));
  EXPECT_EQ(limits("A100-80", true), (std::pair<std::int64_t, std::int64_t>{256, 8192}));
  EXPECT_EQ(limits("TPU v5e", true), (std::pair<std::int64_t, std::int64_t>{256, 8192}));
  const SchedulerLimits trt =
      scheduler_limits(engine_by_name("tensorrt-llm"), chip_by_name("A100-80"), true);
  EXPECT_EQ(trt.max_batch_size, 2048);
  EXPECT_EQ(trt.tokens_per_step, 8192);
  // An offline run on an H100 holds at most 1,024 requests whatever memory holds.
  const ServingModel m = serving_model(kLlama2_70B);
  ModeInputs in = h100_tp4(BatchingMode::offline, "vllm");
  in.serving.prompt_tokens = 128;
  in.serving.decode_tokens = 16;
  in.requests = 5000;
  const ModeResult r = evaluate_mode(m, in);
  ASSERT_GT(r.max_concurrency, 1024);
  EXPECT_EQ(r.concurrency, 1024);
}

// TensorRT-LLM's and vLLM's token budget per iteration is spent first on the
// running requests, one decode token each (the scheduler walk-through in
// TensorRT-LLM's "Tuning Max Batch Size and Max Num Tokens"; vLLM's V1
// token_budget); SGLang's chunked-prefill size bounds prompts alone. With 100
// tokens an iteration and 50-token prompts, TensorRT-LLM stops admitting once
// 51 requests run, whatever the cap: 200 requests of 1,000 tokens take about
// four rounds. SGLang admits two a step and runs them all at once.
TEST(ServingModes, DecodeTokensSpendTheIterationBudget) {
  const ServingModel m = serving_model(kLlama2_70B);
  ModeInputs in = h100_tp4(BatchingMode::offline);
  in.serving.prompt_tokens = 50;
  in.serving.decode_tokens = 1000;
  in.requests = 200;
  in.concurrency = 200;
  in.max_tokens_per_step = 100;
  EXPECT_TRUE(engine_by_name("tensorrt-llm").budget_counts_decode_tokens);
  EXPECT_TRUE(engine_by_name("vllm").budget_counts_decode_tokens);
  EXPECT_FALSE(engine_by_name("sglang").budget_counts_decode_tokens);
  const ModeResult trt = evaluate_mode(m, in);
  EXPECT_GT(trt.steps, 3500);
  in.serving.engine = "sglang";
  const ModeResult sglang = evaluate_mode(m, in);
  EXPECT_LT(sglang.steps, 1200);
  EXPECT_GT(sglang.output_tokens_per_second, 2 * trt.output_tokens_per_second);

  // A prompt larger than what the running requests leave waits for them to
  // finish without context chunking; with it, one prompt starts each
  // iteration there is room.
  in.serving.engine = "tensorrt-llm";
  in.serving.prompt_tokens = 150;
  in.requests = 20;
  in.chunked_prefill = false;
  EXPECT_GT(evaluate_mode(m, in).steps, 19 * 999);
  in.chunked_prefill = true;
  EXPECT_LT(evaluate_mode(m, in).steps, 1100);
  in.max_tokens_per_step = 0;
  EXPECT_THROW(evaluate_mode(m, in), std::invalid_argument);
}

// With expert parallelism every EP rank group serves its own requests
// (attention data parallelism): the engine's max batch size and its token
// budget per iteration hold per replica (TensorRT-LLM's executor on each rank
// under enable_attention_dp; SGLang's and vLLM's data-parallel schedulers).
// Mixtral 8x7B on 8 H100: as EP 8, prompts of 4,000 tokens under a budget of
// 5,000 start eight an iteration, one on each replica; as TP 8, one.
TEST(ServingModes, EachExpertParallelReplicaSchedulesItsOwnRequests) {
  ModelShape mixtral{32, 4096, 14336, 32, 8, 128, 32000};
  mixtral.n_experts = 8;
  mixtral.top_k = 2;
  const ServingModel m = serving_model(mixtral);
  ModeInputs in = h100_tp4(BatchingMode::offline);
  in.serving.layout = {1, 1, 8};
  in.serving.prompt_tokens = 4000;
  in.serving.decode_tokens = 2;
  in.requests = 80;
  in.max_tokens_per_step = 5000;
  in.chunked_prefill = false;
  const ModeResult ep = evaluate_mode(m, in);
  EXPECT_LE(ep.steps, 11);
  in.serving.layout = {8, 1, 1};
  const ModeResult tp = evaluate_mode(m, in);
  EXPECT_GE(tp.steps, 79);
  // The engine's cap of 2,048 requests holds per replica: short requests
  // fill what memory holds across the eight replicas, up to 8 x 2,048.
  in.serving.layout = {1, 1, 8};
  in.serving.prompt_tokens = 128;
  in.serving.decode_tokens = 16;
  in.requests = 20000;
  in.max_tokens_per_step.reset();
  const ModeResult many = evaluate_mode(m, in);
  EXPECT_GT(many.concurrency, 2048);
  EXPECT_EQ(many.concurrency, std::min<std::int64_t>(8 * 2048, many.max_concurrency));
}

}  // namespace
}  // namespace napkin
