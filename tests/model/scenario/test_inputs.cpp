// The input registry: one description per scenario input, whose default is
// the scenario's own and whose range every front end applies.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>

#include "expect_throw.h"
#include "inputs.h"
#include "scenario.h"
#include "scenario_fields.h"

using namespace napkin;

TEST(Inputs, EachDefaultIsTheScenarioStructsDefault) {
  const Scenario s;
  for (const ScenarioInput& in : scenario_inputs()) {
    ASSERT_NE(in.get, nullptr) << in.key;
    EXPECT_EQ(in.get(s), in.default_value) << in.key;
  }
}

TEST(Inputs, RangesHoldTheDefaultAndTheSlidersSpan) {
  for (const ScenarioInput& in : scenario_inputs()) {
    SCOPED_TRACE(std::string(in.key));
    EXPECT_LT(in.lo, in.hi);
    EXPECT_LE(in.lo, in.default_value);
    EXPECT_GE(in.hi, in.default_value);
    EXPECT_LE(in.lo, in.slider_lo);
    EXPECT_LT(in.slider_lo, in.slider_hi);
    EXPECT_GE(in.hi, in.slider_hi);
    if (in.scale == InputScale::log) {
      EXPECT_GT(in.slider_lo, 0);
    }
    if (in.type == InputType::count) {
      EXPECT_EQ(in.lo, std::floor(in.lo));
      EXPECT_EQ(in.hi, std::floor(in.hi));
      EXPECT_LE(in.hi, 0x1p53);  // exact as a double and in a JSON number
    }
    EXPECT_FALSE(in.label.empty());
    EXPECT_FALSE(in.unit.empty());
    EXPECT_FALSE(in.tooltip.empty());
    EXPECT_FALSE(in.json_key.empty());
  }
}

TEST(Inputs, KeysLabelsAndFlagsAreUnique) {
  std::set<std::string_view> keys, labels, flags;
  std::set<std::string> json;
  for (const ScenarioInput& in : scenario_inputs()) {
    EXPECT_TRUE(keys.insert(in.key).second) << in.key;
    EXPECT_TRUE(labels.insert(in.label).second) << in.label;
    if (!in.flag.empty()) {
      EXPECT_TRUE(flags.insert(in.flag).second) << in.flag;
      EXPECT_EQ(scenario_input_by_flag(in.flag), &in);
    }
    EXPECT_EQ(in.key, std::string(in.section) + "." + std::string(in.json_key));
    EXPECT_TRUE(json.insert(std::string(in.section) + "/" + std::string(in.json_key)).second);
  }
  EXPECT_EQ(scenario_input_by_flag("--no-such-flag"), nullptr);
  EXPECT_THROW_NAMING((void)scenario_input("hardware.nope"), "hardware.nope");
}

TEST(Inputs, TheEndsAreAcceptedAndJustBeyondRefused) {
  for (const ScenarioInput& in : scenario_inputs()) {
    SCOPED_TRACE(std::string(in.key));
    EXPECT_NO_THROW(check_input(in, in.lo));
    EXPECT_NO_THROW(check_input(in, in.hi));
    const double below = in.type == InputType::count ? in.lo - 1 : std::nextafter(in.lo, -1e300);
    const double above = in.type == InputType::count ? in.hi + 1 : std::nextafter(in.hi, 1e300);
    EXPECT_THROW(check_input(in, below), InputError);
    EXPECT_THROW(check_input(in, above), InputError);
    EXPECT_THROW(check_input(in, std::numeric_limits<double>::quiet_NaN()), InputError);
    EXPECT_THROW(check_input(in, std::numeric_limits<double>::infinity()), InputError);
    if (in.type == InputType::count) {
      EXPECT_THROW(check_input(in, in.lo + 0.5), InputError);
    }
  }
}

