// The scenario file reads every registered input (inputs.h) with the
// registry's range: the ends load, just beyond is refused naming the field.
#include <gtest/gtest.h>

#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "inputs.h"
#include "scenario_json.h"

using namespace napkin;

namespace {

// A scenario in which every input's ends make a run that progresses: without
// interruptions (10 million chips at Llama 3's rate crash every 18 s, and the
// planner refuses a run that never progresses, whatever the range allows).
Scenario base() {
  Scenario s;
  s.goodput.interruptions_per_1000_chip_days = 0;
  return s;
}

// The input's JSON path: its section's objects ("roofline.serving_layout"),
// then its key.
QStringList json_path(const ScenarioInput& in) {
  QStringList path = QString::fromUtf8(in.section.data(), in.section.size()).split(u'.');
  path << QString::fromUtf8(in.json_key.data(), in.json_key.size());
  return path;
}

QJsonValue value_at(const QJsonObject& doc, const QStringList& path) {
  QJsonValue v = doc;
  for (const QString& key : path) v = v.toObject()[key];
  return v;
}

QJsonObject with_value_at(QJsonObject o, const QStringList& path, double v) {
  if (path.size() == 1) {
    o[path.front()] = v;
  } else {
    o[path.front()] = with_value_at(o[path.front()].toObject(), path.mid(1), v);
  }
  return o;
}

// The base with what a model-shape value needs of the rest of the shape
// (the KV heads divide the heads, top-k within the experts, dense layers
// within the layers; shared experts and dense layers only in an MoE model).
Scenario base_for(const ScenarioInput& in, double v) {
  Scenario s = base();
  ModelShape& m = s.shape;
  // Only the shape's counts are read as one (others reach 1e22).
  const std::int64_t n = in.section == "model" ? static_cast<std::int64_t>(v) : 0;
  if (in.key == "model.heads") m.n_kv_heads = 1;
  if (in.key == "model.kv_heads") m.n_heads = n;
  const bool moe = (in.key == "model.experts" || in.key == "model.top_k" ||
                    in.key == "model.shared_experts" || in.key == "model.dense_layers") &&
                   n > 0;
  if (moe) {
    m.n_experts = in.key == "model.experts" || in.key == "model.top_k" ? n : 1;
    m.top_k = in.key == "model.top_k" ? n : 1;
  }
  if (in.key == "model.dense_layers") m.n_layers = std::max<std::int64_t>(n, 1);
  // The IsoFLOPs law's edited constants are a custom law; its largest budget
  // stays above its smallest.
  if (in.section == "isoflops.ladder.synthetic.law")
    s.isoflops.synthetic.law_preset = LawPreset::custom;
  if (in.key == "isoflops.ladder.synthetic.budget_min_flops")
    s.isoflops.synthetic.budget_max_flops = 1e27;
  if (in.key == "isoflops.ladder.synthetic.budget_max_flops")
    s.isoflops.synthetic.budget_min_flops = 1e12;
  // The MoE router's top-k within its experts.
  if (in.key == "moe.experts") s.moe.top_k = 1;
  if (in.key == "moe.top_k") s.moe.n_experts = std::llround(v);
  // A rate of crashes a run outlives only on one chip that restarts at once
  // and checkpoints in no time.
  if (in.key == "goodput.interruptions_per_1000_chip_days") {
    s.goodput.interruptions_per_1000_chip_days = 0;
    s.n_chips = 1;
    s.goodput.restart_minutes = 0;
    s.goodput.checkpoint_interval_minutes = 0.01;
    s.goodput.checkpoint_write_minutes = 0;
  }
  return s;
}

// The base document with one input's JSON value replaced (the rest of the
// shape as its end needs, beyond the end too).
std::string with_value(const ScenarioInput& in, double v) {
  const QJsonObject doc =
      QJsonDocument::fromJson(
          QByteArray::fromStdString(scenario_to_json(base_for(in, std::min(v, in.hi)))))
          .object();
  return QJsonDocument(with_value_at(doc, json_path(in), v)).toJson().toStdString();
}

}  // namespace

TEST(ScenarioInputs, EveryInputIsWrittenUnderItsKey) {
  const QJsonObject doc =
      QJsonDocument::fromJson(QByteArray::fromStdString(scenario_to_json(Scenario{}))).object();
  for (const ScenarioInput& in : scenario_inputs()) {
    const QJsonValue v = value_at(doc, json_path(in));
    if (!input_is_set(in, Scenario{})) {  // unset by default: written as null
      EXPECT_TRUE(v.isNull()) << in.key;
      continue;
    }
    ASSERT_TRUE(v.isDouble()) << in.key;
    EXPECT_DOUBLE_EQ(v.toDouble(), in.default_value) << in.key;
  }
}

TEST(ScenarioInputs, TheEndsLoadAndJustBeyondIsRefused) {
  for (const ScenarioInput& in : scenario_inputs()) {
    SCOPED_TRACE(std::string(in.key));
    for (double v : {in.lo, in.hi}) {
      const Scenario s = scenario_from_json(with_value(in, v), "test.json");
      EXPECT_EQ(in.get(s), v);
    }
    const double above = in.type == InputType::count ? in.hi + 1 : std::nextafter(in.hi, 1e300);
    try {
      (void)scenario_from_json(with_value(in, above), "test.json");
      ADD_FAILURE() << "accepted " << above;
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::string(in.key)), std::string::npos) << what;
      EXPECT_NE(what.find(input_range_text(in)), std::string::npos) << what;
    }
  }
}

// An input the document may leave unset: null unsets it (what it is then
// derived from), a number sets it, and the refusal says both.
TEST(ScenarioInputs, AnUnsetInputIsNullAndANumberSetsIt) {
  const ScenarioInput& in = scenario_input("goodput.checkpoint_write_minutes");
  ASSERT_NE(in.clear, nullptr);
  EXPECT_FALSE(input_is_set(in, Scenario{}));
  const Scenario five = scenario_from_json(with_value(in, 5), "test.json");
  ASSERT_TRUE(input_is_set(in, five));
  EXPECT_EQ(*five.goodput.checkpoint_write_minutes, 5);
  // Written and read back: set stays set, unset stays unset.
  EXPECT_EQ(scenario_from_json(scenario_to_json(five), "again.json").goodput, five.goodput);
  EXPECT_FALSE(input_is_set(in, scenario_from_json(scenario_to_json(Scenario{}), "default.json")));
  // Null over a set value unsets it.
  QJsonObject doc =
      QJsonDocument::fromJson(QByteArray::fromStdString(scenario_to_json(five))).object();
  QJsonObject goodput = doc["goodput"].toObject();
  goodput["checkpoint_write_minutes"] = QJsonValue::Null;
  doc["goodput"] = goodput;
  EXPECT_FALSE(
      input_is_set(in, scenario_from_json(QJsonDocument(doc).toJson().toStdString(), "null.json")));
  try {
    (void)scenario_from_json(with_value(in, -1), "test.json");
    ADD_FAILURE() << "accepted -1";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("or null (from the storage bandwidth)"), std::string::npos) << what;
  }
}
