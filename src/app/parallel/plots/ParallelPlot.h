// A Parallelism plot: draws from the panel's ParallelView, and a pinned
// baseline's view as faded dashed ghosts behind it.
#pragma once

#include "ViewPlot.h"
#include "parallel_view.h"

namespace napkin {

using ParallelPlot = ViewPlot<ParallelView>;

}  // namespace napkin
