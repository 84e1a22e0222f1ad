// Distillation arithmetic against the seed track's printed numbers (Claim 17
// and the temperature objection).
#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

#include "distill.h"

using namespace napkin;

TEST(Distill, SeedKlLossGradesTheShape) {
  const std::vector<double> teacher{4.0, 1.0, 0.5, -1.0};
  EXPECT_NEAR(kl_distillation_loss({3.6, 1.2, 0.4, -0.8}, teacher), 0.031, 5e-4);
  EXPECT_NEAR(kl_distillation_loss({4.0, -5.0, -5.0, -5.0}, teacher), 2.1126, 5e-5);
  EXPECT_DOUBLE_EQ(kl_distillation_loss(teacher, teacher), 0.0);
  // Large logits do not overflow (max-subtraction).
  EXPECT_NEAR(kl_distillation_loss({1004.0, 1001.0, 1000.5, 999.0}, teacher), 0.0, 1e-9);
  EXPECT_THROW((void)kl_distillation_loss({1.0}, teacher), std::invalid_argument);
  EXPECT_THROW((void)kl_distillation_loss(teacher, teacher, 0.0), std::invalid_argument);
}

TEST(Distill, SeedTemperatureRaisesPerplexity) {
  const std::vector<double> teacher{8.0, 2.0, 1.0, 0.5, 0.0};
  EXPECT_NEAR(perplexity_at_temperature(teacher, 1.0), 1.033, 5e-4);
  EXPECT_NEAR(perplexity_at_temperature(teacher, 2.0), 1.626, 5e-4);
  EXPECT_NEAR(perplexity_at_temperature(teacher, 4.0), 3.429, 5e-4);
  EXPECT_NEAR(perplexity_at_temperature(teacher, 8.0), 4.586, 5e-4);
}

TEST(Distill, SeedLogitStorageIsFiveExabytes) {
  // 10T tokens × 256,000 vocabulary × 2 bytes = 5.12e18 bytes ("5 EB").
  const LogitStorage full = logit_storage(10e12, 256'000, 2.0);
  EXPECT_DOUBLE_EQ(full.full_bytes, 5.12e18);
  EXPECT_EQ(full.top_k_bytes, 0.0);
  // Top-64 with int32 ids and one tail-mass value: 10T × (64 × 6 + 2) bytes.
  const LogitStorage top = logit_storage(10e12, 256'000, 2.0, 64, 4.0);
  EXPECT_DOUBLE_EQ(top.top_k_bytes, 10e12 * 386.0);
  EXPECT_NEAR(top.reduction, 512'000.0 / 386.0, 1e-9);
  EXPECT_THROW((void)logit_storage(10e12, 256'000, 2.0, 256'000), std::invalid_argument);
  EXPECT_THROW((void)logit_storage(0, 256'000), std::invalid_argument);
}
