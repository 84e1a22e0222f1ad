// Nice numbers (nice_numbers.h): the ladders controls land on, the position of
// a value on a linear or logarithmic scale, and the decade arithmetic of axis
// tops and scientific labels.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "nice_numbers.h"

namespace napkin {
namespace {

TEST(Ladder, SnapsToWhatAPersonWouldType) {
  EXPECT_DOUBLE_EQ(Ladder::oneTwoFive().snap(3200, 1, 100000), 5000);
  EXPECT_DOUBLE_EQ(Ladder::oneTwoFive().snap(2900, 1, 100000), 2000);
  // Nearest in log distance: 3,000 is 1.37× below 4,096 and 1.46× above 2,048.
  EXPECT_DOUBLE_EQ(Ladder::powersOfTwo().snap(3000, 1, 1 << 20), 4096);
  EXPECT_DOUBLE_EQ(Ladder::powersOfTwo().snap(2800, 1, 1 << 20), 2048);
  EXPECT_DOUBLE_EQ(Ladder::multipleOf(128).snap(1000, 64, 32768), 1024);
  EXPECT_DOUBLE_EQ(Ladder::significant(2).snap(0.1234, 0.01, 10), 0.12);
  EXPECT_DOUBLE_EQ(Ladder::significant(2).snap(2.46e13, 1e9, 1e15), 2.5e13);
  // The range's ends are on every ladder, and a value outside is clamped.
  EXPECT_DOUBLE_EQ(Ladder::oneTwoFive().snap(1e9, 1, 100000), 100000);
  EXPECT_DOUBLE_EQ(Ladder::powersOfTwo().snap(0.5, 3, 100), 3);
  EXPECT_DOUBLE_EQ(Ladder::any().snap(NAN, 1, 2), 1);
}

TEST(Ladder, DiscreteValuesAreAscendingWithTheEnds) {
  const std::vector<double> v = Ladder::oneTwoFive().values(1, 100, 100);
  EXPECT_EQ(v, (std::vector<double>{1, 2, 5, 10, 20, 50, 100}));
  EXPECT_EQ(Ladder::powersOfTwo().values(3, 20, 100), (std::vector<double>{3, 4, 8, 16, 20}));
  EXPECT_TRUE(Ladder::significant(2).values(1, 10, 100).empty());   // continuous
  EXPECT_TRUE(Ladder::multipleOf(1).values(0, 1e6, 1001).empty());  // too fine: continuous
}

TEST(Scale, FractionAndValueAreInverses) {
  EXPECT_DOUBLE_EQ(scale_fraction(1000, 1, 1e6, true), 0.5);
  EXPECT_DOUBLE_EQ(scale_fraction(25, 0, 100, false), 0.25);
  EXPECT_NEAR(scale_value(0.5, 1, 1e6, true), 1000, 1e-9);
  EXPECT_DOUBLE_EQ(scale_value(0.25, 0, 100, false), 25);
  for (double v : {1.0, 3.0, 77.0, 12345.0, 1e6})
    EXPECT_NEAR(scale_value(scale_fraction(v, 1, 1e6, true), 1, 1e6, true), v, 1e-9 * v);
  EXPECT_EQ(scale_fraction(5, 1, 1, true), 0);  // an empty range: never NaN
  EXPECT_DOUBLE_EQ(tenth_decades(10), 10);
  EXPECT_DOUBLE_EQ(last_digit(2), 0.01);
}

TEST(Decades, ExponentFloorAndMantissa) {
  EXPECT_EQ(decade_exponent(1e3), 3);  // an exact power of ten is not a decade low
  EXPECT_EQ(decade_exponent(999), 2);
  EXPECT_EQ(decade_exponent(-2.5e-4), -4);
  EXPECT_DOUBLE_EQ(decade_floor(4.2e21), 1e21);
  EXPECT_NEAR(decade_mantissa(4.2e21), 4.2, 1e-12);
  EXPECT_NEAR(decade_mantissa(1e24), 1.0, 1e-12);
}

TEST(Decades, NiceCeilIsTheNextAxisTop) {
  EXPECT_DOUBLE_EQ(nice_ceil(1.0), 1.0);
  EXPECT_DOUBLE_EQ(nice_ceil(1.2), 1.5);
  EXPECT_DOUBLE_EQ(nice_ceil(2.2), 2.5);
  EXPECT_DOUBLE_EQ(nice_ceil(3.5), 4.0);
  EXPECT_DOUBLE_EQ(nice_ceil(7.0), 8.0);
  EXPECT_DOUBLE_EQ(nice_ceil(8.5), 10.0);
  EXPECT_DOUBLE_EQ(nice_ceil(430), 500);
  EXPECT_DOUBLE_EQ(nice_ceil(0), 1);  // nothing to show: a unit axis
  EXPECT_DOUBLE_EQ(nice_ceil(INFINITY), 1);
}

}  // namespace
}  // namespace napkin
