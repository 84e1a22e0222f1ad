#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "scenario_json.h"

using namespace napkin;

TEST(ScenarioJson, DefaultRoundTripsAndIsDeterministic) {
  const std::string a = scenario_to_json(Scenario{});
  EXPECT_EQ(scenario_from_json(a), Scenario{});
  EXPECT_EQ(scenario_to_json(scenario_from_json(a)), a);
  EXPECT_NE(a.find("\"version\": 2"), std::string::npos);
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
  EXPECT_NE(error("").find("not valid JSON"), std::string::npos);
}
