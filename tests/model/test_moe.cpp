#include <gtest/gtest.h>

#include "moe.h"
