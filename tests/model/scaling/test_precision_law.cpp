// Kumar et al. 2024, "Scaling Laws for Precision" (ICLR 2025, arXiv
// 2411.04330): the forms with stated illustrative constants (arithmetic and
// directions), then the built-in constants of its Appendix K, Table 2 against
// what the paper says they imply (Finding 3, Figure 2, Appendices L and M).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "precision_law.h"
#include "scaling.h"

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
  EXPECT_EQ(parse_ptq_law("0.1,0.5,0.4,1.5").bias, 0.0);
  EXPECT_EQ(parse_ptq_law("0.1,0.5,0.4,1.5,2").bias, 2.0);
  for (const char* bad : {"0.1,0.5,0.4", "0.1,0.5,0.4,1.5,2,3", "a,b,c,d", "0.1,0.5,0.4,0",
                          "0.1,0.5,0.4,1.5,99", ""}) {
    try {
      (void)parse_ptq_law(bad, "--ptq-law");
      FAIL() << bad;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("--ptq-law") != std::string::npos ||
                  what.find("gamma_post") != std::string::npos ||
                  what.find("ptq_law.b") != std::string::npos)
          << what;
    }
  }
  EXPECT_THROW((void)PtqLaw({0.1, 0.5, 0.4, 1.5}).degradation_nats(1e9, 1e12, 0),
               std::invalid_argument);
}

namespace {
// Table 2's own Chinchilla constants (α = β tied, Appendix K): A, α, B, E.
LossLaw kumar_table2_chinchilla() {
  LossLaw law = besiroglu2024_law();
  law.A = 4.299e3;
  law.alpha = 0.4965;
  law.B = 1.806e4;
  law.beta = 0.4965;
  law.E = 2.7648;
  return law;
}

// Finding 3 (Section 4.3, Eq. 5): minimise A·(N·f(P))^−α + B·D^−α + E over
// N, D and P at C = (6/16)·N·D·P. With α = β the best N at each P gives
// 2·√(K1·K2) + E, K1 = A·f(P)^−α and K2 = B·(16C / 6P)^−α; the best P on a
// 0.1-bit grid from 3.5 to 16 bits.
double kumar_table2_optimal_bits(double c_flops) {
  const LossLaw law = kumar_table2_chinchilla();
  const TrainPrecisionLaw t = kumar2024_train_precision_law();
  double best_loss = 1e300, best_bits = 0;
  for (int tenth = 35; tenth <= 160; ++tenth) {
    const double p = tenth / 10.0;
    double f = 0;
    try {
      f = t.effective_params(1.0, p, p, p);
    } catch (const std::invalid_argument&) {
      continue;  // below the precisions the law covers
    }
    const double k1 = law.A * std::pow(f, -law.alpha);
    const double k2 = law.B * std::pow(16.0 * c_flops / (6.0 * p), -law.alpha);
    const double loss = 2.0 * std::sqrt(k1 * k2) + law.E;
    if (loss < best_loss) {
      best_loss = loss;
      best_bits = p;
    }
  }
  return best_bits;
}
}  // namespace

// The built-in constants are Table 2's, to the digit.
TEST(PrecisionLaw, BuiltInConstantsAreTable2) {
  const PtqLaw ptq = kumar2024_ptq_law();
  EXPECT_EQ(ptq.c_t, 0.0598);
  EXPECT_EQ(ptq.gamma_d, 0.5068);
  EXPECT_EQ(ptq.gamma_n, 0.3439);
  EXPECT_EQ(ptq.gamma_post, 0.5907);
  EXPECT_EQ(ptq.bias, 1.1277);
  const TrainPrecisionLaw t = kumar2024_train_precision_law();
  EXPECT_EQ(t.gamma_w, 2.6745);
  EXPECT_EQ(t.bias_w, 0.3037);
  EXPECT_EQ(t.gamma_a, 2.2102);
  EXPECT_EQ(t.bias_a, 1.4072);
  EXPECT_EQ(t.gamma_kv, 0.9578);
  EXPECT_EQ(t.bias_kv, 2.4185);
  EXPECT_NE(kumar2024_validity_text().find("30M-220M"), std::string::npos);
}

// Finding 3: "Our fits imply 7-8 bits are compute-optimal", independent of
// compute. The offsets n_x decide it: without them the same search lands at
// 3.5 bits.
TEST(PrecisionLaw, Table2ImpliesSevenToEightBitsComputeOptimal) {
  for (const double c : {1e18, 1e21, 1e24}) {
    const double bits = kumar_table2_optimal_bits(c);
    EXPECT_GE(bits, 7.0) << c;
    EXPECT_LE(bits, 8.0) << c;
  }
}

