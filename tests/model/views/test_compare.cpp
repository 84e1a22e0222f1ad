// Comparing two plans: headline outputs (each equal to the model function it
// names), the inputs that differ, and the comparison with its better plan.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <string>

#include "budget.h"
#include "budget_view.h"
#include "compare.h"
#include "format.h"
#include "hardware.h"
#include "moe.h"
#include "parallel.h"
#include "roofline.h"
#include "roofline_view.h"
#include "scaling.h"
#include "scenario_fields.h"

using namespace napkin;

namespace {

const HeadlineOutput& output(const std::vector<HeadlineOutput>& v, const std::string& name) {
  for (const HeadlineOutput& h : v)
    if (h.name == name) return h;
  throw std::invalid_argument("no output " + name);
}

const OutputComparison& compared(const std::vector<OutputComparison>& v, const std::string& name) {
  for (const OutputComparison& c : v)
    if (c.name == name) return c;
  throw std::invalid_argument("no output " + name);
}

}  // namespace

TEST(Compare, HeadlineOutputsAreTheModelFunctions) {
  const Scenario s;  // 1,000 H100 for 30 days at 40 % MFU
  const std::vector<HeadlineOutput> h = headline_outputs(s);
  const char* names[] = {"Compute C",
                         "MFU used",
                         "Parameters N",
                         "Tokens D",
                         "Days",
                         "Cost",
                         "Energy",
                         "Memory per device",
                         "KV fit",
                         "IsoFLOPs forecast L*",
                         "Turn latency",
                         "Chips for the latency budget",
                         "Drop rate (MoE router run)"};
  ASSERT_EQ(h.size(), std::size(names));
  for (std::size_t i = 0; i < h.size(); ++i) {
    EXPECT_EQ(h[i].name, names[i]);
    ASSERT_TRUE(h[i].value.has_value()) << h[i].name << ": " << h[i].display;
    EXPECT_TRUE(std::isfinite(*h[i].value)) << h[i].name;
    EXPECT_FALSE(h[i].source.empty()) << h[i].name;
    EXPECT_EQ(h[i].display.find("nan"), std::string::npos) << h[i].display;
  }
  // The seed's "1,000 H100 for 30 days": ~1.03e24 FLOPs, ~92B on ~1.85T tokens.
  EXPECT_NEAR(*output(h, "Compute C").value, 990e12 * 1000 * 0.4 * 30 * 86400, 1e18);
  EXPECT_NEAR(*output(h, "Parameters N").value, 92.49e9, 0.01e9);
  EXPECT_NEAR(*output(h, "Tokens D").value, 1.8497e12, 0.0002e12);
  EXPECT_NEAR(*output(h, "Days").value, 30.0, 1e-9);
  EXPECT_DOUBLE_EQ(*output(h, "MFU used").value, 0.4);
  EXPECT_EQ(output(h, "MFU used").display, "40.0 % (assumed)");
  // A predicted MFU's context names its layout and its range.
  Scenario predicted = s;
  predicted.parallel.mfu_source = MfuSource::predicted;
  const ResolvedPlan p = make_budget_view(predicted).plan;
  ASSERT_LT(p.mfu.mfu_low, p.mfu.mfu_high);
  const std::string shown = output(headline_outputs(predicted), "MFU used").display;
  EXPECT_NE(shown.find("; range " + format_percent(p.mfu.mfu_low, 1) + " – " +
                       format_percent(p.mfu.mfu_high, 1)),
            std::string::npos)
      << shown;

  const BudgetView v = make_budget_view(s);
  const CostReport& cost = v.report.cost;
  EXPECT_DOUBLE_EQ(*output(h, "Cost").value, cost.rental_dollars + cost.energy_dollars);
  EXPECT_DOUBLE_EQ(*output(h, "Cost").value - cost.energy_dollars, 1000 * 30 * 24 * 2.5);
  EXPECT_DOUBLE_EQ(*output(h, "Energy").value, cost.energy_kwh);
  EXPECT_DOUBLE_EQ(*output(h, "Memory per device").value,
                   static_cast<double>(v.memory_by_zero[3].total));  // ZeRO-3 over 64
  EXPECT_DOUBLE_EQ(*output(h, "KV fit").value, static_cast<double>(v.max_concurrent));

  const FitResult fit = fit_parametric(ladder_points(s.isoflops), s.isoflops.fit.fit_options());
  EXPECT_DOUBLE_EQ(*output(h, "IsoFLOPs forecast L*").value, optimal_loss(fit.law, v.report.flops));
  // The synthetic ladder is drawn from Chinchilla's law: the forecast lands near it.
  EXPECT_NEAR(*output(h, "IsoFLOPs forecast L*").value,
              optimal_loss(chinchilla_approach3_law(), v.report.flops), 0.02);

  const RooflinePanelData r = roofline_panel(roofline_scenario(s));
  EXPECT_DOUBLE_EQ(*output(h, "Turn latency").value, r.turn.total_seconds);
  EXPECT_DOUBLE_EQ(*output(h, "Chips for the latency budget").value,
                   static_cast<double>(*r.chips_for_budget));
  EXPECT_DOUBLE_EQ(*output(h, "Drop rate (MoE router run)").value,
                   run_collapse(s.moe.collapse_params(), s.moe.steps).back().drop_rate);

  // Better directions.
  EXPECT_EQ(output(h, "Compute C").better, Better::none);
  EXPECT_EQ(output(h, "Cost").better, Better::lower);
  EXPECT_EQ(output(h, "KV fit").better, Better::higher);
  EXPECT_TRUE(output(h, "Chips for the latency budget").missing_is_worst);
  // Deterministic: no bootstrap, no clock.
  const std::vector<HeadlineOutput> again = headline_outputs(s);
  for (std::size_t i = 0; i < h.size(); ++i) EXPECT_EQ(h[i].value, again[i].value) << h[i].name;
}

