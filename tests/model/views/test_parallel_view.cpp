// The Parallelism panel's arithmetic on the shared scenario: its training job,
// its layouts under the panel's locks, the layout it runs and the MFU the
// Budget planner takes from it.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "budget_view.h"
#include "parallel_test_util.h"
#include "parallel_view.h"
#include "scenario.h"

using namespace napkin;

TEST(ParallelView, TheJobIsTheScenariosModelOnItsChips) {
  Scenario s;
  s.training.seq_len = 4096;
  s.parallel.global_batch_tokens = 2'000'000;
  s.parallel.software = "megatron-2022";
  const TrainingJob job = training_job(s);
  EXPECT_EQ(job.shape, s.shape);
  EXPECT_EQ(job.chip, s.chip);
  EXPECT_EQ(job.n_chips, s.n_chips);
  EXPECT_EQ(job.seq_len, 4096);
  // 2,000,000 ÷ 4,096 = 488.3 sequences, to the nearest multiple of 125 (1,000 = 8 × 125).
  EXPECT_EQ(job.global_batch, 500);
  EXPECT_EQ(job.optimizer, s.training.optimizer);
  EXPECT_EQ(job.software, software_by_name("megatron-2022"));
  EXPECT_DOUBLE_EQ(job.train_tokens, s.train_inputs().tokens());
  // Fewer tokens than one multiple still make one.
  s.parallel.global_batch_tokens = 100;
  EXPECT_EQ(training_job(s).global_batch, 125);
  s.plan.train_tokens = 3e12;
  EXPECT_DOUBLE_EQ(training_job(s).train_tokens, 3e12);
}

TEST(ParallelView, StepSequencesSplitOverTheChipsOddFactor) {
  Scenario s;  // 1,000 chips, 4 Mi tokens of 8,192
  EXPECT_EQ(step_sequences(s), 500);
  s.n_chips = 1024;
  EXPECT_EQ(step_sequences(s), 512);
  s.n_chips = 1536;  // 3 × 512
  EXPECT_EQ(step_sequences(s), 513);
  s.n_chips = 7;
  s.parallel.global_batch_tokens = 8192;
  EXPECT_EQ(step_sequences(s), 7);
  s.parallel.global_batch_tokens = 11 * 8192;
  EXPECT_EQ(step_sequences(s), 14);  // 11 → the nearest multiple of 7
}

TEST(ParallelView, TheDefaultScenarioHasLayoutsAndRunsTheFastestThatFits) {
  const Scenario s;
  const SearchResult r = scenario_layouts(s);
  ASSERT_GT(r.fitting, 0);
  ASSERT_TRUE(r.layouts.front().fits);
  for (std::int64_t i = 1; i < r.fitting; ++i)
    EXPECT_LE(r.layouts[i - 1].step_seconds, r.layouts[i].step_seconds);
  for (const LayoutResult& l : r.layouts) EXPECT_EQ(l.layout.chips(), s.n_chips);
  const auto run = scenario_layout(s, r);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->layout, r.layouts.front().layout);
  EXPECT_EQ(scenario_layout(s)->layout, run->layout);
}

TEST(ParallelView, LocksReachTheSearch) {
  Scenario s;
  s.parallel.tp = 8;
  s.parallel.zero = 1;
  s.parallel.recompute = Checkpointing::full;
  const SearchResult r = scenario_layouts(s);
  ASSERT_FALSE(r.layouts.empty());
  for (const LayoutResult& l : r.layouts) {
    EXPECT_EQ(l.layout.tp, 8);
    EXPECT_EQ(l.layout.zero, 1);
    EXPECT_EQ(l.layout.recompute, Checkpointing::full);
  }
  const SearchOptions o = s.parallel.search_options();
  EXPECT_EQ(o.tp, 8);
  EXPECT_EQ(o.zero, 1);
  EXPECT_FALSE(o.pp);
  EXPECT_TRUE(o.even_stages);
  EXPECT_TRUE(o.tp_within_node);
}

