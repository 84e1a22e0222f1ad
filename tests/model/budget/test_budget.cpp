// Phase 00 budgets: chips × days → FLOPs → (N, D) → checks, dollars, joules,
// and the inference-aware recommendation (seed Phase 00 ch. 10–11, Claim 15).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "budget.h"
#include "format.h"
#include "hardware.h"
#include "scaling.h"

using namespace napkin;

namespace {
// The seed's chain has no crashes and free checkpoints: goodput exactly 1.
BudgetInputs seed_inputs() {
  BudgetInputs in;
  in.goodput.interruptions_per_1000_chip_days = 0;
  in.goodput.checkpoint_write_minutes = 0.0;
  return in;
}
}  // namespace

TEST(Budget, ThousandH100ForThirtyDays) {
  const double c = budget_to_flops(chip_by_name("H100"), 1000, 30, 0.4);
  EXPECT_NEAR(c, 1.026e24, 0.0005e24);
  const ChinchillaSplit s = chinchilla_split(c);
  EXPECT_NEAR(s.params / 1e9, 92.5, 0.05);
  EXPECT_NEAR(s.tokens / 1e12, 1.85, 0.005);
  EXPECT_NEAR(6 * s.params * s.tokens, c, c * 1e-12);
  EXPECT_NEAR(flops_to_days(c, chip_by_name("H100"), 1000, 0.4), 30.0, 1e-9);
}

TEST(Budget, TokensPerParamIsAParameter) {
  const ChinchillaSplit s = chinchilla_split(1e24, 40);
  EXPECT_NEAR(s.tokens / s.params, 40, 1e-9);
  EXPECT_NEAR(6 * s.params * s.tokens, 1e24, 1e12);
}

TEST(Budget, OneChipBoundaryAndLinearity) {
  const Chip& h = chip_by_name("H100");
  EXPECT_NEAR(budget_to_flops(h, 1, 1, 1.0), 990e12 * 86400, 1e6);
  EXPECT_DOUBLE_EQ(budget_to_flops(h, 2000, 30), 2 * budget_to_flops(h, 1000, 30));
}