TEST(Inputs, ARefusalNamesTheInputItsUnitAndTheRange) {
  const ScenarioInput& chips = scenario_input("hardware.chips");
  try {
    check_input(chips, 2e7, "--chips");
    FAIL() << "2e7 chips accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.key, "hardware.chips");
    EXPECT_EQ(std::string(e.what()),
              "--chips (chips) must be a whole number in 1 – 10,000,000 chips; got 20,000,000");
  }
  EXPECT_EQ(input_range_text(scenario_input("budget.mfu")), "0.1 – 100 %");
  EXPECT_EQ(input_range_text(scenario_input("budget.days")), "0.1 – 36,500 days");
}

TEST(Inputs, ValidateAppliesTheRegistry) {
  for (const ScenarioInput& in : scenario_inputs()) {
    SCOPED_TRACE(std::string(in.key));
    Scenario s;
    in.set(s, in.hi);
    in.set(s, in.type == InputType::count ? in.hi + 1 : in.hi * 1.5 + 1);
    EXPECT_THROW_NAMING(s.validate(), std::string(in.key));
  }
}

// The Serving layout tab's benchmark run is registered under serve's flags,
// with the run's own ranges (roofline_settings.h).
TEST(Inputs, TheBenchmarkRunIsRegisteredUnderServesFlags) {
  const ScenarioInput* rate = scenario_input_by_flag("--request-rate");
  ASSERT_NE(rate, nullptr);
  EXPECT_EQ(rate->key, "roofline.serving_layout.run_request_rate_per_second");
  EXPECT_EQ(rate->lo, kMinRunRequestRatePerSecond);
  EXPECT_EQ(rate->hi, kMaxRunRequestRatePerSecond);
  const ScenarioInput* requests = scenario_input_by_flag("--requests");
  ASSERT_NE(requests, nullptr);
  EXPECT_EQ(requests->hi, static_cast<double>(kMaxRunRequests));
  for (const char* flag : {"--prompt-spread", "--output-spread"}) {
    const ScenarioInput* spread = scenario_input_by_flag(flag);
    ASSERT_NE(spread, nullptr) << flag;
    EXPECT_EQ(spread->hi, static_cast<double>(kMaxRunSpreadTokens));
  }
  Scenario s;
  requests->set(s, 250);
  EXPECT_EQ(s.roofline.serving_layout.run_requests, 250);
}

// The inputs each panel's command takes beside --scenario: registered, with
// a flag, and only those the command reads.
TEST(Inputs, EachCommandTakesTheInputsItReads) {
  for (const char* command : {"budget", "parallel", "isoflops", "serve", "report"}) {
    SCOPED_TRACE(command);
    const std::vector<std::string_view> keys = scenario_command_inputs(command);
    EXPECT_FALSE(keys.empty());
    for (std::string_view key : keys) EXPECT_FALSE(scenario_input(key).flag.empty()) << key;
  }
  const auto takes = [](const char* command, std::string_view key) {
    const std::vector<std::string_view> keys = scenario_command_inputs(command);
    return std::find(keys.begin(), keys.end(), key) != keys.end();
  };
  EXPECT_TRUE(takes("budget", "plan.moe_experts"));
  EXPECT_FALSE(takes("budget", "roofline.serving_layout.run_requests"));  // not the planner's
  EXPECT_TRUE(takes("serve", "roofline.serving_layout.run_requests"));
  EXPECT_FALSE(takes("serve", "hardware.chips"));       // serve --chips is the serving layout's
  EXPECT_FALSE(takes("parallel", "plan.moe_experts"));  // parallel --experts is the model's
  EXPECT_TRUE(takes("isoflops", "budget.days"));
  EXPECT_TRUE(scenario_command_inputs("moe collapse").empty());
  // The report is every panel's: every flagged input, budget's and serve's.
  std::size_t flagged = 0;
  for (const ScenarioInput& in : scenario_inputs()) flagged += in.flag.empty() ? 0 : 1;
  EXPECT_EQ(scenario_command_inputs("report").size(), flagged);
  EXPECT_EQ(scenario_command_inputs("report").size(),
            scenario_command_inputs("budget").size() + scenario_command_inputs("serve").size());
  EXPECT_TRUE(scenario_command_inputs("diff").empty());
}

