// Hugging Face config.json → ModelShape, for the Llama, Mistral, Mixtral,
// Qwen2, Qwen2-MoE, Qwen3, Qwen3-MoE, Gemma, Gemma-2, Gemma-3, Phi-3, OLMo-2,
// Falcon and DeepSeek-V2/V3 families, with each family's defaults for omitted
// keys so that the parameter count equals the published checkpoint's exactly
// (tests/data/configs/SOURCE.md).
//
// Never a silent guess: a key that would change the count but that the
// family's importer does not model is an error naming the key; an
// `architectures` class of another family than `model_type` is an error; an
// unknown model_type says the architecture is not supported yet and how to
// count it by hand.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "algebra.h"

namespace napkin {

// A checkpoint's model.safetensors.index.json against the computed count.
struct CheckpointCheck {
  std::string index_source;           // the index file, for messages
  std::int64_t total_size_bytes = 0;  // metadata.total_size
  std::string dtype;                  // torch_dtype (or dtype) of config.json; "" when absent
  std::int64_t bytes_per_param = 0;   // 0: the size does not divide into parameters
  std::int64_t stored_params = 0;     // total_size ÷ bytes_per_param (0 when not convertible)
  std::int64_t counted_params = 0;    // count_params(shape).total
  std::int64_t difference = 0;        // stored − counted
  std::int64_t explained = 0;         // the part of the difference the notes account for
  std::int64_t tensors = 0;           // entries of weight_map
  std::vector<std::string> notes;  // what the difference is made of, or why it cannot be computed
};

struct ImportedConfig {
  ModelShape shape;
  std::string family;                         // model_type as found ("llama", "deepseek_v3", ...)
  std::vector<std::string> notes;             // defaults that were applied, parts not counted
  std::string dtype;                          // torch_dtype (or dtype); "" when absent
  std::string quantization;                   // quantization_config.quant_method; "" when absent
  std::optional<CheckpointCheck> checkpoint;  // set by import_model_dir when an index exists
};

// Parses a config.json document. `source` names the file in error messages.
// Throws std::invalid_argument naming the file, the key, the value found and
// what was expected, for malformed JSON, an unsupported model_type, a missing
// or mistyped key, an out-of-range value, or a count-changing key the family
// does not model. Never crashes or hangs. Messages are one line.
ImportedConfig import_hf_config(std::string_view json_bytes,
                                std::string_view source = "config.json");

// Reads and parses a file (at most 16 MiB).
ImportedConfig import_hf_config_file(const std::string& path);

// A model folder: DIR/config.json and, when present,
// DIR/model.safetensors.index.json, whose total size ÷ bytes per dtype is
// compared with the computed count (ImportedConfig::checkpoint).
ImportedConfig import_model_dir(const std::string& dir);

// A config.json file or a model folder, whichever `path` is.
ImportedConfig import_model_path(const std::string& path);

// The comparison behind import_model_dir, for an index document already read.
CheckpointCheck compare_checkpoint_index(std::string_view index_json, const ImportedConfig& config,
                                         std::string_view source = "model.safetensors.index.json");

// The model_type values understood, comma-separated.
std::string supported_config_families();

// How to count an unsupported architecture with napkin-cli params flags.
std::string count_by_hand_hint();

}  // namespace napkin
