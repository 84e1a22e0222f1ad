// The one seeded generator (rng.h): golden outputs that must hold on every
// platform, the ranges of each draw, and the moments of the normals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <vector>

#include "rng.h"

namespace napkin {
namespace {

TEST(Rng, GoldenXoshiroSequence) {
  // xoshiro256** seeded by four splitmix64 steps from 0: no std:: engine or
  // distribution is involved, so these are the same everywhere.
  Rng r(0);
  EXPECT_EQ(r.next(), 11091344671253066420ULL);
  EXPECT_EQ(r.next(), 13793997310169335082ULL);
  EXPECT_EQ(r.next(), 1900383378846508768ULL);
}

TEST(Rng, GoldenNormalsBothMethods) {
  Rng polar(42);
  EXPECT_NEAR(polar.uniform(), 0.083862971059882163, 1e-16);
  EXPECT_NEAR(polar.normal(), -1.0195252891247546, 1e-15);
  Rng bm(42);
  EXPECT_NEAR(bm.normal_box_muller(), -0.30326306467873798, 1e-15);
  EXPECT_NEAR(bm.normal_box_muller(), 0.28846173882942383, 1e-15);  // the spare
  EXPECT_NEAR(bm.normal_box_muller(), 1.3438117634372806, 1e-15);
}

TEST(Rng, SameSeedSameStreamOtherSeedOtherStream) {
  Rng a(7), b(7), c(8);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t x = a.next();
    EXPECT_EQ(x, b.next());
    differs |= x != c.next();
  }
  EXPECT_TRUE(differs);
}

TEST(Rng, UniformAndBelowStayInRange) {
  Rng r(3);
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 70'000; ++i) {
    const double u = r.uniform();
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
    const std::uint64_t k = r.below(7);
    ASSERT_LT(k, 7u);
    ++hits[k];
  }
  // 10,000 expected per value, σ ≈ 93: 6σ bands.
  for (int h : hits) EXPECT_NEAR(h, 10'000, 560);
  EXPECT_EQ(r.below(1), 0u);
}

TEST(Rng, NormalsHaveUnitMoments) {
  for (const bool polar : {true, false}) {
    Rng r(11);
    const int n = 200'000;
    double sum = 0, sum2 = 0, sum4 = 0;
    for (int i = 0; i < n; ++i) {
      const double z = polar ? r.normal() : r.normal_box_muller();
      ASSERT_TRUE(std::isfinite(z));
      sum += z;
      sum2 += z * z;
      sum4 += z * z * z * z;
    }
    // Standard errors: mean 1/√n ≈ 0.0022, variance √(2/n) ≈ 0.0032,
    // fourth moment √(96/n) ≈ 0.022; bands of about 5σ.
    EXPECT_NEAR(sum / n, 0.0, 0.012) << (polar ? "polar" : "Box-Muller");
    EXPECT_NEAR(sum2 / n, 1.0, 0.016) << (polar ? "polar" : "Box-Muller");
    EXPECT_NEAR(sum4 / n, 3.0, 0.11) << (polar ? "polar" : "Box-Muller");
  }
}

TEST(Rng, StreamSeedsAreDistinctPerIndexAndSeed) {
  EXPECT_EQ(stream_seed(0, 0), 14929293120800181021ULL);
  EXPECT_EQ(stream_seed(0, 1), 12277306271711888064ULL);
  std::set<std::uint64_t> seen;
  for (std::uint64_t seed = 0; seed < 4; ++seed)
    for (std::uint64_t i = 0; i < 1000; ++i) seen.insert(stream_seed(seed, i));
  EXPECT_EQ(seen.size(), 4000u);
}

}  // namespace
}  // namespace napkin
