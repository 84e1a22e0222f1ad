// The public data sets compiled into the library (tests/data/<name>), for the
// scoreboard; empty for an unknown name.
#pragma once

#include <string_view>

namespace napkin {

std::string_view validation_data(std::string_view name);

}  // namespace napkin
