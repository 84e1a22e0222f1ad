// Deliberately wrong: one phase (scaling) includes another (moe). The test
// expects this file not to compile.
#include "moe.h"
