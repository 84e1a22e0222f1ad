// Issue 28, item 13: a scenario document is read strictly. Numbers in JSON's
// grammar only ("5." and ".5" are not JSON), no key twice, and the format's
// version present. A key this build does not know is kept, written back on
// save and named (a misspelling with the key it resembles). Every document Napkin writes or ships
// still opens.
#include <gtest/gtest.h>

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <stdexcept>
#include <string>
#include <vector>

#include "io_test_util.h"
#include "scenario_json.h"

using namespace io_test;

using namespace napkin;

namespace {

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

// What the file says about fields this version does not read.
std::string warning_of(const std::string& json, Scenario* out = nullptr) {
  std::vector<std::string> warnings;
  const Scenario s = scenario_from_json(json, "s.json", &warnings);
  if (out) *out = s;
  EXPECT_LE(warnings.size(), 1u);
  return warnings.empty() ? std::string() : warnings.front();
}

// The bytes of the value of `key` (its first occurrence) in `json`: from the
// key to the end of its line, or of its indented block.
std::string value_text(const std::string& json, const std::string& key) {
  const std::size_t at = json.find("\"" + key + "\": ");
  if (at == std::string::npos) return {};
  const std::size_t line_start = json.rfind('\n', at) + 1;
  const std::string indent = json.substr(line_start, at - line_start);
  std::size_t end = json.find('\n', at);
  // A block ends at the line that closes it at the key's indentation.
  if (json[end - 1] == '{' || json[end - 1] == '[') {
    const char close = json[end - 1] == '{' ? '}' : ']';
    end = json.find("\n" + indent + close, end) + 1 + indent.size() + 1;
  }
  return json.substr(at, end - at);
}

TEST(ScenarioStrict, AnUnknownKeyIsKeptAndNamedWithTheOneItResembles) {
  std::string m = warning_of(doc(R"("hardware":{"chps":64})"));
  EXPECT_NE(m.find("\"hardware.chps\""), std::string::npos) << m;
  EXPECT_NE(m.find("did you mean \"hardware.chips\""), std::string::npos) << m;
  EXPECT_NE(m.find("kept a field"), std::string::npos) << m;
  m = warning_of(doc(R"("hardwear":{"chips":64})"));
  EXPECT_NE(m.find("\"hardwear\""), std::string::npos) << m;
  m = warning_of(doc(R"("notes":"mine","extra":1)"));
  EXPECT_NE(m.find("kept 2 fields"), std::string::npos) << m;
  EXPECT_NE(m.find("\"notes\""), std::string::npos) << m;
  EXPECT_NE(m.find("\"extra\""), std::string::npos) << m;
  // A document with only known fields says nothing; the known value stays.
  Scenario s;
  EXPECT_EQ(warning_of(doc(R"("hardware":{"chips":64})"), &s), "");
  EXPECT_EQ(s.n_chips, 64);
  EXPECT_TRUE(s.foreign_fields.empty());
  (void)warning_of(doc(R"("hardware":{"chps":64})"), &s);
  EXPECT_EQ(s.n_chips, Scenario{}.n_chips);  // a misspelling sets nothing
  // Without a place for warnings the document still opens, its fields kept.
  EXPECT_EQ(scenario_from_json(doc(R"("extra":1)")).foreign_fields.size(), 1u);
}

// A newer version's fields survive open and save: the unknown part of the
// document is written back byte for byte, wherever it sits.
TEST(ScenarioStrict, UnknownFieldsRoundTripByteForByte) {
  // A document as Napkin writes it, with fields of a newer version added at
  // the top level, inside a known object and as a nested object.
  QJsonObject root =
      QJsonDocument::fromJson(QByteArray::fromStdString(scenario_to_json(Scenario{}))).object();
  QJsonObject hardware = root.value(QStringLiteral("hardware")).toObject();
  hardware.insert(QStringLiteral("nvlink_domain_chips"), 72);
  root.insert(QStringLiteral("hardware"), hardware);
  root.insert(QStringLiteral("zz_future"),
              QJsonObject{{QStringLiteral("note"), QStringLiteral("keep me: \u00e9, \"quoted\"")},
                          {QStringLiteral("weights"),
                           QJsonArray{QStringLiteral("w"), 0.25, 1e-300, 123456789012345.0}},
                          {QStringLiteral("flag"), true},
                          {QStringLiteral("nothing"), QJsonValue()}});
  root.insert(QStringLiteral("aa_future"), -1.5);
  const std::string written = QJsonDocument(root).toJson(QJsonDocument::Indented).toStdString();

  std::vector<std::string> warnings;
  const Scenario s = scenario_from_json(written, "newer.json", &warnings);
  ASSERT_EQ(s.foreign_fields.size(), 3u);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("\"hardware.nvlink_domain_chips\""), std::string::npos);
  EXPECT_NE(warnings[0].find("\"zz_future\""), std::string::npos);
  const std::string saved = scenario_to_json(s);
  for (const char* key : {"nvlink_domain_chips", "zz_future", "aa_future"}) {
    const std::string before = value_text(written, key);
    ASSERT_FALSE(before.empty()) << key;
    EXPECT_EQ(value_text(saved, key), before) << key;
  }
  // Numbers alone in an array are written on one line, as Napkin writes them.
  Scenario with_array;
  with_array.foreign_fields.push_back({{"isoflops", "future_points"}, "[[1,2.5],[3,4e+30]]"});
  const std::string array_written = scenario_to_json(with_array);
  const std::string array_before = value_text(array_written, "future_points");
  ASSERT_NE(array_before.find("[1, 2.5]"), std::string::npos) << array_before;
  EXPECT_EQ(value_text(scenario_to_json(scenario_from_json(array_written)), "future_points"),
            array_before);
  // And again: a second save of the reopened file is the same document.
  EXPECT_EQ(scenario_to_json(scenario_from_json(saved)), saved);
  EXPECT_EQ(scenario_from_json(saved), s);
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
