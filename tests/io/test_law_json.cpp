// A fitted law as a file: round trip, and one message naming the key of a
// bad file.
#include <gtest/gtest.h>

#include <QDir>
#include <QTemporaryDir>
#include <stdexcept>
#include <string>

#include "law_json.h"

using namespace napkin;

namespace {
std::string refusal(const std::string& json) {
  try {
    (void)plan_law_from_json(json, "law.json");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}
const char* kGood =
    R"({"format": "napkin-law", "version": 1, "name": "the law fitted to a.csv", "E": 1.8,
        "A": 480, "alpha": 0.35, "B": 2000, "beta": 0.36, "ladder_max_flops": 1e21,
        "confidence": 0.9, "draws": [{"E": 1.81, "A": 470, "alpha": 0.34, "B": 2100, "beta": 0.37}]})";
}  // namespace

TEST(LawJson, RoundTripsThroughTheAtomicWriter) {
  const PlanLaw law = plan_law_from_json(kGood, "law.json");
  EXPECT_EQ(law.choice, LawChoice::fitted);
  EXPECT_EQ(law.name, "the law fitted to a.csv");
  EXPECT_EQ(law.law, (LossLaw{1.8, 480, 0.35, 2000, 0.36}));
  ASSERT_EQ(law.draws.size(), 1u);
  EXPECT_DOUBLE_EQ(law.draws[0].beta, 0.37);
  EXPECT_DOUBLE_EQ(law.confidence, 0.9);
  QTemporaryDir dir;
  const std::string path = QDir(dir.path()).filePath("law.json").toStdString();
  save_plan_law_file(path, law, "huber-log", 240);
  EXPECT_EQ(load_plan_law_file(path), law);
}

TEST(LawJson, ABadFileIsRefusedNamingTheKey) {
  EXPECT_NE(refusal("[1]").find("format"), std::string::npos);
  EXPECT_NE(refusal(R"({"format": "napkin-scenario"})").find("format"), std::string::npos);
  EXPECT_NE(refusal("{").find("not JSON"), std::string::npos);
  std::string s = kGood;
  EXPECT_NE(refusal(std::string(s).replace(s.find("\"alpha\": 0.35"), 13, "\"alpha\": 2.50"))
                .find("alpha"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(s).replace(s.find("\"beta\": 0.37"), 12, "\"bet\": 0.37"))
                .find("draws[0].beta: missing"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(s).replace(s.find("\"E\": 1.8,"), 9, "\"E\": \"x\","))
                .find("law.json: E: must be a number"),
            std::string::npos);
  EXPECT_NE(refusal(std::string(s).replace(s.find("1e21"), 4, "-1.0")).find("ladder_max_flops"),
            std::string::npos);
  EXPECT_THROW((void)load_plan_law_file("/nonexistent/law.json"), std::runtime_error);
}
