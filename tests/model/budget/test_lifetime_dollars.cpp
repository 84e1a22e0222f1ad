// Lifetime dollars: training chip-hours at the training price plus serving
// chip-hours from the serving layout's throughput, energy at the wall on
// both (issue 26, item 4).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "budget.h"
#include "hardware.h"
#include "lifetime_dollars.h"

using namespace napkin;

namespace {
// A decode-heavy turn: 512 prompt tokens, 512 generated, batch 8.
ServingEconomy decode_heavy() {
  ServingEconomy e;
  e.prompt_tokens = 512;
  e.decode_tokens = 512;
  return e;
}
}  // namespace

TEST(LifetimeDollars, TrainingChipHoursAtThePricePlusEnergy) {
  // 1e24 FLOPs on H100 (990 TFLOP/s in the table) at 40 % MFU: 701,459
  // chip-hours; each costs $2.50 + 0.7 kW × 1.2 PUE × $0.12/kWh = $2.6008.
  TrainingEconomy t;
  const double n = 1e11, d = 1e24 / (6.0 * n);
  EXPECT_NEAR(training_dollars(n, d, t), 1'824'354.6, 1.0);
  t.goodput = 0.5;  // half the wall-clock lost: twice the chip-hours
  EXPECT_NEAR(training_dollars(n, d, t), 2 * 1'824'354.6, 2.0);
}

TEST(LifetimeDollars, ServingRateFollowsTheLayout) {
  const ServingEconomy e = decode_heavy();
  const ServingRate small = serving_rate(8e9, e);
  const ServingRate large = serving_rate(70e9, e);
  ASSERT_TRUE(small.fits);
  ASSERT_TRUE(large.fits);
  // A memory-bound decode reads every weight per step: fewer weights, more tokens.
  EXPECT_GT(small.tokens_per_second_per_chip, 3.0 * large.tokens_per_second_per_chip);
  const Chip& h100 = chip_by_name("H100");
  EXPECT_NEAR(large.dollars_per_token * large.tokens_per_second_per_chip * 3600.0,
              2.5 + h100.watts * 1.2 / 1000.0 * 0.12, 1e-9);
  EXPECT_NEAR(large.joules_per_token * large.tokens_per_second_per_chip, h100.watts * 1.2, 1e-6);
  // int4 weights read a quarter of the bytes: cheaper tokens.
  ServingEconomy q = e;
  q.weights = Dtype::int4;
  EXPECT_GT(serving_rate(70e9, q).tokens_per_second_per_chip, large.tokens_per_second_per_chip);
  // The serving price scales the rental part only.
  ServingEconomy dear = e;
  dear.cost.price_per_chip_hour_dollars = 5.0;
  EXPECT_NEAR(serving_rate(70e9, dear).dollars_per_token / large.dollars_per_token,
              (5.0 + 0.1008) / (2.5 + 0.1008), 1e-9);
}

TEST(LifetimeDollars, AModelTooLargeForTheNodeIsServedOnMoreChips) {
  ServingEconomy e = decode_heavy();
  e.node_chips = 1;
  const ServingRate r = serving_rate(400e9, e);
  ASSERT_TRUE(r.fits);
  EXPECT_GT(r.chips, 1);
}

TEST(LifetimeDollars, BillsAreEqualAtTheCrossover) {
  const DataConstrainedLaw law = budget_law();
  TrainingEconomy t;
  const ServingEconomy e = decode_heavy();
  const double n = 92e9, d = 20 * n;
  const DollarPlan p = plan_lifetime_dollars(n, d, 1e13, ServedLoss(law), t, e);
  ASSERT_TRUE(p.recommend_smaller);
  EXPECT_LT(p.same_loss.params, n);
  EXPECT_GT(p.same_loss.train_tokens, d);
  EXPECT_NEAR(law.base.loss(p.same_loss.params, p.same_loss.train_tokens), p.loss, 1e-6);
  EXPECT_LT(p.same_loss.total_dollars, 0.95 * p.reference.total_dollars);
  ASSERT_TRUE(p.crossover_served_tokens);
  const double s = *p.crossover_served_tokens;
  const LifetimeBill a = lifetime_bill(n, d, s, t, e);
  const LifetimeBill b = lifetime_bill(p.same_loss.params, p.same_loss.train_tokens, s, t, e);
  EXPECT_NEAR(a.total_dollars / b.total_dollars, 1.0, 1e-9);
  // Serving nothing, the reference (the compute-optimal model) is the cheapest.
  const DollarPlan none = plan_lifetime_dollars(n, d, 0, ServedLoss(law), t, e);
  EXPECT_FALSE(none.recommend_smaller);
}

