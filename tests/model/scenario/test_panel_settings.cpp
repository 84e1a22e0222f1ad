// The panels' settings in the scenario: defaults, validation, and the
// conversions the panels and the headline outputs share.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "budget.h"
#include "hardware.h"
#include "isoflops_view.h"
#include "panel_settings.h"
#include "roofline_view.h"
#include "scenario.h"

using namespace napkin;

namespace {

// The message of the std::invalid_argument `f` throws, or "" when it does not.
template <typename F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

LoadedLadder small_ladder(int n) {
  LoadedLadder l;
  l.file_name = "runs.csv";
  l.columns.tokens = "D";
  for (int i = 0; i < n; ++i)
    l.points.push_back(LadderPoint{1e8 * (i + 1), 2e9 * (i + 1), 3.0 - 0.1 * i, 0, false});
  l.data_rows = n + 2;  // two rows of the file were unreadable
  return l;
}

}  // namespace

TEST(PanelSettings, DefaultsAreThePanelsFirstLaunchAndValidate) {
  const Scenario s;
  EXPECT_NO_THROW(s.validate());
  const IsoflopsSettings& i = s.isoflops;
  EXPECT_EQ(i.synthetic.law, chinchilla_approach3_law());
  EXPECT_EQ(i.synthetic.n_budgets, 5);
  EXPECT_DOUBLE_EQ(i.synthetic.budget_min_flops, 1e18);
  EXPECT_DOUBLE_EQ(i.synthetic.budget_max_flops, 1e22);
  EXPECT_EQ(i.fit.estimator, Estimator::huber_log);
  EXPECT_DOUBLE_EQ(i.fit.huber_delta, 1e-3);  // what the fit uses, not the ×1000 display
  EXPECT_EQ(i.fit.resamples, 500);
  EXPECT_TRUE(i.loss_cut.enabled);
  EXPECT_DOUBLE_EQ(i.loss_cut.max_loss, 3.4469);
  EXPECT_FALSE(i.loaded.has_value());
  EXPECT_TRUE(i.target_follows_budget);
  // The MoE panel opens on a router left alone, 300 steps in.
  EXPECT_FALSE(s.moe.aux_on);
  EXPECT_EQ(s.moe.steps, 300);
  EXPECT_DOUBLE_EQ(s.moe.collapse_params().aux_weight, 0.0);
  EXPECT_TRUE(s.roofline.overlays.empty());
  EXPECT_DOUBLE_EQ(s.roofline.recompute, 8.0 / 6.0);
}

TEST(PanelSettings, SyntheticLadderSpecIsThePanels) {
  IsoflopsSettings s;
  s.seed = 7;
  s.synthetic.bias_on = true;
  s.synthetic.outlier = true;
  const SyntheticLadderSpec spec = synthetic_ladder_spec(s);
  ASSERT_EQ(spec.budgets_flops.size(), 5u);
  for (int k = 0; k < 5; ++k)
    EXPECT_NEAR(std::log10(spec.budgets_flops[static_cast<std::size_t>(k)]), 18.0 + k, 1e-12);
  EXPECT_EQ(spec.seed, 7u);
  EXPECT_DOUBLE_EQ(spec.lr_decay_bias_nats, 0.05);
  EXPECT_DOUBLE_EQ(spec.uniform_offset_nats, 0.0);  // the offset is off
  EXPECT_EQ(spec.outliers, 1);
  EXPECT_EQ(ladder_points(s).size(), 30u);  // 5 budgets × 6 sizes
  // Deterministic: the same settings, the same points.
  EXPECT_EQ(ladder_points(s), ladder_points(s));
  EXPECT_THROW(geometric_budgets(1e18, 1e22, 1), std::invalid_argument);
}

