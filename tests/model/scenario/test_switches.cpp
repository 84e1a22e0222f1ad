// The switch registry: one description per on/off switch of the scenario,
// whose default is the scenario's own and whose flag turns it from it.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "expect_throw.h"
#include "scenario.h"
#include "scenario_fields.h"
#include "switches.h"

using namespace napkin;

TEST(Switches, EachDefaultIsTheScenarioStructsDefault) {
  const Scenario s;
  std::set<std::string_view> keys;
  for (const ScenarioSwitch& w : scenario_switches()) {
    SCOPED_TRACE(std::string(w.key));
    EXPECT_TRUE(keys.insert(w.key).second);
    EXPECT_EQ(w.get(s), w.default_on);
    EXPECT_FALSE(w.label.empty());
    EXPECT_FALSE(w.tooltip.empty());
    EXPECT_FALSE(w.compare_name.empty());
    EXPECT_EQ(std::string(w.key), std::string(w.section) + "." + std::string(w.json_key));
    // A flag turns the switch from its default; it never says the default.
    if (!w.flag.empty()) {
      EXPECT_NE(w.flag_sets, w.default_on);
    }
  }
}

TEST(Switches, SetReadsBack) {
  for (const ScenarioSwitch& w : scenario_switches())
    for (bool on : {false, true}) {
      Scenario s;
      w.set(s, on);
      EXPECT_EQ(w.get(s), on) << w.key;
    }
}

TEST(Switches, AnUnknownKeyIsRefusedNamingTheKnownOnes) {
  EXPECT_THROW_NAMING(scenario_switch("moe.renormalise"), "moe.renormalize");
}

// A comparison names a switch as the registry does.
TEST(Switches, TheDiffNamesASwitchByTheRegistry) {
  Scenario b;
  scenario_switch("moe.renormalize").set(b, false);
  int found = 0;
  for (const ScenarioField& f : scenario_fields())
    if (f.key == "moe.renormalize") {
      ++found;
      EXPECT_EQ(f.name, "MoE: renormalized gates");
      EXPECT_EQ(std::get<bool>(f.get(b)), false);
    }
  EXPECT_EQ(found, 1);
}
