// Lifetime dollars: training chip-hours at the training price plus serving
// chip-hours from the serving layout's throughput, energy at the wall on
// both (issue 26, item 4).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

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

// The rate memo (a chip-count drag plans again with the same serving inputs):
// what it answers is the layout search's answer, bit for bit.
namespace {
void expect_same_rate(const ServingRate& a, const ServingRate& b) {
  EXPECT_EQ(a.fits, b.fits);
  EXPECT_EQ(a.chips, b.chips);
  EXPECT_EQ(a.layout, b.layout);
  EXPECT_EQ(a.tokens_per_second_per_chip, b.tokens_per_second_per_chip);
  EXPECT_EQ(a.dollars_per_token, b.dollars_per_token);
  EXPECT_EQ(a.joules_per_token, b.joules_per_token);
}

std::vector<ServingEconomy> memo_economies() {
  std::vector<ServingEconomy> out(7, decode_heavy());
  out[1] = ServingEconomy{};  // the 8,192-token prompt, 128 out
  out[2].weights = Dtype::int4;
  out[3].engine = "tensorrt-llm";
  out[4].node_chips = 1;  // served past the node when nothing fits one chip
  out[5].chip = "B200";
  out[6].cost.price_per_chip_hour_dollars = 3.217;  // asked by no other test: a cold table
  return out;
}
}  // namespace

TEST(LifetimeDollars, MemoizedServingRateIsTheSearchBitForBit) {
  for (const ServingEconomy& e : memo_economies()) {
    for (double n : {3.3e8, 8e9, 7.01e10, 4e11, 2e12, 2e14}) {
      SCOPED_TRACE(e.chip + " " + e.engine + " N = " + std::to_string(n));
      const ServingRate direct = serving_rate(n, e);
      expect_same_rate(memoized_serving_rate(n, e), direct);  // first ask (or not)
      expect_same_rate(memoized_serving_rate(n, e), direct);  // remembered
    }
  }
}

TEST(LifetimeDollars, AChangedServingInputGivesAFreshRate) {
  const ServingEconomy e = decode_heavy();
  const double n = 7.01e10;
  const ServingRate before = memoized_serving_rate(n, e);
  ASSERT_TRUE(before.fits);
  ServingEconomy dear = e;
  dear.cost.price_per_chip_hour_dollars = 4.0;
  const ServingRate r_dear = memoized_serving_rate(n, dear);
  expect_same_rate(r_dear, serving_rate(n, dear));
  EXPECT_GT(r_dear.dollars_per_token, before.dollars_per_token);
  ServingEconomy int8 = e;
  int8.weights = Dtype::int8;
  const ServingRate r_int8 = memoized_serving_rate(n, int8);
  expect_same_rate(r_int8, serving_rate(n, int8));
  EXPECT_GT(r_int8.tokens_per_second_per_chip, before.tokens_per_second_per_chip);
  ServingEconomy longer = e;
  longer.decode_tokens = 2048;
  expect_same_rate(memoized_serving_rate(n, longer), serving_rate(n, longer));
  ServingEconomy wide = e;
  wide.batch = 64;
  expect_same_rate(memoized_serving_rate(n, wide), serving_rate(n, wide));
  // More economies than the memo keeps, then the first again: still the search's answer.
  for (double price : {1.0, 1.5, 2.0, 3.0, 3.5})
    (void)memoized_serving_rate(n, [&] {
      ServingEconomy x = e;
      x.cost.price_per_chip_hour_dollars = price;
      return x;
    }());
  expect_same_rate(memoized_serving_rate(n, e), before);
  // Bad input is refused as serving_rate() refuses it, remembered or not.
  EXPECT_THROW((void)memoized_serving_rate(1e3, e), std::invalid_argument);
  ServingEconomy bad = e;
  bad.engine = "tgi";
  EXPECT_THROW((void)memoized_serving_rate(n, bad), std::invalid_argument);
}

// A plan made a second time (its serving rates remembered) is the first, field by field.
TEST(LifetimeDollars, APlanWithRememberedRatesIsTheSamePlan) {
  const ServedLoss served(budget_law());
  TrainingEconomy t;
  ServingEconomy e = decode_heavy();
  e.cost.price_per_chip_hour_dollars = 2.719;  // asked by no other test: the first plan searches
  for (double n : {92e9, 3.1e10}) {
    const DollarPlan a = plan_lifetime_dollars(n, 20 * n, 1e13, served, t, e);
    const DollarPlan b = plan_lifetime_dollars(n, 20 * n, 1e13, served, t, e);
    EXPECT_EQ(a.loss, b.loss);
    EXPECT_EQ(a.same_loss.params, b.same_loss.params);
    EXPECT_EQ(a.same_loss.train_tokens, b.same_loss.train_tokens);
    EXPECT_EQ(a.same_loss.total_dollars, b.same_loss.total_dollars);
    expect_same_rate(a.same_loss.serving, b.same_loss.serving);
    expect_same_rate(a.reference.serving, b.reference.serving);
    EXPECT_EQ(a.crossover_served_tokens, b.crossover_served_tokens);
    EXPECT_EQ(a.recommend_smaller, b.recommend_smaller);
    expect_same_rate(a.same_loss.serving, serving_rate(a.same_loss.params, e));
  }
}

// Two threads planning with different serving inputs at once each get the search's answers.
TEST(LifetimeDollars, TheRateMemoServesTwoThreads) {
  const std::vector<ServingEconomy> economies = memo_economies();
  std::vector<std::vector<ServingRate>> got(2);
  std::vector<std::thread> threads;
  for (std::size_t k = 0; k < 2; ++k)
    threads.emplace_back([&, k] {
      for (int i = 0; i < 40; ++i)
        got[k].push_back(memoized_serving_rate(1e9 * (1 + i % 8), economies[k + 4]));
    });
  for (std::thread& th : threads) th.join();
  for (std::size_t k = 0; k < 2; ++k)
    for (int i = 0; i < 40; ++i)
      expect_same_rate(got[k][static_cast<std::size_t>(i)],
                       serving_rate(1e9 * (1 + i % 8), economies[k + 4]));
}
