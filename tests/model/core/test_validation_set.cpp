#include "validation_set.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

using namespace napkin;

TEST(ValidationSet, MeanAbsoluteAndSignedErrorsAreRelativeToTheMeasurement) {
  ValidationSet set{"k", "t", "MFU", "%", "src", "", {}};
  set.rows = {{"a", 110, 100, ""}, {"b", 45, 50, ""}, {"c", 30, 30, ""}};
  const ValidationSummary s = summarize(set);
  EXPECT_EQ(s.rows, 3u);
  EXPECT_NEAR(s.mean_abs_error, (0.10 + 0.10 + 0.0) / 3, 1e-12);
  EXPECT_NEAR(s.mean_signed_error, 0.0, 1e-12);
  EXPECT_EQ(s.worst_row, 0u);  // the first of two equal misses
  EXPECT_NEAR(s.worst_error, 0.10, 1e-12);
}

TEST(ValidationSet, OptimismShowsAsPositiveSignedError) {
  ValidationSet set{"k", "t", "MFU", "%", "src", "", {{"a", 60, 40, ""}, {"b", 50, 40, ""}}};
  const ValidationSummary s = summarize(set);
  EXPECT_NEAR(s.mean_signed_error, 0.375, 1e-12);
  EXPECT_EQ(s.worst_row, 0u);
  EXPECT_EQ(s.optimistic_rows, 2u);
  set.lower_is_optimistic = true;  // a time: above the measurement is pessimistic
  EXPECT_EQ(summarize(set).optimistic_rows, 0u);
}

TEST(ValidationSet, EmptySetHasNoRowsAndNoError) {
  const ValidationSummary s = summarize(ValidationSet{});
  EXPECT_EQ(s.rows, 0u);
  EXPECT_EQ(s.mean_abs_error, 0.0);
}

TEST(ValidationSet, RefusesZeroMeasurementAndNonFiniteValuesNamingTheRow) {
  ValidationSet set{"megatron", "t", "MFU", "%", "src", "", {{"row 7", 1, 0, ""}}};
  try {
    summarize(set);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("row 7"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("megatron"), std::string::npos);
  }
  set.rows = {{"r", std::nan(""), 1, ""}};
  EXPECT_THROW(summarize(set), std::invalid_argument);
}
