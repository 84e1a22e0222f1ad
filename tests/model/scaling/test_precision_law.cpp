// Kumar et al. 2024, "Scaling Laws for Precision": the forms. The paper's
// fitted constants are not built in (no citable source for their values
// here), so the cases use stated illustrative constants and check the
// forms' arithmetic and directions.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "precision_law.h"

using namespace napkin;

TEST(PrecisionLaw, PtqDegradationArithmetic) {
  // C_T = 1, γ_D = γ_N = 0.5, γ_post = 1: √(1e10 / 1e8) · e^−4 = 10 · 0.0183156.
  const PtqLaw law{1.0, 0.5, 0.5, 1.0};
  EXPECT_NEAR(law.degradation_nats(1e8, 1e10, 4), 0.1831564, 1e-6);
  // Each extra bit divides it by e.
  EXPECT_NEAR(law.degradation_nats(1e8, 1e10, 5) / law.degradation_nats(1e8, 1e10, 4),
              std::exp(-1.0), 1e-12);
}

TEST(PrecisionLaw, OvertrainedModelsDegradeMore) {
  const PtqLaw law{0.1, 0.5, 0.4, 1.5};
  // More tokens on the same model: more degradation (the paper's headline).
  EXPECT_GT(law.degradation_nats(1e9, 1e12, 4), law.degradation_nats(1e9, 2e10, 4));
  // A larger model on the same tokens: less.
  EXPECT_LT(law.degradation_nats(1e10, 1e12, 4), law.degradation_nats(1e9, 1e12, 4));
  // int4 costs more than int8.
  EXPECT_GT(law.degradation_nats(1e9, 1e12, 4), law.degradation_nats(1e9, 1e12, 8));
}

TEST(PrecisionLaw, EffectiveParamsAndLoss) {
  const TrainPrecisionLaw t{2.0, 2.0, 1.0};
  const double n = 1e9;
  const double at16 = t.effective_params(n, 16, 16, 16);
  const double at8 = t.effective_params(n, 8, 8, 8);
  EXPECT_NEAR(at16 / n, (1 - std::exp(-8.0)) * (1 - std::exp(-8.0)) * (1 - std::exp(-16.0)), 1e-12);
  EXPECT_LT(at8, at16);
  EXPECT_LE(at16, n);
  const LossLaw law = besiroglu2024_law();
  EXPECT_GT(t.loss(law, n, 2e10, 8, 8, 8), t.loss(law, n, 2e10, 16, 16, 16));
  EXPECT_GT(t.loss(law, n, 2e10, 16, 16, 16), law.loss(n, 2e10));
}

TEST(PrecisionLaw, BadConstantsNameTheField) {
  EXPECT_EQ(parse_ptq_law("0.1,0.5,0.4,1.5").gamma_post, 1.5);
  for (const char* bad : {"0.1,0.5,0.4", "0.1,0.5,0.4,1.5,2", "a,b,c,d", "0.1,0.5,0.4,0", ""}) {
    try {
      (void)parse_ptq_law(bad, "--ptq-law");
      FAIL() << bad;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("--ptq-law") != std::string::npos ||
                  what.find("gamma_post") != std::string::npos)
          << what;
    }
  }
  EXPECT_THROW((void)PtqLaw({0.1, 0.5, 0.4, 1.5}).degradation_nats(1e9, 1e12, 0),
               std::invalid_argument);
}
