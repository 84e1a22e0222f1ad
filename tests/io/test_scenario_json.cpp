#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "budget_view.h"
#include "scenario_json.h"

using namespace napkin;

TEST(ScenarioJson, DefaultRoundTripsAndIsDeterministic) {
  const std::string a = scenario_to_json(Scenario{});
  EXPECT_EQ(scenario_from_json(a), Scenario{});
  EXPECT_EQ(scenario_to_json(scenario_from_json(a)), a);
  EXPECT_NE(a.find("\"version\": 2"), std::string::npos);
}

TEST(ScenarioJson, PlanInputsRoundTrip) {
  Scenario s;
  s.goodput.interruptions_per_1000_chip_days = 0.8;
  s.goodput.restart_minutes = 45;
  s.goodput.checkpoint_interval_minutes = 120;
  s.goodput.checkpoint_write_minutes = 2.5;
  s.goodput.storage_bytes_per_s_per_chip = 5e8;
  s.goodput.mode = CheckpointMode::asynchronous;
  s.ranges.mfu = Spread{0.3, 0.45};
  s.ranges.tokens_available = Spread{5e12, 20e12};
  s.ranges.shape = RangeShape::lognormal;
  s.ranges.seed = 42;
  s.plan.mode = PlanMode::train_model;
  s.plan.train_tokens = 15e12;
  s.serving.chips = 16;
  s.serving.limit_model = false;
  s.serving.chip = "H200";
  s.serving.price_per_chip_hour_dollars = 3.5;
  s.plan.objective = Objective::dollars;
  const std::string text = scenario_to_json(s);
  EXPECT_EQ(scenario_from_json(text), s);
  EXPECT_EQ(scenario_to_json(scenario_from_json(text)), text);
  // A derived write time is written as null and read back as derived.
  Scenario d;
  EXPECT_NE(scenario_to_json(d).find("\"checkpoint_write_minutes\": null"), std::string::npos);
  EXPECT_FALSE(scenario_from_json(scenario_to_json(d)).goodput.checkpoint_write_minutes);
}

TEST(ScenarioJson, VersionOneFilesOpenWithTheNewDefaults) {
  const Scenario s = scenario_from_json(
      R"({"format":"napkin-scenario","version":1,"budget":{"mfu":0.45},"serving":{"batch":4}})");
  Scenario expected;
  expected.mfu = 0.45;
  expected.serving.batch = 4;
  EXPECT_EQ(s, expected);
  EXPECT_EQ(s.goodput, GoodputSetup{});
  EXPECT_FALSE(s.ranges.any());
  EXPECT_EQ(s.plan.mode, PlanMode::budget);
}

TEST(ScenarioJson, PlanInputErrorsNameTheField) {
  auto error = [](const char* json) {
    try {
      scenario_from_json(json, "s.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(R"({"format":"napkin-scenario","version":2,
                     "goodput":{"restart_minutes":-5}})"),
            "s.json: field \"goodput.restart_minutes\": expected a number in 0 – 10,000,000 min, "
            "found -5");
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":2,
                     "ranges":{"mfu":{"low":0.5,"high":0.3}}})")
                .find("field \"ranges.mfu\": expected low <= high"),
            std::string::npos);
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":2,"ranges":{"mfu":{"low":0.3}}})")
                .find("ranges.mfu.high"),
            std::string::npos);
  // The scenario's own MFU (0.4) must lie inside its range.
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":2,
                     "ranges":{"mfu":{"low":0.45,"high":0.5}}})")
                .find("mfu (fraction of peak) range must have low <= likely <= high"),
            std::string::npos);
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":2,"ranges":{"shape":"uniform"}})")
                .find("ranges.shape"),
            std::string::npos);
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":2,"plan":{"mode":"dream"}})")
                .find("plan.mode"),
            std::string::npos);
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":2,
                     "goodput":{"checkpoint_mode":"sometimes"}})")
                .find("goodput.checkpoint_mode"),
            std::string::npos);
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":3})").find("newer Napkin"),
            std::string::npos);
}

TEST(ScenarioJson, MissingFieldsKeepDefaults) {
  const Scenario s =
      scenario_from_json(R"({"format":"napkin-scenario","version":1,"hardware":{"chips":64}})");
  Scenario expected;
  expected.n_chips = 64;
  EXPECT_EQ(s, expected);
}

