#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "model_presets.h"
#include "serving_search.h"
#include "serving_test_util.h"

using namespace napkin;

namespace {

SearchInputs napkin_search(double budget = 1.0) {
  SearchInputs s;
  s.serving.chip = "TPU v5e";
  s.serving.assume = ServingAssumptions::napkin();
  s.budget.turn_seconds = budget;
  return s;
}

// Whether any layout of exactly `chips` chips meets the budget at batch 1.
bool any_layout_meets(const ServingModel& m, const SearchInputs& in, std::int64_t chips) {
  SearchInputs one = in;
  one.max_chips = chips;
  const SearchAnswer a = search_serving(m, one);
  for (const LayoutCandidate& c : a.layouts)
    if (c.chips == chips && c.meets()) return true;
  return false;
}

void expect_meets(const ServingResult& r, const LatencyBudget& b) {
  EXPECT_TRUE(r.fits);
  if (b.turn_seconds) {
    EXPECT_LE(r.turn_seconds, *b.turn_seconds);
  }
  if (b.ttft_seconds) {
    EXPECT_LE(r.ttft_seconds, *b.ttft_seconds);
  }
  if (b.tpot_seconds) {
    EXPECT_LE(r.tpot_seconds, *b.tpot_seconds);
  }
}

}  // namespace

// ------------------------------------------------------------------ search

TEST(ServingSearch, TheSeedsChipsForAOneSecondTurn) {
  // Phase 03 ch. 6: 70B → 64, 35B → 32, 17B → 16, 8B → 8 TPU v5e, under the
  // napkin's assumptions (no communication, peak FLOP/s, full bandwidth).
  const std::pair<double, std::int64_t> rows[] = {{70e9, 64}, {35e9, 32}, {17e9, 16}, {8e9, 8}};
  for (const auto& [n, chips] : rows) {
    const SearchAnswer a = search_serving(serving_model(n), napkin_search());
    ASSERT_TRUE(a.best) << n << ": " << a.reason;
    EXPECT_EQ(a.best->chips, chips) << n;
    EXPECT_EQ(a.best->layout.tp, chips) << n;  // all tensor-parallel: PP cannot cut decode
    EXPECT_GE(a.best->max_batch, 1);
  }
}

TEST(ServingSearch, CommunicationNeverLowersTheChipsForABudget) {
  for (double n : {8e9, 17e9, 35e9, 70e9}) {
    SearchInputs off = napkin_search(), on = napkin_search();
    on.serving.assume.communication = true;
    const SearchAnswer a = search_serving(serving_model(n), off);
    const SearchAnswer b = search_serving(serving_model(n), on);
    ASSERT_TRUE(a.best);
    if (b.best) {
      EXPECT_GE(b.best->chips, a.best->chips) << n;
    }
  }
}

TEST(ServingSearch, TheAnswerMeetsTheBudgetAndHalfTheChipsDoNot) {
  struct Case {
    ServingModel model;
    const char* chip;
    LatencyBudget budget;
    Dtype weights;
  };
  const Case cases[] = {
      {serving_model(kLlama3_70B), "H100", {2.0, std::nullopt, std::nullopt}, Dtype::bf16},
      {serving_model(kLlama3_70B), "H100", {std::nullopt, 1.0, 0.03}, Dtype::fp8},
      {serving_model(preset("Mixtral-8x7B")),
       "H100",
       {1.5, std::nullopt, std::nullopt},
       Dtype::bf16},
      {serving_model(preset("Llama-3-8B")), "TPU v5e", {std::nullopt, 0.6, 0.02}, Dtype::int8},
      {serving_model(35e9), "MI300X", {1.0, std::nullopt, 0.02}, Dtype::int4},
  };
  for (const Case& c : cases) {
    SearchInputs in;
    in.serving.chip = c.chip;
    in.serving.weights = c.weights;
    in.budget = c.budget;
    const SearchAnswer a = search_serving(c.model, in);
    ASSERT_TRUE(a.best) << c.chip << ": " << a.reason;
    expect_meets(a.best->result, c.budget);
    EXPECT_EQ(a.best->result.batch, a.best->max_batch);
    if (a.best->chips > 1) {
      EXPECT_FALSE(any_layout_meets(c.model, in, a.best->chips / 2));
    }
    // One more request in the batch breaks the budget or the memory.
    if (a.best->max_batch < in.max_batch) {
      ServingInputs more = in.serving;
      more.layout = a.best->layout;
      more.batch = a.best->max_batch + 1;
      const ServingResult r = evaluate_serving(c.model, more);
      const bool ok = r.fits &&
                      (!c.budget.turn_seconds || r.turn_seconds <= *c.budget.turn_seconds) &&
                      (!c.budget.ttft_seconds || r.ttft_seconds <= *c.budget.ttft_seconds) &&
                      (!c.budget.tpot_seconds || r.tpot_seconds <= *c.budget.tpot_seconds);
      EXPECT_FALSE(ok) << c.chip;
    }
    ASSERT_TRUE(a.most_efficient);
    EXPECT_GE(a.most_efficient->result.tokens_per_second_per_chip,
              a.best->result.tokens_per_second_per_chip);
  }
}

