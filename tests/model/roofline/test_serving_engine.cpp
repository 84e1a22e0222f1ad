// Engine presets (serving_engine.h) and the per-kernel step they time.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "kernel_time.h"
#include "quantize.h"
#include "serving.h"
#include "serving_modes.h"
#include "serving_test_util.h"

namespace napkin {
namespace {

TEST(ServingEngine, Presets) {
  EXPECT_EQ(serving_engines().front().name, "ideal");
  EXPECT_FALSE(engine_by_name("ideal").per_kernel);
  EXPECT_TRUE(engine_by_name("tensorrt-llm-0.6").kv_reads_per_query_head);
  EXPECT_FALSE(engine_by_name("tensorrt-llm").kv_reads_per_query_head);
  EXPECT_EQ(engine_by_name("vllm").kv_block_tokens, 16);
  EXPECT_DOUBLE_EQ(engine_by_name("vllm").hbm_usable_fraction, 0.9);
  EXPECT_EQ(engine_by_name("sglang").kv_block_tokens, 1);
  EXPECT_EQ(engine_by_name("jetstream").launch_seconds_per_kernel, 0);
  try {
    engine_by_name("vllm2", "--engine");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--engine"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("sglang"), std::string::npos);
  }
  for (const ServingEngine& e : serving_engines()) EXPECT_FALSE(engine_description(e).empty());
  ServingInputs in;
  in.engine = "nope";
  EXPECT_THROW(in.validate(), std::invalid_argument);
}

// The scaling book ("How to Scale Your Model", ch. "Serving LLaMA 3-70B"):
// int8 weights and cache, batch 32 at 8,192 tokens of context on TPU v5e,
// decode is reading 70 GB of weights plus 32 × 8192 × 160 kB = 43 GB of cache:
// about 17 ms on 4x2 (8 chips) and, with the cache sharded over all 16
// chips, about 8.5 ms on 4x4.
ServingInputs scaling_book(std::int64_t chips) {
  ServingInputs in;
  in.chip = "TPU v5e";
  in.layout = {chips, 1, 1};
  in.batch = 32;
  in.prompt_tokens = 8192;
  in.decode_tokens = 1;  // the step at 8,192 tokens of context
  in.weights = Dtype::int8;
  in.kv = Dtype::int8;
  in.pool = ServingPool::decode;
  in.assume.communication = false;  // the book's step counts HBM reads only
  in.assume.hbm_efficiency = 1.0;
  in.assume.hbm_usable_fraction = 1.0;
  return in;
}

TEST(ServingEngine, ScalingBookLlama3_70bOnTpuV5e) {
  const ServingModel m = serving_model(kLlama3_70B);
  const ServingResult r8 = evaluate_serving(m, scaling_book(8));
  EXPECT_NEAR(r8.decode_step_seconds, 0.017, 0.0015);
  EXPECT_TRUE(r8.fits);
  // 4x4 with 8 KV heads: replicated beyond the heads the cache does not halve.
  const ServingResult r16 = evaluate_serving(m, scaling_book(16));
  EXPECT_GT(r16.decode_step_seconds, 0.011);
  ServingInputs sharded = scaling_book(16);
  sharded.assume.shard_kv_beyond_heads = true;
  const ServingResult s16 = evaluate_serving(m, sharded);
  EXPECT_NEAR(s16.decode_step_seconds, 0.0085, 0.0008);
  EXPECT_NEAR(s16.decode_step_seconds, r8.decode_step_seconds / 2, 1e-9);

  // The realistic TPU engine: the same reads as kernels (GEMMs, attention,
  // element-wise), summed; itemised beside the bound. Its GEMMs follow the
  // shared kernel model (kernel_time.h): 32 rows padded to the MXU's 128
  // make the batch-32 GEMMs compute-bound (about 14 ms against the
  // weights' 10.7 ms), and attention reads the cache as its own kernel.
  ServingInputs js = scaling_book(8);
  js.engine = "jetstream";
  const ServingResult j8 = evaluate_serving(m, js);
  std::printf("4x2 ideal %.2f ms; jetstream %.2f ms:", 1e3 * r8.decode_step_seconds,
              1e3 * j8.decode_step_seconds);
  for (const TimePart& p : j8.decode_step.parts())
    std::printf(" %s %.2f ms;", std::string(p.label).c_str(), 1e3 * p.seconds);
  std::printf("\n");
  EXPECT_GE(j8.decode_step_seconds, r8.decode_step_seconds);
  EXPECT_LT(j8.decode_step_seconds, 1.3 * r8.decode_step_seconds);
  EXPECT_NEAR(j8.decode_step.gemm_seconds, 0.0141, 0.001);
  EXPECT_GE(j8.decode_step.attention_seconds, 0.99 * r8.decode_step.kv_read_seconds);
  double sum = 0;
  for (const TimePart& p : j8.decode_step.parts()) sum += p.seconds;
  EXPECT_NEAR(sum, j8.decode_step_seconds, 1e-12);
}

// A real engine never beats the bound: per-kernel times add up to at least
// the one roofline over the step, for prefill and decode, at any batch.
TEST(ServingEngine, PerKernelIsNeverFasterThanIdeal) {
  for (const ModelShape& shape : {kLlama2_70B, preset("Mixtral-8x7B")}) {
    const ServingModel m = serving_model(shape);
    for (const char* chip : {"H100", "A100-80"})
      for (std::int64_t batch : {1, 16, 256})
        for (const ServingEngine& e : serving_engines()) {
          ServingInputs in;
          in.chip = chip;
          in.layout = {4, 1, 1};
          in.batch = batch;
          in.prompt_tokens = 2048;
          in.decode_tokens = 256;
          in.weights = std::string(chip) == "H100" ? Dtype::fp8 : Dtype::bf16;
          const ServingResult ideal = evaluate_serving(m, in);
          in.engine = std::string(e.name);
          const ServingResult r = evaluate_serving(m, in);
          EXPECT_GE(r.decode_step_seconds, ideal.decode_step_seconds * (1 - 1e-12)) << e.name;
          EXPECT_GE(r.prefill_seconds, ideal.prefill_seconds * (1 - 1e-12)) << e.name;
          double sum = 0;
          for (const TimePart& p : r.decode_step.parts()) sum += p.seconds;
          EXPECT_NEAR(sum, r.decode_step_seconds, 1e-9 * r.decode_step_seconds) << e.name;
        }
  }
}

// Pre-XQA attention reads a GQA cache once per query head: at long context
// the step of Llama-2-70B on TensorRT-LLM 0.6 is far slower than on XQA.
TEST(ServingEngine, XqaReadsTheCacheOncePerKvHead) {
  const ServingModel m = serving_model(kLlama2_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {2, 1, 1};
  in.batch = 64;
  in.prompt_tokens = 2048;
  in.decode_tokens = 2048;
  in.weights = in.kv = Dtype::fp8;
  in.engine = "tensorrt-llm-0.6";
  const StaticBatchResult old = evaluate_static_batch(m, in);
  in.engine = "tensorrt-llm";
  const StaticBatchResult xqa = evaluate_static_batch(m, in);
  // 64 query heads share 8 KV heads: pre-XQA each KV head's cache is read 8 times.
  EXPECT_GT(old.decode_step.attention_seconds, 6 * xqa.decode_step.attention_seconds);
  EXPECT_GT(xqa.tokens_per_second_per_chip, 1.5 * old.tokens_per_second_per_chip);
}

// TensorRT-LLM before v0.8 ran its early XQA kernel (TRTLLM_ENABLE_XQA=1, as
// NVIDIA's benchmark commands set it for the GQA models) only where its
// runner accepts the layer: head size 128, 8 query heads per KV head on the
// rank (1, 2, 4 or 8 KV heads), a 16-bit KV cache. Everything else falls back
// to the masked multi-head attention kernel and its per-query-head reads.
TEST(ServingEngine, EarlyXqaTakesOnlyTheLayersItsRunnerAccepts) {
  EXPECT_TRUE(engine_by_name("tensorrt-llm-0.6").early_xqa);
  EXPECT_TRUE(xqa_takes_layer(16, 2, 128, true));    // Llama-2-70B at TP 4, fp16 cache
  EXPECT_TRUE(xqa_takes_layer(64, 8, 128, true));    // Llama-2-70B on one GPU
  EXPECT_FALSE(xqa_takes_layer(16, 2, 128, false));  // FP8 cache: v0.8's kernels
  EXPECT_FALSE(xqa_takes_layer(29, 1, 64, true));    // Falcon-180B at TP 8: head size 64
  EXPECT_FALSE(xqa_takes_layer(32, 32, 128, true));  // MHA
  EXPECT_FALSE(xqa_takes_layer(48, 6, 128, true));   // 6 KV heads on a rank
  EXPECT_FALSE(xqa_takes_layer(4, 1, 128, true));    // 4 query heads per KV head
  EXPECT_FALSE(xqa_takes_layer(8, 0, 128, true));

  const ServingModel m = serving_model(kLlama2_70B);
  ServingInputs in;
  in.chip = "A100-80";
  in.layout = {4, 1, 1};
  in.batch = 240;
  in.prompt_tokens = 128;
  in.decode_tokens = 2048;
  in.weights = in.kv = Dtype::bf16;
  in.engine = "tensorrt-llm-0.6";
  const StaticBatchResult early = evaluate_static_batch(m, in);
  in.engine = "tensorrt-llm";
  const StaticBatchResult xqa = evaluate_static_batch(m, in);
  // A 16-bit cache: one read per KV head, as on the XQA engine.
  EXPECT_NEAR(early.decode_step.attention_seconds, xqa.decode_step.attention_seconds,
              1e-9 * xqa.decode_step.attention_seconds);
  // An FP8 cache falls back to the per-query-head reads (8 per KV head).
  in.chip = "H100";
  in.weights = in.kv = Dtype::fp8;
  const StaticBatchResult fp8_xqa = evaluate_static_batch(m, in);
  in.engine = "tensorrt-llm-0.6";
  const StaticBatchResult fp8_early = evaluate_static_batch(m, in);
  EXPECT_GT(fp8_early.decode_step.attention_seconds, 6 * fp8_xqa.decode_step.attention_seconds);
  // The user's --kv-reads-per-query-head still forces the re-reads.
  in.chip = "A100-80";
  in.weights = in.kv = Dtype::bf16;
  in.assume.kv_reads_per_query_head = true;
  const StaticBatchResult forced = evaluate_static_batch(m, in);
  EXPECT_GT(forced.decode_step.attention_seconds, 6 * xqa.decode_step.attention_seconds);
}

// Paged caches hold whole blocks: a 17-token context takes two 16-token
// blocks on vLLM, 17 tokens on SGLang's token pool.
TEST(ServingEngine, KvBlocksRoundTheCacheUp) {
  const ServingModel m = serving_model(kLlama2_70B);
  ServingInputs in;
  in.chip = "H100";
  in.layout = {8, 1, 1};
  in.prompt_tokens = 16;
  in.decode_tokens = 1;
  in.engine = "sglang";
  const double token_pool = evaluate_serving(m, in).memory.kv_bytes;
  in.engine = "vllm";
  const double blocks = evaluate_serving(m, in).memory.kv_bytes;
  EXPECT_NEAR(blocks / token_pool, 32.0 / 17.0, 1e-9);
}

// TensorRT-LLM sizes its KV cache from the memory CUDA reports free after the
// engine is loaded (× kv_cache_free_gpu_mem_fraction, 0.9), not from 90 % of
// the datasheet's 80 GB: NVIDIA's Llama-2-70B A100 row (TP 4, batch 240,
// 128 + 2,048 tokens: 34.5 GB of weights and 42.8 GB of cache per GPU) ran,
// and Napkin's static mode reproduces it.
TEST(ServingEngine, TensorRtLlmSizesItsCacheFromTheMemoryLeftFree) {
  const ServingModel m = serving_model(kLlama2_70B);
  ModeInputs mi;
  ServingInputs& in = mi.serving;
  in.chip = "A100-80";
  in.layout = {4, 1, 1};
  in.batch = 240;
  in.prompt_tokens = 128;
  in.decode_tokens = 2048;
  in.weights = in.kv = Dtype::bf16;
  in.engine = "tensorrt-llm-0.6";
  mi.mode = BatchingMode::static_batch;
  const ServingMemory mem = evaluate_serving(m, in).memory;
  EXPECT_TRUE(mem.fits);
  const double device = static_cast<double>(device_memory(chip_by_name("A100-80")).bytes);
  EXPECT_NEAR(mem.usable_bytes, mem.weights_bytes + 0.9 * (device - mem.weights_bytes), 1.0);
  EXPECT_GT(mem.kv_bytes, 42e9);
  EXPECT_EQ(evaluate_mode(m, mi).concurrency, 240);
  // vLLM's gpu_memory_utilization is a share of the whole device (weights,
  // activations and cache): there the batch does not fit.
  in.engine = "vllm";
  EXPECT_FALSE(evaluate_serving(m, in).memory.fits);
  EXPECT_TRUE(engine_by_name("tensorrt-llm").kv_fraction_of_free_memory);
}

// vLLM's share is of the device's total, less its profile run's peak (the
// sampler's fp32 copies of max_num_seqs requests' logits) and the memory
// outside PyTorch; SGLang's is of the total alone.
TEST(ServingEngine, VllmTakesItsProfilePeakOutOfTheDevicesShare) {
  const ServingModel m = serving_model(ModelShape{32, 4096, 14336, 32, 8, 128, 128256});
  ServingInputs in;
  in.chip = "H100";
  in.layout = {1, 1, 1};
  in.batch = 1;
  in.prompt_tokens = 1024;
  in.decode_tokens = 128;
  in.weights = in.kv = Dtype::bf16;
  in.engine = "vllm";
  const Chip& h100 = chip_by_name("H100");
  const double device = static_cast<double>(device_memory(h100).bytes);
  constexpr double kGiB = 1024.0 * 1024 * 1024;
  const double peak = 9.7 * 1024 * 128256 * 4.0;  // 4.74 GiB; vLLM logs 4.76
  EXPECT_NEAR(peak / kGiB, 4.76, 0.03);
  const ServingMemory vllm = evaluate_serving(m, in).memory;
  EXPECT_NEAR(vllm.usable_bytes, 0.9 * device - peak - 0.13 * kGiB, 1e3);
  // The cache it leaves, within 1 % of the 51.38 GiB vLLM logs for
  // Llama-3.1-8B (its device total 79.18 GiB, as Napkin's H100).
  EXPECT_NEAR((vllm.usable_bytes - vllm.weights_bytes) / kGiB, 51.38, 0.5);
  // With TP the memory outside PyTorch is NCCL's too.
  EXPECT_DOUBLE_EQ(engine_reserved_bytes(engine_by_name("vllm"), h100, 2, 128256),
                   peak + 0.55 * kGiB);
  // A device vLLM gives 256 requests reserves a quarter of the sampler's copies.
  EXPECT_NEAR(engine_reserved_bytes(engine_by_name("vllm"), chip_by_name("A100-80"), 1, 128256),
              peak / 4 + 0.13 * kGiB, 1e3);
  in.engine = "sglang";
  EXPECT_NEAR(evaluate_serving(m, in).memory.usable_bytes, 0.88 * device, 1.0);
  EXPECT_EQ(engine_reserved_bytes(engine_by_name("tensorrt-llm"), h100, 4, 128256), 0);
}

// The engines' FP8 GEMM fraction (0.70 of the FP8 peak, from an H800 tile
// benchmark) against an independent published sweep: Azure's
// AI-benchmarking-guide timed cuBLASLt FP8 GEMMs (random data, 10,000 warm-up
// iterations) on ND H100 v5 and ND H200 v5. Through the shared kernel model
// (tiles, waves, epilogue, operand bytes) every shape of 4,096 and up lands
// within 5 % of the measured rate, the skinny 802,816 x 192 x 768 within 10 %.
// Smaller shapes are left out: the sweep times each launch, whose few
// microseconds the engines price apart (kernels x launch gap).
TEST(ServingEngine, TheFp8GemmRateMatchesAPublishedHopperSweep) {
  struct SweepRow {
    const char* chip;
    std::int64_t m, n, k;
    double tflops;
    double tolerance;
  };
  const SweepRow rows[] = {
      {"H100", 4096, 4096, 4096, 1216.9, 0.05},    {"H100", 8192, 8192, 8192, 1290.1, 0.05},
      {"H100", 16384, 16384, 16384, 1377.3, 0.05}, {"H100", 32768, 32768, 32768, 1382.2, 0.05},
      {"H100", 6144, 12288, 12288, 1351.4, 0.05},  {"H100", 802816, 192, 768, 663.8, 0.10},
      {"H200", 4096, 4096, 4096, 1249.1, 0.05},    {"H200", 8192, 8192, 8192, 1300.6, 0.05},
      {"H200", 16384, 16384, 16384, 1366.3, 0.05}, {"H200", 6144, 12288, 12288, 1318.0, 0.05},
      {"H200", 802816, 192, 768, 717.5, 0.10},
  };
  const double fraction = engine_by_name("tensorrt-llm").fp8_matmul_efficiency;
  EXPECT_DOUBLE_EQ(engine_by_name("vllm").fp8_matmul_efficiency, fraction);
  for (const SweepRow& r : rows) {
    const Chip& chip = chip_by_name(r.chip);
    KernelRates rates = kernel_rates(chip, true);
    rates.matmul_flops_per_s = chip.fp8_peak_flops_per_s * fraction;
    const Gemm g{r.m, r.n, r.k, 1};
    const double tflops = gemm_flops(g) / gemm_seconds(rates, g, 0, 1.0) / 1e12;
    EXPECT_NEAR(tflops / r.tflops, 1.0, r.tolerance)
        << r.chip << " " << r.m << " x " << r.n << " x " << r.k << ": " << tflops;
  }
}

// The engines' NVFP4 GEMM fraction (0.80 of the FP4 peak) through the shared
// kernel model against Azure's cuBLASLt FP4 sweep on ND GB200 v6: the cubes
// of 8,192 and up within 7 %, 4,096³ (its launch timed) within 15 %, the
// skinny 802,816 x 192 x 768 within 15 %. The engines that run NVFP4 take
// it; TensorRT-LLM v0.5-v0.7 had none.
TEST(ServingEngine, TheFp4GemmRateMatchesAPublishedBlackwellSweep) {
  struct SweepRow {
    std::int64_t m, n, k;
    double tflops;
    double tolerance;
  };
  const SweepRow rows[] = {
      {8192, 8192, 8192, 7535.6, 0.07},    {16384, 16384, 16384, 7627.6, 0.07},
      {32768, 32768, 32768, 7487.2, 0.07}, {4096, 4096, 4096, 5177.3, 0.15},
      {802816, 192, 768, 2216.7, 0.15},
  };
  const double fraction = engine_by_name("tensorrt-llm").fp4_matmul_efficiency;
  EXPECT_DOUBLE_EQ(fraction, 0.80);
  EXPECT_DOUBLE_EQ(engine_by_name("vllm").fp4_matmul_efficiency, fraction);
  EXPECT_DOUBLE_EQ(engine_by_name("sglang").fp4_matmul_efficiency, fraction);
  EXPECT_DOUBLE_EQ(engine_by_name("tensorrt-llm-0.6").fp4_matmul_efficiency, 0);
  const Chip& chip = chip_by_name("GB200");
  for (const SweepRow& r : rows) {
    KernelRates rates = kernel_rates(chip, true);
    rates.matmul_flops_per_s = chip.fp4_peak_flops_per_s * fraction;
    const Gemm g{r.m, r.n, r.k, 1};
    const double tflops = gemm_flops(g) / gemm_seconds(rates, g, 0, 0.5) / 1e12;
    EXPECT_NEAR(tflops / r.tflops, 1.0, r.tolerance)
        << r.m << " x " << r.n << " x " << r.k << ": " << tflops;
  }
}

// A run's own memory setting replaces the preset's and is read as its engine
// reads it: TensorRT-LLM's of the memory left free, vLLM's and SGLang's of the
// device, ideal's of the datasheet's HBM.
TEST(ServingEngine, ARunsMemoryFractionIsReadAsItsEngineReadsIt) {
  const ServingModel m = serving_model(ModelShape{32, 4096, 14336, 32, 8, 128, 128256});
  ModeInputs mi;
  ServingInputs& in = mi.serving;
  in.chip = "H100";
  in.layout = {1, 1, 1};
  in.prompt_tokens = 2048;
  in.decode_tokens = 2048;
  in.weights = in.kv = Dtype::fp8;
  const Chip& h100 = chip_by_name("H100");
  const double device = static_cast<double>(device_memory(h100).bytes);
  auto usable = [&](const char* engine, std::optional<double> fraction) {
    in.engine = engine;
    in.assume.engine_memory_fraction = fraction;
    return evaluate_serving(m, in).memory;
  };
  const ServingMemory trt = usable("tensorrt-llm", 0.5);
  EXPECT_NEAR(trt.usable_bytes, trt.weights_bytes + 0.5 * (device - trt.weights_bytes), 1.0);
  const double reserved = engine_reserved_bytes(engine_by_name("vllm"), h100, 1, 128256);
  EXPECT_NEAR(usable("vllm", 0.95).usable_bytes, 0.95 * device - reserved, 1.0);
  EXPECT_NEAR(usable("sglang", 0.7).usable_bytes, 0.7 * device, 1.0);
  EXPECT_NEAR(usable("ideal", 0.6).usable_bytes, 0.6 * static_cast<double>(h100.hbm_bytes), 1.0);
  // Unset: the preset's (TensorRT-LLM's 0.9 of the free memory).
  const ServingMemory preset = usable("tensorrt-llm", std::nullopt);
  EXPECT_NEAR(preset.usable_bytes, preset.weights_bytes + 0.9 * (device - preset.weights_bytes),
              1.0);
  // What fits is what runs at once: half the free memory, about half the requests.
  mi.mode = BatchingMode::offline;
  mi.requests = 200;
  in.engine = "tensorrt-llm";
  in.assume.engine_memory_fraction = 0.45;
  const std::int64_t half = evaluate_mode(m, mi).max_concurrency;
  in.assume.engine_memory_fraction = 0.9;
  const std::int64_t full = evaluate_mode(m, mi).max_concurrency;
  EXPECT_GT(half, 0);
  EXPECT_NEAR(static_cast<double>(half) / static_cast<double>(full), 0.5, 0.02);
  // A fraction outside (0, 1] is refused by name.
  for (const double bad : {0.0, -0.1, 1.5, std::nan("")}) {
    in.assume.engine_memory_fraction = bad;
    try {
      in.validate();
      ADD_FAILURE() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("memory_fraction"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace napkin

namespace napkin {
namespace {

// One H100 slice serving 1,024-token prompts and 128 output tokens.
ServingInputs h100(std::int64_t tp, std::int64_t batch, Dtype dtype, const char* engine) {
  ServingInputs in;
  in.chip = "H100";
  in.layout = {tp, 1, 1};
  in.batch = batch;
  in.prompt_tokens = 1024;
  in.decode_tokens = 128;
  in.weights = in.kv = dtype;
  in.engine = engine;
  return in;
}

// Quantized checkpoints keep the embedding tables in 16 bits (Model
// Optimizer's "exclude_modules": ["lm_head"]): a per-kernel engine holds them
// at 2 bytes where `ideal`, the seed's napkin, holds every parameter at the
// chosen precision. At bf16 the two agree.
TEST(ServingEngine, QuantizedWeightsKeepTheTablesIn16Bits) {
  const ModelShape shape{32, 4096, 14336, 32, 8, 128, 128256};  // Llama 3.1 8B
  const ServingModel m = serving_model(shape);
  ServingInputs in = h100(1, 64, Dtype::fp8, "ideal");
  const ServingResult ideal = evaluate_serving(m, in);
  in.engine = "vllm";
  const ServingResult vllm = evaluate_serving(m, in);
  const double tables = 2.0 * 128256 * 4096;  // input and output, untied
  // FP8 carries its scales: a little over one byte per element.
  EXPECT_NEAR(vllm.memory.weights_bytes - ideal.memory.weights_bytes,
              tables * (2.0 - bytes_per_element(Dtype::fp8)), 1.0);
  in.weights = in.kv = Dtype::bf16;
  const ServingResult bf16 = evaluate_serving(m, in);
  in.engine = "ideal";
  EXPECT_DOUBLE_EQ(bf16.memory.weights_bytes, evaluate_serving(m, in).memory.weights_bytes);
}

// The sampler reads every sequence's logits each step: the unembedding's
// 16-bit slice written per TP rank, the row gathered over TP, cast to fp32
// and read (2/TP + 10 bytes per vocabulary entry), so a larger vocabulary
// costs element-wise time in proportion to the batch, and at TP > 1 a gather.
TEST(ServingEngine, TheSamplerReadsEveryLogit) {
  ModelShape small{32, 4096, 14336, 32, 8, 128, 32000};
  ModelShape large = small;
  large.vocab = 128256;
  ServingInputs in = h100(1, 256, Dtype::bf16, "tensorrt-llm");
  const ServingResult s = evaluate_serving(serving_model(small), in);
  const ServingResult l = evaluate_serving(serving_model(large), in);
  const double bw = kernel_rates(chip_by_name("H100")).hbm_bytes_per_s;
  EXPECT_NEAR(l.decode_step.elementwise_seconds - s.decode_step.elementwise_seconds,
              256.0 * (128256 - 32000) * 12.0 / bw, 1e-9);
  EXPECT_EQ(l.decode_step.tp_comm_seconds, 0.0);
  // At TP 2 the gathered row crosses NVLink; the ideal engine has no sampler.
  in.layout = {2, 1, 1};
  const ServingResult tp2 = evaluate_serving(serving_model(large), in);
  in.engine = "ideal";
  const ServingResult ideal = evaluate_serving(serving_model(large), in);
  EXPECT_GT(tp2.decode_step.tp_comm_seconds, ideal.decode_step.tp_comm_seconds);
}

// A MoE layer's GEMMs go through the shared kernel model like a dense
// layer's: attention's projections over the batch, the routed experts as one
// grouped GEMM over the experts the step touches. At batch 1 a Mixtral step
// reads two of its eight experts; at batch 64 every expert, each with its
// share of the 128 routed rows, so the GEMMs take longer but far less than
// 64 times as long; and never less than the weights they read at the GEMM
// HBM rate.
TEST(ServingEngine, MoeGemmsGoThroughTheKernelModel) {
  const ModelShape shape = preset("Mixtral-8x7B");
  const ServingModel m = serving_model(shape);
  EXPECT_EQ(m.expert_d_ff, 14336);
  EXPECT_EQ(m.shared_d_ff, 0);
  ServingInputs in = h100(1, 1, Dtype::fp8, "tensorrt-llm");
  const ServingResult one = evaluate_serving(m, in);
  in.batch = 64;
  const ServingResult many = evaluate_serving(m, in);
  const double d = 4096, experts_read_one = 2, experts_all = 8;
  const double expert_bytes = 3 * d * 14336 * 32;  // one expert in every layer, 1 byte each
  const double attention_bytes = (4096 + 2 * 1024 + 4096) * d * 32;
  const double hbm = kernel_rates(chip_by_name("H100")).hbm_bytes_per_s;
  EXPECT_GE(one.decode_step.gemm_seconds,
            (attention_bytes + experts_read_one * expert_bytes) / hbm * 0.999);
  EXPECT_LT(one.decode_step.gemm_seconds, (attention_bytes + experts_all * expert_bytes) / hbm);
  EXPECT_GT(many.decode_step.gemm_seconds, 2.0 * one.decode_step.gemm_seconds);
  EXPECT_LT(many.decode_step.gemm_seconds, 8.0 * one.decode_step.gemm_seconds);
  // Bare parameter counts and MLA keep the roofline: no shapes to price.
  EXPECT_EQ(serving_model(preset("DeepSeek-V3")).expert_d_ff, 0);
}

// A gated MLP's activation is a kernel of its own (read 2f, write f per
// token on each TP rank), and a MoE layer also copies each token's
// activations into expert order k times and sums them back (read d, write
// k·d, read k·d, write d): element-wise time in proportion to the batch.
TEST(ServingEngine, GatedActivationsAndMoeCopiesAreElementWise) {
  ServingInputs in = h100(1, 128, Dtype::bf16, "vllm");
  const double bw = kernel_rates(chip_by_name("H100")).hbm_bytes_per_s;
  ModelShape gated{32, 4096, 14336, 32, 8, 128, 32000};
  ModelShape plain = gated;
  plain.gated = false;
  const ServingResult g = evaluate_serving(serving_model(gated), in);
  const ServingResult p = evaluate_serving(serving_model(plain), in);
  EXPECT_NEAR(g.decode_step.elementwise_seconds - p.decode_step.elementwise_seconds,
              128.0 * 32 * 3 * 14336 * 2 / bw, 1e-9);
  // Mixtral-8x7B against a dense model of its attention and one expert's
  // width: the MoE layer adds the copies and a second routed activation.
  const ModelShape mixtral = preset("Mixtral-8x7B");
  const ServingResult m = evaluate_serving(serving_model(mixtral), in);
  const double d = 4096, k = 2;
  EXPECT_NEAR(m.decode_step.elementwise_seconds - g.decode_step.elementwise_seconds,
              128.0 * 32 * ((2 + 2 * k) * d * 2 + (k - 1) * 3 * 14336 * 2) / bw, 1e-9);
  // The ideal engine has no kernels of its own.
  in.engine = "ideal";
  EXPECT_EQ(evaluate_serving(serving_model(mixtral), in).decode_step.elementwise_seconds, 0.0);
}

// A MoE layer launches its engine's routing, sorting and copying kernels
// around the two grouped GEMMs: TensorRT-LLM's MoE plugin 13 kernels where
// a dense MLP runs 3, vLLM's and SGLang's fused_moe 7. Each costs the
// engine's launch gap (1 µs under CUDA graphs) in every MoE layer.
TEST(ServingEngine, MoeLayersLaunchTheirRoutingKernels) {
  const ServingModel mixtral = serving_model(preset("Mixtral-8x7B"));
  const ServingModel dense = serving_model(ModelShape{32, 4096, 14336, 32, 8, 128, 32000});
  for (const auto& [engine, extra] :
       {std::pair{"tensorrt-llm", 10}, std::pair{"vllm", 4}, std::pair{"sglang", 4}}) {
    const ServingInputs in = h100(1, 8, Dtype::fp8, engine);
    EXPECT_EQ(engine_by_name(engine).moe_extra_kernels_per_layer, extra) << engine;
    EXPECT_NEAR(evaluate_serving(mixtral, in).decode_step.launch_seconds -
                    evaluate_serving(dense, in).decode_step.launch_seconds,
                32.0 * extra * 1e-6, 1e-12)
        << engine;
  }
  EXPECT_EQ(engine_by_name("jetstream").moe_extra_kernels_per_layer, 0);
}

}  // namespace
}  // namespace napkin
