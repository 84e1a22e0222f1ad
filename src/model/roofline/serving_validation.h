// The published serving measurements (tests/data/serving/published_serving.csv:
// NVIDIA's TensorRT-LLM performance tables, see SOURCE.md there) predicted by
// the serving model, as scoreboard data sets (validation_set.h). Each row is
// evaluated as the benchmark ran it — a static batch (gptSessionBenchmark):
// one context phase for the whole batch, then output − 1 generation steps —
// with its engine generation's preset (serving_engine.h) as its only setting.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hardware.h"
#include "serving.h"
#include "validation_set.h"

namespace napkin {

// The engine preset a row's TensorRT-LLM version ran: before v0.8 (no XQA)
// `tensorrt-llm-0.6`, from v0.8 `tensorrt-llm`. Throws naming the version
// when it is not "vMAJOR.MINOR[.PATCH]".
std::string_view engine_for_trtllm_version(std::string_view version);

// A model the CSV names ("llama-2-7b", "llama-2-70b", "gpt-j-6b",
// "falcon-180b"), with the shape the benchmark built (SOURCE.md). Throws
// naming the model otherwise.
ModelShape published_serving_shape(std::string_view model);

// One row of the CSV as the serving model evaluates it: the model's shape,
// the benchmark's inputs with the row's engine preset (a first-token row has
// one output token: the context phase alone), what was measured and its value.
struct PublishedServingRow {
  std::string label;   // "llama-2-70b H100 fp8 TP4 batch 1 128/1"
  std::string metric;  // "throughput_out_tok_per_s_per_gpu" or "first_token_latency_ms"
  ModelShape shape;
  ServingInputs inputs;
  double measured = 0;  // in the metric's unit
  std::string version;  // the TensorRT-LLM release measured ("v0.6.1")
};

// Every row of the CSV text, in file order. Throws std::invalid_argument
// naming the line and column when the text is not the CSV's format (header,
// column count, numbers, a metric that is not one of the two).
std::vector<PublishedServingRow> published_serving_rows(std::string_view published_serving_csv);

// One set per measured quantity in the CSV text: "serving-trtllm-throughput"
// (output tokens/s per GPU, v0.6.1), "serving-trtllm-throughput-v0.5" (the
// v0.5 tables, held out) and "serving-trtllm-first-token" (ms), rows in file
// order. Throws std::invalid_argument naming the line and column when
// the text is not the CSV's format (header, column count, numbers).
std::vector<ValidationSet> serving_validation_sets(std::string_view published_serving_csv);

// The engine settings trtllm-bench derives from the dataset when the run
// does not give them (tensorrt_llm/bench/build/tuning.py: calc_engine_setting
// and finetune_setting): the requests whose whole sequence (input + output)
// fits in 95 % of the memory the weights leave on the TP × PP devices (the
// device total as NVML reports it, hardware.h device_memory; the weights at
// one byte per parameter in FP8, half a byte in NVFP4, two otherwise
// (tuning.py's BYTES_PER_ELEM, counted in 10^9 bytes as the tool did), the KV cache
// in FP8 for FP8 and NVFP4 checkpoints (its _KV_CACHE_MAP) and 16 bits
// otherwise, the KV heads at least one per TP rank; a batch of at most
// 4,096 ÷ PP rounded up (to 32 below 256, at least 64; to 128 below 1,024;
// else to 256) and a token budget of batch × (1 + input ÷ output), at most
// 32,768, rounded up (at least 2,048; to 256 below 4,096, 512 below 8,192,
// else 1,024). Throws std::invalid_argument when not one request fits.
struct TrtllmBenchSettings {
  std::int64_t max_batch_size = 0;
  std::int64_t max_num_tokens = 0;
};
TrtllmBenchSettings trtllm_bench_settings(const ServingModel& model, const Chip& chip,
                                          std::int64_t tp, std::int64_t pp,
                                          std::int64_t input_tokens, std::int64_t output_tokens,
                                          Dtype weights);

// TensorRT-LLM's offline throughput tables (tests/data/serving/
// trtllm_offline_*.csv): trtllm-bench's offline run (every request queued at
// once, in-flight batching) predicted by the offline mode (serving_modes.h)
// with the row's engine preset, its precision (FP8 weights and KV cache,
// NVFP4 weights with an FP8 KV cache, or FP16) and the run's max batch size
// where the page states one, else trtllm-bench's settings for the row
// (trtllm_bench_settings). One set per TensorRT-LLM version, dense and MoE
// models and NVFP4 runs apart ("serving-trtllm-offline-v0.17",
// "serving-trtllm-offline-v0.17-moe", "serving-trtllm-offline-v1.0-fp4"),
// rows in file order;
// throws std::invalid_argument naming the line and column when the text is
// not the CSV's format.
std::vector<ValidationSet> trtllm_offline_validation_sets(std::string_view offline_csv);

}  // namespace napkin
