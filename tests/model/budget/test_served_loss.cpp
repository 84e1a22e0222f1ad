// The loss as served (served_loss.h): the plan's law, and below 16-bit
// weights the post-training quantization penalty of Kumar et al. 2024, which
// the lifetime trades must hold equal.
#include <gtest/gtest.h>

#include <cmath>
#include <optional>

#include "budget.h"
#include "served_loss.h"

using namespace napkin;

namespace {
ServedLoss served_int4() {
  ServedLoss s(with_muennighoff_decay(besiroglu2024_law()));
  s.ptq = kumar2024_ptq_law();
  s.weight_bits = 4;
  return s;
}
}  // namespace

TEST(ServedLoss, AtSixteenBitsItIsThePlanLaw) {
  const ServedLoss s(with_muennighoff_decay(besiroglu2024_law()), 15e12);
  const DataConstrainedLaw law = with_muennighoff_decay(besiroglu2024_law());
  EXPECT_DOUBLE_EQ(s.loss(7e10, 3e13), law.loss(7e10, 3e13, 15e12));
  EXPECT_EQ(s.tokens_for(7e10, 1.95), law.tokens_for_loss(7e10, 1.95, 15e12));
  ServedLoss bf16 = served_int4();
  bf16.weight_bits = 16;  // a PTQ law at 16 bits charges nothing
  EXPECT_DOUBLE_EQ(bf16.loss(7e10, 1.4e12), besiroglu2024_law().loss(7e10, 1.4e12));
}

TEST(ServedLoss, Int4AddsTheQuantizationPenaltyAndItsTokensReachTheTarget) {
  const ServedLoss s = served_int4();
  const LossLaw law = besiroglu2024_law();
  const double n = 7e10, d = 1.4e12;
  EXPECT_NEAR(s.loss(n, d) - law.loss(n, d), kumar2024_ptq_law().degradation_nats(n, d, 4), 1e-15);
  // A target the model reaches: the fewest tokens, exactly on the target,
  // and more than the law alone would need.
  const double target = s.loss(n, d);
  const std::optional<double> t = s.tokens_for(n, target);
  ASSERT_TRUE(t);
  EXPECT_NEAR(s.loss(n, *t), target, 1e-9);
  EXPECT_LE(*t, d * (1 + 1e-9));
  EXPECT_GT(*t, *law.tokens_for_loss(n, target));
  // Below the served loss's minimum over D no token count gets there: more
  // tokens make an int4 model worse past some point.
  EXPECT_FALSE(s.tokens_for(n, law.loss(n, d) - 0.01));
  EXPECT_FALSE(s.tokens_for(1e9, 2.0));
}

// The lifetime trade at int4 holds the served loss equal: the smaller model
// it finds ends where the reference does as served, not as trained.
TEST(ServedLoss, InferenceAwareTradeHoldsTheServedLossEqual) {
  const ServedLoss s = served_int4();
  const TrainedModel chin{7e10, 1.4e12};
  const InferenceAwarePlan p = plan_inference_aware(chin, 1e13, 6.0 * 7e10 * 1.4e12, 1e22, s);
  EXPECT_TRUE(p.served_below_bf16);
  EXPECT_NEAR(p.chinchilla_loss, s.loss(chin.params, chin.train_tokens), 1e-12);
  EXPECT_NEAR(s.loss(p.same_loss.params, p.same_loss.train_tokens), p.chinchilla_loss, 1e-6);
  // At bf16 the trade overtrains further than int4's penalty allows.
  const InferenceAwarePlan bf16 =
      plan_inference_aware(chin, 1e13, 6.0 * 7e10 * 1.4e12, 1e22, besiroglu2024_law());
  EXPECT_FALSE(bf16.served_below_bf16);
  EXPECT_GT(bf16.same_loss.train_tokens / bf16.same_loss.params,
            p.same_loss.train_tokens / p.same_loss.params);
}
