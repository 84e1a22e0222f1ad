#include "panel_timing.h"