TEST(PanelSettings, LoadedLadderAndTheLossCut) {
  IsoflopsSettings s;
  s.loaded = small_ladder(8);  // losses 3.0, 2.9, …, 2.3
  EXPECT_EQ(s.loaded->skipped_rows(), 2);
  s.loss_cut.max_loss = 2.75;  // keeps 2.7 … 2.3
  EXPECT_EQ(ladder_points(s).size(), 5u);
  EXPECT_NO_THROW(s.validate());
  s.loss_cut.max_loss = 2.65;  // keeps 4: too few to fit
  const std::string e = error_of([&] { s.validate(); });
  EXPECT_NE(e.find("max_loss"), std::string::npos) << e;
  EXPECT_NE(e.find("keeps 4 of the 8"), std::string::npos) << e;
  s.loss_cut.enabled = false;
  EXPECT_EQ(ladder_points(s).size(), 8u);
  s.loaded->points.resize(3);
  s.loaded->data_rows = 3;
  EXPECT_NE(error_of([&] { s.validate(); }).find("at least 5"), std::string::npos);
}

TEST(PanelSettings, ValidationNamesTheFieldUnitAndRange) {
  Scenario s;
  s.isoflops.fit.huber_delta = 0;
  std::string e = error_of([&] { s.validate(); });
  // A registered input: named by its key, as every registered input is.
  EXPECT_EQ(
      e.rfind("isoflops.fit.huber_delta (log-loss units) must be a number in 1.00e-09 – 1", 0), 0u)
      << e;
  s = Scenario{};
  s.isoflops.synthetic.law.E = 1.9;  // edited constants under a published preset
  EXPECT_NE(error_of([&] { s.validate(); }).find("custom"), std::string::npos);
  s.isoflops.synthetic.law_preset = LawPreset::custom;
  EXPECT_NO_THROW(s.validate());
  s = Scenario{};
  s.isoflops.synthetic.budget_max_flops = s.isoflops.synthetic.budget_min_flops;
  EXPECT_NE(error_of([&] { s.validate(); }).find("budget_max_flops"), std::string::npos);
  s = Scenario{};
  s.moe.top_k = 9;  // > 8 experts
  e = error_of([&] { s.validate(); });
  EXPECT_EQ(e.rfind("MoE settings: top_k", 0), 0u) << e;
  s = Scenario{};
  s.moe.steps = 5001;
  EXPECT_NE(error_of([&] { s.validate(); }).find("steps"), std::string::npos);
  // The step shown lies in the run of record (0: its last step).
  s = Scenario{};
  s.moe.shown_step = 300;
  EXPECT_NO_THROW(s.validate());
  s.moe.shown_step = 301;
  e = error_of([&] { s.validate(); });
  EXPECT_EQ(e.rfind("MoE settings: shown_step", 0), 0u) << e;
  EXPECT_NE(e.find("300"), std::string::npos) << e;
  s.moe.shown_step = -1;
  EXPECT_NE(error_of([&] { s.validate(); }).find("shown_step"), std::string::npos);
  s = Scenario{};
  s.roofline.overlays = {"H100", "H100"};
  EXPECT_NE(error_of([&] { s.validate(); }).find("twice"), std::string::npos);
  s.roofline.overlays = {"Z9000"};
  EXPECT_NE(error_of([&] { s.validate(); }).find("Z9000"), std::string::npos);
  s = Scenario{};
  s.roofline.prefill_mfu = 0;
  EXPECT_EQ(error_of([&] {
              s.validate();
            }).rfind("roofline.prefill_mfu (%) must be a number in 0.1 – 100 %", 0),
            0u);
  LadderColumns c;
  c.loss = "D";  // the tokens column too
  EXPECT_NE(error_of([&] { c.validate(); }).find("mapped to both"), std::string::npos);
}

