#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "format.h"

using namespace napkin;

TEST(Format, Grouping) {
  EXPECT_EQ(format_grouped(std::int64_t{34832528367943680}), "34,832,528,367,943,680");
  EXPECT_EQ(format_grouped(std::int64_t{-1234}), "-1,234");
  EXPECT_EQ(format_signed(0.0072, 4), "+0.0072");
  EXPECT_EQ(format_signed(-0.06164, 4), "\u22120.0616");
  EXPECT_EQ(format_signed(-1234.5, 1), "\u22121,234.5");
  EXPECT_EQ(format_signed(-0.00001, 4), "0.0000");  // no "−0.0000"
  EXPECT_EQ(format_grouped(1753.6475, 2), "1,753.65");
  EXPECT_EQ(format_grouped(999.999, 2), "1,000.00");
  EXPECT_EQ(format_grouped(-0.001, 2), "0.00");
}

TEST(Format, SiCountsAndBytes) {
  EXPECT_EQ(format_count(92.5e9), "92.5B");
  EXPECT_EQ(format_count(1.85e12, 2), "1.85T");
  EXPECT_EQ(format_count(7.0), "7");
  EXPECT_EQ(format_count(1500.0), "1.5K");
  EXPECT_EQ(format_count(999.9e12), "999.9T");
  EXPECT_EQ(format_count(1.34e15, 2), "1.34e+15");
  EXPECT_EQ(format_bytes(185e9), "185.0 GB");
  EXPECT_EQ(format_bytes(1.48e12, 2), "1.48 TB");
  EXPECT_EQ(format_bytes(12), "12 B");
  EXPECT_EQ(format_sci(1.0264e24), "1.026e+24");
  EXPECT_EQ(format_dollars(1.8e6), "$1,800,000");
  EXPECT_EQ(format_percent(0.357), "35.7 %");
  EXPECT_EQ(format_seconds(5.822), "5.82 s");
  EXPECT_EQ(format_seconds(0.0123), "12.3 ms");
  EXPECT_EQ(format_seconds(0.0), "0 s");  // not "0 ns" at a time axis's origin
  EXPECT_EQ(format_seconds(-0.0), "0 s");
  EXPECT_EQ(format_seconds(4123.4), "4,123 s");  // issue 27 item 17: never "4.12e+03 s"
  EXPECT_EQ(format_seconds(999.4), "999 s");
}

TEST(Format, NeverPrintsNanOrInf) {
  const double bad[] = {std::nan(""), std::numeric_limits<double>::infinity()};
  for (double b : bad) {
    for (const std::string& s :
         {format_grouped(b, 2), format_sci(b), format_count(b), format_bytes(b), format_dollars(b),
          format_seconds(b), format_percent(b)}) {
      EXPECT_EQ(s.find("nan"), std::string::npos);
      EXPECT_EQ(s.find("inf"), std::string::npos);
      EXPECT_FALSE(s.empty());
    }
  }
}