TEST(ParallelView, TheChosenLayoutIsEvaluatedEvenWhenItDoesNotFit) {
  Scenario s;
  Layout l;  // the whole 70B model on every rank
  l.dp = 500;
  l.cp = 2;
  l.sequence_parallel = false;  // no effect at tp = 1: the result says off
  s.parallel.chosen = l;
  const auto run = scenario_layout(s);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->layout, l);
  EXPECT_TRUE(run->valid);
  EXPECT_FALSE(run->fits);  // 140 GB of bf16 weights alone
  EXPECT_FALSE(run->reason.empty());
  const LayoutResult direct = evaluate_layout(training_job(s), l);
  EXPECT_EQ(run->step_seconds, direct.step_seconds);
  EXPECT_EQ(run->memory.total_bytes, direct.memory.total_bytes);
}

TEST(ParallelView, BudgetMfuIsAssumedUnlessAFittingLayoutPredictsIt) {
  Scenario s;
  MfuChoice c = budget_mfu(s);
  EXPECT_EQ(c.source, MfuSource::assumed);
  EXPECT_DOUBLE_EQ(c.mfu, s.mfu);
  EXPECT_TRUE(c.note.empty());

  s.parallel.mfu_source = MfuSource::predicted;
  const SearchResult r = scenario_layouts(s);
  c = budget_mfu(s, r);
  EXPECT_EQ(c.source, MfuSource::predicted);
  EXPECT_DOUBLE_EQ(c.mfu, r.layouts.front().mfu);
  EXPECT_EQ(c.layout, to_string(r.layouts.front().layout));
  EXPECT_GT(c.mfu, 0.0);
  EXPECT_LT(c.mfu, 1.0);

  Layout whole;
  whole.dp = 500;
  whole.cp = 2;
  s.parallel.chosen = whole;  // does not fit
  c = budget_mfu(s);
  EXPECT_EQ(c.source, MfuSource::assumed);
  EXPECT_DOUBLE_EQ(c.mfu, s.mfu);
  EXPECT_NE(c.note.find("does not fit"), std::string::npos) << c.note;

  // Issue 27: a layout chosen for another chip count cannot run here; it is
  // set aside (and said so) and the fastest layout that fits predicts.
  Layout stale = r.layouts.front().layout;
  stale.dp *= 2;  // chips no longer multiply to the cluster
  s.parallel.chosen = stale;
  c = budget_mfu(s);
  EXPECT_EQ(c.source, MfuSource::predicted);
  EXPECT_EQ(c.layout, to_string(r.layouts.front().layout));
  EXPECT_TRUE(c.note.empty()) << c.note;
  EXPECT_NE(c.dropped.find("cannot run"), std::string::npos) << c.dropped;
  EXPECT_NE(c.dropped.find(to_string(stale)), std::string::npos) << c.dropped;
  EXPECT_EQ(c.dropped, dropped_choice(s));
  const ParallelView v = make_parallel_view(s, &r);
  EXPECT_FALSE(v.chosen);
  ASSERT_TRUE(v.layout);
  EXPECT_EQ(v.layout->layout, r.layouts.front().layout);
  EXPECT_EQ(v.dropped, c.dropped);
  EXPECT_EQ(v.budget.dropped, c.dropped);
  const BudgetView b = make_budget_view(s);
  EXPECT_NE(b.report.recommendation.find("set aside"), std::string::npos)
      << b.report.recommendation;
}

TEST(ParallelView, MfuSourceNamesRoundTrip) {
  for (MfuSource m : {MfuSource::assumed, MfuSource::predicted})
    EXPECT_EQ(parse_mfu_source(to_string(m)), m);
  EXPECT_EQ(to_string(MfuSource::predicted), "predicted");
  EXPECT_THROW_NAMING(parse_mfu_source("guessed"), "mfu_source");
}

