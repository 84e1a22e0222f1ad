// Right: the planner includes the layers below it. The test expects this to
// compile, so a failure of the other probes is the include path's doing.
#include "algebra.h"
#include "budget.h"
#include "hardware.h"
#include "loss_law.h"
#include "validate.h"
