// Every public data set Napkin ships, predicted by the library beside what
// its source measured or printed: the scoreboard of `napkin-cli validate`.
#pragma once

#include <string_view>
#include <vector>

#include "validation_set.h"

namespace napkin {

// Every set's key, in scoreboard order, without predicting anything.
const std::vector<std::string_view>& public_validation_keys();

// Every set, in scoreboard order; with `only`, just the set of that key (none
// when no set has it), predicting only the data it comes from.
std::vector<ValidationSet> public_validation_sets(std::string_view only = {});

}  // namespace napkin
