#include <gtest/gtest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "hardware.h"

using namespace napkin;

TEST(Hardware, TableHoldsTheSeedChipsAndTheNewerOnes) {
  std::set<std::string> names;
  for (const Chip& c : hardware_table()) {
    names.insert(std::string(c.name));
    EXPECT_GT(c.peak_flops_per_s, 0);
    EXPECT_GT(c.hbm_bytes, 0);
    EXPECT_GT(c.hbm_bytes_per_s, 0);
    EXPECT_GT(c.watts, 0);
    EXPECT_FALSE(c.source.empty()) << c.name;
  }
  for (const char* n :
       {"H100", "A100-80", "TPU v5e", "TPU v5p", "H200", "B200", "MI300X", "TPU v6e"})
    EXPECT_TRUE(names.count(n)) << n;
}

TEST(Hardware, SeedRows) {
  const Chip& h = chip_by_name("H100");
  EXPECT_DOUBLE_EQ(h.peak_flops_per_s, 990e12);
  EXPECT_EQ(h.hbm_bytes, 80'000'000'000);
  EXPECT_DOUBLE_EQ(h.hbm_bytes_per_s, 3.35e12);
  EXPECT_DOUBLE_EQ(h.watts, 700);
  EXPECT_DOUBLE_EQ(chip_by_name("TPU v5e").hbm_bytes_per_s, 0.819e12);
}

TEST(Hardware, RidgePoints) {
  // Seed Phase 00 ch. 9 ("~295") and Phase 03 ch. 2 (296, 154, 241, 166).
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("H100")), 296, 0.5);
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("A100-80")), 154, 0.5);
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("TPU v5e")), 241, 0.5);
  EXPECT_NEAR(ridge_point_flops_per_byte(chip_by_name("TPU v5p")), 166, 0.5);
}

TEST(Hardware, UnknownChipNamesTheChoices) {
  try {
    chip_by_name("h100");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("chip must be one of H100, A100-80"), std::string::npos);
  }
}
