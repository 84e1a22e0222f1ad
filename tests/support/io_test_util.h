// Helpers the io tests share: test data paths, the vtrain runs' defaults, a
// scenario document around some sections, an import's refusal.
#pragma once

#include <stdexcept>
#include <string>

#include "config_import.h"
#include "measured_runs.h"

namespace io_test {

// A file under tests/data.
inline std::string data(const std::string& name) {
  return std::string(NAPKIN_TEST_DATA) + "/" + name;
}
inline std::string config_data(const std::string& name) { return data("configs/" + name); }
inline std::string framework_data(const std::string& name) { return data("frameworks/" + name); }

// Besiroglu et al.'s points of the Chinchilla IsoFLOPs ladder.
inline const std::string kChinchilla = data("chinchilla_besiroglu2024/svg_extracted_data.csv");

// What the vtrain runs files leave to the defaults (tests/data/vtrain/SOURCE.md).
inline napkin::RunDefaults vtrain_defaults() {
  return {{"chip", "A100-80"},
          {"vocab", "50304"},
          {"recompute", "full"},
          {"framework", "megatron-deepspeed"}};
}

// A version-2 scenario document holding `sections` (JSON members, no braces).
inline std::string doc(const std::string& sections) {
  return R"({"format":"napkin-scenario","version":2,)" + sections + "}";
}

// The message with which a config.json is refused, or "" when it imports.
inline std::string import_error(const std::string& json) {
  try {
    napkin::import_hf_config(json, "test.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace io_test
