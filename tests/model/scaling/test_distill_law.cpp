// Busbridge et al. 2025, "Distillation Scaling Laws" (Eq. 8) and the compute
// of distilling. The paper's fitted constants are not built in (no citable
// copy of its appendix here), so the law's cases use stated illustrative
// constants and check the form's arithmetic and directions; the compute
// accounting (6N per token trained, 2N per token of the teacher's forward
// pass) is checked with hand-computed numbers.
#include <gtest/gtest.h>

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
  const LossLaw sup = besiroglu2024_law();
  const DistillSplit s = distill_split(sup, std::nullopt, 1e23, 7e9, 1e9, 1e11);
  EXPECT_NEAR(s.teacher_tokens, (1e23 - 1.4e21 - 6e20) / 4.2e10, 1e3);
  EXPECT_NEAR(s.compute.total_flops(), 1e23, 1e23 * 1e-12);
  EXPECT_DOUBLE_EQ(s.teacher_loss, sup.loss(7e9, s.teacher_tokens));
  EXPECT_DOUBLE_EQ(s.student_supervised_loss, sup.loss(1e9, 1e11));
  EXPECT_FALSE(s.student_loss);  // no constants: not priced
  try {
    (void)distill_split(sup, std::nullopt, 1e23, 7e9, 1e9, 1e13);
    FAIL() << "the logits alone exceed the compute";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("tokens"), std::string::npos) << e.what();
  }
}

TEST(DistillLaw, PlanSearchesTheBestSplitOnlyWithTheConstants) {
  const LossLaw sup = besiroglu2024_law();
  const DistillPlan alone = plan_distillation(sup, std::nullopt, 1e23, 7e9, 1e9, std::nullopt);
  EXPECT_FALSE(alone.searched);
  EXPECT_DOUBLE_EQ(alone.split.distill_tokens, 20 * 1e9);
  EXPECT_DOUBLE_EQ(alone.student_alone_tokens, 1e23 / 6e9);
  EXPECT_DOUBLE_EQ(alone.student_alone_loss, sup.loss(1e9, 1e23 / 6e9));
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