TEST(ScenarioJson, ErrorsNameTheFieldAndValue) {
  auto error = [](const char* json) {
    try {
      scenario_from_json(json, "s.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(R"({"format":"napkin-scenario","version":1,"training":{"zero_stage":4}})"),
            "s.json: field \"training.zero_stage\": expected an integer in [0, 3], found 4");
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":1,"training":{"optimizer":"lion"}})")
                .find("training.optimizer"),
            std::string::npos);
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":1,"budget":{"days":1e400}})")
                .find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":1,"model":{"experts":4,"top_k":9}})")
                .find("top_k"),
            std::string::npos);
  EXPECT_NE(error("{").find("not valid JSON"), std::string::npos);
}

// Issue 27 item 20: an empty or binary file is called what it is; only a
// document that stops mid-way "may be truncated".
TEST(ScenarioJson, EmptyAndBinaryFilesAreNotCalledTruncated) {
  auto error = [](std::string_view json) {
    try {
      scenario_from_json(json, "s.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(error(""), "s.json: the file is empty; not a scenario");
  EXPECT_EQ(error(" \n"), "s.json: the file is empty; not a scenario");
  const std::string binary("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16);
  EXPECT_EQ(error(binary), "s.json: binary data (a zero byte at byte 8); not a scenario");
  EXPECT_EQ(error("hello").find("truncated"), std::string::npos) << error("hello");
  const std::string good = scenario_to_json(Scenario{});
  EXPECT_NE(error(good.substr(0, good.size() / 2)).find("the file may be truncated"),
            std::string::npos);
}

TEST(ScenarioJson, ModernShapeFieldsRoundTrip) {
  // Every preset (DeepSeek-V3: MLA, router bias, MTP; Qwen3-30B-A3B: QK-norm).
  for (const ModelPreset& p : model_presets()) {
    Scenario s;
    s.shape = p.shape;
    s.model_name = std::string(p.name);
    const std::string text = scenario_to_json(s);
    EXPECT_EQ(scenario_from_json(text), s) << p.name;
    EXPECT_NE(text.find("\"version\": 2"), std::string::npos) << p.name;
    EXPECT_NE(text.find("kv_lora_rank"), std::string::npos) << p.name;
  }
  // Each new field on its own survives the trip.
  Scenario s;
  s.shape.norms_per_layer = 4;
  s.shape.norm_bias = true;
  s.shape.parallel_blocks = true;
  s.shape.qk_norm = QkNorm::full_width;
  s.shape.mtp_modules = 2;
  EXPECT_EQ(scenario_from_json(scenario_to_json(s)), s);
  s = Scenario{};
  s.shape.n_experts = 8;
  s.shape.top_k = 2;
  s.shape.shared_experts = 1;
  s.shape.shared_expert_d_ff = 512;
  s.shape.shared_expert_gate = true;
  s.shape.router_bias = true;
  EXPECT_EQ(scenario_from_json(scenario_to_json(s)), s);
}

TEST(ScenarioJson, VersionOneFilesStillOpenAndNewFieldsAreChecked) {
  // A version-1 document (no new fields) opens with the new fields at their defaults.
  const Scenario s = scenario_from_json(
      R"({"format":"napkin-scenario","version":1,"model":{"layers":2,"d_model":64,"d_ff":256,
          "heads":4,"kv_heads":4,"head_dim":16,"vocab":100}})");
  EXPECT_EQ(s.shape.norms_per_layer, 2);
  EXPECT_EQ(s.shape.kv_lora_rank, 0);
  EXPECT_EQ(s.shape.qk_norm, QkNorm::none);
  auto error = [](const char* json) {
    try {
      scenario_from_json(json, "s.json");
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":2,"model":{"qk_norm":"both"}})")
                .find("field \"model.qk_norm\""),
            std::string::npos);
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":2,"model":{"norms_per_layer":9}})")
                .find("model.norms_per_layer"),
            std::string::npos);
  // MLA dimensions that do not add up to head_dim are refused.
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":2,"model":{"kv_lora_rank":512,
      "qk_nope_head_dim":128,"qk_rope_head_dim":64,"v_head_dim":128,"head_dim":128}})")
                .find("qk_nope_head_dim + qk_rope_head_dim"),
            std::string::npos);
  EXPECT_NE(error(R"({"format":"napkin-scenario","version":3})").find("newer Napkin"),
            std::string::npos);
}

