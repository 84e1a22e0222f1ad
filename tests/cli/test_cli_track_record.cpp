// napkin-cli parallel and the plan: a predicted MFU beside the band published
// runs like it measured (the scoreboard's training sets read back).
#include <gtest/gtest.h>

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>

#include "cli_test_util.h"
#include "hardware.h"
#include "track_record.h"

namespace {

using namespace napkin;

TEST(CliTrackRecord, TheBestLayoutsMfuBesideThePublishedRunsLikeIt) {
  const TrackRecord expected = training_track_record("modern", chip_by_name("H100"));
  const CliResult j = run_cli({"parallel", "--preset", "Llama-3-8B", "--chips", "64",
                               "--global-batch", "128", "--top", "3", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err.toStdString();
  ASSERT_TRUE(j.json_ok);
  const QJsonObject t = j.json["track_record"].toObject();
  const double mfu = j.json["best"].toObject()["mfu"].toDouble();
  EXPECT_EQ(t["scope"].toString(), QStringLiteral("Megatron-family frameworks on Hopper GPUs"));
  EXPECT_EQ(t["fallback"].toString(), QString());
  EXPECT_EQ(t["runs"].toInteger(), static_cast<qint64>(expected.rows));
  EXPECT_EQ(t["sets"].toArray().size(), static_cast<qsizetype>(expected.sets.size()));
  EXPECT_DOUBLE_EQ(t["mfu"].toDouble(), mfu);
  EXPECT_DOUBLE_EQ(t["mfu_low"].toDouble(), expected.measured_low(mfu));
  EXPECT_DOUBLE_EQ(t["mfu_high"].toDouble(), expected.measured_high(mfu));
  EXPECT_DOUBLE_EQ(t["p10_error"].toDouble(), expected.p10_error);
  EXPECT_DOUBLE_EQ(t["mean_signed_error"].toDouble(), expected.mean_signed_error);

  const CliResult text = run_cli({"parallel", "--preset", "Llama-3-8B", "--chips", "64",
                                  "--global-batch", "128", "--top", "3"});
  ASSERT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains(
      QStringLiteral("Published runs like it (Megatron-family frameworks on Hopper GPUs: ")))
      << text.out.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral("  measured MFU ")));
  EXPECT_TRUE(text.out.contains(QStringLiteral("Napkin's error")));

  // FSDP on Blackwell: no published run in the scoreboard, so the scope is
  // wider, and both forms say why.
  const CliResult wide =
      run_cli({"parallel", "--preset", "Llama-3-8B", "--chip", "B200", "--chips", "64",
               "--global-batch", "128", "--software", "fsdp", "--top", "1"});
  ASSERT_EQ(wide.exit_code, 0) << wide.err.toStdString();
  EXPECT_TRUE(wide.out.contains(QStringLiteral("PyTorch FSDP frameworks on every GPU")))
      << wide.out.toStdString();
  EXPECT_TRUE(
      wide.out.contains(QStringLiteral("wider than the plan's: fewer than 8 published "
                                       "runs of PyTorch FSDP frameworks on Blackwell")));
}

TEST(CliTrackRecord, AScenarioWithAPredictedMfuCarriesItsRange) {
  QTemporaryDir dir;
  const QString path = write_test_file(dir, "s.napkin.json", R"({"format": "napkin-scenario",
    "version": 2, "parallel": {"mfu_source": "predicted"}})");
  const CliResult j = run_cli(
      {QStringLiteral("parallel"), QStringLiteral("--scenario"), path, QStringLiteral("--json")});
  ASSERT_EQ(j.exit_code, 0) << j.err.toStdString();
  const QJsonObject plan = j.json["scenario"].toObject()["plan"].toObject();
  EXPECT_LT(plan["mfu_low"].toDouble(), plan["mfu"].toDouble());
  EXPECT_GT(plan["mfu_high"].toDouble(), plan["mfu"].toDouble());
  EXPECT_TRUE(
      plan["mfu_range_text"].toString().startsWith(QStringLiteral("published runs like it")));
  // The plan's track record is the detailed layout's.
  EXPECT_DOUBLE_EQ(j.json["track_record"].toObject()["mfu_low"].toDouble(),
                   plan["mfu_low"].toDouble());
  const CliResult text = run_cli({QStringLiteral("parallel"), QStringLiteral("--scenario"), path});
  ASSERT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral("  MFU range "))) << text.out.toStdString();
  // Said once: by the plan, which runs at this MFU.
  EXPECT_FALSE(text.out.contains(QStringLiteral("Published runs like it")));
  // An assumed MFU has no range of its own; the layout's band is printed.
  const QString assumed = write_test_file(dir, "a.napkin.json", R"({"format": "napkin-scenario",
    "version": 2})");
  const CliResult a = run_cli({QStringLiteral("parallel"), QStringLiteral("--scenario"), assumed});
  ASSERT_EQ(a.exit_code, 0) << a.err.toStdString();
  EXPECT_TRUE(a.out.contains(QStringLiteral("Published runs like it"))) << a.out.toStdString();
  EXPECT_FALSE(a.out.contains(QStringLiteral("  MFU range ")));
}

