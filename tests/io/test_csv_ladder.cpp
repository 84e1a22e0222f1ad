#include <gtest/gtest.h>

#include "csv_ladder.h"
