#include <gtest/gtest.h>

#include "cli_runner.h"
