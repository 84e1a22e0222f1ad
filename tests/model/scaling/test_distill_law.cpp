// Busbridge et al. 2025, "Distillation Scaling Laws" (Eq. 8) and the compute
// of distilling: the form with stated illustrative constants (arithmetic and
// directions), the compute accounting (6N per token trained, 2N per token of
// the teacher's forward pass) with hand-computed numbers, and the built-in
// constants of the paper's Table 6 against what the paper says they imply
// (Appendix E.6, Figure 40; Appendix E.4, Figure 38a).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "distill_law.h"
#include "loss_law.h"

using namespace napkin;

namespace {
// c0 = 0.5, c1 = d1 = f1 = 1, A' = 100, B' = 1000, α' = β' = 0.5, γ' = 1.
DistillLaw illustrative() { return DistillLaw{0.5, 1.0, 1.0, 1.0, 100.0, 1000.0, 0.5, 0.5, 1.0}; }
}  // namespace

TEST(DistillLaw, Eq8Arithmetic) {
  // L_T = 2, L̃_S = 2.5, N_S = 1e8, D_S = 1e10:
  // 2 + 2^−0.5 · (1 + 2/2.5)^−1 · (100/1e4 + 1000/1e5) = 2 + 0.7071068 · 0.5555556 · 0.02.
  EXPECT_NEAR(illustrative().student_loss(2.0, 2.5, 1e8, 1e10), 2.0078567, 1e-6);
}

TEST(DistillLaw, NeverBelowTheTeacherAndTheCapacityGap) {
  const DistillLaw law = illustrative();
  for (double lt : {1.8, 2.2, 3.0}) EXPECT_GT(law.student_loss(lt, 2.5, 1e8, 1e10), lt);
  // What the student loses to the teacher grows as the teacher gets stronger
  // than what the student could learn (the capacity gap).
  const double strong = law.student_loss(1.5, 2.5, 1e8, 1e10) - 1.5;
  const double weak = law.student_loss(3.0, 2.5, 1e8, 1e10) - 3.0;
  EXPECT_GT(strong, weak);
  // More distillation tokens and a larger student lose less.
  EXPECT_LT(law.student_loss(2.0, 2.5, 1e8, 1e11), law.student_loss(2.0, 2.5, 1e8, 1e10));
  EXPECT_LT(law.student_loss(2.0, 2.5, 1e9, 1e10), law.student_loss(2.0, 2.5, 1e8, 1e10));
}

TEST(DistillLaw, ComputeOfDistilling) {
  const DistillCompute c = distill_compute(7e9, 1e12, 1e9, 1e11);
  EXPECT_DOUBLE_EQ(c.teacher_train_flops, 4.2e22);      // 6 · 7e9 · 1e12
  EXPECT_DOUBLE_EQ(c.teacher_inference_flops, 1.4e21);  // 2 · 7e9 · 1e11
  EXPECT_DOUBLE_EQ(c.student_flops, 6e20);              // 6 · 1e9 · 1e11
  EXPECT_DOUBLE_EQ(c.total_flops(), 4.2e22 + 1.4e21 + 6e20);
}

TEST(DistillLaw, SplitGivesTheTeacherWhatIsLeft) {
  const LossLaw law = besiroglu2024_law();
  const SupervisedLoss sup = supervised_loss(law);
  const DistillSplit s = distill_split(sup, std::nullopt, 1e23, 7e9, 1e9, 1e11);
  EXPECT_NEAR(s.teacher_tokens, (1e23 - 1.4e21 - 6e20) / 4.2e10, 1e3);
  EXPECT_NEAR(s.compute.total_flops(), 1e23, 1e23 * 1e-12);
  EXPECT_DOUBLE_EQ(s.teacher_loss, law.loss(7e9, s.teacher_tokens));
  EXPECT_DOUBLE_EQ(s.student_supervised_loss, law.loss(1e9, 1e11));
  EXPECT_FALSE(s.student_loss);  // no constants: not priced
  try {
    (void)distill_split(sup, std::nullopt, 1e23, 7e9, 1e9, 1e13);
    FAIL() << "the logits alone exceed the compute";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tokens"), std::string::npos) << e.what();
  }
}

TEST(DistillLaw, PlanSearchesTheBestSplitOnlyWithTheConstants) {
  const LossLaw law = besiroglu2024_law();
  const SupervisedLoss sup = supervised_loss(law);
  const DistillPlan alone = plan_distillation(sup, std::nullopt, 1e23, 7e9, 1e9, std::nullopt);
  EXPECT_FALSE(alone.searched);
  EXPECT_DOUBLE_EQ(alone.split.distill_tokens, 20 * 1e9);
  EXPECT_DOUBLE_EQ(alone.student_alone_tokens, 1e23 / 6e9);
  EXPECT_DOUBLE_EQ(alone.student_alone_loss, law.loss(1e9, 1e23 / 6e9));
  EXPECT_FALSE(alone.gain_nats);

  const DistillPlan best = plan_distillation(sup, illustrative(), 1e23, 7e9, 1e9, std::nullopt);
  ASSERT_TRUE(best.searched);
  ASSERT_TRUE(best.split.student_loss);
  for (double ds : {1e10, 1e11, 1e12, 4e12}) {
    const DistillSplit s = distill_split(sup, illustrative(), 1e23, 7e9, 1e9, ds);
    EXPECT_LE(*best.split.student_loss, *s.student_loss + 1e-9) << ds;
  }
  ASSERT_TRUE(best.gain_nats);
  EXPECT_DOUBLE_EQ(*best.gain_nats, best.student_alone_loss - *best.split.student_loss);
}

