// The choice registry: one description per scenario choice, whose default is
// the scenario's own and whose options every front end accepts alike.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "choices.h"
#include "expect_throw.h"
#include "quantize.h"
#include "scenario.h"
#include "scenario_fields.h"
#include "serving_engine.h"

using namespace napkin;

TEST(Choices, EachDefaultIsTheScenarioStructsDefaultAndAnOption) {
  const Scenario s;
  for (const ScenarioChoice& c : scenario_choices()) {
    SCOPED_TRACE(std::string(c.key));
    EXPECT_EQ(c.get(s), c.default_name);
    EXPECT_EQ(choice_option(c, c.default_name).name, c.default_name);
    EXPECT_FALSE(c.label.empty());
    EXPECT_FALSE(c.tooltip.empty());
    EXPECT_EQ(std::string(c.key), std::string(c.section) + "." + std::string(c.json_key));
  }
}

TEST(Choices, EveryOptionSetsAndReadsBackAsItself) {
  for (const ScenarioChoice& c : scenario_choices()) {
    std::set<std::string> names;
    for (const ChoiceOption& o : c.options()) {
      Scenario s;
      set_choice(c, s, o.name);
      EXPECT_EQ(c.get(s), o.name) << c.key;
      EXPECT_TRUE(names.insert(o.name).second) << c.key << " lists " << o.name << " twice";
    }
  }
}

// The options are the model's own lists: every storage format (an old file's
// 4 bytes per parameter opens as fp32, so the control must show fp32) and
// every engine preset.
TEST(Choices, OptionsAreTheModelsLists) {
  const auto weights = scenario_choice("serving.weight_precision").options();
  ASSERT_EQ(weights.size(), dtype_table().size());
  EXPECT_EQ(weights.front().name, "fp32");
  EXPECT_EQ(weights.front().label, "fp32 (32 bits)");
  EXPECT_EQ(weights[2].label, "fp8 (8.002 bits)");
  EXPECT_EQ(choice_names(scenario_choice("serving.kv_precision")), dtype_names());
  EXPECT_EQ(choice_names(scenario_choice("serving.engine")), engine_names());
}

TEST(Choices, AnUnknownNameIsRefusedNamingTheAcceptedOnes) {
  const ScenarioChoice& c = scenario_choice("serving.weight_precision");
  EXPECT_THROW_NAMING(choice_option(c, "fp16", "--weight-precision"),
                      "--weight-precision must be one of fp32, bf16, fp8, int8, int4");
  EXPECT_THROW_NAMING(choice_option(c, "FP8"), "did you mean \"fp8\"");
  EXPECT_THROW_NAMING(scenario_choice("serving.nope"), "serving.engine");
}

// A comparison names a choice as the registry does and lists its option.
TEST(Choices, TheDiffNamesAChoiceByTheRegistry) {
  Scenario a, b;
  set_choice(scenario_choice("serving.engine"), b, "vllm");
  bool found = false;
  for (const ScenarioField& f : scenario_fields())
    if (f.key == "serving.engine") {
      found = true;
      EXPECT_EQ(f.name, "Serving engine");
      EXPECT_EQ(display_field_value(f.get(b), f.unit), "vllm");
    }
  EXPECT_TRUE(found);
}

// A choice that may be left unset lists "" first under its unset label; a
// choice that may not refuses "".
TEST(Choices, AnOptionalChoiceMayBeLeftUnset) {
  const ScenarioChoice& schedule = scenario_choice("parallel.pipe_schedule");
  Scenario s;
  EXPECT_EQ(schedule.get(s), "");
  EXPECT_EQ(choice_shown(schedule, s), "the software's");
  set_choice(schedule, s, "zb-h1");
  ASSERT_TRUE(s.parallel.pipe_schedule);
  EXPECT_EQ(choice_shown(schedule, s), "zb-h1");
  set_choice(schedule, s, "");
  EXPECT_FALSE(s.parallel.pipe_schedule);
  EXPECT_EQ(choice_names(schedule), "1f1b, zb-h1, dualpipe");
  EXPECT_EQ(choice_names(scenario_choice("parallel.ep_dispatch")), "alltoall, flex");
  EXPECT_THROW_NAMING(choice_option(scenario_choice("training.optimizer"), ""),
                      "must be one of adam, sgd_momentum, adafactor");
}

// Training precision is spelled as the serving precisions are (bf16, fp8,
// fp32); a file's older spelling (mixed_bf16, mixed_fp8) reads as its option.
TEST(Choices, TrainingPrecisionReadsTheOlderSpellings) {
  const ScenarioChoice& c = scenario_choice("training.precision");
  EXPECT_EQ(choice_names(c), "bf16, fp8, fp32");
  EXPECT_EQ(choice_option(c, "mixed_fp8").name, "fp8");
  Scenario s;
  set_choice(c, s, "mixed_fp8");
  EXPECT_EQ(s.training.precision, Precision::mixed_fp8);
  EXPECT_EQ(c.get(s), "fp8");
  EXPECT_THROW_NAMING(choice_option(c, "fp16", "--train-precision"),
                      "--train-precision must be one of bf16, fp8, fp32");
}
