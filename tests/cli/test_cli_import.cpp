// import-run, parallel --emit and serve --emit (issue 25).
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>

#include "cli_runner.h"

namespace {

QString data(const char* name) {
  return QStringLiteral(NAPKIN_TEST_DATA "/frameworks/") + QString::fromLatin1(name);
}

// The ten single-node vTrain rows the README calibrates on, on the vTrain
// cluster, into `profile`.
CliResult calibrate_ten_vtrain_rows(const QString& profile, const char* bootstrap) {
  return run_cli({"calibrate", "--runs",
                  QStringLiteral(NAPKIN_TEST_DATA "/vtrain/single_node_runs.csv"), "--set",
                  "chip=A100-80,vocab=50304,recompute=full,framework=megatron-deepspeed", "--lines",
                  "21,59,63,74,78,103,106,123,237,242", "--gpus-per-node", "8",
                  "--scale-up-gb-per-s", "300", "--scale-out-gb-per-s", "12.5", "--bootstrap",
                  QString::fromLatin1(bootstrap), "-o", profile});
}

}  // namespace

TEST(CliImportRun, MegatronArgumentsAsJson) {
  const CliResult r = run_cli({"import-run", data("megatron-arguments.log"), "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  ASSERT_TRUE(r.json_ok);
  EXPECT_EQ(r.json["framework"].toString(), "megatron");
  EXPECT_EQ(r.json["layout"].toObject()["tp"].toInt(), 2);
  EXPECT_EQ(r.json["layout"].toObject()["dp"].toInt(), 16);
  EXPECT_EQ(r.json["model"].toObject()["layers"].toInt(), 32);
  EXPECT_EQ(r.json["chips"].toInt(), 64);
  EXPECT_TRUE(r.json["missing"].toArray().isEmpty());
}

TEST(CliImportRun, MissingItemsAreListedAndTheScenarioIsWritten) {
  QTemporaryDir dir;
  const QString out = dir.filePath("run.napkin.json");
  const CliResult r = run_cli({"import-run", data("torchtitan-llama3-70b.toml"), "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_TRUE(r.out.contains("tp=8,pp=4,vpp=2,dp=8")) << r.out.toStdString();
  EXPECT_TRUE(QFile::exists(out));
  const CliResult ds = run_cli({"import-run", data("deepspeed-zero1.json")});
  ASSERT_EQ(ds.exit_code, 0);
  EXPECT_TRUE(ds.out.contains("Missing (not guessed)"));
  EXPECT_TRUE(ds.out.contains("model shape:"));
}

TEST(CliImportRun, BadFileIsOneLineNamingTheLine) {
  QTemporaryDir dir;
  const QString bad = dir.filePath("bad.toml");
  QFile f(bad);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write("[training]\nseq_len = \"long\n");
  f.close();
  const CliResult r = run_cli({"import-run", bad});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("line 2")) << r.err.toStdString();
  EXPECT_EQ(r.err.trimmed().count('\n'), 0);
}

TEST(CliEmit, ParallelMegatronFlagsImportBack) {
  QTemporaryDir dir;
  const CliResult r =
      run_cli({"parallel", "--preset", "Llama-3-70B", "--chips", "512", "--layout",
               "tp=8,pp=4,vpp=5,zero=1,mb=1,recompute=selective", "--emit", "megatron", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QString text = r.json["emit"].toObject()["text"].toString();
  EXPECT_TRUE(text.contains("--tensor-model-parallel-size 8"));
  const QString script = dir.filePath("launch.sh");
  QFile f(script);
  ASSERT_TRUE(f.open(QIODevice::WriteOnly));
  f.write(text.toUtf8());
  f.close();
  const CliResult back = run_cli({"import-run", script, "--json"});
  ASSERT_EQ(back.exit_code, 0) << back.err.toStdString();
  EXPECT_EQ(back.json["layout_text"].toString(),
            "tp=8,pp=4,vpp=5,dp=16,cp=1,ep=1,zero=1,mb=1,sp=on,recompute=selective");
}

TEST(CliEmit, ServeVllm) {
  const CliResult r =
      run_cli({"serve", "--params", "70e9", "--chip", "H100", "--chips", "8", "--tp", "8",
               "--batch", "16", "--emit", "vllm", "--served-model", "meta-llama/Llama-3.1-70B"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  EXPECT_TRUE(r.out.contains("vllm serve meta-llama/Llama-3.1-70B"));
  EXPECT_TRUE(r.out.contains("--tensor-parallel-size 8"));
  EXPECT_TRUE(r.out.contains("--max-num-seqs 16"));
}

TEST(CliCalibrate, VtrainRowsToAProfile) {
  QTemporaryDir dir;
  const QString profile = dir.filePath("a100.profile.json");
  const CliResult r =
      run_cli({"calibrate",
               "--runs",
               QStringLiteral(NAPKIN_TEST_DATA "/vtrain/single_node_runs.csv"),
               "--set",
               "chip=A100-80,vocab=50304,recompute=full,framework=megatron-deepspeed",
               "--lines",
               "21,59,63,74,78,103,106,123,237,242",
               "--gpus-per-node",
               "8",
               "--scale-up-gb-per-s",
               "300",
               "--scale-out-gb-per-s",
               "12.5",
               "--bootstrap",
               "20",
               "--predict",
               QStringLiteral(NAPKIN_TEST_DATA "/vtrain/multi_node_runs_public.csv"),
               "-o",
               profile,
               "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  ASSERT_TRUE(r.json_ok);
  EXPECT_EQ(r.json["chip"].toString(), "A100-80");
  EXPECT_EQ(r.json["constants"].toArray().size(), 5);
  EXPECT_EQ(r.json["constants"].toArray()[0].toObject()["name"].toString(), "matmul_efficiency");
  EXPECT_DOUBLE_EQ(r.json["network"].toObject()["scale_out_gb_per_s"].toDouble(), 12.5);
  EXPECT_EQ(r.json["runs"].toArray().size(), 10);
  EXPECT_EQ(r.json["prediction"].toObject()["runs"].toInt(), 52);
  EXPECT_TRUE(r.json["errors"].toObject().contains("leave_one_out"));
  EXPECT_TRUE(QFile::exists(profile));
}

TEST(CliCalibrate, ParallelWithTheProfileSaysCalibrated) {
  QTemporaryDir dir;
  const QString profile = dir.filePath("a100.profile.json");
  const CliResult c = calibrate_ten_vtrain_rows(profile, "0");
  ASSERT_EQ(c.exit_code, 0) << c.err.toStdString();
  const QStringList job = {"parallel",
                           "--layers",
                           "24",
                           "--d-model",
                           "2048",
                           "--d-ff",
                           "8192",
                           "--heads",
                           "16",
                           "--vocab",
                           "50304",
                           "--chip",
                           "A100-80",
                           "--chips",
                           "8",
                           "--seq",
                           "1024",
                           "--global-batch",
                           "32",
                           "--software",
                           "megatron-deepspeed",
                           "--layout",
                           "tp=1,pp=4,dp=2,mb=2,zero=0,sp=off,recompute=full"};
  const CliResult plain = run_cli(job + QStringList{"--json"});
  const CliResult calibrated = run_cli(job + QStringList{"--cluster-profile", profile, "--json"});
  ASSERT_EQ(calibrated.exit_code, 0) << calibrated.err.toStdString();
  const QJsonObject k = calibrated.json["calibration"].toObject();
  EXPECT_TRUE(k["calibrated"].toBool());
  EXPECT_EQ(k["runs"].toInt(), 10);
  EXPECT_FALSE(plain.json["calibration"].toObject()["calibrated"].toBool());
  // The profile's cluster (12.5 GB/s scale-out) when no cluster flag is given.
  EXPECT_DOUBLE_EQ(calibrated.json["cluster"].toObject()["scale_out_gb_per_s"].toDouble(), 12.5);
  EXPECT_NE(calibrated.json["best"].toObject()["step_seconds"].toDouble(),
            plain.json["best"].toObject()["step_seconds"].toDouble());
  const CliResult text = run_cli(job + QStringList{"--cluster-profile", profile});
  EXPECT_TRUE(text.out.contains("calibrated on 10 runs")) << text.out.toStdString();
  QStringList h100 = job;
  h100[h100.indexOf("A100-80")] = "H100";
  const CliResult wrong = run_cli(h100 + QStringList{"--cluster-profile", profile});
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_TRUE(wrong.err.contains("was calibrated on A100-80")) << wrong.err.toStdString();
}

TEST(CliCalibrate, AMissingColumnIsOneLine) {
  const CliResult r = run_cli(
      {"calibrate", "--runs", QStringLiteral(NAPKIN_TEST_DATA "/vtrain/single_node_runs.csv")});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(r.err.contains("no column for chip")) << r.err.toStdString();
  EXPECT_EQ(r.err.trimmed().count('\n'), 0);
}

TEST(CliCalibrate, BudgetWithTheProfilePredictsACalibratedMfuAndItsRange) {
  QTemporaryDir dir;
  const QString profile = dir.filePath("a100.profile.json");
  const CliResult c = calibrate_ten_vtrain_rows(profile, "20");
  ASSERT_EQ(c.exit_code, 0) << c.err.toStdString();
  const QStringList run = {"budget",
                           "--chip",
                           "A100-80",
                           "--chips",
                           "64",
                           "--config",
                           QStringLiteral(NAPKIN_TEST_DATA "/configs/llama-3-8b.json")};
  const CliResult r = run_cli(run + QStringList{"--cluster-profile", profile, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err.toStdString();
  const QJsonObject k = r.json["calibration"].toObject();
  EXPECT_TRUE(k["calibrated"].toBool());
  EXPECT_EQ(k["runs"].toInt(), 10);
  EXPECT_FALSE(k["layout"].toString().isEmpty());
  const double mfu = r.json["mfu"].toDouble();
  EXPECT_DOUBLE_EQ(k["mfu"].toDouble(), mfu);
  EXPECT_GT(mfu, 0.05);
  // No step beats its GEMMs: the MFU stays below the fitted GEMM efficiency.
  QFile file(profile);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  double matmul_efficiency = 0;
  for (const QJsonValue constant : QJsonDocument::fromJson(file.readAll())["constants"].toArray())
    if (constant["name"].toString() == "matmul_efficiency")
      matmul_efficiency = constant["value"].toDouble();
  EXPECT_GT(matmul_efficiency, 0.5);
  EXPECT_LT(mfu, matmul_efficiency);
  EXPECT_LT(k["mfu_low"].toDouble(), mfu);
  EXPECT_GT(k["mfu_high"].toDouble(), mfu);
  // The fit's range is the planner's MFU range: the days spread.
  const QJsonObject days = r.json["ranges"].toObject()["days"].toObject();
  EXPECT_LT(days["p10"].toDouble(), days["p90"].toDouble());
  const CliResult text = run_cli(run + QStringList{"--cluster-profile", profile});
  EXPECT_TRUE(text.out.contains("calibrated on 10 runs")) << text.out.toStdString();

  const CliResult both = run_cli(run + QStringList{"--cluster-profile", profile, "--mfu", "0.4"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(both.err.contains("give --mfu or --cluster-profile")) << both.err.toStdString();
  const CliResult days_mode = run_cli({"budget", "--chip", "A100-80", "--chips", "64", "--days",
                                       "30", "--cluster-profile", profile});
  EXPECT_EQ(days_mode.exit_code, 2);
  EXPECT_TRUE(days_mode.err.contains("--config FILE")) << days_mode.err.toStdString();
  const CliResult h100 = run_cli({"budget", "--chip", "H100", "--chips", "64", "--config",
                                  QStringLiteral(NAPKIN_TEST_DATA "/configs/llama-3-8b.json"),
                                  "--cluster-profile", profile});
  EXPECT_EQ(h100.exit_code, 2);
  EXPECT_TRUE(h100.err.contains("was calibrated on A100-80")) << h100.err.toStdString();
}

// Issue 25, item 3: a chip of the user's data folder is a --chip like a
// built-in one; --chip-file adds one explicitly; a malformed file is named
// with its key and reason (ignored in the folder, an error when given).
TEST(CliImportRun, UserChipsFromTheDataFolderAndChipFile) {
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  ASSERT_TRUE(QDir(dir.path()).mkpath(QStringLiteral("chips")));
  const auto write = [](const QString& path, const QByteArray& text) {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write(text);
  };
  const QByteArray chip =
      R"({"name": "NAME", "like": "H100",
          "peak_tflops": {"value": 500, "kind": "measured", "source": "MAMF on our nodes"},
          "watts": {"value": 600, "kind": "datasheet", "source": "vendor sheet"}})";
  write(dir.filePath("chips/site.json"), QByteArray(chip).replace("NAME", "Site-H100"));
  write(dir.filePath("chips/broken.json"), R"({"name": "Broken", "like": "H100", "watts": 600})");
  write(dir.filePath("explicit.json"), QByteArray(chip).replace("NAME", "Explicit-H100"));
  qputenv("NAPKIN_DATA_DIR", dir.path().toLocal8Bit());
  const CliResult site = run_cli({"budget", "--chip", "Site-H100", "--json"});
  const CliResult h100 = run_cli({"budget", "--chip", "H100", "--json"});
  const CliResult given = run_cli({"budget", "--chip", "Explicit-H100", "--chip-file",
                                   dir.filePath("explicit.json"), "--json"});
  const CliResult missing = run_cli({"budget", "--chip", "Explicit-H100", "--json"});
  const CliResult bad =
      run_cli({"budget", "--chip-file=" + dir.filePath("chips/broken.json"), "--json"});
  qunsetenv("NAPKIN_DATA_DIR");
  ASSERT_EQ(site.exit_code, 0) << site.err.toStdString();
  ASSERT_EQ(h100.exit_code, 0) << h100.err.toStdString();
  // Half the peak: the same budget buys about half the FLOPs.
  const double ratio = site.json["flops"].toDouble() / h100.json["flops"].toDouble();
  EXPECT_NEAR(ratio, 500.0 / 990.0, 1e-6) << site.out.toStdString();
  EXPECT_TRUE(site.err.contains("ignored ")) << site.err.toStdString();
  EXPECT_TRUE(site.err.contains("broken.json: key \"watts\": expected {\"value\""))
      << site.err.toStdString();
  EXPECT_EQ(given.exit_code, 0) << given.err.toStdString();
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_TRUE(missing.err.contains("Site-H100")) << missing.err.toStdString();  // listed
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(bad.err.contains("--chip-file: ")) << bad.err.toStdString();
  EXPECT_TRUE(bad.err.contains("key \"watts\"")) << bad.err.toStdString();
}
