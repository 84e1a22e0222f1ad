// Data-constrained scaling: Muennighoff et al. 2023, "Scaling Data-Constrained
// Language Models" (constants and worked example from the authors' released
// parametric fit), against the seed's toy (Claim 16).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "data_constrained.h"
#include "scaling.h"

using namespace napkin;

TEST(DataConstrained, PaperConstants) {
  // "R_D* ≈ 15.4, R_N* ≈ 5.3" (datablations parametric fit: 15.387756, 5.309743).
  EXPECT_NEAR(kMuennighoffRdStar, 15.4, 0.05);
  EXPECT_NEAR(kMuennighoffRnStar, 5.3, 0.05);
  const DataConstrainedLaw fit = muennighoff2023_fit();
  EXPECT_NEAR(fit.base.E, 1.869144, 1e-6);
  EXPECT_NEAR(fit.base.A, 520.825, 1e-3);
  EXPECT_NEAR(fit.base.B, 1487.716, 1e-3);
  EXPECT_EQ(fit.base.alpha, fit.base.beta);
  EXPECT_NEAR(fit.base.alpha, 0.3526596, 1e-12);
}

TEST(DataConstrained, PaperWorkedExampleFigure1) {
  // The authors' README: scaling_law(6.34e9, 242e9, 25e9) = 2.2256440889984477
  // "<- This one is better" than scaling_law(8.67e9, 178e9, 25e9) = 2.2269634075087867.
  const DataConstrainedLaw fit = muennighoff2023_fit();
  const double better = fit.loss(6.34e9, 242e9, 25e9);
  const double worse = fit.loss(8.67e9, 178e9, 25e9);
  EXPECT_NEAR(better, 2.2256440889984477, 1e-12);
  EXPECT_NEAR(worse, 2.2269634075087867, 1e-12);
  EXPECT_LT(better, worse);
}

TEST(DataConstrained, PaperOptimalAllocationAt25BUniqueTokens) {
  // README: the compute of (8.67B, 178B) with 25B unique tokens is best spent
  // on "227B tokens, 9.1 epochs, 6.8B parameters" (their grid search).
  const DataConstrainedLaw fit = muennighoff2023_fit();
  const DataLimitedSplit s = best_split_under_data_limit(fit, 6 * 8.67e9 * 178e9, 25e9);
  EXPECT_NEAR(s.params / 1e9, 6.8, 0.05);
  EXPECT_NEAR(s.tokens / 1e9, 227, 1.0);
  EXPECT_NEAR(s.epochs, 9.1, 0.05);
  EXPECT_NEAR(6 * s.params * s.tokens, 6 * 8.67e9 * 178e9, 1e12);
  EXPECT_LE(s.loss, fit.loss(6.34e9, 242e9, 25e9));
  EXPECT_NEAR(s.loss, fit.loss(s.params, s.tokens, 25e9), 1e-15);
}

TEST(DataConstrained, EffectiveTokensPaperShape) {
  const double u = 100e9;
  // At or below one epoch every token is fresh; D′ ≤ D always.
  EXPECT_EQ(effective_tokens(u, 0.3 * u), 0.3 * u);
  EXPECT_EQ(effective_tokens(u, u), u);
  // "Up to 4 epochs … negligible changes to loss": 93 % of the tokens' worth
  // at 4 epochs; 66 % at 16; never more than U·(1 + R_D*).
  struct Row {
    double epochs, worth;
  };
  for (Row r : {Row{2, 1.9682}, Row{4, 3.7257}, Row{8, 6.6241}, Row{16, 10.5825}, Row{32, 14.3354},
                Row{64, 16.1312}})
    EXPECT_NEAR(effective_tokens(u, r.epochs * u) / u, r.worth, 5e-4) << r.epochs;
  double prev = 0;
  for (double e = 0.1; e < 500; e *= 1.3) {
    const double d = effective_tokens(u, e * u);
    EXPECT_LE(d, e * u * (1 + 1e-15));
    EXPECT_GT(d, prev);
    EXPECT_LT(d, u * (1 + kMuennighoffRdStar));
    prev = d;
  }
}

TEST(DataConstrained, EffectiveParams) {
  EXPECT_EQ(effective_params(5e9, 10e9), 5e9);
  EXPECT_EQ(effective_params(10e9, 10e9), 10e9);
  const double n = effective_params(30e9, 10e9);
  EXPECT_NEAR(n, 10e9 * (1 + kMuennighoffRnStar * (1 - std::exp(-2.0 / kMuennighoffRnStar))), 1.0);
  EXPECT_LT(n, 30e9);
  EXPECT_LE(effective_params(1e15, 10e9), 10e9 * (1 + kMuennighoffRnStar));
}

TEST(DataConstrained, LossEqualsTheBaseLawWithoutRepetition) {
  const DataConstrainedLaw law = with_muennighoff_decay(besiroglu2024_law());
  const double u = 15e12;
  for (double n : {1e9, 70e9, 400e9})
    for (double d : {1e11, 2e12, 15e12})
      EXPECT_EQ(law.loss(n, d, u), law.base.loss(n, d)) << n << " " << d;
  // Never below the base law; continuous across one epoch.
  for (double n : {1e9, 70e9, 2e12})
    for (double e : {0.5, 1.0, 1.5, 4.0, 40.0})
      EXPECT_GE(law.loss(n, e * u, u), law.base.loss(n, e * u));
  const double n = 70e9;
  EXPECT_NEAR(law.loss(n, u * (1 + 1e-9), u), law.loss(n, u * (1 - 1e-9), u), 1e-9);
  // More repetition of the same data is worth less than fresh data but still helps.
  EXPECT_LT(law.loss(n, 4 * u, u), law.loss(n, 2 * u, u));
  EXPECT_GT(law.loss(n, 4 * u, u), law.base.loss(n, 4 * u));
}