TEST(ServingSearch, EveryFourByFourSplitIsTried) {
  // "How would we shard on 4×4?": the 16-chip slice as TP 16, 8×2, 4×4, 2×8, 1×16.
  const SearchAnswer a = search_serving(serving_model(70e9), napkin_search());
  std::vector<ServingLayout> sixteen;
  for (const LayoutCandidate& c : a.layouts)
    if (c.chips == 16) sixteen.push_back(c.layout);
  EXPECT_EQ(sixteen,
            (std::vector<ServingLayout>{{16, 1, 1}, {8, 2, 1}, {4, 4, 1}, {2, 8, 1}, {1, 16, 1}}));
}

TEST(ServingSearch, NoneSaysWhy) {
  // 70B on v5e with communication: TP stops at the 64 heads and every
  // all-reduce costs latency — no slice reaches a 0.5 s turn.
  SearchInputs in;
  in.serving.chip = "TPU v5e";
  in.budget.turn_seconds = 0.5;
  const SearchAnswer a = search_serving(serving_model(kLlama3_70B), in);
  EXPECT_FALSE(a.best);
  EXPECT_NE(a.reason.find("no slice of up to 4,096 chips"), std::string::npos) << a.reason;
  EXPECT_NE(a.reason.find("fastest turn"), std::string::npos) << a.reason;
  EXPECT_NE(a.reason.find("smaller model"), std::string::npos) << a.reason;
  // A model too big to hold at all.
  SearchInputs tiny = napkin_search(10.0);
  tiny.max_chips = 2;
  const SearchAnswer b = search_serving(serving_model(1e12), tiny);
  EXPECT_FALSE(b.best);
  EXPECT_NE(b.reason.find("no layout holds the model"), std::string::npos) << b.reason;
  // TTFT and TPOT each name their best.
  SearchInputs split = in;
  split.budget = {std::nullopt, 0.26, 0.001};
  const SearchAnswer c = search_serving(serving_model(kLlama3_70B), split);
  EXPECT_FALSE(c.best);
  EXPECT_NE(c.reason.find("lowest TTFT"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("lowest TPOT"), std::string::npos) << c.reason;
}

TEST(ServingSearchProperty, Int4NeverNeedsMoreChipsThanBf16) {
  const ServingModel models[] = {serving_model(kLlama3_70B), serving_model(preset("Mixtral-8x7B")),
                                 serving_model(8e9), serving_model(180e9)};
  const char* chips[] = {"H100", "TPU v5e", "A100-80"};
  const LatencyBudget budgets[] = {{1.0, std::nullopt, std::nullopt},
                                   {3.0, std::nullopt, std::nullopt},
                                   {std::nullopt, 1.0, 0.05},
                                   {std::nullopt, 0.5, 0.02}};
  for (const ServingModel& m : models)
    for (const char* chip : chips)
      for (const LatencyBudget& b : budgets) {
        SearchInputs in;
        in.serving.chip = chip;
        in.budget = b;
        const SearchAnswer bf16 = search_serving(m, in);
        in.serving.weights = Dtype::int4;
        const SearchAnswer int4 = search_serving(m, in);
        if (bf16.best) {
          ASSERT_TRUE(int4.best) << chip << " " << b.describe();
          EXPECT_LE(int4.best->chips, bf16.best->chips) << chip << " " << b.describe();
        }
      }
}

TEST(ServingSearch, BadBudgetsNameTheParameter) {
  SearchInputs in;
  in.budget.turn_seconds = 0.25;  // the overhead
  try {
    search_serving(serving_model(70e9), in);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("budget_seconds"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("overhead"), std::string::npos) << e.what();
  }
  in.budget = {std::nullopt, 0.1, 0.05};
  try {
    in.budget.validate(0.25, "--budget-s", "--ttft-s", "--tpot-s");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--ttft-s"), std::string::npos) << e.what();
  }
  in.budget = {};
  EXPECT_THROW(search_serving(serving_model(70e9), in), std::invalid_argument);
  in.budget.turn_seconds = 1.0;
  in.max_chips = 3000;
  EXPECT_THROW(search_serving(serving_model(70e9), in), std::invalid_argument);
  EXPECT_EQ((LatencyBudget{std::nullopt, 0.5, 0.02}).describe(),
            "TTFT <= 500 ms and TPOT <= 20 ms");
}

// ------------------------------------------------------------ disaggregation

TEST(Disaggregation, PoolsSizedForTheirOwnTargets) {
  DisaggregationInputs in;
  in.search.serving.chip = "H100";
  in.search.budget = {std::nullopt, 1.0, 0.05};
  const ServingModel m = serving_model(kLlama3_70B);
  const Disaggregation d = compare_disaggregation(m, in);
  EXPECT_NEAR(d.requests_per_second, 1e9 / 86400 / 128, 1e-9);
  ASSERT_TRUE(d.prefill.slice && d.decode.slice && d.shared.slice) << d.verdict;
  expect_meets(d.prefill.slice->result, {std::nullopt, 1.0, std::nullopt});
  expect_meets(d.decode.slice->result, {std::nullopt, std::nullopt, 0.05});
  expect_meets(d.shared.slice->result, in.search.budget);
  EXPECT_EQ(d.disaggregated_chips, d.prefill.chips + d.decode.chips);
  for (const PoolPlan* p : {&d.prefill, &d.decode, &d.shared}) {
    EXPECT_EQ(p->chips, p->slices * p->slice->chips);
    EXPECT_GT(p->utilization, 0);
    EXPECT_LE(p->utilization, 1.0 + 1e-12);
  }
  const bool split_wins = d.disaggregated_chips < d.shared.chips;
  EXPECT_EQ(d.winner,
            split_wins ? Disaggregation::Winner::disaggregated : Disaggregation::Winner::shared);
  EXPECT_NEAR(d.shared_tokens_per_second_per_chip, 1e9 / 86400 / d.shared.chips, 1e-9);
  EXPECT_FALSE(d.verdict.empty());
  // Long prompts and short answers: the shared pool's decode steps stall
  // behind prefills, and splitting the phases wins (DistServe's argument).
  EXPECT_EQ(d.winner, Disaggregation::Winner::disaggregated) << d.verdict;

  // Ten times the traffic needs more chips, never fewer.
  DisaggregationInputs busy = in;
  busy.generated_tokens_per_day = 1e10;
  const Disaggregation e = compare_disaggregation(m, busy);
  EXPECT_GE(e.disaggregated_chips, d.disaggregated_chips);
  EXPECT_GE(e.shared.chips, d.shared.chips);
  // A turn budget alone cannot size the pools.
  DisaggregationInputs turn = in;
  turn.search.budget = {1.0, std::nullopt, std::nullopt};
  EXPECT_THROW(compare_disaggregation(m, turn), std::invalid_argument);
}

// ------------------------------------------------- the Budget planner's view

TEST(Servable, StatesThePrecisionAndTheThreshold) {
  const ServingModel m = serving_model(kLlama3_70B);
  ServableInputs in;  // 8 × H100, bf16, 8 requests of 8k
  const ServableCheck c = servable_check(m, in);
  EXPECT_TRUE(c.fits);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.node_layout, (ServingLayout{8, 1, 1}));
  EXPECT_NE(c.detail.find("bf16 weights, bf16 KV cache"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("90 %"), std::string::npos) << c.detail;
  EXPECT_NE(c.detail.find("fits"), std::string::npos) << c.detail;
  // A 405B-class model in bf16 does not fit one node; int4 does.
  const ServingModel big = serving_model(405e9);
  EXPECT_FALSE(servable_check(big, in).fits);
  in.weights = Dtype::int4;
  const ServableCheck q = servable_check(big, in);
  EXPECT_TRUE(q.fits);
  EXPECT_NE(q.detail.find("int4 weights"), std::string::npos) << q.detail;
}

TEST(Servable, LargestModelForTheBudget) {
  // Napkin: 64 v5e, 1 s turn, 8k prompt, 128 out: 2N·8192 / (64 · 197e12) +
  // 128 · 2N / (64 · 819e9) ≤ 0.75 s gives N ≤ 121.3B.
  SearchInputs in = napkin_search();
  in.max_chips = 64;
  const auto n = largest_params_for_budget(in);
  ASSERT_TRUE(n);
  const double bound = 0.75 / (2.0 * 8192 / (64 * 197e12) + 128 * 2.0 / (64 * 819e9));
  EXPECT_LE(*n, bound * 1.0001);
  EXPECT_GE(*n, bound / 1.02);
  // Nothing fits a budget one chip cannot reach at the smallest model.
  SearchInputs tight = napkin_search(0.2500001);
  tight.max_chips = 1;
  EXPECT_FALSE(largest_params_for_budget(tight));
}

// ------------------------------------------------- the cost of a token vs precision

TEST(CostVsPrecision, LowerPrecisionNeverCostsMoreChips) {
  SearchInputs in;
  in.serving.chip = "H100";
  in.budget.turn_seconds = 2.0;
  const ServingModel m = serving_model(kLlama3_70B);
  const auto points = cost_vs_precision(m, in);
  ASSERT_EQ(points.size(), 4u);
  EXPECT_EQ(points[0].weights, Dtype::bf16);
  EXPECT_EQ(points[3].weights, Dtype::int4);
  EXPECT_DOUBLE_EQ(points[3].bits_per_weight, 4.125);
  ASSERT_TRUE(points[0].best && points[3].best);
  EXPECT_LE(points[3].best->chips, points[0].best->chips);
  EXPECT_NEAR(points[0].seed_joules_per_token, m.active_params() * 16 * 20e-12, 1e-9);
  // A chip with FP4 tensor cores adds NVFP4, no costlier than int4's weight-only GEMMs.
  in.serving.chip = "B200";
  const auto blackwell = cost_vs_precision(m, in);
  ASSERT_EQ(blackwell.size(), 5u);
  EXPECT_EQ(blackwell[4].weights, Dtype::fp4);
  EXPECT_DOUBLE_EQ(blackwell[4].bits_per_weight, 4.5);
  ASSERT_TRUE(blackwell[4].best && blackwell[0].best);
  EXPECT_LE(blackwell[4].best->chips, blackwell[0].best->chips);
}

TEST(ServingView, EverythingThePanelDraws) {
  ServingViewInputs in;
  in.search.serving.chip = "H100";
  in.search.serving.layout = {8, 1, 1};
  in.search.serving.batch = 4;
  in.search.budget = {std::nullopt, 1.0, 0.05};
  const ServingModel m = serving_model(kLlama3_70B);
  const ServingView v = make_serving_view(m, in);
  EXPECT_EQ(v.chosen.layout, (ServingLayout{8, 1, 1}));
  EXPECT_EQ(v.chosen.batch, 4);
  EXPECT_EQ(v.chosen.turn_seconds, evaluate_serving(m, in.search.serving).turn_seconds);
  EXPECT_TRUE(v.search.best);
  EXPECT_TRUE(v.disaggregation);
  EXPECT_EQ(v.precisions.size(), 4u);
  EXPECT_EQ(v.seed_energy.size(), 4u);
  EXPECT_EQ(v.precision, "bf16 weights, bf16 KV cache");
  EXPECT_FALSE(v.energy_share.empty());
  in.search.budget = {1.5, std::nullopt, std::nullopt};
  EXPECT_FALSE(make_serving_view(m, in).disaggregation);
}

TEST(ServingLayouts, EverySplitTheModelAllows) {
  const ServingModel m = serving_model(kLlama3_70B);
  EXPECT_EQ(serving_layouts(m, 24),
            (std::vector<ServingLayout>{{8, 3, 1}, {4, 6, 1}, {2, 12, 1}, {1, 24, 1}}));
  EXPECT_FALSE(serving_layouts(m, 64 * 64).empty());
  EXPECT_TRUE(serving_layouts(m, 64 * 81 * 2).empty());  // TP ≤ 64 heads, PP ≤ 80 layers
  const ServingModel x = serving_model(preset("Mixtral-8x7B"));
  for (const ServingLayout& l : serving_layouts(x, 16)) {
    EXPECT_EQ(l.chips(), 16);
    EXPECT_EQ(32 % l.tp, 0);
    EXPECT_EQ(8 % l.ep, 0);
  }
  EXPECT_EQ(serving_layouts(x, 16).front(), (ServingLayout{16, 1, 1}));
  // 8 H100 for Llama-3-70B: all tensor-parallel is the fastest turn.
  ServingInputs in;
  in.chip = "H100";
  EXPECT_EQ(fastest_layout(m, in, 8), (ServingLayout{8, 1, 1}));
  // Nothing fits one v5e: the layout with the least memory per chip is named.
  in.chip = "TPU v5e";
  EXPECT_EQ(fastest_layout(m, in, 1), (ServingLayout{1, 1, 1}));
  EXPECT_FALSE(fastest_layout(m, in, 64 * 81 * 2));
}

TEST(Servable, TheMemosServingConstraint) {
  SearchInputs in = napkin_search();
  in.max_chips = 64;
  const ServingConstraint big = serving_constraint(200e9, in);
  ASSERT_TRUE(big.largest_params);
  EXPECT_TRUE(big.binds);
  EXPECT_NE(big.text.find("bf16 weights, bf16 KV cache"), std::string::npos) << big.text;
  EXPECT_NE(big.text.find("beyond it"), std::string::npos) << big.text;
  EXPECT_NE(big.text.find("64 TPU v5e"), std::string::npos) << big.text;
  const ServingConstraint small = serving_constraint(70e9, in);
  EXPECT_FALSE(small.binds);
  EXPECT_NE(small.text.find("within it"), std::string::npos) << small.text;
  // Lower precision serves a larger model under the same budget.
  in.serving.weights = Dtype::int4;
  EXPECT_GT(*serving_constraint(70e9, in).largest_params, *big.largest_params);
}

TEST(ServingSearch, OneRowPerSliceSize) {
  // Llama-3-70B on TPU v5e within a 1 s turn: small slices miss (the weights
  // do not fit, or the turn is too slow), larger ones meet it.
  const SearchInputs in = napkin_search(1.0);
  const SearchAnswer a = search_serving(serving_model(preset("Llama-3-70B")), in);
  ASSERT_FALSE(a.slices.empty());
  std::int64_t previous = 0;
  bool any_meets = false;
  for (const SliceSummary& row : a.slices) {
    EXPECT_GT(row.chips, previous);
    EXPECT_EQ(row.chips & (row.chips - 1), 0) << row.chips;  // powers of two
    previous = row.chips;
    EXPECT_EQ(row.layout.chips, row.chips);
    EXPECT_EQ(row.meets, row.layout.meets());
    // A row that meets shows the slice's highest throughput per chip.
    for (const LayoutCandidate& c : a.layouts)
      if (c.chips == row.chips && c.meets()) {
        ASSERT_TRUE(row.meets);
        EXPECT_LE(c.result.tokens_per_second_per_chip,
                  row.layout.result.tokens_per_second_per_chip);
      }
    if (row.meets && !any_meets) {
      ASSERT_TRUE(a.best.has_value());
      EXPECT_EQ(a.best->chips, row.chips);  // the smallest slice that meets is the answer
    }
    any_meets = any_meets || row.meets;
    if (!row.meets) {
      EXPECT_FALSE(row.layout.reason.empty());
    }
  }
  EXPECT_TRUE(any_meets);
}
