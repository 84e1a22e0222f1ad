#include "moe.h"
