#include <gtest/gtest.h>

#include "scaling.h"
