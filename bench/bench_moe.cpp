#include <benchmark/benchmark.h>

#include "moe.h"
