#include <benchmark/benchmark.h>

#include "roofline.h"
