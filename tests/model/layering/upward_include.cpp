// Deliberately wrong: core, the bottom layer, includes the planner. The test
// expects this file not to compile.
#include "budget.h"