TEST(CliTrackRecord, AServingRunBesideThePublishedRunsLikeIt) {
  const QString config = QStringLiteral(NAPKIN_TEST_DATA "/configs/llama-3-70b.json");
  const QStringList base = {QStringLiteral("serve"),
                            QStringLiteral("--config"),
                            config,
                            QStringLiteral("--chip"),
                            QStringLiteral("H100"),
                            QStringLiteral("--chips"),
                            QStringLiteral("4"),
                            QStringLiteral("--prompt-tokens"),
                            QStringLiteral("1024"),
                            QStringLiteral("--decode-tokens"),
                            QStringLiteral("128"),
                            QStringLiteral("--mode"),
                            QStringLiteral("offline"),
                            QStringLiteral("--requests"),
                            QStringLiteral("200")};
  const TrackRecord expected = serving_track_record("tensorrt-llm", false, chip_by_name("H100"));
  const CliResult j = run_cli(base + QStringList{"--engine", "tensorrt-llm", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err.toStdString();
  const QJsonObject t = j.json["track_record"].toObject();
  const double per_chip = j.json["output_tokens_per_second_per_chip"].toDouble();
  EXPECT_EQ(t["scope"].toString().toStdString(), expected.scope);
  EXPECT_DOUBLE_EQ(t["output_tokens_per_second_per_chip"].toDouble(), per_chip);
  EXPECT_DOUBLE_EQ(t["output_tokens_per_second_per_chip_low"].toDouble(),
                   expected.measured_low(per_chip));
  EXPECT_DOUBLE_EQ(t["output_tokens_per_second_per_chip_high"].toDouble(),
                   expected.measured_high(per_chip));
  const CliResult text = run_cli(base + QStringList{"--engine", "vllm"});
  ASSERT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral("  runs like it ")));
  EXPECT_TRUE(text.out.contains(QStringLiteral("no published run of vllm in the scoreboard")))
      << text.out.toStdString();
  // A server run's throughput is its request rate's: no band.
  QStringList server = base;
  server[server.indexOf(QStringLiteral("offline"))] = QStringLiteral("server");
  const CliResult rate =
      run_cli(server + QStringList{"--engine", "tensorrt-llm", "--request-rate", "1", "--json"});
  ASSERT_EQ(rate.exit_code, 0) << rate.err.toStdString();
  EXPECT_FALSE(rate.json.contains(QStringLiteral("track_record")));
  // The ideal engine is a bound, not a prediction: no band.
  const CliResult ideal = run_cli(base + QStringList{"--json"});
  ASSERT_EQ(ideal.exit_code, 0) << ideal.err.toStdString();
  EXPECT_FALSE(ideal.json.contains(QStringLiteral("track_record")));
  // An offline run's first token waits in the queue: no first-token band.
  EXPECT_FALSE(j.json.contains(QStringLiteral("ttft_track_record")));
}

