// Helpers for the scoreboard's tests: one public set by its key, and a data
// file edited to see what a builder refuses.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "validation.h"
#include "validation_data.h"

namespace napkin::validation_test {

// The public set `key`, built alone; throws when there is no such set.
inline ValidationSet only_set(const std::string& key) {
  std::vector<ValidationSet> built = public_validation_sets(key);
  if (built.size() != 1) throw std::runtime_error("no set " + key);
  return built.front();
}

// What `build` throws on the data file `file` with `from` replaced by `to`
// (std::invalid_argument's message), or "" when it builds.
inline std::string refusal(const std::function<ValidationSet(std::string_view)>& build,
                           const char* file, const std::string& from, const std::string& to) {
  std::string edited(validation_data(file));
  edited.replace(edited.find(from), from.size(), to);
  try {
    build(edited);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

}  // namespace napkin::validation_test