// Appendix M: the KV cache "is not sensitive to quantization at higher bit
// value, but very quickly becomes sensitive around 4-5 bit precision";
// Appendix L: runs with activations at 3 bits diverged (no effective
// parameters here: the input is refused, named).
TEST(PrecisionLaw, Table2SensitivitiesMatchAppendicesLAndM) {
  const TrainPrecisionLaw t = kumar2024_train_precision_law();
  const double n = 1e9;
  const auto kv_share = [&](double bits) {
    return t.effective_params(n, 16, 16, bits) / t.effective_params(n, 16, 16, 16);
  };
  EXPECT_NEAR(kv_share(8), 0.9974, 1e-3);
  EXPECT_NEAR(kv_share(5), 0.9393, 1e-3);
  EXPECT_NEAR(kv_share(4), 0.8276, 1e-3);
  EXPECT_NEAR(kv_share(3), 0.5102, 1e-3);
  try {
    (void)t.effective_params(n, 16, 3, 16);
    FAIL() << "activations at 3 bits leave no effective parameters";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("activation_bits"), std::string::npos) << e.what();
  }
  // Weights stay usable at 3 bits (Appendix L: "P_w = 3 is still well behaved").
  EXPECT_NEAR(t.effective_params(n, 3, 16, 16) / t.effective_params(n, 16, 16, 16), 0.5606, 1e-3);
  // 8-bit training everywhere: N_eff / N = 0.932 · 0.8906 · 0.9974.
  EXPECT_NEAR(t.effective_params(n, 8, 8, 8) / n, 0.8278, 1e-3);
  EXPECT_GT(t.penalty_vs_bf16_nats(besiroglu2024_law(), 7e10, 1.4e12, 8), 0);
  EXPECT_DOUBLE_EQ(t.penalty_vs_bf16_nats(besiroglu2024_law(), 7e10, 1.4e12, 16), 0);
}

// The law of an FP8-trained model: N·share replaces N in a law fitted on bf16
// runs, share = N_eff(8) / N_eff(16) = 0.8278 / 0.9938. Only the parameter
// term changes, so the penalty is A·N^(−α)·(share^(−α) − 1) whatever D, and
// the compute-optimal model at a budget is larger.
TEST(PrecisionLaw, TrainedAtEightBitsScalesTheParameterTerm) {
  const TrainPrecisionLaw t = kumar2024_train_precision_law();
  const LossLaw bf16 = besiroglu2024_law();
  EXPECT_NEAR(t.share_vs_bf16(8), 0.8278 / 0.9938, 1e-3);
  EXPECT_DOUBLE_EQ(t.share_vs_bf16(16), 1.0);
  const LossLaw fp8 = t.trained_at(bf16, 8);
  EXPECT_EQ(fp8.E, bf16.E);
  EXPECT_EQ(fp8.B, bf16.B);
  EXPECT_EQ(fp8.alpha, bf16.alpha);
  EXPECT_NEAR(fp8.A / bf16.A, std::pow(t.share_vs_bf16(8), -bf16.alpha), 1e-12);
  const double n = 7e10;
  const double expected =
      bf16.A * std::pow(n, -bf16.alpha) * (std::pow(t.share_vs_bf16(8), -bf16.alpha) - 1.0);
  for (const double d : {1e11, 1.4e12, 1e14})
    EXPECT_NEAR(t.penalty_vs_bf16_nats(bf16, n, d, 8), expected, 1e-12) << d;
  // The same loss as an N·share-parameter bf16 model.
  EXPECT_NEAR(fp8.loss(n, 1.4e12), bf16.loss(n * t.share_vs_bf16(8), 1.4e12), 1e-12);
  EXPECT_GT(analytic_optimum(fp8, 1e24).n_params, analytic_optimum(bf16, 1e24).n_params);
  EXPECT_GT(optimal_loss(fp8, 1e24), optimal_loss(bf16, 1e24));
}

// Figure 2 (top left, N = 30M): post-quantized to 3 bits, training on more
// tokens eventually raises the loss; at 6 bits more tokens still help. With
// Table 2's Chinchilla constants and δ_PTQ: L + δ at 13B and 26B tokens.
TEST(PrecisionLaw, Table2OvertrainedModelsGetWorseAfterPtq) {
  const LossLaw law = kumar_table2_chinchilla();
  const PtqLaw ptq = kumar2024_ptq_law();
  const double n = 30e6;
  const auto served = [&](double d, double bits) {
    return law.loss(n, d) + ptq.degradation_nats(n, d, bits);
  };
  EXPECT_NEAR(ptq.degradation_nats(n, 26e9, 3), 0.5858, 1e-3);
  EXPECT_NEAR(ptq.degradation_nats(n, 26e9, 4), 0.1078, 1e-3);
  EXPECT_NEAR(served(13e9, 3), 4.1825, 1e-3);
  EXPECT_NEAR(served(26e9, 3), 4.3060, 1e-3);
  EXPECT_GT(served(26e9, 3), served(13e9, 3));
  EXPECT_LT(served(26e9, 6), served(13e9, 6));
}