TEST(CliTrackRecord, AStaticBatchsFirstTokenBesideThePublishedFirstTokens) {
  const QStringList base = {QStringLiteral("serve"),
                            QStringLiteral("--config"),
                            QStringLiteral(NAPKIN_TEST_DATA "/configs/llama-3-8b.json"),
                            QStringLiteral("--chip"),
                            QStringLiteral("H100"),
                            QStringLiteral("--chips"),
                            QStringLiteral("1"),
                            QStringLiteral("--engine"),
                            QStringLiteral("tensorrt-llm"),
                            QStringLiteral("--mode"),
                            QStringLiteral("static"),
                            QStringLiteral("--batch"),
                            QStringLiteral("4"),
                            QStringLiteral("--prompt-tokens"),
                            QStringLiteral("2048"),
                            QStringLiteral("--decode-tokens"),
                            QStringLiteral("64"),
                            QStringLiteral("--overhead-s"),
                            QStringLiteral("0.1")};
  const TrackRecord expected =
      first_token_track_record("tensorrt-llm", false, chip_by_name("H100"));
  const CliResult j = run_cli(base + QStringList{"--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err.toStdString();
  const double p50 = j.json["ttft_seconds"].toObject()["p50"].toDouble();
  const QJsonObject t = j.json["ttft_track_record"].toObject();
  EXPECT_EQ(t["scope"].toString().toStdString(), expected.scope);
  EXPECT_DOUBLE_EQ(t["ttft_p50_seconds"].toDouble(), p50);
  // The stated overhead is the user's: the band spans the rest.
  EXPECT_DOUBLE_EQ(t["ttft_p50_seconds_low"].toDouble(), expected.measured_time_low(p50, 0.1));
  EXPECT_DOUBLE_EQ(t["ttft_p50_seconds_high"].toDouble(), expected.measured_time_high(p50, 0.1));
  EXPECT_GT(t["ttft_p50_seconds_high"].toDouble(), p50);  // Napkin's H100 first tokens run early
  const CliResult text = run_cli(base);
  ASSERT_EQ(text.exit_code, 0) << text.err.toStdString();
  EXPECT_TRUE(text.out.contains(QStringLiteral("  TTFT runs like it ")));
  EXPECT_TRUE(text.out.contains(QStringLiteral("the 100 ms overhead outside it")))
      << text.out.toStdString();
}

TEST(CliTrackRecord, ValidateReadsTheTrainingSetsBackByScope) {
  const std::vector<TrackRecord> scopes = track_record_scopes();
  // Megatron ×3 generations, DeepSpeed on Ampere, FSDP ×2, JAX/XLA on TPUs.
  ASSERT_EQ(scopes.size(), 7u);
  const CliResult j = run_cli({"validate", "--track-record", "--json"});
  ASSERT_EQ(j.exit_code, 0) << j.err.toStdString();
  EXPECT_EQ(j.json["serving_track_record"].toArray().size(),
            static_cast<qsizetype>(stored_serving_track_record_scopes().size()));
  EXPECT_EQ(j.json["first_token_track_record"].toArray().size(),
            static_cast<qsizetype>(first_token_track_record_scopes().size()));
  const QJsonArray rows = j.json["track_record"].toArray();
  ASSERT_EQ(rows.size(), static_cast<qsizetype>(scopes.size()));
  for (qsizetype i = 0; i < rows.size(); ++i) {
    const QJsonObject o = rows[i].toObject();
    const TrackRecord& t = scopes[static_cast<std::size_t>(i)];
    EXPECT_EQ(o["scope"].toString().toStdString(), t.scope);
    EXPECT_EQ(o["runs"].toInteger(), static_cast<qint64>(t.rows));
    EXPECT_DOUBLE_EQ(o["p90_error"].toDouble(), t.p90_error);
  }
  const CliResult bad = run_cli({"validate", "--track-record", "--set", "dgxc-h100"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.err.contains(QStringLiteral("drop --set and --rows"))) << bad.err.toStdString();
}

TEST(CliTrackRecord, TheReadmeShowsTheTableAsTheBuildComputesIt) {
  const QString shown = readme_block(QStringLiteral("$ napkin-cli validate --track-record"));
  const CliResult r = run_cli({"validate", "--track-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QString table = r.out.mid(r.out.indexOf(QStringLiteral("\nTraining MFU")) + 1);
  EXPECT_EQ(shown.toStdString(), table.toStdString())
      << "README.md's track-record block is stale: paste the table napkin-cli validate "
         "--track-record prints";
}

}  // namespace