TEST(Compare, MemoryPerDeviceIsThePlansLayoutsPeakStageWhereItHasOne) {
  Scenario s;
  s.parallel.chosen = parse_layout("tp=8,pp=5,cp=1,zero=1,mb=1,sp=on,recompute=full", s.n_chips);
  const BudgetView v = make_budget_view(s);
  ASSERT_TRUE(v.layout_memory);
  const std::vector<HeadlineOutput> outputs = headline_outputs(s);
  const HeadlineOutput& m = output(outputs, "Memory per device");
  EXPECT_DOUBLE_EQ(*m.value, static_cast<double>(v.layout_memory->peak_stage_bytes));
  EXPECT_NE(m.display.find("peak stage of " + v.layout_memory->layout), std::string::npos)
      << m.display;
  // Without a layout: the data-parallel estimate at the scenario's ZeRO stage.
  s.parallel.chosen.reset();
  const BudgetView dp = make_budget_view(s);
  const std::vector<HeadlineOutput> dp_outputs = headline_outputs(s);
  EXPECT_DOUBLE_EQ(*output(dp_outputs, "Memory per device").value,
                   static_cast<double>(dp.memory_by_zero[3].total));
}

// The drop rate is the MoE router panel's own run, not the scenario model's:
// the display says whose it is when the two differ.
TEST(Compare, TheDropRateSaysItIsTheRouterPanelsRun) {
  Scenario s;  // Llama-3-70B: dense
  const auto display = [&] {
    return output(headline_outputs(s), "Drop rate (MoE router run)").display;
  };
  EXPECT_NE(display().find("the MoE router panel's run"), std::string::npos) << display();
  EXPECT_NE(display().find("Llama-3-70B is dense"), std::string::npos) << display();
  s.model_name = "my-moe";
  s.shape.n_experts = 64;
  s.shape.top_k = 4;
  EXPECT_NE(display().find("my-moe has E 64, k 4"), std::string::npos) << display();
  s.shape.n_experts = s.moe.n_experts;  // the panel runs this model's router
  s.shape.top_k = s.moe.top_k;
  EXPECT_EQ(display().find("my-moe"), std::string::npos) << display();
}

