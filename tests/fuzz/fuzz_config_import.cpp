// Hugging Face config.json import (every family, model-folder index
// comparison included): any bytes either give a valid shape whose parameter
// count and KV cache are exact, or throw std::invalid_argument.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "config_import.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const napkin::ImportedConfig c = napkin::import_hf_config(text, "fuzz");
    const napkin::ParamCount n = napkin::count_params(c.shape);
    if (n.total <= 0 || n.active <= 0 || n.active > n.total || n.mtp < 0) std::abort();
    if (napkin::kv_cache_bytes_per_token(c.shape) <= 0) std::abort();
    // The index comparison on the same bytes: a valid index or an exception.
    (void)napkin::compare_checkpoint_index(text, c, "fuzz-index");
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