TEST(Budget, CostReportMatchesTheSeed) {
  const CostReport r = cost_report(chip_by_name("H100"), 1000, 30, 0.4, CostInputs{});
  EXPECT_NEAR(r.rental_dollars, 1'800'000.00, 0.005);
  EXPECT_NEAR(r.energy_kwh, 604'800.00, 0.005);
  EXPECT_NEAR(r.energy_dollars, 72'576.00, 0.005);
  EXPECT_NEAR(r.flops, 1.026e24, 0.0005e24);
  EXPECT_NEAR(r.dollars_per_1e21_flops, 1753.65, 0.005);
  // The sanity check's figure is the chips alone: 504.0 MWh, ~$60,480 at $0.12/kWh.
  EXPECT_NEAR(r.chip_energy_kwh / 1000, 504.0, 0.05);
  EXPECT_NEAR(r.chip_energy_kwh * 0.12, 60'480, 0.5);
}

TEST(Budget, ReportChecksMatchTheSeedWorkedExample) {
  const BudgetReport r = budget_report(seed_inputs());
  EXPECT_EQ(r.goodput.goodput, 1.0);
  EXPECT_EQ(r.effective_flops, r.flops);
  ASSERT_EQ(r.checks.size(), 5u);
  EXPECT_EQ(r.checks[0].name, "memory fits (sharded)");
  EXPECT_TRUE(r.checks[0].ok);
  EXPECT_NE(r.checks[0].detail.find("1,480 GB of model states / 80,000 GB"), std::string::npos)
      << r.checks[0].detail;
  EXPECT_EQ(r.checks[1].name, "data available");
  EXPECT_TRUE(r.checks[1].ok);
  EXPECT_NE(r.checks[1].detail.find("needs 1.85T tokens"), std::string::npos);
  EXPECT_EQ(r.checks[2].name, "servable");
  EXPECT_TRUE(r.checks[2].ok);
  EXPECT_NE(r.checks[2].detail.find("92B params, 185 GB in bf16"), std::string::npos)
      << r.checks[2].detail;
  EXPECT_EQ(r.chips_to_hold_weights, 3);
  EXPECT_EQ(r.checks[3].name, "energy");
  EXPECT_TRUE(r.checks[3].ok);
  EXPECT_NE(r.checks[3].detail.find("504.0 MWh at the chips"), std::string::npos);
  EXPECT_EQ(r.checks[4].name, "serving latency");
  EXPECT_TRUE(r.checks[4].ok);
  EXPECT_EQ(r.train_memory.total, 16 * r.params_rounded);
}

TEST(Budget, ChecksFailWhenTheyShould) {
  BudgetInputs in;
  in.chip = "TPU v5e";  // 16 GB chips: a 92B model does not fit an 8-chip node
  in.n_chips = 5000;
  EXPECT_FALSE(budget_report(in).checks[2].ok);
  in = BudgetInputs{};
  in.n_chips = 100'000;
  in.days = 365;  // D far beyond 15T tokens; 84 MW of power
  const BudgetReport big = budget_report(in);
  EXPECT_FALSE(big.checks[1].ok);
  in.site_power_mw = 50;
  EXPECT_FALSE(budget_report(in).checks[3].ok);
  in = BudgetInputs{};
  in.n_chips = 1;
  in.days = 1;
  in.memory_headroom = 0.01;  // 16 bytes/param of a tiny model still beats 1 % of one chip?
  const BudgetReport one = budget_report(in);
  EXPECT_EQ(one.checks[0].ok, one.train_memory.total < 0.01 * 80e9);
}

TEST(Lifetime, SeedClaim15Table) {
  EXPECT_NEAR(lifetime_flops(70e9, 1.4e12, 1e12), 7.280e23, 0.0005e23);
  EXPECT_NEAR(lifetime_flops(70e9, 1.4e12, 1e14), 1.459e25, 0.0005e25);
  EXPECT_NEAR(lifetime_flops(70e9, 1.4e12, 1e16), 1.401e27, 0.0005e27);
  EXPECT_NEAR(lifetime_flops(20e9, 8e12, 1e12), 1.000e24, 0.0005e24);
  EXPECT_NEAR(lifetime_flops(20e9, 8e12, 1e14), 4.960e24, 0.0005e24);
  EXPECT_NEAR(lifetime_flops(20e9, 8e12, 1e16), 4.010e26, 0.0005e26);
}

TEST(Lifetime, CrossoverBetweenTheTwoModels) {
  const auto s = served_token_crossover({70e9, 1.4e12}, {20e9, 8e12});
  ASSERT_TRUE(s.has_value());
  EXPECT_NEAR(*s, 3.72e12, 1e9);
  EXPECT_NEAR(lifetime_flops(70e9, 1.4e12, *s), lifetime_flops(20e9, 8e12, *s), 1e12);
  // A model that is both smaller and cheaper to train never crosses: it always wins.
  EXPECT_FALSE(served_token_crossover({70e9, 1.4e12}, {20e9, 1e12}).has_value());
  EXPECT_FALSE(served_token_crossover({70e9, 1.4e12}, {70e9, 1e12}).has_value());
}

TEST(InferenceAware, SmallerModelAtTheSameLossForAHeavilyServedModel) {
  const BudgetReport r = budget_report(BudgetInputs{});  // 1e14 served tokens
  const InferenceAwarePlan& p = r.plan;
  EXPECT_TRUE(p.recommend_smaller);
  EXPECT_LT(p.same_loss.params, r.split.params / 2);
  EXPECT_GT(p.same_loss.train_tokens, r.split.tokens);
  // Same loss by construction.
  EXPECT_NEAR(p.law.loss(p.same_loss.params, p.same_loss.train_tokens), p.chinchilla_loss, 1e-9);
  EXPECT_LT(p.lifetime_flops_small, p.lifetime_flops_chinchilla);
  // Within the same budget the smaller model gives up a little loss (the seed: ~0.02 nats).
  EXPECT_GT(p.same_budget_loss - p.chinchilla_loss, 0.0);
  EXPECT_LT(p.same_budget_loss - p.chinchilla_loss, 0.03);
  ASSERT_TRUE(p.crossover_served_tokens.has_value());
  EXPECT_LT(*p.crossover_served_tokens, p.served_tokens);
  EXPECT_NE(r.recommendation.find("I would train"), std::string::npos);
}

TEST(InferenceAware, LightlyServedModelKeepsTheChinchillaAnswer) {
  BudgetInputs in;
  in.served_tokens = 1e9;
  in.serving_latency.enabled = false;  // 8 H100 in 1 s serve at most ~64B: see ServingLimit
  const BudgetReport r = budget_report(in);
  EXPECT_FALSE(r.plan.recommend_smaller);
  EXPECT_NE(r.recommendation.find("I would train the Chinchilla answer"), std::string::npos);
}

TEST(InferenceAware, MoreServingMeansASmallerModel) {
  double prev = 1e300;
  for (double s : {1e12, 1e13, 1e14, 1e15}) {
    BudgetInputs in;
    in.served_tokens = s;
    const double n = budget_report(in).plan.same_loss.params;
    EXPECT_LT(n, prev) << s;
    prev = n;
  }
}

TEST(Budget, DeterministicReport) {
  const BudgetReport a = budget_report(BudgetInputs{});
  const BudgetReport b = budget_report(BudgetInputs{});
  EXPECT_EQ(a.recommendation, b.recommendation);
  EXPECT_EQ(a.plan.same_loss.params, b.plan.same_loss.params);
}

TEST(Budget, InvalidInputThrowsNamingTheParameter) {
  auto expect_msg = [](BudgetInputs in, const std::string& needle) {
    try {
      budget_report(in);
      FAIL() << needle;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  BudgetInputs in;
  in.chip = "H1000";
  expect_msg(in, "chip must be one of H100");
  in = BudgetInputs{};
  in.n_chips = 0;
  expect_msg(in, "chips (chips)");
  in = BudgetInputs{};
  in.days = -1;
  expect_msg(in, "days (days)");
  in = BudgetInputs{};
  in.mfu = 1.5;
  expect_msg(in, "mfu (fraction of peak)");
  in = BudgetInputs{};
  in.mfu = NAN;
  expect_msg(in, "got nan");
  in = BudgetInputs{};
  in.cost.pue = 0.5;
  expect_msg(in, "pue");
  EXPECT_THROW(chinchilla_split(0), std::invalid_argument);
  EXPECT_THROW(chinchilla_split(1e24, 0), std::invalid_argument);
}

// The law is a choice of the plan: another law changes the forecast, and
// the memo names the law it used.
TEST(BudgetLaw, TheChosenLawDrivesTheForecastAndIsNamed) {
  BudgetInputs in;
  const BudgetReport rep = budget_report(in);
  EXPECT_NE(rep.recommendation.find("under the replicated Chinchilla law (Besiroglu et al. 2024)"),
            std::string::npos);
  EXPECT_FALSE(rep.recommended.loss_interval);
  in.law = chinchilla_paper_plan_law();
  const BudgetReport pap = budget_report(in);
  EXPECT_NE(pap.recommendation.find("Hoffmann et al. 2022"), std::string::npos);
  // The forecast is the paper's own constants, data-constrained at 15T
  // unique tokens (the inference-aware model moves with the law too).
  const DataConstrainedLaw paper = with_muennighoff_decay(chinchilla_approach3_law());
  EXPECT_NEAR(pap.recommended.run.loss,
              paper.loss(pap.recommended.run.active_params, pap.recommended.run.tokens, 15e12),
              1e-12);
  EXPECT_GT(std::abs(pap.recommended.run.loss - rep.recommended.run.loss), 0.01);
}

TEST(BudgetLaw, AFittedLawsDrawsGiveTheLossItsInterval) {
  BudgetInputs in;
  const LossLaw base = besiroglu2024_law();
  std::vector<LossLaw> draws;
  for (int i = -10; i <= 10; ++i)
    draws.push_back({base.E + 0.002 * i, base.A, base.alpha, base.B, base.beta});
  in.law = fitted_plan_law(base, draws, "ladder.csv", 1e22);
  const BudgetReport r = budget_report(in);
  ASSERT_TRUE(r.recommended.loss_interval);
  // E shifts the loss one for one: the 95 % interval of ±0.02 nats in 0.002 steps.
  EXPECT_NEAR(r.recommended.loss_interval->low, r.recommended.run.loss - 0.019, 1e-9);
  EXPECT_NEAR(r.recommended.loss_interval->high, r.recommended.run.loss + 0.019, 1e-9);
  EXPECT_NE(r.recommendation.find("under the law fitted to ladder.csv (95 % interval"),
            std::string::npos)
      << r.recommendation;
  // Too far beyond the ladder: the memo cautions, naming the key (napkin-cli
  // refuses it).
  in.law.ladder_max_flops = 1e18;
  EXPECT_NE(budget_report(in).recommendation.find("Caution: ladder_max_flops:"), std::string::npos);
}

// Dense or MoE at one compute: for 1,000 H100 × 30 days an MoE with 64
// experts and top-8 forecasts a lower loss on more tokens, with and without
// the serving limit, and the memo says which to train.
TEST(BudgetMoe, SixtyFourExpertsTopEightBeatTheDenseAnswer) {
  BudgetInputs in;
  in.moe = MoeShape{64, 8, 1, 0};
  for (bool serving : {true, false}) {
    in.serving_latency.enabled = serving;
    const BudgetReport r = budget_report(in);
    ASSERT_TRUE(r.moe);
    const MoeComparison& m = *r.moe;
    EXPECT_DOUBLE_EQ(m.expansion, 8.0);
    EXPECT_LT(m.moe.loss, m.dense.loss) << serving;
    EXPECT_GT(m.moe.tokens, m.dense.tokens) << serving;
    EXPECT_TRUE(m.moe_wins);
    // Same compute: 6·N_act·D is the effective C on both sides.
    EXPECT_NEAR(6 * m.moe.active_params * m.moe.tokens / r.effective_flops, 1.0, 1e-9);
    EXPECT_NEAR(6 * m.dense.active_params * m.dense.tokens / r.effective_flops, 1.0, 1e-9);
    EXPECT_NEAR(m.moe.total_params, moe_total_params(m.moe.active_params, 8.0), 1.0);
    EXPECT_NE(r.recommendation.find("I would train the MoE"), std::string::npos);
    EXPECT_NE(r.recommendation.find("Ludziejewski et al. 2025"), std::string::npos);
    // 1e24 FLOPs lie beyond the joint law's fitted range: read at its edge.
    EXPECT_LT(m.joint_flops, r.effective_flops);
    EXPECT_GT(m.token_ratio, 1.4);
  }
  // Unconstrained, the plan law's fresh optimum is the dense side, and the
  // MoE's loss is that law's optimum at the dense-equivalent compute.
  const BudgetReport r = budget_report(in);
  const LossLaw base = besiroglu2024_law();
  EXPECT_NEAR(r.moe->dense.loss, optimal_loss(base, r.effective_flops), 1e-6);
  EXPECT_NEAR(r.moe->moe.loss, optimal_loss(base, r.moe->compute_multiplier * r.effective_flops),
              1e-6);
  EXPECT_GT(r.moe->compute_multiplier, 1.0);
}

TEST(BudgetMoe, DenseAndInvalidShapes) {
  BudgetInputs in;
  EXPECT_FALSE(budget_report(in).moe);  // experts 1: no candidate
  in.moe = MoeShape{8, 16, 1, 0};
  try {
    (void)budget_report(in);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("top-k", 0), 0u);
  }
  // Beyond the joint law's 32x: no forecast, and the memo says why.
  in.moe = MoeShape{512, 1, 1, 0};
  const BudgetReport r = budget_report(in);
  EXPECT_FALSE(r.moe);
  EXPECT_NE(r.recommendation.find("The MoE candidate is not weighed: experts: 512 experts"),
            std::string::npos);
  EXPECT_THROW(
      (void)compare_dense_moe(in.moe, 1e24, budget_law(), 15e12, ServingLimit{}, 8, 1e12, "law"),
      std::invalid_argument);
}

// A plan past the data-constrained law's 1e18 tokens with a unique-token
// limit (1,000 chips of 1e15 parameters at 1e6 tokens each can ask for it):
// the widget torture test reached 1.06e18 tokens, where the Budget panel's
// refresh threw. The base law prices it.
TEST(Budget, InferenceAwarePlanPastTheDataLawsRange) {
  const TrainedModel chin{70e9, 1.06e18};
  const double flops = 6.0 * chin.params * chin.train_tokens;
  InferenceAwarePlan p;
  EXPECT_NO_THROW(
      p = plan_inference_aware(chin, 1e13, flops, flops / 30, besiroglu2024_law(), 15e12));
  EXPECT_TRUE(std::isfinite(p.chinchilla_loss));
}

// Serving the weights below bf16 costs loss: Kumar et al. 2024's δ_PTQ with
// its Table 2 constants unless others are given, at the recommended model's
// parameters and tokens; worth a compute factor under the plan's law.
TEST(Budget, ServingPrecisionHasALossPenalty) {
  BudgetInputs in = seed_inputs();
  EXPECT_EQ(budget_report(in).quality_penalty_nats.value_or(-1), 0.0);
  in.serving_weights = Dtype::int4;
  const BudgetReport int4 = budget_report(in);
  const RunReport& run = int4.recommended.run;
  ASSERT_TRUE(int4.quality_penalty_nats);
  EXPECT_DOUBLE_EQ(*int4.quality_penalty_nats,
                   kumar2024_ptq_law().degradation_nats(run.params, run.tokens, 4));
  ASSERT_TRUE(int4.quality_penalty_compute_factor);
  EXPECT_GT(*int4.quality_penalty_compute_factor, 1.0);
  // The factor is the compute a compute-optimal run gives up for that loss.
  const LossLaw law = budget_law(in.law).base;
  EXPECT_NEAR(optimal_loss(law, int4.effective_flops / *int4.quality_penalty_compute_factor),
              optimal_loss(law, int4.effective_flops) + *int4.quality_penalty_nats, 1e-9);
  EXPECT_NE(int4.recommendation.find("30M-220M"), std::string::npos) << int4.recommendation;
  in.serving_weights = Dtype::int8;
  const BudgetReport int8 = budget_report(in);
  EXPECT_GT(*int4.quality_penalty_nats, *int8.quality_penalty_nats);
  EXPECT_GT(*int8.quality_penalty_nats, 0.0);
  // Constants given replace the paper's, and say so.
  in.ptq_law = PtqLaw{0.1, 0.5, 0.4, 1.5};
  const BudgetReport given = budget_report(in);
  EXPECT_DOUBLE_EQ(
      *given.quality_penalty_nats,
      in.ptq_law->degradation_nats(given.recommended.run.params, given.recommended.run.tokens, 8));
  EXPECT_NE(given.quality_penalty_text.find("constants given"), std::string::npos);
}

// The lifetime trades hold the loss as served equal: below 16-bit weights the
// smaller model pays its own (larger, overtrained) quantization penalty, so
// it ends larger and less overtrained than at bf16 (CLI default budget,
// README: 29.2B on 14.57T at bf16, 29.5B on 14.41T at int8).
TEST(Budget, LifetimeTradesHoldTheLossAsServed) {
  BudgetInputs in;  // the CLI's default budget
  in.serving_latency.enabled = false;
  const BudgetReport bf16 = budget_report(in);
  in.serving_weights = Dtype::int8;
  const BudgetReport int8 = budget_report(in);
  EXPECT_FALSE(bf16.plan.served_below_bf16);
  EXPECT_TRUE(int8.plan.served_below_bf16);
  EXPECT_NEAR(bf16.plan.same_loss.params, 29.25e9, 0.05e9);
  EXPECT_NEAR(int8.plan.same_loss.params, 29.51e9, 0.05e9);
  EXPECT_NEAR(int8.plan.same_loss.train_tokens, 14.41e12, 0.01e12);
  const PtqLaw ptq = kumar2024_ptq_law();
  const auto served8 = [&](const TrainedModel& m) {
    return budget_law(int8.law).loss(m.params, m.train_tokens, in.tokens_available) +
           ptq.degradation_nats(m.params, m.train_tokens, 8);
  };
  EXPECT_NEAR(int8.plan.chinchilla_loss, served8(int8.plan.chinchilla), 1e-12);
  EXPECT_NEAR(served8(int8.plan.same_loss), int8.plan.chinchilla_loss, 1e-6);
  EXPECT_NEAR(
      served8(int8.dollars.same_loss.params > 0
                  ? TrainedModel{int8.dollars.same_loss.params, int8.dollars.same_loss.train_tokens}
                  : int8.plan.chinchilla),
      int8.dollars.loss, 1e-6);
  EXPECT_NE(int8.recommendation.find("penalty for serving int8 weights"), std::string::npos)
      << int8.recommendation;
  EXPECT_EQ(bf16.recommendation.find("penalty for serving"), std::string::npos);
}

// Issue 26: int4 weights serve a model twice the size within the latency
// limit, but each candidate pays its quantization penalty: what int4 buys in
// loss is smaller than the law alone says (here it costs loss), and int8's
// penalty is small enough that it keeps most of its advantage.
TEST(Budget, NarrowerServedWeightsBuyLessUnderTheLatencyLimitOnceTheirPenaltyCounts) {
  BudgetInputs in = seed_inputs();
  in.serving_latency.enabled = true;
  ServingLimit limit;
  limit.applied = true;
  limit.max_params = 76.4e9;  // an int4 limit (the Budget panel search gives about 76B)
  in.serving_limit = limit;
  in.bf16_serving_limit_params = 38.3e9;
  EXPECT_FALSE(budget_report(in).serving_precision_trade);  // bf16 weights: nothing to weigh
  in.serving_weights = Dtype::int4;
  const BudgetReport int4 = budget_report(in);
  ASSERT_TRUE(int4.serving_precision_trade);
  const auto& t = *int4.serving_precision_trade;
  EXPECT_EQ(t.limit_params, 76.4e9);
  EXPECT_EQ(t.bf16_limit_params, 38.3e9);
  // The law alone: a larger servable model is never worse at the same compute.
  EXPECT_GE(t.advantage_without_penalty_nats, 0.0);
  EXPECT_LT(t.advantage_nats, t.advantage_without_penalty_nats);
  // The best int4 model pays at least the penalty of the smallest one it could
  // be: its advantage is below the law's by more than the least penalty in range.
  const LossLaw law = budget_law(in.law).base;
  const double c = int4.effective_flops;
  const auto served = [&](double n) {
    return law.loss(n, c / (6 * n)) + kumar2024_ptq_law().degradation_nats(n, c / (6 * n), 4);
  };
  const auto plain = [&](double n) { return law.loss(n, c / (6 * n)); };
  double best_bf16 = 1e9, best_int4 = 1e9;
  for (double n = 1e6; n <= 76.4e9; n *= 1.01) {
    if (n <= 38.3e9) best_bf16 = std::min(best_bf16, plain(n));
    best_int4 = std::min(best_int4, served(n));
  }
  best_bf16 = std::min(best_bf16, plain(38.3e9));  // the limits themselves
  best_int4 = std::min(best_int4, served(76.4e9));
  double best_raw = 1e9;
  for (double n = 1e6; n <= 76.4e9; n *= 1.01) best_raw = std::min(best_raw, plain(n));
  best_raw = std::min(best_raw, plain(76.4e9));
  EXPECT_NEAR(t.advantage_without_penalty_nats, best_bf16 - best_raw, 2e-4);
  EXPECT_NEAR(t.advantage_nats, best_bf16 - best_int4, 2e-4);
  EXPECT_NE(int4.quality_penalty_text.find("Under the latency limit"), std::string::npos)
      << int4.quality_penalty_text;
  // A trade that loses says which weights serve the better model.
  ASSERT_LT(t.advantage_nats, 0.0);
  EXPECT_NE(int4.quality_penalty_text.find("bf16 weights serve the better model"),
            std::string::npos)
      << int4.quality_penalty_text;
  in.serving_weights = Dtype::int8;
  const BudgetReport int8 = budget_report(in);
  ASSERT_TRUE(int8.serving_precision_trade);
  EXPECT_GT(int8.serving_precision_trade->advantage_nats, t.advantage_nats);
  ASSERT_GT(int8.serving_precision_trade->advantage_nats, 0.0);
  EXPECT_EQ(int8.quality_penalty_text.find("serve the better model"), std::string::npos);
  // Without the bf16 limit (a caller that did not search at 16 bits): no trade.
  in.bf16_serving_limit_params.reset();
  EXPECT_FALSE(budget_report(in).serving_precision_trade);
}

TEST(Budget, Fp8TrainingNamesItsPeakAndItsLossCost) {
  BudgetInputs in = seed_inputs();
  const BudgetReport bf16 = budget_report(in);
  EXPECT_DOUBLE_EQ(bf16.train_gemm_peak_flops_per_s, chip_by_name("H100").peak_flops_per_s);
  EXPECT_TRUE(bf16.train_precision_text.empty());
  EXPECT_EQ(bf16.train_precision_penalty_nats.value_or(-1), 0.0);
  in.precision = Precision::mixed_fp8;
  const BudgetReport fp8 = budget_report(in);
  EXPECT_DOUBLE_EQ(fp8.train_gemm_peak_flops_per_s, chip_by_name("H100").fp8_peak_flops_per_s);
  // C follows the MFU (model FLOPs over the bf16 peak), not the peaks' ratio.
  EXPECT_DOUBLE_EQ(fp8.flops, bf16.flops);
  EXPECT_EQ(fp8.train_memory.total, bf16.train_memory.total);
  // Its loss: Kumar et al. 2024's N_eff at 8 bits (Table 2) against 16, under
  // the plan's law at the recommended model's parameters and tokens.
  ASSERT_TRUE(fp8.train_precision_penalty_nats);
  const RunReport& run = fp8.recommended.run;
  EXPECT_NEAR(*fp8.train_precision_penalty_nats,
              kumar2024_train_precision_law().penalty_vs_bf16_nats(budget_law(in.law).base,
                                                                   run.params, run.tokens, 8),
              1e-12);
  EXPECT_GT(*fp8.train_precision_penalty_nats, 0.0);
  // The penalty is in the forecast: every forecast reads the law with N·share
  // for N (share = 0.8278 / 0.9938), named so; the bf16 plan's law is the
  // plan's own.
  EXPECT_EQ(bf16.law, in.law);
  EXPECT_NEAR(fp8.law.law.A / in.law.law.A,
              std::pow(kumar2024_train_precision_law().share_vs_bf16(8), -in.law.law.alpha), 1e-12);
  EXPECT_NE(fp8.law.name.find("FP8 training"), std::string::npos) << fp8.law.name;
  EXPECT_NEAR(run.loss,
              budget_law(in.law).loss(run.params, run.tokens, run.unique_tokens) +
                  *fp8.train_precision_penalty_nats,
              1e-12);
  EXPECT_NE(fp8.recommendation.find("forecast loss " + format_grouped(run.loss, 3) +
                                    " nats under " + fp8.law.name),
            std::string::npos)
      << fp8.recommendation;
  // The Chinchilla answer's loss at the same compute is worse by the penalty
  // at its size; the optimum under the FP8 law is a larger model.
  EXPECT_GT(fp8.plan.chinchilla_loss, bf16.plan.chinchilla_loss);
  EXPECT_GT(analytic_optimum(fp8.law.law, fp8.effective_flops).n_params,
            analytic_optimum(in.law.law, bf16.effective_flops).n_params);
  EXPECT_NE(fp8.train_precision_text.find("82.8 %"), std::string::npos) << fp8.train_precision_text;
  EXPECT_NE(fp8.train_precision_text.find("30M-220M"), std::string::npos);
  EXPECT_EQ(fp8.train_precision_text.find("not priced"), std::string::npos);
  EXPECT_NE(fp8.recommendation.find("FP8 GEMMs"), std::string::npos);
  // A chip without an FP8 peak refuses it, naming the input.
  in.chip = "A100-80";
  try {
    (void)budget_report(in);
    FAIL() << "the A100 has no FP8 peak";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("train_precision"), std::string::npos) << e.what();
  }
}