TEST(PanelSettings, CandidateLawAndConversions) {
  CandidateRecipe r;
  r.preset = CandidatePreset::seed_candidate;
  r.a_multiplier = 2;
  r.b_multiplier = 0.5;
  r.alpha_delta = 0.02;
  r.beta_delta = -0.5;  // clamped at 0.01
  const LossLaw l = candidate_law(chinchilla_approach3_law(), r);
  EXPECT_DOUBLE_EQ(l.E, 1.69);
  EXPECT_DOUBLE_EQ(l.A, 1000.0);
  EXPECT_DOUBLE_EQ(l.B, 190.0);
  EXPECT_NEAR(l.alpha, 0.40, 1e-12);
  EXPECT_DOUBLE_EQ(l.beta, 0.01);
  // The fitted law itself with the defaults: the seed's trade-off at half strength.
  const LossLaw base = besiroglu2024_law();
  const LossLaw d = candidate_law(base, CandidateRecipe{});
  EXPECT_DOUBLE_EQ(d.A, base.A * 1.23);
  EXPECT_DOUBLE_EQ(d.B, base.B * 0.925);
  EXPECT_EQ(parse_candidate_preset(to_string(CandidatePreset::besiroglu2024)),
            CandidatePreset::besiroglu2024);
  EXPECT_EQ(parse_law_preset("besiroglu2024"), LawPreset::besiroglu2024);
  EXPECT_THROW(parse_law_preset("kaplan"), std::invalid_argument);
  EXPECT_THROW(law_of(LawPreset::custom), std::invalid_argument);

  MoeSettings m;
  m.aux_on = true;
  m.z_on = false;
  const CollapseParams p = m.collapse_params();
  EXPECT_DOUBLE_EQ(p.aux_weight, 0.01);
  EXPECT_DOUBLE_EQ(p.z_weight, 0.0);
  EXPECT_EQ(m.pipeline_inputs().chunks, 8);
}

TEST(PanelSettings, TargetAndRooflineScenarioFromTheScenario) {
  Scenario s;
  EXPECT_DOUBLE_EQ(isoflops_target_flops(s),
                   budget_to_flops(chip_by_name("H100"), 1000, 30.0, 0.4));
  s.isoflops.target_follows_budget = false;
  EXPECT_DOUBLE_EQ(isoflops_target_flops(s), 1e24);

  s.chip = "TPU v5e";
  s.roofline.overlays = {"H100", "TPU v5e"};  // the scenario's own chip is not overlaid
  s.roofline.step_floor_seconds = 0.002;
  const RooflineScenario r = roofline_scenario(s);
  EXPECT_EQ(r.chip, "TPU v5e");
  ASSERT_EQ(r.overlay_chips.size(), 1u);
  EXPECT_EQ(r.overlay_chips[0], "H100");
  EXPECT_EQ(r.turn.n_chips, s.n_chips);
  EXPECT_EQ(r.turn.decode_tokens, s.serving.decode_tokens);
  EXPECT_DOUBLE_EQ(r.turn.budget_seconds, s.serving.latency_budget_seconds);
  EXPECT_DOUBLE_EQ(r.turn.per_step_floor_seconds, 0.002);
  EXPECT_EQ(r.operations.context_tokens, s.serving.context_len);
  EXPECT_EQ(r.kv.n_chips, 8);
  EXPECT_NO_THROW((void)roofline_panel(r));
}

// Issue 28: one work budget for a recorded router run, checked by validate()
// (which the file reader, the app's edits and the CLI all call).
TEST(PanelSettings, TheRunOfRecordHasOneWorkBudget) {
  MoeSettings m;
  m.n_experts = 256;
  m.top_k = 8;
  m.tokens_per_batch = 4096;
  EXPECT_NO_THROW(m.validate());  // the sliders' corners at the default 300 steps
  const std::int64_t most = max_recorded_collapse_steps(m.collapse_params());
  EXPECT_GE(most, 300);
  EXPECT_LE(collapse_run_work(m.collapse_params(), most), kMaxCollapseRunWork);
  EXPECT_GT(collapse_run_work(m.collapse_params(), most + 1), kMaxCollapseRunWork);
  m.steps = most;
  EXPECT_NO_THROW(m.validate());
  m.steps = most + 1;
  const std::string e = error_of([&] { m.validate(); });
  EXPECT_NE(e.find("steps"), std::string::npos) << e;
  EXPECT_NE(e.find(std::to_string(most)), std::string::npos) << e;
  // The file format's corners: a handful of steps at most.
  m.n_experts = 1024;
  m.top_k = 1024;
  m.tokens_per_batch = 65'536;
  EXPECT_LT(max_recorded_collapse_steps(m.collapse_params()), 10);
}