TEST(DistillLaw, ParseAndBadInput) {
  const DistillLaw law = parse_distill_law("0.5,1,1,1,100,1000,0.5,0.5,1");
  EXPECT_DOUBLE_EQ(law.b, 1000);
  EXPECT_DOUBLE_EQ(law.gamma, 1);
  for (const char* bad : {"0.5,1,1,1,100,1000,0.5,0.5", "0.5,1,1,0,100,1000,0.5,0.5,1",
                          "a,1,1,1,100,1000,0.5,0.5,1", "0.5,1,1,1,100,1000,0.5,0.5,1,2"}) {
    try {
      (void)parse_distill_law(bad, "--distill-law");
      FAIL() << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("--distill-law"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW((void)illustrative().student_loss(0.0, 2.5, 1e8, 1e10), std::invalid_argument);
}

// Table 6 (Appendix F.3), to the digit, and the supervised law's form (Eq. 1):
// E + (A/N^α + B/D^β)^γ.
TEST(DistillLaw, BuiltInConstantsAreTable6) {
  const DistillSupervisedLaw sup = busbridge2025_supervised_law();
  EXPECT_EQ(sup.A, 3355.0);
  EXPECT_EQ(sup.B, 18186.0);
  EXPECT_EQ(sup.E, 1.220);
  EXPECT_EQ(sup.alpha, 0.408);
  EXPECT_EQ(sup.beta, 0.431);
  EXPECT_EQ(sup.gamma, 0.452);
  const DistillLaw law = busbridge2025_distill_law();
  EXPECT_EQ(law.a, 2243.0);
  EXPECT_EQ(law.b, 24181.0);
  EXPECT_EQ(law.alpha, 0.321);
  EXPECT_EQ(law.beta, 0.637);
  EXPECT_EQ(law.gamma, 0.764);
  EXPECT_EQ(law.c0, 2.549);
  EXPECT_EQ(law.c1, 522.6);
  EXPECT_EQ(law.f1, 0.090);
  EXPECT_EQ(law.d1, 1.315);
  EXPECT_NO_THROW(law.validate());
  // 1e9 parameters on 2e10 tokens: 1.22 + (3355·1e9^−0.408 + 18186·2e10^−0.431)^0.452.
  EXPECT_NEAR(
      sup.loss(1e9, 2e10),
      1.220 + std::pow(3355.0 * std::pow(1e9, -0.408) + 18186.0 * std::pow(2e10, -0.431), 0.452),
      1e-12);
}

// Appendix E.6, Figure 40: with unlimited distillation data and the best
// teacher, Eq. 8's student reaches the supervised lower bound E + (A/N_S^α)^γ
// (Eq. 35 against Eq. 37, "consistent ... for N, N_S in [100M, 100B]"): the
// best L_T on a 0.001-nat grid gives it within 1 %.
TEST(DistillLaw, Table6InfiniteDataLimitMatchesTheSupervisedBound) {
  const DistillSupervisedLaw sup = busbridge2025_supervised_law();
  const DistillLaw law = busbridge2025_distill_law();
  for (const double ns : {1e8, 1e9, 1e10, 1e11}) {
    const double bound = sup.E + std::pow(sup.A * std::pow(ns, -sup.alpha), sup.gamma);
    // D_S → ∞: L̃_S is the bound and the data term vanishes (1e30 tokens).
    double best = 1e300;
    for (int i = 1; i < 3000; ++i)
      best = std::min(best, law.student_loss(sup.E + 0.001 * i, bound, ns, 1e30));
    EXPECT_NEAR(best / bound, 1.0, 0.01) << ns;
  }
}

// Appendix E.4 (Figure 38a): "weaker students benefit more from distillation,
// as e.g. the 198M student has all observed data below this dashed line" (its
// supervised loss). A 198M student on 20 tokens per parameter, distilled from
// each of the six M = 20 teachers (546M to 7.75B), beats training alone on
// the same tokens; a stronger teacher helps it more.
TEST(DistillLaw, Table6SmallStudentsGainFromEveryTeacher) {
  const DistillSupervisedLaw sup = busbridge2025_supervised_law();
  const DistillLaw law = busbridge2025_distill_law();
  const double ns = 198e6, ds = 20 * ns;
  const double alone = sup.loss(ns, ds);
  EXPECT_NEAR(alone, 2.7894, 1e-4);
  double previous = alone;
  for (const double nt : {546e6, 975e6, 1.82e9, 2.72e9, 4.82e9, 7.75e9}) {
    const double lt = sup.loss(nt, 20 * nt);
    const double ls = law.student_loss(lt, alone, ns, ds);
    EXPECT_LT(ls, alone) << nt;
    EXPECT_GT(ls, lt) << nt;
    EXPECT_LT(ls, previous) << nt;
    previous = ls;
  }
  EXPECT_NEAR(law.student_loss(sup.loss(7.75e9, 155e9), alone, ns, ds), 2.5439, 1e-4);
}