TEST(Compare, AnOutputThatCannotBeComputedSaysWhy) {
  Scenario s;
  LoadedLadder l;
  l.file_name = "one-size.csv";
  for (int i = 0; i < 6; ++i)  // one model size: no law can be fitted
    l.points.push_back(LadderPoint{1e9, 1e10 * (i + 1), 3.0 - 0.1 * i, 0, false});
  l.data_rows = 6;
  s.isoflops.loaded = l;
  s.serving.latency_budget_seconds = 0.2;  // below the 0.25 s overhead: impossible
  const std::vector<HeadlineOutput> h = headline_outputs(s);
  const HeadlineOutput& f = output(h, "IsoFLOPs forecast L*");
  EXPECT_FALSE(f.value.has_value());
  EXPECT_EQ(f.display.rfind("n/a: ", 0), 0u) << f.display;
  const HeadlineOutput& chips = output(h, "Chips for the latency budget");
  EXPECT_FALSE(chips.value.has_value());
  EXPECT_NE(chips.display.find("at or below the 250 ms overhead"), std::string::npos)
      << chips.display;
  EXPECT_TRUE(output(h, "Turn latency").value.has_value());  // the turn itself still computes
  EXPECT_TRUE(output(h, "Compute C").value.has_value());
  s.shape.n_layers = 0;
  EXPECT_THROW(headline_outputs(s), std::invalid_argument);
}

TEST(Compare, DifferingInputsCoverThePanelSettings) {
  const Scenario a;
  EXPECT_TRUE(differing_inputs(a, a).empty());
  Scenario b = a;
  b.chip = "TPU v5p";
  b.days = 45;
  b.isoflops.fit.huber_delta = 0.01;
  b.moe.aux_on = true;
  b.roofline.overlays = {"H100", "TPU v5e"};
  const std::vector<InputDifference> d = differing_inputs(a, b);
  ASSERT_EQ(d.size(), 5u);
  EXPECT_EQ(d[0].key, "hardware.chip");
  EXPECT_EQ(d[0].name, "Chip");
  EXPECT_EQ(d[0].a, "H100");
  EXPECT_EQ(d[0].b, "TPU v5p");
  EXPECT_EQ(d[1].name, "Days");
  EXPECT_EQ(d[1].a, "30 days");
  EXPECT_EQ(d[1].b, "45 days");
  EXPECT_EQ(d[2].name, "IsoFLOPs: Huber δ");
  EXPECT_EQ(d[2].a, "0.001 log-loss units");  // the registry's unit
  EXPECT_EQ(d[2].b, "0.01 log-loss units");
  EXPECT_EQ(d[3].name, "MoE: balance loss");
  EXPECT_EQ(d[3].b, "on");
  EXPECT_EQ(d[4].a, "none");
  EXPECT_EQ(d[4].b, "H100, TPU v5e");

  // Reals equal to 6 digits show all of theirs; a percent shows as one.
  Scenario c = a;
  c.mfu = 0.4 + 1e-12;
  const std::vector<InputDifference> m = differing_inputs(a, c);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_NE(m[0].a, m[0].b);
  EXPECT_EQ(display_field_value(FieldValue(0.4), "%"), "40 %");

  // Two loaded ladders from the same file, one number apart.
  Scenario x = a, y = a;
  LoadedLadder l;
  l.file_name = "runs.csv";
  for (int i = 0; i < 5; ++i)
    l.points.push_back(LadderPoint{1e8 * (i + 1), 2e9 * (5 - i), 3.0 - 0.1 * i, 0, false});
  l.data_rows = 5;
  x.isoflops.loaded = l;
  l.points[2].loss += 1e-9;
  y.isoflops.loaded = l;
  const std::vector<InputDifference> ld = differing_inputs(x, y);
  ASSERT_EQ(ld.size(), 1u);
  EXPECT_EQ(ld[0].key, "isoflops.ladder.loaded");
  EXPECT_NE(ld[0].a, ld[0].b);  // the fingerprints differ
  EXPECT_NE(ld[0].a.find("runs.csv: 5 runs of 5 rows"), std::string::npos) << ld[0].a;
}

