// The law a plan forecasts with: the built-in choices, a fitted law's range
// and its bootstrap interval.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "plan_law.h"

using namespace napkin;

namespace {
std::string message_of(const auto& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}
}  // namespace

TEST(PlanLaw, BuiltInLawsCarryTheirPapersConstants) {
  const PlanLaw r = replication_plan_law();
  EXPECT_EQ(r.choice, LawChoice::replication);
  EXPECT_EQ(r.law, (LossLaw{1.8172, 482.01, 0.3478, 2085.43, 0.3658}));
  EXPECT_NE(r.name.find("Besiroglu et al. 2024"), std::string::npos);
  const PlanLaw c = chinchilla_paper_plan_law();
  EXPECT_EQ(c.law, (LossLaw{1.69, 406.4, 0.34, 410.7, 0.28}));
  EXPECT_NE(c.name.find("Hoffmann et al. 2022"), std::string::npos);
  EXPECT_TRUE(r.draws.empty());
  EXPECT_DOUBLE_EQ(r.ladder_max_flops, kChinchillaLadderMaxFlops);
  EXPECT_EQ(builtin_plan_law(LawChoice::chinchilla_paper), c);
  EXPECT_THROW((void)builtin_plan_law(LawChoice::fitted), std::invalid_argument);
}

TEST(PlanLaw, ChoiceNamesRoundTrip) {
  for (LawChoice c : {LawChoice::replication, LawChoice::chinchilla_paper, LawChoice::fitted})
    EXPECT_EQ(parse_law_choice(to_string(c)), c);
  EXPECT_NE(message_of([] { (void)parse_law_choice("kaplan"); }).find("replication"),
            std::string::npos);
}

TEST(PlanLaw, FittedLawIsNamedAndValidatedByKey) {
  const PlanLaw f =
      fitted_plan_law(besiroglu2024_law(), {chinchilla_approach3_law()}, "ladder.csv", 1e21);
  EXPECT_EQ(f.name, "the law fitted to ladder.csv");
  EXPECT_EQ(f.draws.size(), 1u);
  LossLaw bad = besiroglu2024_law();
  bad.beta = 2.5;
  EXPECT_NE(message_of([&] {
              (void)fitted_plan_law(besiroglu2024_law(), {bad}, "x", 1e21);
            }).find("draws[0].beta"),
            std::string::npos);
  bad = besiroglu2024_law();
  bad.E = 0.001;  // an irreducible loss no text reaches
  EXPECT_NE(message_of([&] { (void)fitted_plan_law(bad, {}, "x", 1e21); }).find("E"),
            std::string::npos);
  PlanLaw builtin = replication_plan_law();
  builtin.draws = {besiroglu2024_law()};
  EXPECT_NE(message_of([&] { builtin.validate(); }).find("draws"), std::string::npos);
}

TEST(PlanLaw, FittedLawRefusesAForecastFarBeyondItsLadder) {
  const PlanLaw f = fitted_plan_law(besiroglu2024_law(), {}, "ladder.csv", 1e20);
  EXPECT_NO_THROW(require_within_range(f, 1e25));  // exactly 5 decades
  const std::string m = message_of([&] { require_within_range(f, 1.1e25); });
  EXPECT_EQ(m.rfind("ladder_max_flops:", 0), 0u) << m;
  // Built-in laws are the user's explicit choice: they pass at any C.
  EXPECT_NO_THROW(require_within_range(replication_plan_law(), 1e30));
}

TEST(PlanLaw, IntervalIsTheCentralPercentileRange) {
  std::vector<double> v;
  for (int i = 0; i <= 100; ++i) v.push_back(2.0 + i * 0.01);  // 2.00 … 3.00
  const auto iv = interval_of(v, 0.9);
  ASSERT_TRUE(iv);
  EXPECT_NEAR(iv->low, 2.05, 1e-12);
  EXPECT_NEAR(iv->high, 2.95, 1e-12);
  EXPECT_EQ(iv->draws, 101);
  EXPECT_FALSE(interval_of({}, 0.95));
  // Each draw's optimal loss at one budget: the interval brackets the point.
  const PlanLaw f = fitted_plan_law(besiroglu2024_law(),
                                    {chinchilla_approach3_law(), besiroglu2024_law(),
                                     LossLaw{1.9, 482.01, 0.3478, 2085.43, 0.3658}},
                                    "x", 1e22);
  const auto d = draw_interval(f, [](const LossLaw& l) { return l.loss(7e10, 1.4e12); });
  ASSERT_TRUE(d);
  const double point = besiroglu2024_law().loss(7e10, 1.4e12);
  EXPECT_LE(d->low, point);
  EXPECT_GE(d->high, point);
}
