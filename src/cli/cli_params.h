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

// A shape by hand's required numbers, --layers, --d-model, --d-ff, --heads
// and --vocab, each read with its registered range (inputs.h: model.*).
void read_shape_widths(Args& a, ModelShape& s);
// --kv-heads with its registered range, at most `heads` (default: `heads`, MHA).
std::int64_t read_kv_heads(Args& a, std::int64_t heads);

int run_params(Args& a);
extern const char* const kParamsUsage;

}  // namespace napkin::cli
