// The four text formats training frameworks keep their settings in, read
// into one flat list of dotted keys with the line each came from, so that the
// framework mappings (framework_config.cpp) read keys, not syntax. No Qt.
//
//  - an argument list: a shell launch script (`--num-layers 32`, backslash
//    continuations, bash arrays, `NAME=value` variables expanded where the
//    script sets them) or the `arguments` block Megatron-LM prints at start
//    (`  num_layers ...................... 32`); keys lose their dashes
//    (`num_layers`); a flag without a value reads "true";
//  - TOML (torchtitan): `[section]` tables, `key = value`, strings, numbers,
//    booleans and one-line arrays; keys are `section.key`;
//  - YAML (NeMo): block mappings by indentation, scalars, comments, and
//    `${a.b}` / `${.b}` interpolation of another scalar; sequences skipped;
//  - JSON (DeepSpeed): objects flattened to `a.b`; arrays kept as text.
//
// Every failure throws std::invalid_argument "<source>: line N: <reason>".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace napkin {

struct ConfigEntry {
  std::string key;    // dotted, as the format spells it ("parallelism.tensor_parallel_degree")
  std::string value;  // the scalar as text, unquoted; "" for null / None
  std::int64_t line = 0;
  // False when the value could not be known from the file (a shell variable
  // the script does not set, an interpolation of a missing key).
  bool known = true;
};

struct ConfigEntries {
  std::string source;
  std::vector<ConfigEntry> entries;  // in file order; a later entry of the same key wins
  const ConfigEntry* find(std::string_view key) const;
};

ConfigEntries read_argument_list(std::string_view text, std::string_view source);
ConfigEntries read_toml(std::string_view text, std::string_view source);
ConfigEntries read_yaml(std::string_view text, std::string_view source);
ConfigEntries read_json(std::string_view text, std::string_view source);

// True when `text` holds Megatron-LM's printed arguments block.
bool has_printed_arguments(std::string_view text);

}  // namespace napkin