TEST(Compare, FieldsAreUniqueAndReadable) {
  std::set<std::string> keys, names;
  const Scenario s;
  for (const ScenarioField& f : scenario_fields()) {
    EXPECT_TRUE(keys.insert(f.key).second) << f.key;
    EXPECT_TRUE(names.insert(f.name).second) << f.name;
    const std::string shown = display_field_value(f.get(s), f.unit);
    EXPECT_FALSE(shown.empty()) << f.key;
    EXPECT_EQ(shown.find("nan"), std::string::npos) << f.key;
  }
  EXPECT_GT(scenario_fields().size(), 100u);
  const ScenarioField* delta = find_scenario_field("isoflops.fit.huber_delta");
  ASSERT_NE(delta, nullptr);
  EXPECT_EQ(delta->name, "IsoFLOPs: Huber δ");
  EXPECT_EQ(std::get<double>(delta->get(s)), 1e-3);
  EXPECT_EQ(find_scenario_field("isoflops.fit"), nullptr);
}

TEST(Compare, ComparisonDeltasRatiosAndTheBetterPlan) {
  Scenario a;
  a.n_chips = 2048;
  const std::vector<HeadlineOutput> ha = headline_outputs(a);
  for (const OutputComparison& c : compare_outputs(ha, ha)) {
    EXPECT_EQ(c.better, Winner::same) << c.name;
    ASSERT_TRUE(c.delta.has_value()) << c.name;
    EXPECT_EQ(*c.delta, 0.0) << c.name;
  }
  Scenario b = a;
  b.chip = "TPU v5p";
  b.days = 45;
  const std::vector<OutputComparison> c = compare_outputs(ha, headline_outputs(b));
  const OutputComparison& days = compared(c, "Days");
  EXPECT_DOUBLE_EQ(*days.delta, 15.0);
  EXPECT_DOUBLE_EQ(*days.ratio, 1.5);
  EXPECT_EQ(days.better, Winner::a);
  // TPU v5p: 459 TFLOP/s bf16 against H100's 990, so 45 days buy less compute.
  const OutputComparison& flops = compared(c, "Compute C");
  EXPECT_NEAR(*flops.ratio, 459.0 / 990.0 * 1.5, 1e-9);
  EXPECT_EQ(flops.better, Winner::none);  // more compute is a cost as much as a gain
  EXPECT_EQ(compared(c, "IsoFLOPs forecast L*").better, Winner::a);  // less compute, higher loss
  EXPECT_EQ(compared(c, "KV fit").better, Winner::b);  // 95 GB of HBM per chip, not 80
  EXPECT_EQ(compared(c, "Memory per device").better, Winner::same);

  // No slice meets B's latency budget: A wins that row; both none: same.
  Scenario late = a;
  late.serving.latency_budget_seconds = 0.1;
  const std::vector<OutputComparison> l = compare_outputs(ha, headline_outputs(late));
  const OutputComparison& chips = compared(l, "Chips for the latency budget");
  EXPECT_FALSE(chips.b.has_value());
  EXPECT_FALSE(chips.delta.has_value());
  EXPECT_EQ(chips.better, Winner::a);
  const std::vector<HeadlineOutput> hl = headline_outputs(late);
  EXPECT_EQ(compared(compare_outputs(hl, hl), "Chips for the latency budget").better, Winner::same);
}

TEST(Compare, QuantitiesAndDeltasAsPeopleReadThem) {
  EXPECT_EQ(format_quantity(1.0264e24, Unit::flops), "1.026e+24 FLOPs");
  EXPECT_EQ(format_quantity(0.381, Unit::fraction), "38.1 %");
  EXPECT_EQ(format_quantity(185e9, Unit::bytes), "185.0 GB");
  EXPECT_EQ(format_quantity(NAN, Unit::seconds), "—");
  EXPECT_EQ(format_delta(0.021, Unit::fraction), "+2.1 pp");
  EXPECT_EQ(format_delta(-840000, Unit::dollars), "\u2212$840,000");
  EXPECT_EQ(format_delta(15, Unit::days), "+15.0 days");
  EXPECT_EQ(format_delta(0, Unit::chips), "0");
  EXPECT_EQ(format_delta(INFINITY, Unit::chips), "—");
  EXPECT_EQ(to_string(Unit::dollars), "$");
  EXPECT_EQ(to_string(Winner::same), "same");
  EXPECT_EQ(to_string(Better::higher), "higher");
}