// The model's shape: registered with the shape's own limits (ModelShape::
// validate refuses just beyond them too); an edit, not a file being read,
// renames the model Custom.
TEST(Inputs, TheModelsShapeIsRegisteredWithItsOwnLimits) {
  const ScenarioInput& layers = scenario_input("model.layers");
  EXPECT_EQ(layers.hi, static_cast<double>(kMaxLayers));
  EXPECT_EQ(scenario_input_by_flag("--layers"), &layers);
  EXPECT_EQ(scenario_input("model.vocab").hi, static_cast<double>(kMaxVocab));
  EXPECT_EQ(scenario_input("model.d_ff").hi, static_cast<double>(kMaxFfnWidth));
  // --experts beside --scenario is the Budget planner's MoE candidate.
  EXPECT_TRUE(scenario_input("model.experts").flag.empty());
  EXPECT_EQ(scenario_input_by_flag("--experts")->key, "plan.moe_experts");
  ModelShape big = Scenario{}.shape;
  big.n_layers = kMaxLayers;
  EXPECT_NO_THROW(big.validate());
  big.n_layers = kMaxLayers + 1;
  EXPECT_THROW_NAMING(big.validate(), "layers");
  for (const ScenarioInput& in : scenario_inputs()) {
    SCOPED_TRACE(std::string(in.key));
    Scenario s;
    in.set(s, in.get(s));
    EXPECT_EQ(s.model_name, "Llama-3-70B");  // set() alone, as a file is read
    if (in.edited) in.edited(s);
    EXPECT_EQ(s.model_name, in.section == "model" ? "Custom" : "Llama-3-70B");
  }
}

// A comparison names a registered input as the registry does, in the unit its
// control shows: one description, not a second list of names.
TEST(Inputs, TheComparisonNamesEachInputAsTheRegistry) {
  for (const ScenarioInput& in : scenario_inputs()) {
    SCOPED_TRACE(std::string(in.key));
    const ScenarioField* f = find_scenario_field(in.key);
    ASSERT_NE(f, nullptr);
    EXPECT_EQ(f->name, input_compare_name(in));
    EXPECT_EQ(f->unit, input_shown_unit(in));
    const FieldValue v = f->get(Scenario{});
    // In the unit the comparison shows (a fraction stays one: "%" fields).
    const double factor = f->unit == "%" ? 1.0 : in.display_factor;
    // Unset by default: what it is derived from ("from the storage bandwidth").
    if (!input_is_set(in, Scenario{})) EXPECT_EQ(std::get<std::string>(v), in.unset_text);
    // The lowest value said as what it means ("estimated").
    else if (in.default_value == in.lo && !in.special_text.empty())
      EXPECT_EQ(std::get<std::string>(v), in.special_text);
    else if (in.type == InputType::count)
      EXPECT_EQ(std::get<std::int64_t>(v), static_cast<std::int64_t>(in.default_value));
    else
      EXPECT_DOUBLE_EQ(std::get<double>(v), in.default_value * factor);
  }
  // Bytes/s shown in GB/s, a fraction in percent.
  EXPECT_EQ(
      display_field_value(
          find_scenario_field("goodput.storage_bytes_per_s_per_chip")->get(Scenario{}), "GB/s", 3),
      "0.122 GB/s");
  EXPECT_EQ(display_field_value(find_scenario_field("budget.mfu")->get(Scenario{}), "%"), "40 %");
  EXPECT_EQ(input_compare_name(scenario_input("hardware.chips")), "Chips");
  EXPECT_EQ(input_compare_name(scenario_input("parallel.global_batch_tokens")),
            "Parallelism: global batch");
  EXPECT_EQ(
      display_field_value(
          find_scenario_field("budget.price_per_chip_hour_dollars")->get(Scenario{}), "$/chip-h"),
      "$2.5/chip-h");
}
