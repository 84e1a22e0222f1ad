// Hugging Face config.json import: any bytes either give a valid shape whose
// parameter count is exact, or throw std::invalid_argument.
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
    if (napkin::count_params(c.shape).total <= 0) std::abort();
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
