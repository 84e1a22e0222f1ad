// A Budget planner plot: draws from the panel's BudgetView, and a pinned
// baseline's view as faded dashed ghosts behind it.
#pragma once

#include "ViewPlot.h"
#include "budget_view.h"

namespace napkin {

using BudgetPlot = ViewPlot<BudgetView>;

}  // namespace napkin
