// Issue 28, item 13: a scenario document is read strictly. Numbers in JSON's
// grammar only ("5." and ".5" are not JSON), no key twice, no key this build
// does not know (a misspelling is named with the key it resembles), and the
// format's version present. Every document Napkin writes or ships still opens.
#include <gtest/gtest.h>

#include <QDir>
#include <stdexcept>
#include <string>

#include "scenario_json.h"

using namespace napkin;

namespace {

std::string doc(const std::string& body) {
  return R"({"format":"napkin-scenario","version":2,)" + body + "}";
}

// The message of the refusal, or "" when the document was accepted.
std::string refusal(const std::string& json) {
  try {
    (void)scenario_from_json(json, "s.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(ScenarioStrict, NumbersOutsideJsonsGrammarAreRefusedNamingTheField) {
  // Qt's parser takes these: the strict check names them.
  for (const char* bad : {"5.", ".5", "-.5"}) {
    const std::string m = refusal(doc(std::string(R"("budget":{"days":)") + bad + "}"));
    EXPECT_NE(m.find("budget.days"), std::string::npos) << bad << ": " << m;
    EXPECT_NE(m.find("is not JSON"), std::string::npos) << bad << ": " << m;
  }
  // Qt's parser refuses these itself.
  for (const char* bad : {"0x10", "+5", "05", "1e"})
    EXPECT_NE(refusal(doc(std::string(R"("budget":{"days":)") + bad + "}")), "") << bad;
  for (const char* good : {"5", "5.0", "0.5", "5e1", "5E+1", "50e-1"})
    EXPECT_EQ(refusal(doc(std::string(R"("budget":{"days":)") + good + "}")), "") << good;
}

TEST(ScenarioStrict, AKeyGivenTwiceIsRefused) {
  const std::string m = refusal(doc(R"("hardware":{"chips":64,"chips":128})"));
  EXPECT_NE(m.find("\"hardware.chips\" is given twice"), std::string::npos) << m;
  EXPECT_NE(refusal(doc(R"("hardware":{"chips":64},"hardware":{"chips":8})")).find("twice"),
            std::string::npos);
  // The same key in two objects is two fields.
  EXPECT_EQ(refusal(doc(R"("hardware":{"chips":64},"serving":{"chips":8})")), "");
  // A key inside a string is text.
  EXPECT_EQ(refusal(doc(R"("model":{"name":"chips, \"chips\": 1"})")), "");
}

TEST(ScenarioStrict, AnUnknownKeyIsRefusedWithTheOneItResembles) {
  std::string m = refusal(doc(R"("hardware":{"chps":64})"));
  EXPECT_NE(m.find("\"hardware.chps\""), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean \"hardware.chips\""), std::string::npos) << m;
  m = refusal(doc(R"("hardwear":{"chips":64})"));
  EXPECT_NE(m.find("\"hardwear\""), std::string::npos) << m;
  m = refusal(doc(R"("notes":"mine","extra":1)"));
  EXPECT_NE(m.find("1 more unknown"), std::string::npos) << m;
}

TEST(ScenarioStrict, TheVersionIsRequired) {
  const std::string m = refusal(R"({"format":"napkin-scenario","hardware":{"chips":64}})");
  EXPECT_NE(m.find("\"version\""), std::string::npos) << m;
  EXPECT_NE(m.find("found nothing"), std::string::npos) << m;
}

TEST(ScenarioStrict, EveryShippedAndWrittenDocumentStillOpens) {
  const QDir dir(QStringLiteral(NAPKIN_TEST_DATA "/scenarios"));
  const QStringList files = dir.entryList({QStringLiteral("*.napkin.json")}, QDir::Files);
  ASSERT_FALSE(files.isEmpty());
  for (const QString& f : files)
    EXPECT_NO_THROW((void)load_scenario_file(dir.filePath(f).toStdString())) << f.toStdString();
  // Written, then read: a default scenario and one of each shipped file.
  EXPECT_NO_THROW((void)scenario_from_json(scenario_to_json(Scenario{})));
  for (const QString& f : files) {
    const Scenario s = load_scenario_file(dir.filePath(f).toStdString());
    EXPECT_EQ(scenario_from_json(scenario_to_json(s)), s) << f.toStdString();
  }
}

// Item 15: a value is echoed as written, not cut to six digits.
TEST(ScenarioStrict, AValueOutOfRangeIsEchoedInFull) {
  const std::string m = refusal(doc(R"("hardware":{"chips":9007199254740992})"));
  EXPECT_NE(m.find("found 9007199254740992"), std::string::npos) << m;
  EXPECT_EQ(m.find("e+15"), std::string::npos) << m;
}
