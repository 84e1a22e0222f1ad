// Every public data set Napkin ships, predicted by the library beside what
// its source measured or printed: the scoreboard of `napkin-cli validate`.
#pragma once

#include <vector>

#include "validation_set.h"

namespace napkin {

std::vector<ValidationSet> public_validation_sets();

}  // namespace napkin
