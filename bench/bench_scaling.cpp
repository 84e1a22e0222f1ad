#include <benchmark/benchmark.h>

#include "scaling.h"
