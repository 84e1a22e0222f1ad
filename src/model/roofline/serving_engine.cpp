#include "serving_engine.h"

#include <stdexcept>

#include "format.h"

namespace napkin {

namespace {

// Shared constants, each from a published measurement.
//
// Kernel launch gap. NVIDIA, "Getting Started with CUDA Graphs" (developer
// blog, 2019): short kernels launched back to back from a stream cost a few
// µs each beyond their own run time, and a captured graph removes most of
// that. Napkin takes 4 µs per kernel without graphs and 1 µs with them.
constexpr double kLaunchEagerSeconds = 4e-6;
constexpr double kLaunchGraphSeconds = 1e-6;
// Kernels per transformer layer in a fused LLM engine: input norm, QKV GEMM,
// attention (rotary fused), output projection, all-reduce, residual + norm,
// gate/up GEMM(s), activation, down GEMM, all-reduce, residual add.
constexpr std::int64_t kKernelsPerLayer = 12;
// A MoE layer's extra kernels, from the engines' MoE code paths (the dense
// MLP's gate/up GEMM, activation and down GEMM are 3 kernels):
//  - TensorRT-LLM's MoE plugin (CutlassMoeFCRunner::runMoe, moe_kernels.cu):
//    the router GEMM, topkGatingSoftmax, a CUB radix sort of the expert ids
//    (sortAndScanSoftmaxOutput: histogram, scan and one onesweep pass for
//    the few bits of an expert id) and computeExpertFirstTokenOffset,
//    expandInputRows, on Hopper a computeStridesHopper before each grouped
//    GEMM, the two grouped GEMMs, doActivation and finalizeMoeRouting: 13,
//    10 more (Ampere's path has no stride set-ups: 8; Hopper's is taken);
//  - vLLM's and SGLang's fused_moe (Triton): the router GEMM, topk_softmax,
//    moe_align_block_size, the two fused_moe GEMMs, silu_and_mul and
//    moe_sum: 7, 4 more.
constexpr std::int64_t kTrtllmMoeExtraKernels = 10;
constexpr std::int64_t kFusedMoeExtraKernels = 4;
// FP8 GEMMs on Hopper: 1,378 TFLOP/s of the 1,979 FP8 peak for an
// 8192 × 8192 × 4096 GEMM on an H800 SXM (the H100's SMs and clocks), tile
// language FP8 matmul benchmark (tile-ai/tilelang, benchmark/matmul_fp8);
// DeepSeek's DeepGEMM reports "1350+ FP8 TFLOPS" at best. 0.70 of the FP8
// peak, below the 0.80 of the bf16 MAMF sweeps.
constexpr double kFp8MatmulEfficiency = 0.70;
// NVFP4 GEMMs on Blackwell: cuBLASLt FP4 on ND GB200 v6 (Azure
// AI-benchmarking-guide, CUDA 12.8) ran 7,535.6, 7,627.6 and 7,487.2 TFLOP/s
// at 8,192³, 16,384³ and 32,768³ of GB200's 10,000 dense (0.755 of the peak
// on average). Through the shared kernel model, whose epilogue weighs twice
// as much against an FP4 main loop as an FP8 one, 0.80 of the peak puts the
// three within 7 % (mean −2 %; test
// ServingEngine.TheFp4GemmRateMatchesAPublishedBlackwellSweep).
constexpr double kFp4MatmulEfficiency = 0.80;

// vLLM's memory outside the weights and the KV cache, from its start-up
// logs on one H100 (79.18 GiB as CUDA reports it, gpu_memory_utilization
// 0.9, max_num_seqs 1024; llm-d-benchmark, config_explorer/empirical-vllm-
// memory-results.md): the "peak activation memory" of the profile run is
// 4.76 GiB for Llama-3.1-8B and 4.84 GiB for Llama-3.3-70B at TP 2
// (vocabulary 128,256), 5.56 and 5.64 GiB for Qwen3-0.6B and Qwen3-32B
// (151,936), 7.38 GiB for gpt-oss-20b and -120b (201,088): 9.6-9.9 times
// 1,024 × the vocabulary × 4 bytes whatever the model's width, the
// sampler's fp32 copies of the logits, 9.7 on average. "Non-torch memory"
// 0.13 GiB on one GPU, 0.55 GiB with TP 2.
constexpr double kVllmProfileLogitsCopies = 9.7;
constexpr double kVllmNonTorchBytes = 0.13 * 1024 * 1024 * 1024;
constexpr double kVllmNonTorchBytesWithTp = 0.55 * 1024 * 1024 * 1024;

const std::vector<ServingEngine> kEngines = {
    {.name = "ideal",
     .summary = "the roofline bound: one max(FLOPs, bytes) over the whole step, no fixed costs",
     .per_kernel = false,
     .kv_block_tokens = 1,
     .scheduler = EngineScheduler::static_batch,
     .source = "the seed track's napkin (Phase 03 ch. 6): compute-bound prefill, HBM-bound "
               "decode"},
    {.name = "tensorrt-llm-0.6",
     .summary = "TensorRT-LLM v0.5-v0.7: early XQA generation attention (one KV read per KV "
                "head) for head size 128 with 8 query heads per KV head and a 16-bit cache, the "
                "KV cache re-read per query head otherwise; no CUDA graphs, static batch "
                "(gptSessionBenchmark)",
     .kv_reads_per_query_head = true,
     .early_xqa = true,
     .cuda_graphs = false,
     .kernels_per_layer = kKernelsPerLayer,
     .moe_extra_kernels_per_layer = kTrtllmMoeExtraKernels,
     .launch_seconds_per_kernel = kLaunchEagerSeconds,
     .fp8_matmul_efficiency = kFp8MatmulEfficiency,
     .kv_block_tokens = 64,
     .hbm_usable_fraction = 0.9,
     .kv_fraction_of_free_memory = true,
     .scheduler = EngineScheduler::static_batch,
     .source = "TensorRT-LLM docs/source/blogs/XQA-kernel.md (XQA for MQA/GQA generation "
               "'reduces data loading', released in v0.8; its FP8 measurements are v0.8's); "
               "performance.md's benchmark commands export TRTLLM_ENABLE_XQA=1 for the GQA "
               "models, and the early XQA runner (decoderXQARunner.h, shouldUse) takes only "
               "head size 128 with 8 query heads per KV head; gptSessionBenchmark runs without "
               "CUDA graphs unless --enable_cuda_graph; build flag --tokens_per_block 64; "
               "kv_cache_free_gpu_mem_fraction 0.9"},
    {.name = "tensorrt-llm",
     .summary = "TensorRT-LLM v0.8+: XQA generation attention (one KV read per KV head), "
                "in-flight batching, CUDA graphs",
     .kv_reads_per_query_head = false,
     .cuda_graphs = true,
     .kernels_per_layer = kKernelsPerLayer,
     .moe_extra_kernels_per_layer = kTrtllmMoeExtraKernels,
     .launch_seconds_per_kernel = kLaunchGraphSeconds,
     .fp8_matmul_efficiency = kFp8MatmulEfficiency,
     .fp4_matmul_efficiency = kFp4MatmulEfficiency,
     .kv_block_tokens = 32,
     .hbm_usable_fraction = 0.9,
     .kv_fraction_of_free_memory = true,
     .scheduler = EngineScheduler::continuous,
     .max_prefill_tokens_per_step = 8192,
     .budget_counts_decode_tokens = true,
     .max_batch_size = 2048,
     .source = "TensorRT-LLM XQA-kernel blog; LLM API KvCacheConfig defaults "
               "free_gpu_memory_fraction 0.9, tokens_per_block 32; cuda_graph_config; in-flight "
               "batching (docs 'In-Flight Batching'); max_num_tokens 8192 and max_batch_size "
               "2048 (docs 'Tuning Max Batch Size and Max Num Tokens': the defaults; its "
               "scheduler walk-through: requests in generation are scheduled first and take one "
               "token each of the max num tokens budget, and a prompt larger than what is left "
               "waits unless the context is chunked (off by default in trtllm-bench's PyTorch "
               "flow, enable_chunked_context))"},
    {.name = "vllm",
     .summary = "vLLM: paged attention (16-token blocks), continuous batching with chunked "
                "prefill, CUDA graphs, gpu_memory_utilization 0.9",
     .kv_reads_per_query_head = false,
     .cuda_graphs = true,
     .kernels_per_layer = kKernelsPerLayer,
     .moe_extra_kernels_per_layer = kFusedMoeExtraKernels,
     .launch_seconds_per_kernel = kLaunchGraphSeconds,
     .fp8_matmul_efficiency = kFp8MatmulEfficiency,
     .fp4_matmul_efficiency = kFp4MatmulEfficiency,
     .kv_block_tokens = 16,
     .hbm_usable_fraction = 0.9,
     .fraction_of_device_total = true,
     .profile_logits_fp32_copies = kVllmProfileLogitsCopies,
     .non_torch_bytes = kVllmNonTorchBytes,
     .non_torch_bytes_with_tp = kVllmNonTorchBytesWithTp,
     .scheduler = EngineScheduler::chunked,
     .max_prefill_tokens_per_step = 8192,
     .budget_counts_decode_tokens = true,
     .max_batch_size = 1024,
     .offline_tokens_per_step = 16384,
     .small_device_max_batch_size = 256,
     .small_device_tokens_per_step = 2048,
     .small_device_offline_tokens_per_step = 8192,
     .source = "vLLM EngineArgs.get_batch_defaults: on a device of at least 70 GiB that is not "
               "an A100, --max-num-seqs 1024 and --max-num-batched-tokens 8192 online (16,384 "
               "offline, the LLM class); otherwise 256 and 2,048 (8,192 offline); the batched "
               "tokens are one iteration's, the running requests' decode tokens scheduled "
               "first (V1 scheduler, token_budget); "
               "--block-size 16 (CUDA), --gpu-memory-utilization 0.9, "
               "CUDA graphs unless --enforce-eager; chunked prefill on by default in the V1 "
               "engine (docs 'Optimization and Tuning'); the KV cache's memory as "
               "gpu_worker.determine_available_memory sizes it, its profile run's peak and "
               "non-torch memory from its start-up logs on H100 (llm-d-benchmark, "
               "config_explorer/empirical-vllm-memory-results.md)"},
    {.name = "sglang",
     .summary = "SGLang: RadixAttention with a token-level KV pool (page 1), continuous "
                "batching with chunked prefill, CUDA graphs, overlap scheduler",
     .kv_reads_per_query_head = false,
     .cuda_graphs = true,
     .kernels_per_layer = kKernelsPerLayer,
     .moe_extra_kernels_per_layer = kFusedMoeExtraKernels,
     .launch_seconds_per_kernel = kLaunchGraphSeconds,
     .fp8_matmul_efficiency = kFp8MatmulEfficiency,
     .fp4_matmul_efficiency = kFp4MatmulEfficiency,
     .kv_block_tokens = 1,
     .hbm_usable_fraction = 0.88,
     .fraction_of_device_total = true,
     .scheduler = EngineScheduler::chunked,
     .max_prefill_tokens_per_step = 8192,
     // SGLang's request pool: KV tokens × 512 ÷ the model's context length,
     // within 2,048-4,096 requests, and at most half the KV tokens
     // (ModelRunner's memory-pool set-up). The model's context length is not
     // a Napkin input, so the pool's ceiling is taken: never more requests
     // in flight than SGLang can hold.
     .max_batch_size = 4096,
     .source = "SGLang server arguments: --page-size 1, --chunked-prefill-size 8192, "
               "--mem-fraction-static (about 0.88 on "
               "80 GB GPUs, set from the GPU's memory), --chunked-prefill-size, CUDA graphs "
               "unless --disable-cuda-graph; zero-overhead (overlap) batch scheduler (v0.4 "
               "release notes); at most 4,096 running requests (the request pool ModelRunner sizes "
               "as KV tokens x 512 / the model's context length within 2,048-4,096, unless "
               "--max-running-requests)"},
    {.name = "jetstream",
     .summary = "JetStream (TPU): the step compiled by XLA into one program (no per-kernel "
                "launches), continuous batching over decode slots",
     .kv_reads_per_query_head = false,
     .cuda_graphs = false,
     .kernels_per_layer = 0,
     .launch_seconds_per_kernel = 0,
     .kv_block_tokens = 1,
     .hbm_usable_fraction = 0,
     .scheduler = EngineScheduler::continuous,
     .source = "JetStream (google/JetStream) with MaxText: jitted prefill and generate "
               "functions, requests inserted into decode slots between generate steps"},
};

}  // namespace

bool xqa_takes_layer(std::int64_t query_heads_per_rank, std::int64_t kv_heads_per_rank,
                     std::int64_t d_head, bool kv_cache_16_bit) {
  // TensorRT-LLM's early XQA runner (decoderXQARunner.h, DecoderXQARunner::
  // shouldUse, before v0.8): fp16/bf16 compute, head size 128, and for a
  // plain generation step exactly 8 query heads per KV head with 1, 2, 4 or 8
  // KV heads on the rank. Its FP8-KV-cache kernels came with v0.8: the XQA
  // blog's FP8 Llama-70B runs "w/o XQA" are that release's baseline.
  if (!kv_cache_16_bit || d_head != 128 || kv_heads_per_rank <= 0) return false;
  const std::int64_t kv = kv_heads_per_rank;
  return query_heads_per_rank == 8 * kv && (kv == 1 || kv == 2 || kv == 4 || kv == 8);
}

std::string_view to_string(EngineScheduler s) {
  switch (s) {
    case EngineScheduler::static_batch: return "static batch";
    case EngineScheduler::continuous: return "continuous batching";
    case EngineScheduler::chunked: return "continuous batching, chunked prefill";
  }
  return "static batch";
}

const std::vector<ServingEngine>& serving_engines() { return kEngines; }

SchedulerLimits scheduler_limits(const ServingEngine& e, const Chip& chip, bool offline) {
  SchedulerLimits l{e.max_batch_size, e.max_prefill_tokens_per_step};
  const bool small = static_cast<double>(device_memory(chip).bytes) < 70.0 * 1024 * 1024 * 1024 ||
                     std::string_view(chip.name).find("A100") != std::string_view::npos;
  if (small && e.small_device_max_batch_size > 0) {
    l.max_batch_size = e.small_device_max_batch_size;
    l.tokens_per_step = offline && e.small_device_offline_tokens_per_step > 0
                            ? e.small_device_offline_tokens_per_step
                            : e.small_device_tokens_per_step;
  } else if (offline && e.offline_tokens_per_step > 0) {
    l.tokens_per_step = e.offline_tokens_per_step;
  }
  return l;
}

double engine_reserved_bytes(const ServingEngine& e, const Chip& chip, std::int64_t tp,
                             double vocab) {
  const double seqs = static_cast<double>(scheduler_limits(e, chip, false).max_batch_size);
  return e.profile_logits_fp32_copies * seqs * vocab * 4.0 +
         (tp > 1 ? e.non_torch_bytes_with_tp : e.non_torch_bytes);
}

std::string engine_names() {
  std::string s;
  for (const ServingEngine& e : kEngines) s += (s.empty() ? "" : ", ") + std::string(e.name);
  return s;
}

const ServingEngine& engine_by_name(std::string_view name, std::string_view parameter) {
  for (const ServingEngine& e : kEngines)
    if (e.name == name) return e;
  throw std::invalid_argument(std::string(parameter) + " '" + std::string(name) +
                              "' is not an engine; one of: " + engine_names());
}

std::string engine_description(const ServingEngine& e) {
  if (!e.per_kernel) return std::string(e.name) + ": " + std::string(e.summary);
  std::string s =
      std::string(e.name) + ": " + std::string(e.summary) + ". Sets: per-kernel " +
      "rooflines summed (the GEMMs of dense and MoE layers by the shared kernel model: tile " +
      "waves, epilogue, operands at the chip's kernel HBM rate); KV read once per " +
      (e.kv_reads_per_query_head ? "query head" : "KV head") +
      (e.early_xqa ? " (once per KV head where early XQA takes the layer: head size "
                     "128, 8 query heads per KV head, 16-bit KV cache)"
                   : "") +
      "; quantized weights keep the embedding tables in 16 bits; the sampler reads "
      "every sequence's logits in fp32, gathered over TP; a gated MLP's activation "
      "and a MoE layer's token copies as element-wise kernels; ";
  if (e.launch_seconds_per_kernel > 0)
    s += format_grouped(static_cast<double>(e.kernels_per_layer)) + " kernels/layer (" +
         format_grouped(static_cast<double>(e.moe_extra_kernels_per_layer)) +
         " more per MoE layer) x " + format_grouped(1e6 * e.launch_seconds_per_kernel, 0) +
         " us launch gap" + (e.cuda_graphs ? " (CUDA graphs)" : " (no CUDA graphs)") + "; ";
  else
    s += "no per-kernel launch gap; ";
  if (e.fp8_matmul_efficiency > 0)
    s += "FP8 GEMMs at " + format_grouped(100 * e.fp8_matmul_efficiency, 0) + " % of FP8 peak; ";
  if (e.fp4_matmul_efficiency > 0)
    s += "FP4 (NVFP4) GEMMs at " + format_grouped(100 * e.fp4_matmul_efficiency, 1) +
         " % of FP4 peak where the chip has FP4 tensor cores; ";
  s += "KV block " + format_grouped(static_cast<double>(e.kv_block_tokens)) +
       (e.kv_block_tokens == 1 ? " token; " : " tokens; ");
  if (e.hbm_usable_fraction > 0 && e.kv_fraction_of_free_memory)
    s += format_grouped(100 * e.hbm_usable_fraction, 0) +
         " % of the device memory left after the weights for the KV cache; ";
  else if (e.hbm_usable_fraction > 0 && e.profile_logits_fp32_copies > 0)
    s += format_grouped(100 * e.hbm_usable_fraction, 0) +
         " % of the device's memory for weights + KV, less its profile run's peak (" +
         format_grouped(e.profile_logits_fp32_copies, 1) +
         " fp32 copies of max_num_seqs requests' logits) and the memory outside PyTorch; ";
  else if (e.hbm_usable_fraction > 0 && e.fraction_of_device_total)
    s += format_grouped(100 * e.hbm_usable_fraction, 0) +
         " % of the device's memory for weights + KV; ";
  else if (e.hbm_usable_fraction > 0)
    s += format_grouped(100 * e.hbm_usable_fraction, 0) + " % of HBM for weights + KV; ";
  s += std::string(to_string(e.scheduler));
  if (e.max_prefill_tokens_per_step > 0)
    s += ", at most " + format_grouped(static_cast<double>(e.max_prefill_tokens_per_step)) +
         (e.budget_counts_decode_tokens ? " tokens per iteration (decode tokens first)"
                                        : " prompt tokens per iteration");
  if (e.max_batch_size > 0)
    s += ", at most " + format_grouped(static_cast<double>(e.max_batch_size)) +
         " requests in flight";
  if (e.small_device_max_batch_size > 0)
    s += " (devices of at least 70 GiB but A100; " +
         format_grouped(static_cast<double>(e.offline_tokens_per_step)) +
         " tokens offline; other devices " +
         format_grouped(static_cast<double>(e.small_device_max_batch_size)) + " requests, " +
         format_grouped(static_cast<double>(e.small_device_tokens_per_step)) + " tokens, " +
         format_grouped(static_cast<double>(e.small_device_offline_tokens_per_step)) + " offline)";
  return s;
}

}  // namespace napkin
