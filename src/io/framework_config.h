// Training-framework configs in, launch flags out (issue 25).
//
// In: a Megatron-LM argument list (a launch script, or the `arguments` block
// it prints at start), a torchtitan TOML, a NeMo YAML (megatron_gpt_config
// style) or a DeepSpeed JSON → the model shape, the layout, the batch, the
// sequence length and the precision. Where a framework has a documented
// default for a setting the file omits (Megatron's tensor-parallel size 1),
// the default is used and said in `notes`; what has no default (the model
// shape in a DeepSpeed JSON, the GPU count of a torchtitan TOML) is named in
// `missing`, never guessed. Sources of every key: tests/data/frameworks/SOURCE.md.
//
// Out: the flags that run a layout in Megatron-LM or torchtitan, and a
// serving layout in vLLM or TensorRT-LLM; importing what was emitted gives
// the same layout back. No Qt.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algebra.h"
#include "parallel.h"
#include "scenario.h"
#include "serving.h"

namespace napkin {

enum class TrainingFramework { megatron, torchtitan, nemo, deepspeed };
std::string_view to_string(TrainingFramework f);  // "megatron", "torchtitan", "nemo", "deepspeed"

struct TrainingConfig {
  TrainingFramework framework = TrainingFramework::megatron;
  std::string source;
  ModelShape shape;                     // meaningful when shape_known
  bool shape_known = false;             // layers, width, heads, MLP width and vocabulary all known
  Layout layout;                        // each axis the file (or the framework's default) gives
  std::optional<std::int64_t> n_chips;  // GPUs of the run (world size)
  std::optional<std::int64_t> seq_len;  // tokens per sequence
  std::optional<std::int64_t> global_batch;  // sequences per optimizer step
  std::string precision;                     // "bf16", "fp16", "fp8", "fp32"; "" when unknown
  // The software preset the file's settings amount to ("fsdp-compile" for a
  // torchtitan TOML with torch.compile on); "" when the file does not say.
  std::string software;
  // The expert dispatch the file names (Megatron's token dispatcher type).
  std::optional<EpDispatch> ep_dispatch;
  // What the file does not say, one item each, led by the item's name
  // ("vocab: from the tokenizer; give --vocab-size").
  std::vector<std::string> missing;
  // Framework defaults that were applied and properties of the framework.
  std::vector<std::string> notes;
  bool complete() const { return missing.empty(); }
  // True when `missing` names `item` ("dp", "vocab", "model shape", ...).
  bool is_missing(std::string_view item) const;
};

// Parses `text` as `framework`'s format. Throws std::invalid_argument naming
// the source, the line and the key for malformed text or a value of the
// wrong type or range.
TrainingConfig import_training_config(std::string_view text, std::string_view source,
                                      TrainingFramework framework);
// The framework from the file name and content: .toml torchtitan, .yaml/.yml
// NeMo, .json DeepSpeed, otherwise a Megatron-LM argument list.
TrainingFramework detect_framework(std::string_view source, std::string_view text);
// Reads (at most 16 MiB) and parses a file; the framework is detected unless given.
TrainingConfig import_training_config_file(const std::string& path,
                                           std::optional<TrainingFramework> framework = {});

// The scenario `base` with what the config knows put in: the model shape, the
// chips, the sequence length, the batch (as tokens), the chosen layout and
// the training set-up. Throws std::invalid_argument when the result is not a
// valid scenario.
Scenario apply_to_scenario(const TrainingConfig& config, Scenario base);

// -------------------------------------------------------------- flags out

struct EmittedFlags {
  std::string text;                  // the launch arguments / config fragment
  std::vector<std::string> caveats;  // what the framework cannot express as given
};

// `torchrun ... pretrain_gpt.py` with the model, the layout, the batch and
// bf16; throws std::invalid_argument when the layout does not divide the job.
EmittedFlags emit_megatron(const TrainingJob& job, const Layout& layout);
// The [model]/[training]/[parallelism]/[activation_checkpoint] TOML tables,
// with the GPU count as a comment and the shape's flavor when it is one of
// torchtitan's Llama 3 flavors.
EmittedFlags emit_torchtitan(const TrainingJob& job, const Layout& layout);

// A serving layout: TP × PP chips, the largest decode batch, the context.
struct ServingFlagsInput {
  std::string model = "MODEL";  // a Hugging Face id or path, as the user names it
  std::int64_t tp = 1;
  std::int64_t pp = 1;
  std::int64_t max_batch = 1;
  std::int64_t max_input_tokens = 2048;
  std::int64_t max_seq_tokens = 4096;  // prompt + generated
  std::string weight_dtype = "bf16";   // bf16, fp8, int8, int4
  std::string kv_dtype = "bf16";
  // Tokens one iteration runs (vLLM --max-num-batched-tokens, trtllm-build
  // --max_num_tokens); 0: the engine's default, not emitted.
  std::int64_t max_num_tokens = 0;
  // vLLM --gpu-memory-utilization (its share of the device's memory for
  // weights, activations and KV cache); 0: the engine's default, not emitted.
  double gpu_memory_utilization = 0;
  bool operator==(const ServingFlagsInput&) const = default;
};
EmittedFlags emit_vllm(const ServingFlagsInput& in);
EmittedFlags emit_tensorrt_llm(const ServingFlagsInput& in);
// The serving engines flags can be emitted for.
enum class ServingFlagsEngine { vllm, tensorrt_llm };
// `engine`'s launch flags for the serving run `in` (its layout, lengths and
// precisions) at `max_batch` requests in flight, the model named `model`;
// `max_num_tokens` > 0 bounds one iteration's tokens. Expert parallelism and
// a chosen chunked prefill, which neither emitter writes, are caveats.
EmittedFlags emit_serving_flags(ServingFlagsEngine engine, const ServingInputs& in,
                                std::int64_t max_batch, std::string model = "MODEL",
                                std::int64_t max_num_tokens = 0,
                                std::optional<bool> chunked_prefill = {});
// Reads back the flags of emit_vllm / emit_tensorrt_llm (tp, pp, batch,
// lengths, dtypes); throws naming a missing flag.
ServingFlagsInput parse_serving_flags(std::string_view text, std::string_view source);

}  // namespace napkin