TEST(ScenarioJson, PlanFileOpensAndComputes) {
  const Scenario s = load_scenario_file(NAPKIN_TEST_DATA "/scenarios/plan-v2.napkin.json");
  EXPECT_EQ(s.plan.mode, PlanMode::train_model);
  EXPECT_EQ(s.plan.train_tokens, 15e12);
  EXPECT_EQ(s.goodput.mode, CheckpointMode::asynchronous);
  EXPECT_FALSE(s.goodput.checkpoint_write_minutes.has_value());
  ASSERT_TRUE(s.ranges.mfu.has_value());
  EXPECT_EQ(s.ranges.mfu->low, 0.3);
  EXPECT_EQ(s.ranges.shape, RangeShape::lognormal);
  EXPECT_EQ(s.ranges.seed, 7u);
  EXPECT_EQ(s.serving.chips, 16);
  const BudgetView v = make_budget_view(s);
  ASSERT_TRUE(v.train.has_value());
  EXPECT_FALSE(v.train->data_suffice);  // 15T tokens of 5T unique
  ASSERT_TRUE(v.ranges.has_value());
  EXPECT_LT(v.ranges->loss.p.p10, v.ranges->loss.p.p90);
}

TEST(ScenarioJson, LawChoiceRoundTrips) {
  Scenario s;
  s.plan.law = LawChoice::chinchilla_paper;
  const std::string text = scenario_to_json(s);
  EXPECT_NE(text.find("\"law\": \"chinchilla_paper\""), std::string::npos);
  EXPECT_EQ(scenario_from_json(text).plan.law, LawChoice::chinchilla_paper);
  EXPECT_EQ(s.budget_inputs().law, chinchilla_paper_plan_law());
  // The IsoFLOPs panel's ladder, fitted: the plan's law is that fit.
  s.plan.law = LawChoice::fitted;
  const PlanLaw fitted = s.budget_inputs().law;
  EXPECT_EQ(fitted.choice, LawChoice::fitted);
  EXPECT_NE(fitted.name.find("IsoFLOPs panel"), std::string::npos);
  EXPECT_NE(make_budget_view(s).report.recommendation.find(fitted.name), std::string::npos);
}

// Issue 25: the serving run's scheduler (tokens per iteration, chunked
// prefill) is saved, null is the engine's default, and bad values are
// refused by name.
TEST(ScenarioJson, ServingSchedulerRoundTrips) {
  Scenario s;
  s.roofline.serving_layout.max_tokens_per_step = 4096;
  s.roofline.serving_layout.chunked_prefill = false;
  const std::string text = scenario_to_json(s);
  EXPECT_NE(text.find("\"chunked_prefill\": false"), std::string::npos);
  EXPECT_EQ(scenario_from_json(text), s);
  s.roofline.serving_layout.chunked_prefill.reset();
  const std::string unset = scenario_to_json(s);
  EXPECT_NE(unset.find("\"chunked_prefill\": null"), std::string::npos);
  EXPECT_EQ(scenario_from_json(unset), s);
  std::string bad = text;
  bad.replace(bad.find("\"max_tokens_per_step\": 4096"), 27, "\"max_tokens_per_step\": -5");
  try {
    (void)scenario_from_json(bad);
    ADD_FAILURE() << "a negative token budget was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("max_tokens_per_step"), std::string::npos) << e.what();
  }
  // The engine's memory setting: 0 is the engine's, a fraction round-trips,
  // one above 1 is refused by name.
  s.roofline.serving_layout.engine_memory_fraction = 0.95;
  const std::string memory = scenario_to_json(s);
  EXPECT_NE(memory.find("\"engine_memory_fraction\": 0.95"), std::string::npos);
  EXPECT_EQ(scenario_from_json(memory), s);
  const std::string set = "\"engine_memory_fraction\": 0.95";
  std::string too_much = memory;
  too_much.replace(too_much.find(set), set.size(), "\"engine_memory_fraction\": 1.5");
  try {
    (void)scenario_from_json(too_much);
    ADD_FAILURE() << "a memory fraction above 1 was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("engine_memory_fraction"), std::string::npos) << e.what();
  }
  // The benchmark run: an unknown mode is named with the ones accepted.
  std::string mode = text;
  mode.replace(mode.find("\"run_mode\": \"offline\""), 21, "\"run_mode\": \"burst\"");
  try {
    (void)scenario_from_json(mode);
    ADD_FAILURE() << "an unknown run mode was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("roofline.serving_layout.run_mode"), std::string::npos)
        << e.what();
  }
}