// Choosing "custom" starts the custom cluster from the network in use (a
// named cluster's or the chip's node); its numbers are kept while a named
// cluster is chosen, and back and forth between named ones they never move.
TEST(PanelSettings, ChoosingCustomStartsFromTheNetworkInUse) {
  const Chip& a100 = chip_by_name("A100-80");
  ParallelSettings p;
  p.choose_cluster("dgx-a100", a100);
  EXPECT_EQ(p.scale_up_gb_per_s, 450);  // untouched: not custom
  p.choose_cluster("custom", a100);
  EXPECT_EQ(p.cluster, "custom");
  EXPECT_EQ(p.gpus_per_node, 8);
  EXPECT_DOUBLE_EQ(p.scale_up_gb_per_s, 300);
  EXPECT_DOUBLE_EQ(p.scale_out_gb_per_s, 25);
  p.scale_out_gb_per_s = 12.5;
  p.choose_cluster("custom", a100);  // already custom: the user's numbers stay
  EXPECT_DOUBLE_EQ(p.scale_out_gb_per_s, 12.5);
  p.choose_cluster("", a100);
  p.choose_cluster("custom", chip_by_name("H100"));  // the chip's own node
  EXPECT_DOUBLE_EQ(p.scale_up_gb_per_s, 450);
  EXPECT_DOUBLE_EQ(p.scale_out_gb_per_s, 50);
}

// The recompute lock takes what --layout's recompute value takes, and the
// search is locked to exactly that.
TEST(PanelSettings, TheRecomputeLockIsTheLayoutsRecomputeValue) {
  ParallelSettings p;
  EXPECT_EQ(p.recompute_lock_text(), "");
  for (const char* text : {"none", "selective", "full", "full:4", "uniform:2", "selective:op",
                           "selective:layernorm+mlp"}) {
    p.lock_recompute(text);
    EXPECT_EQ(p.recompute_lock_text(), text);
    EXPECT_NO_THROW(p.validate()) << text;
  }
  p.lock_recompute("full:4");
  const SearchOptions o = p.search_options();
  EXPECT_EQ(o.recompute, Checkpointing::full);
  EXPECT_EQ(o.recompute_layers, 4);
  EXPECT_EQ(o.recompute_group, 1);
  p.lock_recompute("selective:mlp");
  EXPECT_EQ(p.recompute_layers, 0);  // the previous full:4 is gone
  EXPECT_EQ(p.search_options().recompute_modules, kRecomputeMlp);
  // Refused text leaves the lock as it was, and says what it takes.
  for (const char* bad : {"full:0", "full:x", "selective:bogus", "partial", "full:1000000"}) {
    try {
      p.lock_recompute(bad);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("recompute"), std::string::npos) << e.what();
    }
    EXPECT_EQ(p.recompute_lock_text(), "selective:mlp") << bad;
  }
  p.lock_recompute("auto");
  EXPECT_FALSE(p.recompute);
  EXPECT_EQ(p.search_options().recompute_modules, 0u);
  // A hand-written document cannot pair modules with a full lock.
  p.recompute = Checkpointing::full;
  p.recompute_modules = kRecomputeMlp;
  EXPECT_THROW(p.validate(), std::invalid_argument);
  p.recompute_modules = 0;
  p.recompute_layers = -1;
  EXPECT_THROW(p.validate(), std::invalid_argument);
}

// The locks as a partial --layout: what napkin-cli parallel keeps of them, in
// --layout's order and spelling; parse_layout reads them back.
TEST(ParallelSettings, LocksAsAPartialLayout) {
  ParallelSettings p;
  EXPECT_EQ(p.locks_text(), "");
  p.tp = 8;
  p.zero = 1;
  p.micro_batch = 2;
  p.pp = 4;
  p.lock_recompute("full:3");
  EXPECT_EQ(p.locks_text(), "tp=8,pp=4,zero=1,mb=2,recompute=full:3");
  const Layout l = parse_layout(p.locks_text(), 1024);
  EXPECT_EQ(l.tp, 8);
  EXPECT_EQ(l.pp, 4);
  EXPECT_EQ(l.micro_batch, 2);
  EXPECT_EQ(l.recompute_layers, 3);
  p = ParallelSettings{};
  p.lock_recompute("selective:op");
  EXPECT_EQ(p.locks_text(), "recompute=selective:op");
}
