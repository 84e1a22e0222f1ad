// EXPECT_THROW_NAMING(statement, "param"): the statement throws
// std::invalid_argument and the message names the parameter.
// expect_invalid(callable, "needle"): the same for a callable.
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

template <typename F>
inline void expect_invalid(F&& f, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "expected std::invalid_argument mentioning \"" << needle << "\"";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}
