// napkin-cli diff A B [--json]: two plans side by side, run as a user would.
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

#include "cli_runner.h"

namespace {

const QString kScenarios = QStringLiteral(NAPKIN_TEST_DATA) + QStringLiteral("/scenarios/");
const QString kH100 = kScenarios + QStringLiteral("llama3-70b-h100-30d.napkin.json");
const QString kTpu = kScenarios + QStringLiteral("llama3-70b-tpu-v5p-45d.napkin.json");
const QString kLadder = kScenarios + QStringLiteral("chinchilla-ladder.napkin.json");

QJsonObject find(const QJsonArray& a, const QString& name) {
  for (const QJsonValue& v : a)
    if (v.toObject()[QStringLiteral("name")].toString() == name) return v.toObject();
  return {};
}

}  // namespace

TEST(CliDiff, IdenticalFilesDifferInNothing) {
  const CliResult r = run_cli({"diff", kH100, kH100, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  ASSERT_TRUE(r.json_ok) << r.out.toStdString();
  EXPECT_EQ(r.json.keys(), (QStringList{"inputs", "outputs"}));
  EXPECT_TRUE(r.json["inputs"].toArray().isEmpty());
  const QJsonArray outputs = r.json["outputs"].toArray();
  ASSERT_EQ(outputs.size(), 13);
  for (const QJsonValue& v : outputs) {
    const QJsonObject o = v.toObject();
    const std::string name = o["name"].toString().toStdString();
    EXPECT_EQ(o.keys(), (QStringList{"a", "b", "better", "delta", "name", "ratio", "unit"}))
        << name;
    EXPECT_TRUE(o["a"].isDouble()) << name;
    EXPECT_EQ(o["a"].toDouble(), o["b"].toDouble()) << name;
    EXPECT_EQ(o["delta"].toDouble(-1), 0.0) << name;
    EXPECT_EQ(o["better"].toString(), QStringLiteral("same")) << name;
  }
  EXPECT_EQ(find(outputs, "Compute C")["unit"].toString(), QStringLiteral("FLOPs"));
  EXPECT_DOUBLE_EQ(find(outputs, "Days")["ratio"].toDouble(), 1.0);

  const CliResult text = run_cli({"diff", kH100, kH100});
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_TRUE(text.out.contains("No input differs")) << text.out.toStdString();
  EXPECT_TRUE(text.out.contains("Headline outputs"));
  EXPECT_FALSE(text.out.contains("nan"));
}

TEST(CliDiff, H100For30DaysAgainstTpuV5pFor45) {
  const CliResult r = run_cli({"diff", kH100, kTpu, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QJsonArray inputs = r.json["inputs"].toArray();
  ASSERT_EQ(inputs.size(), 3);  // chip, days, price (per chip-hour)
  EXPECT_EQ(find(inputs, "Chip")["a"].toString(), QStringLiteral("H100"));
  EXPECT_EQ(find(inputs, "Chip")["b"].toString(), QStringLiteral("TPU v5p"));
  EXPECT_EQ(find(inputs, "Days")["a"].toString(), QStringLiteral("30 days"));
  EXPECT_EQ(find(inputs, "Days")["b"].toString(), QStringLiteral("45 days"));
  EXPECT_EQ(find(inputs, "Price")["b"].toString(), QStringLiteral("$4.2/chip-h"));

  const QJsonArray outputs = r.json["outputs"].toArray();
  const QJsonObject days = find(outputs, "Days");
  EXPECT_DOUBLE_EQ(days["delta"].toDouble(), 15.0);
  EXPECT_DOUBLE_EQ(days["ratio"].toDouble(), 1.5);
  EXPECT_EQ(days["better"].toString(), QStringLiteral("a"));
  // 2,048 chips × 86,400 s × 40 %: H100 990 TFLOP/s for 30 days, TPU v5p 459 for 45.
  const QJsonObject c = find(outputs, "Compute C");
  EXPECT_NEAR(c["a"].toDouble(), 2048 * 990e12 * 0.4 * 30 * 86400, 1e15);
  EXPECT_NEAR(c["b"].toDouble(), 2048 * 459e12 * 0.4 * 45 * 86400, 1e15);
  EXPECT_TRUE(c["better"].isNull());  // compute has no better direction on its own
  // Rental: 2,048 × 24 h × days × $/chip-hour.
  const QJsonObject cost = find(outputs, "Cost");
  EXPECT_EQ(cost["unit"].toString(), QStringLiteral("$"));
  EXPECT_GT(cost["b"].toDouble(), 2048 * 24 * 45 * 4.2);
  EXPECT_LT(cost["b"].toDouble(), 2048 * 24 * 45 * 4.2 * 1.05);  // energy adds a few %
  EXPECT_EQ(cost["better"].toString(), QStringLiteral("a"));
  EXPECT_EQ(find(outputs, "KV fit")["better"].toString(), QStringLiteral("b"));
  EXPECT_EQ(find(outputs, "IsoFLOPs forecast L*")["better"].toString(), QStringLiteral("a"));
  EXPECT_EQ(find(outputs, "Memory per device")["better"].toString(), QStringLiteral("same"));

  const CliResult text = run_cli({"diff", kH100, kTpu});
  ASSERT_EQ(text.exit_code, 0);
  EXPECT_TRUE(text.out.contains("Inputs that differ (3 of")) << text.out.toStdString();
  EXPECT_TRUE(text.out.contains("+15.0 days"));
  EXPECT_TRUE(text.out.contains("TPU v5p"));
}

TEST(CliDiff, PanelSettingsAndTheLoadedLadderAreInputs) {
  const CliResult d = run_cli({"diff", "--json", kH100, kLadder});
  ASSERT_EQ(d.exit_code, 0) << d.err.toStdString();
  const QJsonArray inputs = d.json["inputs"].toArray();
  const QJsonObject ladder = find(inputs, "IsoFLOPs: loaded CSV ladder");
  EXPECT_TRUE(ladder["a"].toString().startsWith(QStringLiteral("none")));
  EXPECT_TRUE(ladder["b"].toString().startsWith(QStringLiteral("svg_extracted_data.csv: 245 runs")))
      << ladder["b"].toString().toStdString();
  EXPECT_EQ(find(inputs, "MoE: steps")["b"].toString(), QStringLiteral("600 steps"));
  EXPECT_EQ(find(inputs, "Roofline: overlays")["b"].toString(), QStringLiteral("TPU v5e"));
  // The Chinchilla fit forecasts a higher loss than the synthetic Chinchilla law.
  const QJsonObject f = find(d.json["outputs"].toArray(), "IsoFLOPs forecast L*");
  EXPECT_GT(f["b"].toDouble(), f["a"].toDouble());
  EXPECT_EQ(f["unit"].toString(), QStringLiteral("nats/token"));
}

TEST(CliDiff, AFileThatFailsToLoad) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString truncated = dir.filePath(QStringLiteral("truncated.napkin.json"));
  {
    QFile in(kH100);
    ASSERT_TRUE(in.open(QIODevice::ReadOnly));
    QFile out(truncated);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(in.read(300));
  }
  for (const QString& bad :
       {truncated, dir.filePath(QStringLiteral("absent.napkin.json")), dir.path()}) {
    for (const QStringList& args :
         {QStringList{"diff", kH100, bad, "--json"}, QStringList{"diff", bad, kH100}}) {
      const CliResult r = run_cli(args);
      EXPECT_EQ(r.exit_code, 2) << bad.toStdString();
      EXPECT_TRUE(r.out.isEmpty()) << r.out.toStdString();
      EXPECT_EQ(r.err.count(QLatin1Char('\n')), 1) << r.err.toStdString();
      EXPECT_TRUE(r.err.startsWith(QStringLiteral("napkin-cli diff: "))) << r.err.toStdString();
      EXPECT_TRUE(r.err.contains(bad)) << r.err.toStdString();
    }
  }
  // A version-2 field out of range names the file and the field.
  const QString wrong = dir.filePath(QStringLiteral("wrong.napkin.json"));
  {
    QFile out(wrong);
    ASSERT_TRUE(out.open(QIODevice::WriteOnly));
    out.write(R"({"format":"napkin-scenario","version":2,"moe":{"steps":0}})");
  }
  const CliResult r = run_cli({"diff", kH100, wrong});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains(wrong) && r.err.contains("moe.steps")) << r.err.toStdString();
}

TEST(CliDiff, UsageErrors) {
  CliResult r = run_cli({"diff", kH100});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("two scenario files")) << r.err.toStdString();
  r = run_cli({"diff", kH100, kH100, kH100});
  EXPECT_EQ(r.exit_code, 2);
  r = run_cli({"diff", kH100, kH100, "--csv"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("--csv"));
  r = run_cli({"help"});
  EXPECT_TRUE(r.out.contains("diff A.napkin.json B.napkin.json [--max-seconds S] [--json]"));
}
