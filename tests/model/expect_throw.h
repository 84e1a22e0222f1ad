// EXPECT_THROW_NAMING(statement, "param"): the statement throws
// std::invalid_argument and the message names the parameter.
#pragma once

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#define EXPECT_THROW_NAMING(stmt, param)                                           \
  do {                                                                             \
    try {                                                                          \
      stmt;                                                                        \
      ADD_FAILURE() << "no exception from " #stmt;                                 \
    } catch (const std::invalid_argument& e) {                                     \
      EXPECT_NE(std::string(e.what()).find(param), std::string::npos) << e.what(); \
    }                                                                              \
  } while (0)
