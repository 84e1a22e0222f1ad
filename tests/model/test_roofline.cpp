#include <gtest/gtest.h>

#include "roofline.h"