TEST(DataConstrained, ComputeOptimalParamsForTokens) {
  // The datablations D_to_N for their fit: 25B unique tokens use 1.27B parameters.
  EXPECT_NEAR(compute_optimal_params_for_tokens(muennighoff2023_fit().base, 25e9) / 1e9, 1.2747,
              1e-4);
  // N_opt(D_opt(C)) = N_opt(C) under any law.
  const LossLaw law = besiroglu2024_law();
  const DataLimitedSplit s = best_split_fresh(law, 1e24);
  EXPECT_NEAR(compute_optimal_params_for_tokens(law, s.tokens) / s.params, 1.0, 1e-12);
}

TEST(DataConstrained, TokensForLossInvertsTheLaw) {
  const DataConstrainedLaw law = with_muennighoff_decay();
  const double u = 1e12, n = 30e9;
  for (double d : {0.2e12, 1e12, 3e12, 12e12, 60e12}) {
    const double target = law.loss(n, d, u);
    const auto back = law.tokens_for_loss(n, target, u);
    ASSERT_TRUE(back.has_value()) << d;
    EXPECT_NEAR(*back / d, 1.0, 1e-9) << d;
  }
  // Past U·(1 + R_D*) effective tokens no number of epochs gets there.
  const double floor_loss = law.base.E + law.base.A / std::pow(n, law.base.alpha) +
                            law.base.B / std::pow(u * (1 + kMuennighoffRdStar), law.base.beta);
  EXPECT_FALSE(law.tokens_for_loss(n, floor_loss - 1e-6, u).has_value());
  EXPECT_TRUE(law.tokens_for_loss(n, floor_loss + 1e-3, u).has_value());
}

TEST(DataConstrained, BestSplitUnderTheLimit) {
  const DataConstrainedLaw law = with_muennighoff_decay();
  const double c = 1e24;
  const DataLimitedSplit fresh = best_split_fresh(law.base, c);
  // Plenty of data: the same answer as the fresh-token optimum.
  const DataLimitedSplit plenty = best_split_under_data_limit(law, c, 1e15);
  EXPECT_NEAR(plenty.params / fresh.params, 1.0, 1e-3);
  EXPECT_NEAR(plenty.loss, fresh.loss, 1e-9);
  // Scarce data: a smaller model on more epochs, at a loss above the fresh one.
  double prev_loss = fresh.loss;
  for (double u : {1e12, 3e11, 1e11, 3e10}) {
    const DataLimitedSplit s = best_split_under_data_limit(law, c, u);
    EXPECT_GT(s.epochs, 1.0) << u;
    EXPECT_GE(s.loss, prev_loss) << u;
    EXPECT_NEAR(6 * s.params * s.tokens / c, 1.0, 1e-9);
    EXPECT_LE(s.effective_tokens, s.tokens);
    prev_loss = s.loss;
  }
}

TEST(DataConstrained, LossVsEpochsAgainstTheSeedToy) {
  const DataConstrainedLaw law = with_muennighoff_decay();
  // 3B parameters are fewer than 100B unique tokens can use (4.75B): no
  // excess-parameter discount, so one epoch is the base law exactly.
  const double n = 3e9, u = 100e9;
  EXPECT_GT(compute_optimal_params_for_tokens(law.base, u), n);
  const EpochCurve c = loss_vs_epochs(law, n, u, 32, 4.0);
  ASSERT_EQ(c.epochs.size(), c.loss.size());
  ASSERT_EQ(c.epochs.size(), c.loss_fresh.size());
  for (std::size_t i = 0; i < c.epochs.size(); ++i) {
    if (c.epochs[i] <= 1.0) {
      EXPECT_EQ(c.loss[i], c.loss_fresh[i]);
    }
    EXPECT_GE(c.loss[i], c.loss_fresh[i]);
    if (i > 0) {
      EXPECT_LE(c.loss[i], c.loss[i - 1]);  // flat to rounding once D′ saturates
    }
  }
  ASSERT_TRUE(c.marked_epochs.has_value());
  EXPECT_NEAR(c.marked_loss, law.loss(n, 4 * u, u), 1e-15);
  // The toy, labelled: at whole epochs, the base law at the toy's effective tokens.
  ASSERT_EQ(c.toy_epochs.size(), 32u);
  EXPECT_NEAR(c.toy_loss[3], law.base.loss(n, effective_tokens_toy(u, 4)), 1e-15);
  // Its decay is faster than the paper's: 303.8B vs 372.6B at 4 epochs of 100B.
  EXPECT_NEAR(effective_tokens_toy(u, 4) / 1e9, 303.8, 0.05);
  EXPECT_NEAR(effective_tokens(u, 4 * u) / 1e9, 372.6, 0.05);
}

TEST(DataConstrained, InvalidInput) {
  EXPECT_THROW(effective_tokens(0, 1e9), std::invalid_argument);
  EXPECT_THROW(effective_tokens(1e9, -1), std::invalid_argument);
  EXPECT_THROW(effective_tokens(1e9, NAN), std::invalid_argument);
  DataConstrainedLaw law;
  law.rd_star = 0;
  EXPECT_THROW(law.validate(), std::invalid_argument);
  EXPECT_THROW(best_split_under_data_limit(with_muennighoff_decay(), 0, 1e12),
               std::invalid_argument);
}
