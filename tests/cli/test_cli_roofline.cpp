#include <gtest/gtest.h>

#include <QJsonValue>
#include <tuple>
#include <utility>

#include "cli_test_util.h"

namespace {

double num(const CliResult& r, const char* key) {
  EXPECT_TRUE(r.json.contains(key)) << key;
  return r.json.value(key).toDouble();
}

QStringList latency(double params, int chips) {
  return {"latency",
          "--params",
          QString::number(params, 'g', 17),
          "--chip",
          "TPU v5e",
          "--chips",
          QString::number(chips)};
}

// ------------------------------------------------------------------- roofline

TEST(CliRoofline, LargeMatmulIsComputeBound) {
  // 8192³ in bf16: 2·8192³ FLOPs over 3·8192²·2 bytes (seed Phase 03 ch. 3).
  const CliResult r =
      json_ok({"roofline", "--chip", "H100", "--flops", "1099511627776", "--bytes", "402653184"});
  EXPECT_NEAR(num(r, "intensity"), 2730.7, 0.05);
  EXPECT_NEAR(num(r, "ridge"), 296, 0.5);
  EXPECT_DOUBLE_EQ(num(r, "attainable_flops_per_s"), 990e12);
  EXPECT_EQ(r.json.value("bound").toString(), "compute");
}

TEST(CliRoofline, BatchOneDecodeIsMemoryBound) {
  // 140 GFLOPs over 140 GB of weights: intensity 1, 0.3 % of an H100's peak.
  const CliResult r =
      json_ok({"roofline", "--chip", "H100", "--flops", "140e9", "--bytes", "140e9"});
  EXPECT_DOUBLE_EQ(num(r, "intensity"), 1.0);
  EXPECT_NEAR(num(r, "attainable_flops_per_s") / 990e12, 0.003, 0.0005);
  EXPECT_EQ(r.json.value("bound").toString(), "memory");
  EXPECT_EQ(r.json.value("lever").toString(), "reduce bytes moved");
}

TEST(CliRoofline, RidgesOfTheSeedChips) {
  const std::pair<const char*, double> chips[] = {
      {"H100", 296}, {"A100-80", 154}, {"TPU v5e", 241}, {"TPU v5p", 166}};
  for (const auto& [chip, ridge] : chips) {
    const CliResult r = json_ok({"roofline", "--chip", chip, "--flops", "1", "--bytes", "1"});
    EXPECT_NEAR(num(r, "ridge"), ridge, 0.5) << chip;
  }
}

TEST(CliRoofline, InvalidInput) {
  expect_usage_error({"roofline", "--chip", "Z80", "--flops", "1", "--bytes", "1"}, "chip");
  expect_usage_error({"roofline", "--chip", "H100", "--flops", "1"}, "--bytes");
  expect_usage_error({"roofline", "--chip", "H100", "--flops", "1", "--bytes", "0"}, "--bytes");
  expect_usage_error({"roofline", "--chip", "H100", "--flops", "-1", "--bytes", "1"}, "--flops");
  expect_usage_error({"roofline", "--flops", "1", "--bytes", "1"}, "--chip");
  expect_usage_error({"roofline", "--chip", "H100", "--flops", "1", "--bytes", "1", "--nope"},
                     "--nope");
}

TEST(CliRoofline, TextReportNamesTheVerdict) {
  const CliResult r = run_cli({"roofline", "--chip", "H100", "--flops", "1e9", "--bytes", "1e9"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.out.contains("memory-bound -> reduce bytes moved")) << r.out.toStdString();
  EXPECT_TRUE(r.out.contains("FLOP/byte"));
}

// -------------------------------------------------------------------- latency

TEST(CliRooflineLatency, TheSeedsChipTable) {
  // Phase 03 ch. 6 / Claim 14.
  struct Row {
    int chips;
    double prefill, decode, total;
    bool ok;
  };
  const Row rows[] = {{1, 5.822, 21.880, 27.952, false},
                      {4, 1.455, 5.470, 7.176, false},
                      {16, 0.364, 1.368, 1.981, false},
                      {64, 0.091, 0.342, 0.683, true},
                      {128, 0.045, 0.171, 0.466, true}};
  for (const Row& row : rows) {
    const CliResult r = json_ok(latency(70e9, row.chips));
    EXPECT_NEAR(num(r, "prefill_seconds"), row.prefill, 0.0005) << row.chips;
    EXPECT_NEAR(num(r, "decode_seconds"), row.decode, 0.0005) << row.chips;
    EXPECT_NEAR(num(r, "total_seconds"), row.total, 0.0005) << row.chips;
    EXPECT_EQ(r.json.value("meets_budget").toBool(), row.ok) << row.chips;
    EXPECT_EQ(r.json.value("chips_for_budget").toInteger(), 64);
    EXPECT_EQ(r.json.value("chips_to_hold_weights").toInteger(), 9);
  }
}

TEST(CliRooflineLatency, SmallerModelsNeedFewerChips) {
  const std::tuple<double, int, int> sizes[] = {{35e9, 32, 5}, {17e9, 16, 3}, {8e9, 8, 1}};
  for (const auto& [n, chips, hold] : sizes) {
    const CliResult r = json_ok(latency(n, 1));
    EXPECT_EQ(r.json.value("chips_for_budget").toInteger(), chips) << n;
    EXPECT_EQ(r.json.value("chips_to_hold_weights").toInteger(), hold) << n;
  }
}

TEST(CliRooflineLatency, UnreachableBudgetIsNull) {
  const CliResult r = json_ok(latency(70e9, 1) + QStringList{"--budget-s", "0.2500001"});
  ASSERT_TRUE(r.json.contains("chips_for_budget"));
  EXPECT_TRUE(r.json.value("chips_for_budget").isNull());
  EXPECT_FALSE(r.json.value("meets_budget").toBool());
  const CliResult text = run_cli(latency(70e9, 1) + QStringList{"--budget-s", "0.2500001"});
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_TRUE(text.out.contains("smaller model")) << text.out.toStdString();
}

TEST(CliRooflineLatency, BudgetAtOrBelowOverheadIsAnError) {
  expect_usage_error(latency(70e9, 1) + QStringList{"--budget-s", "0.2"},
                     "--budget-s (s) must be greater than --overhead-s");
  expect_usage_error(latency(70e9, 1) + QStringList{"--budget-s", "0.5", "--overhead-s", "0.5"},
                     "--overhead-s");
}

TEST(CliRooflineLatency, OptionsChangeTheNapkin) {
  const CliResult base = json_ok(latency(70e9, 16));
  const CliResult int8 = json_ok(latency(70e9, 16) + QStringList{"--bytes-per-param", "1"});
  EXPECT_NEAR(num(int8, "decode_seconds") * 2, num(base, "decode_seconds"), 1e-12);
  EXPECT_EQ(int8.json.value("chips_to_hold_weights").toInteger(), 5);
  const CliResult shorter =
      json_ok(latency(70e9, 16) + QStringList{"--prefill-tokens", "4096", "--decode-tokens", "64"});
  EXPECT_NEAR(num(shorter, "prefill_seconds") * 2, num(base, "prefill_seconds"), 1e-12);
  EXPECT_NEAR(num(shorter, "decode_seconds") * 2, num(base, "decode_seconds"), 1e-12);
  const CliResult loose = json_ok(latency(70e9, 16) + QStringList{"--budget-s", "2"});
  EXPECT_TRUE(loose.json.value("meets_budget").toBool());
  EXPECT_EQ(loose.json.value("chips_for_budget").toInteger(), 16);
}

TEST(CliRooflineLatency, InvalidInputAndDeterminism) {
  expect_usage_error({"latency", "--chip", "TPU v5e", "--chips", "1"}, "--params");
  expect_usage_error(latency(70e9, 0), "--chips");
  expect_usage_error({"latency", "--params", "70e9", "--chip", "v5e", "--chips", "1"}, "chip");
  expect_usage_error(latency(70e9, 1) + QStringList{"--batch", "0"}, "--batch");
  expect_usage_error(latency(70e9, 1) + QStringList{"--bytes-per-param", "0"}, "--bytes-per-param");
  const CliResult a = run_cli(latency(70e9, 16) + QStringList{"--json"});
  const CliResult b = run_cli(latency(70e9, 16) + QStringList{"--json"});
  EXPECT_EQ(a.out, b.out);
}

// ----------------------------------------------------------- decode-intensity

TEST(CliRooflineDecodeIntensity, TheDecodeWall) {
  // Phase 03 ch. 8: 70B, 80 layers, 8 KV heads, head_dim 128, 8k context.
  const std::pair<int, double> rows[] = {{1, 1.0}, {8, 6.9}, {64, 28.7}, {256, 43.3}, {1024, 49.6}};
  for (const auto& [batch, ai] : rows) {
    const CliResult r =
        json_ok({"decode-intensity", "--params", "70e9", "--layers", "80", "--kv-heads", "8",
                 "--head-dim", "128", "--seq", "8192", "--batch", QString::number(batch)});
    EXPECT_NEAR(num(r, "intensity"), ai, 0.05) << batch;
    EXPECT_LT(num(r, "intensity"), 296);
  }
}

TEST(CliRooflineDecodeIntensity, InvalidInput) {
  expect_usage_error({"decode-intensity", "--params", "70e9", "--layers", "80", "--kv-heads", "8",
                      "--head-dim", "128", "--seq", "8192"},
                     "--batch");
  expect_usage_error({"decode-intensity", "--params", "70e9", "--layers", "80", "--kv-heads", "0",
                      "--head-dim", "128", "--seq", "8192", "--batch", "1"},
                     "--kv-heads");
}

// ------------------------------------------------------------------ tile / mfu

TEST(CliRooflineTile, EfficiencyMatchesTheSeed) {
  const std::pair<const char*, double> rows[] = {
      {"11000", 0.999}, {"11008", 1.0}, {"8192", 1.0}, {"4097", 0.970}, {"4096", 1.0}};
  for (const auto& [dim, eff] : rows)
    EXPECT_NEAR(num(json_ok({"tile", "--dim", dim}), "efficiency"), eff, 0.0005) << dim;
  const CliResult r = json_ok({"tile", "--dim", "129", "--tile", "128"});
  EXPECT_NEAR(num(r, "efficiency"), 0.504, 0.0005);
  EXPECT_EQ(r.json.value("padded_dim").toInteger(), 256);
  EXPECT_DOUBLE_EQ(num(json_ok({"tile", "--dim", "24", "--tile", "16"}), "efficiency"), 0.75);
  expect_usage_error({"tile", "--dim", "0"}, "--dim");
  expect_usage_error({"tile", "--dim", "10", "--tile", "0"}, "--tile");
  expect_usage_error({"tile"}, "--dim");
}

QStringList mfu_args(const char* m, const char* v, const char* mem, const char* c, const char* o) {
  return {"mfu", "--matmul-s", m, "--vector-s",    v, "--memory-s",
          mem,   "--comms-s",  c, "--optimizer-s", o};
}

TEST(CliRooflineMfu, TheSeedsBudget) {
  const CliResult r = json_ok(mfu_args("100", "45", "60", "50", "25"));
  EXPECT_NEAR(num(r, "mfu"), 0.357, 0.0005);
  EXPECT_EQ(r.json.value("biggest_lever").toString(), "memory");
  EXPECT_NEAR(num(r, "comms_fraction"), 0.179, 0.0005);
  const CliResult text = run_cli(mfu_args("100", "45", "60", "50", "25"));
  EXPECT_TRUE(text.out.contains("35.7 %")) << text.out.toStdString();
}

TEST(CliRooflineMfu, OnlyMatmulAndInvalidInput) {
  const CliResult r = json_ok(mfu_args("10", "0", "0", "0", "0"));
  EXPECT_DOUBLE_EQ(num(r, "mfu"), 1.0);
  EXPECT_EQ(r.json.value("biggest_lever").toString(), "none");
  EXPECT_EQ(json_ok(mfu_args("1", "0", "0", "9", "0")).json.value("biggest_lever").toString(),
            "comms");
  expect_usage_error(mfu_args("0", "0", "0", "0", "0"), "matmul_seconds");
  expect_usage_error(mfu_args("1", "-1", "0", "0", "0"), "--vector-s");
  expect_usage_error(
      {"mfu", "--matmul-s", "1", "--vector-s", "1", "--memory-s", "1", "--comms-s", "1"},
      "--optimizer-s");
}

}  // namespace
