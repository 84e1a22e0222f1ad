#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>
#include <QTemporaryDir>

#include "cli_test_util.h"
#include "moe_view.h"
#include "scenario.h"

namespace {

CliResult moe(QStringList args) {
  args.prepend(QStringLiteral("moe"));
  args.append(QStringLiteral("--json"));
  return run_cli(args);
}

}  // namespace

TEST(CliMoe, CapacitySeedExample) {  // seed: {31, 9, 33, 0.09}
  const CliResult r = moe({"capacity", "--counts", "40,30,20,10", "--capacity-factor", "1.25"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  ASSERT_TRUE(r.json_ok);
  EXPECT_EQ(r.json["capacity_per_expert"].toInteger(), 31);
  EXPECT_EQ(r.json["dropped"].toInteger(), 9);
  EXPECT_EQ(r.json["padded_slots"].toInteger(), 33);
  EXPECT_NEAR(r.json["drop_rate"].toDouble(), 0.09, 5e-3);
  EXPECT_EQ(r.json["tradeoff"].toArray().size(), 11);
}

TEST(CliMoe, CapacityFactorBelowOneIsUsageError) {
  const CliResult r = moe({"capacity", "--counts", "40,30,20,10", "--capacity-factor", "0.9"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("--capacity-factor"));
  EXPECT_EQ(moe({"capacity", "--counts", "1.5,2"}).exit_code, 2);
  EXPECT_EQ(moe({"capacity"}).exit_code, 2);
}

TEST(CliMoe, CommSeedWall) {  // seed ch. 9: 32.2 GB, 2.578 s
  const CliResult r =
      moe({"comm", "--tokens", "8192", "--d-model", "8192", "--layers", "60", "--top-k", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_EQ(r.json["bytes"].toInteger(), 32212254720LL);
  EXPECT_NEAR(r.json["seconds"].toDouble(), 2.578, 5e-4);
  const CliResult slow = moe({"comm", "--tokens", "8192", "--d-model", "8192", "--layers", "60",
                              "--top-k", "2", "--link-gbps", "50", "--latency-us", "0"});
  EXPECT_NEAR(slow.json["seconds"].toDouble(), 2 * 2.5770, 5e-3);
  EXPECT_EQ(moe({"comm", "--tokens", "8192"}).exit_code, 2);
}

TEST(CliMoe, PipelineClaimTwelve) {  // 2240 ms → 550 ms, 8/11
  const CliResult r = moe(
      {"pipeline", "--chunks", "8", "--stages", "4", "--compute-ms", "50", "--transfer-ms", "20"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_DOUBLE_EQ(r.json["serial_ms"].toDouble(), 2240);
  EXPECT_DOUBLE_EQ(r.json["pipelined_ms"].toDouble(), 550);
  EXPECT_NEAR(r.json["utilization"].toDouble(), 8.0 / 11.0, 1e-12);
}

TEST(CliMoe, CollapseAtZeroAuxBalancedAtOnePercent) {
  const CliResult bad = moe({"collapse", "--aux", "0", "--steps", "600"});
  ASSERT_EQ(bad.exit_code, 0) << bad.err.toStdString();
  for (const char* key : {"max_over_mean", "dead_experts", "l_balance", "l_z", "drop_rate"})
    EXPECT_TRUE(bad.json.contains(key)) << key;
  const QJsonArray history = bad.json["history"].toArray();
  ASSERT_EQ(history.size(), 600);
  EXPECT_TRUE(history[0].toObject().contains("max_over_mean"));
  EXPECT_TRUE(history[0].toObject().contains("l_balance"));
  EXPECT_GT(bad.json["max_over_mean"].toDouble(), 3.0);
  EXPECT_GE(bad.json["dead_experts"].toInteger(), 1);
  EXPECT_GT(bad.json["drop_rate"].toDouble(), 0.3);
  const CliResult good = moe({"collapse", "--aux", "0.01"});
  EXPECT_EQ(good.json["dead_experts"].toInteger(), 0);
  EXPECT_LT(good.json["recent_max_over_mean"].toDouble(), 1.1);
  EXPECT_NEAR(good.json["l_balance"].toDouble(), 1.0, 0.02);
}

TEST(CliMoe, CollapseSameSeedSameBytes) {
  const QStringList args{"collapse", "--steps", "40", "--seed", "3", "--experts", "16"};
  const CliResult a = moe(args), b = moe(args);
  ASSERT_EQ(a.exit_code, 0);
  EXPECT_EQ(a.out, b.out);
  QStringList other = args;
  other[4] = QStringLiteral("4");
  EXPECT_NE(moe(other).out, a.out);
}

TEST(CliMoe, BadSubcommandsAndFlags) {
  EXPECT_EQ(run_cli({"moe"}).exit_code, 2);
  const CliResult r = run_cli({"moe", "explode"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("explode"));
  EXPECT_EQ(moe({"collapse", "--top-k", "9"}).exit_code, 2);
  EXPECT_EQ(moe({"collapse", "--bogus", "1"}).exit_code, 2);
}

TEST(CliMoe, TextReportHasUnits) {
  const CliResult r = run_cli(
      {"moe", "comm", "--tokens", "8192", "--d-model", "8192", "--layers", "60", "--top-k", "2"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.out.contains("GB"));
  EXPECT_TRUE(r.out.contains(" s"));
}

TEST(CliMoe, CollapseVerdictIsTheModelsRule) {
  const CliResult bad = moe({"collapse", "--aux", "0", "--steps", "600"});
  ASSERT_EQ(bad.exit_code, 0) << bad.err.toStdString();
  EXPECT_EQ(bad.json["verdict"].toString(), QStringLiteral("collapsed"));
  EXPECT_GE(bad.json["verdict_reasons"].toArray().size(), 1);
  EXPECT_DOUBLE_EQ(bad.json["verdict_thresholds"].toObject()["collapsed_drop_fraction"].toDouble(),
                   0.25);
  const CliResult good = moe({"collapse", "--aux", "0.01"});
  EXPECT_EQ(good.json["verdict"].toString(), QStringLiteral("healthy"));
  EXPECT_EQ(good.json["verdict_reasons"].toArray().size(), 0);
  const CliResult text = run_cli({"moe", "collapse", "--aux", "0", "--steps", "300"});
  EXPECT_TRUE(text.out.contains("COLLAPSED")) << text.out.toStdString();
  EXPECT_TRUE(text.out.contains("because")) << text.out.toStdString();
}

// moe collapse --scenario: the MoE panel's run of record of a saved scenario
// (its knobs and steps), the same steps as the panel's; the knob flags do not
// combine with it.
TEST(CliMoe, AScenarioRunsItsRunOfRecord) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "m.napkin.json", R"({"format": "napkin-scenario",
    "version": 2, "moe": {"experts": 16, "top_k": 2, "tokens_per_batch": 512, "seed": 3,
    "aux_on": true, "aux_weight": 0.01, "steps": 120}})");
  napkin::Scenario s;
  s.moe.n_experts = 16;
  s.moe.tokens_per_batch = 512;
  s.moe.seed = 3;
  s.moe.aux_on = true;
  s.moe.steps = 120;
  const napkin::MoeRunOfRecord app = napkin::make_moe_run_of_record(s);
  const CliResult r = moe({"collapse", "--scenario", path});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  ASSERT_TRUE(r.json_ok) << r.out.toStdString();
  EXPECT_EQ(r.json["steps"].toInteger(), 120);
  EXPECT_EQ(r.json["history"].toArray().size(), static_cast<qsizetype>(app.history.size()));
  EXPECT_DOUBLE_EQ(r.json["drop_rate"].toDouble(), app.history.back().drop_rate);
  EXPECT_DOUBLE_EQ(r.json["max_over_mean"].toDouble(), app.history.back().max_over_mean);
  EXPECT_EQ(r.json["shares"].toArray().size(), 16);
  const CliResult both = run_cli({"moe", "collapse", "--scenario", path, "--experts", "4"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(both.err.contains("--experts cannot be combined with --scenario"))
      << both.err.toStdString();
}