// A plan past the data-constrained law's 1e18 tokens (the widget torture test
// reached 1.06e18 with the unique-token limit on) is priced, not refused.
TEST(LifetimeDollars, ARunPastTheDataLawsRangeIsStillPriced) {
  const DataConstrainedLaw law = budget_law();
  TrainingEconomy t;
  const ServingEconomy e = decode_heavy();
  const double n = 70e9, d = 1.06e18;
  DollarPlan p;
  EXPECT_NO_THROW(p = plan_lifetime_dollars(n, d, 1e13, ServedLoss(law, 15e12), t, e));
  EXPECT_NEAR(p.loss, law.base.loss(n, d), 1e-12);
  EXPECT_GT(p.reference.train_dollars, 0);
  // A model past the serving shapes' 1e14 parameters is not priced for
  // serving, and nothing throws.
  EXPECT_NO_THROW(p = plan_lifetime_dollars(1.07e14, 2e15, 1e13, ServedLoss(law), t, e));
  EXPECT_FALSE(p.reference.serving.fits);
}

// The README's case: 1,000 H100 × 30 days, 1e12 served tokens of a
// decode-heavy turn, no latency cap. Lifetime FLOPs keep the Chinchilla
// answer; lifetime dollars, where a decode token costs what the layout's
// throughput says, train a smaller model longer.
TEST(LifetimeDollars, FlopsAndDollarsRecommendDifferentModels) {
  BudgetInputs in;
  in.served_tokens = 1e12;
  in.serving_latency.enabled = false;
  in.serving_latency.prompt_tokens = 512;
  in.serving_latency.decode_tokens = 512;
  const BudgetReport flops = budget_report(in);
  EXPECT_EQ(flops.recommended.reason, RecommendationReason::chinchilla);
  in.objective = Objective::dollars;
  const BudgetReport dollars = budget_report(in);
  EXPECT_EQ(dollars.recommended.reason, RecommendationReason::inference_aware);
  EXPECT_LT(dollars.recommended.model.params, 0.7 * flops.recommended.model.params);
  EXPECT_NE(dollars.recommendation.find("Lifetime dollars over"), std::string::npos);
  EXPECT_NE(dollars.recommendation.find("Counted in FLOPs instead"), std::string::npos);
  EXPECT_EQ(flops.recommendation.find("Lifetime dollars over"), std::string::npos);
  // Equal loss: the two recommendations forecast the same loss (to the
  // minimiser's tolerance).
  EXPECT_NEAR(dollars.recommended.run.loss, flops.recommended.run.loss, 2e-3);
}

TEST(LifetimeDollars, BadInputNamesTheParameter) {
  EXPECT_EQ(parse_objective("dollars"), Objective::dollars);
  EXPECT_EQ(parse_objective("flops"), Objective::flops);
  try {
    (void)parse_objective("money", "--objective");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--objective"), std::string::npos);
  }
  BudgetInputs in;
  in.serving_chip = "H1000";
  EXPECT_THROW(in.validate(), std::invalid_argument);
  in.serving_chip = "";
  in.serving_price_per_chip_hour_dollars = -1;
  try {
    in.validate();
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("serving_price"), std::string::npos);
  }
}

// The serving bill prices the tokens at the scenario's engine preset: a real
// engine's per-kernel rooflines, launch gaps and host work serve fewer tokens
// per chip-second than the roofline bound (`ideal`), so its tokens cost more.
TEST(LifetimeDollars, ServingBillUsesTheEnginePreset) {
  ServingEconomy ideal = decode_heavy();
  EXPECT_EQ(ideal.engine, "ideal");
  ServingEconomy trt = ideal;
  trt.engine = "tensorrt-llm";
  const ServingRate a = serving_rate(70e9, ideal);
  const ServingRate b = serving_rate(70e9, trt);
  ASSERT_TRUE(a.fits);
  ASSERT_TRUE(b.fits);
  EXPECT_LT(b.tokens_per_second_per_chip, a.tokens_per_second_per_chip);
  EXPECT_GT(b.dollars_per_token, a.dollars_per_token);
  // BudgetInputs hands its engine to the bill.
  BudgetInputs in;
  in.serving_engine = "vllm";
  EXPECT_EQ(in.serving_economy().engine, "vllm");
  // An unknown engine is refused, naming the parameter.
  ServingEconomy bad = ideal;
  bad.engine = "tgi";
  try {
    bad.validate();
    FAIL() << "an unknown engine was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("engine 'tgi'"), std::string::npos) << e.what();
  }
}
