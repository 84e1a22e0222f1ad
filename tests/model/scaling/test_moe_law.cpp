// The joint dense/MoE law of Ludziejewski et al. 2025 against the paper's own
// worked numbers: Table 4 (the law reduced to Chinchilla form at each E) and
// Table 1 (compute-optimal N_act and D).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "moe_law.h"

using namespace napkin;

TEST(JointMoeLaw, ReducesToTheirTable4) {
  const JointMoeLaw law;
  struct Row {
    double e, m, mu, n, nu;
  };
  // Table 4 of the paper. Table 3's constants are printed to 4 digits, so m
  // and n reproduce to 0.3 % and the exponents to 1.5e-4.
  for (const Row& r :
       {Row{1, 30.3640, -0.1817, 53.9838, -0.1965}, Row{2, 27.7982, -0.1780, 66.8401, -0.2065},
        Row{8, 21.8330, -0.1676, 119.9126, -0.2338},
        Row{32, 16.5424, -0.1557, 234.6726, -0.2652}}) {
    const LossLaw l = law.at_expansion(r.e);
    EXPECT_NEAR(l.A / r.m, 1.0, 3e-3) << r.e;
    EXPECT_NEAR(-l.alpha, r.mu, 1.5e-4) << r.e;
    EXPECT_NEAR(l.B / r.n, 1.0, 3e-3) << r.e;
    EXPECT_NEAR(-l.beta, r.nu, 1.5e-4) << r.e;
    EXPECT_DOUBLE_EQ(l.E, 1.3637);
  }
  EXPECT_NEAR(law.e_hat(1.0), 2.0732, 1e-9);  // Eq. 4 at E = 1 is E_start
}

TEST(JointMoeLaw, ComputeOptimaMatchTheirTable1) {
  const JointMoeLaw law;
  struct Row {
    double flops, e, n_act, d;
  };
  // Table 1, printed to 2–3 significant digits.
  for (const Row& r : {Row{1e20, 1, 1.7e9, 9.7e9}, Row{1e20, 32, 669e6, 24.9e9},
                       Row{1e21, 8, 3.8e9, 44.3e9}, Row{1e22, 1, 18.8e9, 88.6e9},
                       Row{1e22, 8, 14.4e9, 115.8e9}, Row{1e22, 32, 12.2e9, 136.9e9}}) {
    const ComputeOptimum o = law.optimum(r.flops, r.e);
    EXPECT_NEAR(o.n_params / r.n_act, 1.0, 0.02) << r.flops << " E=" << r.e;
    EXPECT_NEAR(o.n_tokens / r.d, 1.0, 0.02) << r.flops << " E=" << r.e;
  }
}

TEST(JointMoeLaw, MoreExpertsLowerLossAndWantMoreTokensInsideTheFittedRange) {
  // Their Findings 1 and 2 at the largest compute of the fitted range.
  const JointMoeLaw law;
  const double c = law.max_fitted_flops();
  EXPECT_NEAR(law.optimum(c, 1).n_params, kJointMoeMaxActiveParams, 1e3);
  EXPECT_GT(c, 1e20);
  EXPECT_LT(c, 1e21);
  const ComputeOptimum dense = law.optimum(c, 1), moe = law.optimum(c, 8);
  EXPECT_LT(moe.loss, dense.loss);
  EXPECT_GT(moe.n_tokens, 1.4 * dense.n_tokens);
  // Three decades beyond, the fitted interactions reverse Finding 1 (8
  // experts would want fewer tokens at 1e24): why the planner reads the
  // token shift at the edge of the fitted range.
  EXPECT_LT(law.optimum(1e24, 8).n_tokens, law.optimum(1e24, 1).n_tokens);
  // The dense-equivalent compute of the MoE's loss is more than its own.
  const double eq = law.dense_equivalent_flops(moe.loss);
  EXPECT_GT(eq, c);
  EXPECT_NEAR(optimal_loss(law.at_expansion(1), eq), moe.loss, 1e-9);
  EXPECT_NEAR(law.dense_equivalent_flops(dense.loss) / c, 1.0, 1e-9);
}

TEST(MoeShape, ExpansionAndRefusals) {
  EXPECT_DOUBLE_EQ((MoeShape{64, 8, 1, 0}.expansion()), 8.0);
  EXPECT_DOUBLE_EQ((MoeShape{256, 8, 1, 1}.expansion()), 257.0 / 9.0);
  EXPECT_DOUBLE_EQ((MoeShape{1, 1, 1, 0}.expansion()), 1.0);
  auto message = [](MoeShape s) {
    try {
      s.validate();
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(message(MoeShape{8, 16, 1, 0}).rfind("top-k", 0), 0u);
  // A shape beyond the fitted expansion is valid; the comparison refuses it.
  EXPECT_EQ(message(MoeShape{512, 1, 1, 0}), "");
  // One expert is dense: its top-k is unused.
  EXPECT_EQ(message(MoeShape{1, 8, 1, 0}), "");
  EXPECT_EQ(message(MoeShape{64, 8, 1, 0}), "");
  EXPECT_NEAR(moe_total_params(13e9, 8) / 1e9, 76.0, 1e-9);
  // 64 experts, top-8, 8 requests: 1 − (7/8)^8 = 65.6 % of the routed experts
  // are read per decode step: (4 + 64·0.656·9/8) / 76 of the weights.
  EXPECT_NEAR(moe_decode_read_fraction(MoeShape{64, 8, 1, 0}, 8),
              (4.0 + 64.0 * (1.0 - std::pow(7.0 / 8.0, 8)) * 9.0 / 8.0) / 76.0, 1e-12);
  EXPECT_DOUBLE_EQ(moe_decode_read_fraction(MoeShape{64, 8, 1, 0}, 100000), 1.0);
  EXPECT_DOUBLE_EQ(moe_decode_read_fraction(MoeShape{1, 1, 1, 0}, 8), 1.0);
  EXPECT_NEAR(moe_active_params(76e9, 8) / 1e9, 13.0, 1e-9);
}
