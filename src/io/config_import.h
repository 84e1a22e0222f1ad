// Hugging Face config.json → ModelShape, for the Llama, Mistral, Mixtral,
// Qwen2 and Gemma families, with each family's defaults for omitted keys so
// that the parameter count equals the published checkpoint's exactly.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "algebra.h"

namespace napkin {

struct ImportedConfig {
  ModelShape shape;
  std::string family;              // model_type as found ("llama", "mixtral", ...)
  std::vector<std::string> notes;  // defaults that were applied
};

// Parses a config.json document. `source` names the file in error messages.
// Throws std::invalid_argument naming the file, the key, the value found and
// what was expected, for malformed JSON, an unsupported model_type, a missing
// or mistyped key, or an out-of-range value. Never crashes or hangs.
ImportedConfig import_hf_config(std::string_view json_bytes,
                                std::string_view source = "config.json");

// Reads and parses a file (at most 16 MiB).
ImportedConfig import_hf_config_file(const std::string& path);

// The model_type values understood, comma-separated.
std::string supported_config_families();

}  // namespace napkin
