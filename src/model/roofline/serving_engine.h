// Serving engines as presets: what an inference engine does to the
// arithmetic of serving.h, each property taken from the engine's own
// documentation, release notes or code (cited beside each preset in
// serving_engine.cpp), never fitted to a benchmark row.
//
// An engine decides:
//   - how a step is timed: `ideal` is the roofline bound over the whole step,
//     max(all FLOPs ÷ peak, all bytes ÷ HBM), the number the seed track uses;
//     every real engine runs the step as kernels — the GEMMs, attention, the
//     element-wise work — each with its own roofline, one after the other, so
//     their times add (overlap only where the engine overlaps);
//   - how decode attention reads the KV cache: once per KV head (the physical
//     minimum; FlashAttention-style and XQA kernels) or once per query head
//     (TensorRT-LLM's generation kernel before XQA);
//   - fixed costs: a launch gap per kernel (smaller under CUDA graphs, none on
//     a TPU where XLA compiles the step into one program), host work per
//     decode step and per call;
//   - the KV cache: its block (page) size, which rounds every request's cache
//     up, and the fraction of HBM the engine reserves for weights + cache;
//   - the scheduler: a static batch, or continuous (in-flight) batching,
//     with or without chunked prefill.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hardware.h"

namespace napkin {

enum class EngineScheduler {
  static_batch,  // one batch prefilled together, then decoded together
  continuous,    // requests join and leave the running batch every step
  chunked,       // continuous, with long prompts split into chunks mixed into decode steps
};
std::string_view to_string(EngineScheduler s);

struct ServingEngine {
  std::string_view name;     // "vllm"
  std::string_view summary;  // one line for --help and the GUI
  // false: one roofline over the whole step (ideal). true: GEMMs, attention,
  // element-wise work and launches each timed on their own and summed.
  bool per_kernel = true;
  // Decode attention reads a KV head's cache once per query head sharing it
  // (pre-XQA TensorRT-LLM generation attention) instead of once.
  bool kv_reads_per_query_head = false;
  // ...except where the engine's early XQA generation kernel takes the layer
  // instead (one KV read per KV head): grouped-query layers of head size 128
  // with 8 query heads per KV head on a rank and a 16-bit KV cache (see
  // xqa_takes_layer).
  bool early_xqa = false;
  bool cuda_graphs = false;  // the decode step replayed as one captured graph
  // Kernels a transformer layer launches (norms, QKV, attention, output
  // projection, residual adds, MLP GEMMs, activation, TP all-reduces).
  std::int64_t kernels_per_layer = 0;
  // Kernels a MoE layer launches beyond a dense layer's: the routing, the
  // sort into expert order and the token copies around the two grouped
  // GEMMs, in place of the dense MLP's two GEMMs and activation.
  std::int64_t moe_extra_kernels_per_layer = 0;
  double launch_seconds_per_kernel = 0;  // the gap each launch leaves on the critical path
  double per_step_seconds = 0;           // host work per decode step (sampling, scheduling)
  double per_call_seconds = 0;           // host work per generate() call / request
  // Fraction of the chip's FP8 datasheet peak that the engine's FP8 GEMMs
  // reach (0: the chip's bf16 matmul fraction applies to FP8 too).
  double fp8_matmul_efficiency = 0;
  // The same for FP4 (NVFP4) GEMMs against the chip's FP4 peak (Blackwell).
  double fp4_matmul_efficiency = 0;
  std::int64_t kv_block_tokens = 1;  // KV cache page; a request's cache rounds up to it
  double hbm_usable_fraction = 0;    // of HBM for weights + KV cache; 0: the scenario's
  // hbm_usable_fraction is the KV cache's share of the device memory left
  // free once the weights are loaded (TensorRT-LLM's free GPU memory
  // fraction), not a share of all HBM.
  bool kv_fraction_of_free_memory = false;
  // hbm_usable_fraction is a share of the device's total memory as CUDA
  // reports it (device_memory: 85.1 GB on an A100 80GB), not of the
  // datasheet's HBM: vLLM's gpu_memory_utilization, SGLang's
  // mem_fraction_static.
  bool fraction_of_device_total = false;
  // What vLLM leaves out of that share besides the weights
  // (gpu_worker.determine_available_memory: the profile run's activation
  // peak and the memory allocated outside PyTorch): the profile run's peak
  // as this many fp32 copies of the logits of max_num_seqs requests (its
  // sampler's dummy run, which outweighs the forward of the token budget),
  // and the non-torch memory without and with TP. 0: none.
  double profile_logits_fp32_copies = 0;
  double non_torch_bytes = 0;
  double non_torch_bytes_with_tp = 0;
  EngineScheduler scheduler = EngineScheduler::static_batch;
  // Tokens one scheduler iteration runs at most (continuous batching): its
  // prompt tokens, and its decode tokens too where
  // budget_counts_decode_tokens; 0: no limit.
  std::int64_t max_prefill_tokens_per_step = 0;
  // The iteration's token budget is spent first on the running requests, one
  // decode token each, and new prompts get what is left (TensorRT-LLM's
  // max_num_tokens, vLLM's max_num_batched_tokens). false: it bounds the
  // prompt tokens alone.
  bool budget_counts_decode_tokens = false;
  // Requests in flight at most (continuous batching) unless the run sets its
  // own concurrency; 0: as many as the KV cache holds.
  std::int64_t max_batch_size = 0;
  // vLLM sizes its scheduler by device and entry point (EngineArgs.
  // get_batch_defaults): a device of at least 70 GiB that is not an A100
  // gets the two fields above online and offline_tokens_per_step in its
  // offline entry point (the LLM class); any other device the small_device_
  // values. 0: the fields above everywhere.
  std::int64_t offline_tokens_per_step = 0;
  std::int64_t small_device_max_batch_size = 0;
  std::int64_t small_device_tokens_per_step = 0;
  std::int64_t small_device_offline_tokens_per_step = 0;
  std::string_view source;  // where the properties come from
};

// Whether a pre-v0.8 TensorRT-LLM generation step runs a layer with XQA rather
// than the masked multi-head attention kernel: query heads and KV heads on
// one rank, head width, and whether the KV cache is 16-bit.
bool xqa_takes_layer(std::int64_t query_heads_per_rank, std::int64_t kv_heads_per_rank,
                     std::int64_t d_head, bool kv_cache_16_bit);

// What the engine's scheduler allows on `chip`, online or offline
// (ServingEngine's device and entry-point defaults): requests in flight at
// most and tokens an iteration runs at most (0: no limit either).
struct SchedulerLimits {
  std::int64_t max_batch_size = 0;
  std::int64_t tokens_per_step = 0;
};
SchedulerLimits scheduler_limits(const ServingEngine& e, const Chip& chip, bool offline);

// Bytes per chip the engine keeps out of its share of memory besides the
// weights and the KV cache (ServingEngine::profile_logits_fp32_copies,
// non_torch_bytes), for a model of `vocab` entries over `tp` ranks.
double engine_reserved_bytes(const ServingEngine& e, const Chip& chip, std::int64_t tp,
                             double vocab);

// Every preset, `ideal` first.
const std::vector<ServingEngine>& serving_engines();
// Throws std::invalid_argument naming `parameter` and the presets when no
// engine has this name.
const ServingEngine& engine_by_name(std::string_view name, std::string_view parameter = "engine");
// "ideal, tensorrt-llm-0.6, ..." for errors and --help.
std::string engine_names();
// One line per preset: what it sets (for --help and the README).
std::string engine_description(const ServingEngine& e);

}  // namespace napkin