TEST(ParallelView, SettingsValidateNameTheField) {
  ParallelSettings p;
  EXPECT_NO_THROW(p.validate());
  p.global_batch_tokens = 0;
  EXPECT_THROW_NAMING(p.validate(), "global_batch_tokens");
  p = {};
  p.software = "megatron-1999";
  EXPECT_THROW_NAMING(p.validate(), "modern");
  p = {};
  p.tp = 0;
  EXPECT_THROW_NAMING(p.validate(), "tp");
  p = {};
  p.zero = 4;
  EXPECT_THROW_NAMING(p.validate(), "zero");
  p = {};
  p.chosen = Layout{};
  p.chosen->micro_batch = 0;
  EXPECT_THROW_NAMING(p.validate(), "chosen.micro_batch");
  Scenario s;
  s.parallel.pp = -1;
  EXPECT_THROW_NAMING(s.validate(), "Parallelism settings");
}

// Not a timing assertion: the default search must stay small enough to list.
TEST(ParallelView, TheDefaultSearchIsOfAListableSize) {
  const SearchResult r = scenario_layouts(Scenario{});
  EXPECT_GT(r.layouts.size(), 10u);
  EXPECT_LT(r.layouts.size(), 100'000u);
}

TEST(ParallelView, TheViewShowsTheLayoutItsStagesAndItsSchedule) {
  Scenario s;
  const SearchResult r = scenario_layouts(s);
  const ParallelView v = make_parallel_view(s, &r);
  ASSERT_TRUE(v.valid());
  ASSERT_TRUE(v.layout);
  EXPECT_FALSE(v.chosen);
  EXPECT_EQ(v.layout->layout, r.layouts.front().layout);
  EXPECT_EQ(v.layout->step_seconds, r.layouts.front().step_seconds);
  EXPECT_EQ(static_cast<std::int64_t>(v.stages.size()), v.layout->layout.pp);
  std::int64_t peak = 0;
  for (const StageMemory& m : v.stages) peak = std::max(peak, m.total_bytes);
  EXPECT_EQ(peak, v.layout->memory.total_bytes);
  EXPECT_EQ(v.schedule.stages, v.layout->layout.pp);
  EXPECT_FALSE(v.schedule.ops.empty());
  EXPECT_EQ(v.hbm_bytes, device_memory(chip_by_name(s.chip)).bytes);
  EXPECT_FALSE(v.mfu_grid.empty());
  // The parts of the waterfall add up to the step.
  double sum = 0;
  for (const StepPart& p : step_parts(v.layout->time)) sum += p.seconds;
  EXPECT_NEAR(sum, v.layout->step_seconds, 1e-9 * v.layout->step_seconds);
  EXPECT_EQ(step_parts(v.layout->time).size(), 9u);
}

TEST(ParallelView, AStaleSearchIsReEvaluatedForTheCurrentJob) {
  Scenario s;
  const SearchResult old = scenario_layouts(s);
  s.parallel.global_batch_tokens *= 2;
  const ParallelView v = make_parallel_view(s, &old);
  ASSERT_TRUE(v.layout);
  const LayoutResult now = evaluate_layout(training_job(s), old.layouts.front().layout);
  EXPECT_EQ(v.layout->step_seconds, now.step_seconds);
  EXPECT_NE(v.layout->step_seconds, old.layouts.front().step_seconds);
}

TEST(ParallelView, AnInvalidChosenLayoutHasNoStagesButAReason) {
  Scenario s;
  Layout l;
  l.tp = 3;  // does not divide the 64 heads
  l.dp = 333;
  s.parallel.chosen = l;
  const ParallelView v = make_parallel_view(s);
  // Issue 27: a choice that cannot run is set aside, with the reason; with no
  // search there is no other layout to run.
  EXPECT_FALSE(v.chosen);
  EXPECT_FALSE(v.layout);
  EXPECT_NE(v.dropped.find("cannot run"), std::string::npos) << v.dropped;
  EXPECT_NE(v.dropped.find(evaluate_layout(v.job, l).reason), std::string::npos) << v.dropped;
  EXPECT_TRUE(v.stages.empty());
  EXPECT_TRUE(v.schedule.ops.empty());
}
