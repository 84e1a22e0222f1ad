// The model-shape flags of napkin-cli: `params` and the commands that take a
// model (--config FILE, --model-dir DIR, or the shape flags by hand).
#pragma once

#include <optional>

#include "algebra.h"
#include "cli_common.h"
#include "config_import.h"

namespace napkin::cli {

struct ShapeInput {
  ModelShape shape;
  std::optional<ImportedConfig> imported;  // when read from --config or --model-dir
};

// --config FILE | --model-dir DIR | the shape flags (see params --help).
ShapeInput shape_from_flags(Args& a);
// --config FILE | --model-dir DIR, or nullopt when neither is given.
std::optional<ShapeInput> checkpoint_shape_from_flags(Args& a);

int run_params(Args& a);
extern const char* const kParamsUsage;

}  // namespace napkin::cli
