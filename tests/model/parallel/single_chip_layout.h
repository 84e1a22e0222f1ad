// The layout the framework and loss tests price one chip's kernels with.
#pragma once

#include "parallel.h"

namespace napkin::testing_util {

// One chip's layout: nothing sharded, nothing recomputed.
inline Layout single_chip() {
  Layout l;
  l.zero = 0;
  l.recompute = Checkpointing::none;
  return l;
}

}  // namespace napkin::testing_util
