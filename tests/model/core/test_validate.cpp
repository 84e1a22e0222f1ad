#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "validate.h"

using namespace napkin;

TEST(Validate, MessagesNameParameterUnitAndRange) {
  try {
    require_count(0, "chips", "chips", 1, 100);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "chips (chips) must be an integer in [1, 100]; got 0");
  }
  // Issue 27 item 20: a wide range reads grouped, as every other number does.
  try {
    require_count(0, "prefill_tokens", "tokens", 1, 1'000'000'000);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "prefill_tokens (tokens) must be an integer in [1, 1,000,000,000]; got 0");
  }
  try {
    require_real(std::nan(""), "mfu", "fraction of peak", 0.0, 1.0, true);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "mfu (fraction of peak) must be a finite number in (0, 1]; got nan");
  }
  EXPECT_NO_THROW(require_real(1.0, "mfu", "fraction", 0.0, 1.0, true));
  EXPECT_THROW(require_positive(0.0, "x", "s"), std::invalid_argument);
}

TEST(Validate, ANameSpelledOtherwiseIsNamedInTheRefusal) {
  EXPECT_TRUE(same_name_loosely("h100", "H100"));
  EXPECT_TRUE(same_name_loosely("tpu-v5e", "TPU v5e"));
  EXPECT_TRUE(same_name_loosely("llama3_8b", "Llama-3-8B"));
  EXPECT_FALSE(same_name_loosely("A100", "A100-80"));
  EXPECT_FALSE(same_name_loosely("", "H100"));
  EXPECT_FALSE(same_name_loosely("H1000", "H100"));
  const std::string_view names[] = {"delayed", "tensorwise", "blockwise"};
  const auto name_of = [](std::string_view n) { return n; };
  try {
    throw_unknown_name("fp8 recipe", "Tensor-wise", names, name_of);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "fp8 recipe must be one of delayed, tensorwise, blockwise; got \"Tensor-wise\"; "
                 "did you mean \"tensorwise\"?");
  }
  try {
    throw_unknown_name("fp8 recipe", "rowwise", names, name_of, " (or none)");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "fp8 recipe must be one of delayed, tensorwise, blockwise (or none); got "
                 "\"rowwise\"");
  }
}

TEST(Validate, CheckedArithmeticDetectsOverflow) {
  EXPECT_EQ(checked_mul({2, 3, 7}, "x"), 42);
  EXPECT_THROW(checked_mul(1LL << 62, 4, "x"), std::invalid_argument);
  EXPECT_THROW(checked_add(kMaxCount, 1, "x"), std::invalid_argument);
}
